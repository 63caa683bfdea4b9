//! Item timelines (Gantt charts): for every result that kept the stages of a typical sample's
//! first items (`extra.item_timeline`, e.g. the requests of a data path), a bar per stage per
//! item on one time axis, so the page shows where each item's time went and how items
//! overlapped. Found by the `extra` entry, never by suite name; a result without one is not
//! drawn.

use gpubench_results::RunDocument;
use gpubench_results::item_timeline::ItemTimeline;
use maud::{Markup, html};

use super::overlay::tick;
use super::{charts, section_of};
use crate::numbers::sig3;

/// Width of a picture, of its item labels, and of the margin after the axis, in pixels.
const WIDTH: f64 = 640.0;
const LABEL: f64 = 90.0;
const RIGHT: f64 = 20.0;
/// Height of one item's row, and the gap under it.
const ROW: f64 = 14.0;
const GAP: f64 = 4.0;
/// Ticks on the time axis (about).
const TICKS: usize = 5;

/// A section of `doc`'s item timelines, one picture per result that has one; nothing where
/// none has.
pub fn section(title: &str, doc: &RunDocument) -> Markup {
    let drawn: Vec<(&str, ItemTimeline)> = doc
        .results
        .iter()
        .filter_map(|r| Some((r.id.as_str(), ItemTimeline::of(r)?)))
        .filter(|(_, t)| !t.items.is_empty())
        .collect();
    section_of(&format!("Item timelines{title}"), &drawn, |drawn| {
        html! {
            p class="note" {
                "Each row is one item (a request) of a typical sample (the one whose time is nearest \
                 the median), each bar one of its stages on the host clock, from the sample's first \
                 stage: where each item's time went, and which items overlapped. The suite's \
                 documentation says what each stage covers; hover a bar for its times."
            }
            "\n"
            @for (id, timeline) in drawn {
                h3 { (id) }
                "\n"
                (gantt(timeline))
                "\n"
            }
        }
    })
}

/// A step of about a fifth of `span` that is 1, 2 or 5 times a power of ten.
fn tick_step(span: f64) -> f64 {
    if span <= 0.0 || !span.is_finite() {
        return 1.0;
    }
    let rough = span / TICKS as f64;
    let power = 10f64.powf(rough.log10().floor());
    [1.0, 2.0, 5.0, 10.0]
        .into_iter()
        .map(|m| m * power)
        .find(|step| *step >= rough)
        .unwrap_or(10.0 * power)
}

/// One timeline's picture: a row per item, a bar per stage, a millisecond axis and a legend.
fn gantt(timeline: &ItemTimeline) -> Markup {
    let end_ms = timeline.end_us() / 1e3;
    let span = WIDTH - LABEL - RIGHT;
    let x = |us: f64| {
        LABEL
            + if end_ms > 0.0 {
                us / 1e3 / end_ms * span
            } else {
                0.0
            }
    };
    let stages = timeline.stages();
    let axis_y = timeline.items.len() as f64 * (ROW + GAP) + 4.0;
    let legend_y = axis_y + 32.0;
    let height = legend_y + 8.0;
    let step = tick_step(end_ms);
    let ticks: Vec<f64> = (0..)
        .map(|k| k as f64 * step)
        .take_while(|t| *t <= end_ms * 1.0001)
        .collect();
    let hex = |i: usize| {
        let c = charts::colour(i);
        format!("#{:02x}{:02x}{:02x}", c.0, c.1, c.2)
    };
    html! {
        svg xmlns="http://www.w3.org/2000/svg" width=(WIDTH) height=(height) role="img"
            aria-label="each item's stages as bars on one time axis" {
            @for (row, item) in timeline.items.iter().enumerate() {
                @let y = row as f64 * (ROW + GAP);
                text x="0" y=(y + 11.0) font-size="11" { "#" (item.item) }
                @for span in &item.spans {
                    @let colour = stages.iter().position(|s| *s == span.stage).unwrap_or(0);
                    rect x=(x(span.start_us)) y=(y) width=((x(span.end_us) - x(span.start_us)).max(0.5))
                        height=(ROW) fill=(hex(colour)) {
                        title {
                            "#" (item.item) " " (span.stage) ": " (sig3(span.start_us / 1e3)) " to "
                            (sig3(span.end_us / 1e3)) " ms (" (sig3((span.end_us - span.start_us) / 1e3))
                            " ms)"
                        }
                    }
                }
            }
            line x1=(LABEL) y1=(axis_y) x2=(LABEL + span) y2=(axis_y) stroke="#888" {}
            @for t in &ticks {
                line x1=(x(t * 1e3)) y1=(axis_y) x2=(x(t * 1e3)) y2=(axis_y + 4.0) stroke="#888" {}
                text x=(x(t * 1e3)) y=(axis_y + 15.0) font-size="10" text-anchor="middle" { (tick(*t)) }
            }
            text x=(LABEL + span) y=(axis_y + 27.0) font-size="10" text-anchor="end" {
                "ms (" (timeline.clock) " clock)"
            }
            @for (k, stage) in stages.iter().enumerate() {
                rect x=(LABEL + k as f64 * 110.0) y=(legend_y - 9.0) width="10" height="10" fill=(hex(k)) {}
                text x=(LABEL + k as f64 * 110.0 + 14.0) y=(legend_y) font-size="11" { (stage) }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use gpubench_results::item_timeline::{StageSpan, TimelineItem};

    #[test]
    fn tick_steps_are_round_and_about_a_fifth_of_the_span() {
        assert_eq!(tick_step(10.0), 2.0);
        assert_eq!(tick_step(86.0), 20.0);
        assert_eq!(tick_step(0.3), 0.1);
        assert_eq!(tick_step(0.0), 1.0);
    }

    #[test]
    fn every_span_is_a_bar_placed_on_the_axis() {
        let item = |item, spans: &[(&str, f64, f64)]| TimelineItem {
            item,
            spans: spans
                .iter()
                .map(|&(s, a, b)| StageSpan::new(s, a, b))
                .collect(),
        };
        let timeline = ItemTimeline {
            clock: "host".to_string(),
            items: vec![
                item(
                    7,
                    &[("prepare", 0.0, 2000.0), ("in-flight", 2000.0, 6000.0)],
                ),
                item(
                    8,
                    &[("prepare", 2000.0, 4000.0), ("check", 9000.0, 10000.0)],
                ),
            ],
        };
        let svg = gantt(&timeline).into_string();
        assert_eq!(
            svg.matches("<rect").count(),
            4 + 3,
            "4 bars and 3 legend keys: {svg}"
        );
        assert!(svg.contains("#8 check: 9.00 to 10.0 ms (1.00 ms)"), "{svg}");
        // The last bar ends at the axis's right end.
        let right = LABEL + (WIDTH - LABEL - RIGHT);
        assert!(
            svg.contains(&format!("x=\"{}\"", LABEL + 0.9 * (right - LABEL))),
            "{svg}"
        );
    }
}
