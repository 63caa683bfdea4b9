//! The stages of the items a sample carried, as the host clock saw them, and the timeline the
//! result keeps of one typical sample.
//!
//! A benchmark whose sample is whole items (requests through a data path) records each item's
//! stages with [`crate::SampleClock::record_item_stage`]. Of all timed samples the runner keeps
//! the one whose host time is nearest the median (a typical sample, not the luckiest or the
//! unluckiest), and [`timeline`] turns its first few items into the result's
//! [`ItemTimeline`]: times from the sample's first stage, in microseconds.

// web-time's Instant is std's natively; std's panics on wasm32-unknown-unknown.
use web_time::Instant;

use gpubench_results::item_timeline::{ItemTimeline, MAX_ITEMS, StageSpan, TimelineItem};

/// One stage of one item, on the host clock.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ItemStage {
    /// The item's number within the run.
    pub item: u64,
    /// The stage's name.
    pub stage: &'static str,
    /// When it started.
    pub start: Instant,
    /// When it ended.
    pub end: Instant,
}

/// The timeline of `stages` (one sample's): its first [`MAX_ITEMS`] items in the order they
/// started, each with its stages in the order they started; `None` when nothing was recorded.
pub fn timeline(stages: &[ItemStage]) -> Option<ItemTimeline> {
    let origin = stages.iter().map(|s| s.start).min()?;
    let mut ordered: Vec<&ItemStage> = stages.iter().collect();
    ordered.sort_by_key(|s| s.start);
    let micros = |t: Instant| t.saturating_duration_since(origin).as_secs_f64() * 1e6;
    let mut items: Vec<TimelineItem> = Vec::new();
    for s in ordered {
        let span = StageSpan::new(s.stage, micros(s.start), micros(s.end.max(s.start)));
        if let Some(item) = items.iter_mut().find(|i| i.item == s.item) {
            item.spans.push(span);
        } else if items.len() < MAX_ITEMS {
            items.push(TimelineItem {
                item: s.item,
                spans: vec![span],
            });
        }
    }
    Some(ItemTimeline {
        clock: "host".to_string(),
        items,
    })
}

/// The index of the sample whose time is nearest the median of `times` (the lower middle of
/// an even count); `None` for no samples.
pub fn typical(times: &[f64]) -> Option<usize> {
    let mut order: Vec<usize> = (0..times.len()).collect();
    order.sort_by(|&a, &b| times[a].total_cmp(&times[b]));
    order.get(order.len().checked_sub(1)? / 2).copied()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn the_timeline_orders_items_by_start_keeps_the_first_few_and_measures_from_the_first_stage() {
        let t0 = Instant::now();
        let at = |us: u64| t0 + Duration::from_micros(us);
        let mut stages = Vec::new();
        // Items recorded out of order, the way a pipeline retires them: item k prepares at
        // 100 + 10k us and is checked later.
        for k in (0..12u64).rev() {
            stages.push(ItemStage {
                item: k,
                stage: "check",
                start: at(500 + 10 * k),
                end: at(505 + 10 * k),
            });
            stages.push(ItemStage {
                item: k,
                stage: "prepare",
                start: at(100 + 10 * k),
                end: at(108 + 10 * k),
            });
        }
        let timeline = timeline(&stages).expect("stages were recorded");
        assert_eq!(timeline.items.len(), MAX_ITEMS);
        let numbers: Vec<u64> = timeline.items.iter().map(|i| i.item).collect();
        assert_eq!(numbers, (0..MAX_ITEMS as u64).collect::<Vec<_>>());
        let first = &timeline.items[0];
        assert_eq!(first.spans[0].stage, "prepare");
        assert!(first.spans[0].start_us.abs() < 1e-6);
        assert!((first.spans[1].start_us - 400.0).abs() < 1e-6);
        assert_eq!(timeline.stages(), ["prepare", "check"]);
        assert_eq!(super::timeline(&[]), None);
    }

    #[test]
    fn the_typical_sample_is_the_one_nearest_the_median() {
        assert_eq!(typical(&[5.0, 1.0, 9.0]), Some(0));
        assert_eq!(typical(&[4.0, 1.0, 9.0, 2.0]), Some(3));
        assert_eq!(typical(&[]), None);
    }
}
