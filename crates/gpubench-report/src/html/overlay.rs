//! What plotters draws without: data marks that carry a native SVG `<title>` tooltip, direct
//! labels placed so that they do not overlap one another, and a legend laid out under the plot
//! area so that it never covers data. Plotters draws the axes, the grid and the lines; the
//! marks, labels and legend are written here in the same pixel space (mapped from data
//! coordinates with the chart's own `backend_coord`) and appended to its SVG.
//!
//! [`Overlay::finish`] also rewrites plotters' opening tag: the fixed `width` and `height` go
//! (the chart scales to its column through `viewBox` and CSS, never wider than drawn, so text
//! drawn at 12 px is at least 12 px on a normal page), and the chart gets `role="img"`, an
//! `aria-label`, a `<title>` and a `<desc>` that summarises what it draws, for screen readers.

use maud::{Markup, PreEscaped, html};
use plotters::style::RGBColor;

use crate::numbers::printable;

/// Font size of direct labels and legend text, in pixels.
const FONT: f64 = 12.0;
/// Height of one legend row, in pixels.
const LEGEND_ROW: i32 = 20;

/// A pixel rectangle: left, top, right, bottom.
pub(super) type PixelBox = (i32, i32, i32, i32);

/// The key drawn beside a legend entry.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Key {
    /// A solid line.
    Line(RGBColor),
    /// A dashed line.
    Dashed(RGBColor),
    /// A filled block (a bar).
    Block(RGBColor, f64),
    /// A point marker of the given shape (see [`Overlay::marker`]).
    Marker(RGBColor, usize),
}

/// Marks, labels and legend entries of one chart, in backend pixels.
#[derive(Debug, Default)]
pub struct Overlay {
    /// The data marks' elements, one a line, each written by a template (so markup).
    marks: String,
    /// The direct labels' and free texts' elements, likewise.
    labels: String,
    placed: Vec<PixelBox>,
    plots: Vec<PixelBox>,
    legend: Vec<(Key, String)>,
    later: Vec<((i32, i32), String)>,
    summary: Vec<String>,
}

/// Estimated width in pixels of `text` at `size` (the browser's sans-serif averages a little
/// over half the font size per character).
pub(super) fn text_width(text: &str, size: f64) -> i32 {
    (text.chars().count() as f64 * size * 0.58).ceil() as i32
}

fn hex(c: RGBColor) -> String {
    format!("#{:02X}{:02X}{:02X}", c.0, c.1, c.2)
}

fn overlaps(a: PixelBox, b: PixelBox) -> bool {
    a.0 < b.2 && b.0 < a.2 && a.1 < b.3 && b.1 < a.3
}

/// Appends `markup` to `out` as a line of its own.
fn push_line(out: &mut String, markup: Markup) {
    out.push_str(&markup.into_string());
    out.push('\n');
}

/// A point marker's element at `(x, y)` (see [`Overlay::marker`] for the shapes), of `class`,
/// with `tip` as its tooltip where given.
fn marker_shape(
    (x, y): (i32, i32),
    shape: usize,
    colour: RGBColor,
    (class, tip): (&str, Option<&str>),
) -> Markup {
    let hollow = shape % 8 >= 4;
    let fill = if hollow {
        "#fff".to_string()
    } else {
        hex(colour)
    };
    let stroke = hollow.then(|| hex(colour));
    let stroke_width = hollow.then_some("2");
    let title = html! {
        @if let Some(tip) = tip {
            title { (tip) }
        }
    };
    match shape % 4 {
        0 => html! {
            circle class=(class) cx=(x) cy=(y) r="4"
                fill=(fill) stroke=[stroke] stroke-width=[stroke_width] { (title) }
        },
        1 => html! {
            rect class=(class) x=(x - 4) y=(y - 4) width="8" height="8"
                fill=(fill) stroke=[stroke] stroke-width=[stroke_width] { (title) }
        },
        triangle_or_diamond => {
            let points = if triangle_or_diamond == 2 {
                format!("{x},{} {},{} {},{}", y - 5, x - 5, y + 4, x + 5, y + 4)
            } else {
                format!("{x},{} {},{y} {x},{} {},{y}", y - 5, x + 5, y + 5, x - 5)
            };
            html! {
                polygon class=(class) points=(points)
                    fill=(fill) stroke=[stroke] stroke-width=[stroke_width] { (title) }
            }
        }
    }
}

impl Overlay {
    /// Records a plot area (the rectangle inside the axes), written as an unfilled
    /// `<rect class="plot-area">` so that readers of the SVG can find it.
    pub fn plot_area(&mut self, (x, y): (std::ops::Range<i32>, std::ops::Range<i32>)) {
        self.plots.push((x.start, y.start, x.end, y.end));
    }

    /// A point marker at `p` with its tooltip: shape 0 a circle, 1 a square, 2 a triangle,
    /// 3 a diamond, 4 to 7 the same hollow (then round again).
    pub fn marker(&mut self, p: (i32, i32), shape: usize, colour: RGBColor, tip: &str) {
        let (x, y) = p;
        self.placed.push((x - 5, y - 5, x + 5, y + 5));
        push_line(
            &mut self.marks,
            marker_shape(p, shape, colour, ("mark", Some(tip))),
        );
    }

    /// A filled rectangle (a bar, a histogram bin or a best-rate tick) with its tooltip.
    pub fn rect(
        &mut self,
        corners: PixelBox,
        colour: RGBColor,
        opacity: f64,
        class: &str,
        tip: &str,
    ) {
        let (x0, y0, x1, y1) = corners;
        push_line(
            &mut self.marks,
            html! {
                rect class=(class) x=(x0.min(x1)) y=(y0.min(y1))
                    width=((x1 - x0).abs().max(1)) height=((y1 - y0).abs().max(1))
                    fill=(hex(colour)) fill-opacity=(opacity) { title { (tip) } }
            },
        );
    }

    /// A vertical whisker at pixel column `x` from `y0` to `y1`, capped at both ends.
    pub fn whisker(&mut self, x: i32, y0: i32, y1: i32) {
        let (left, right) = (x - 4, x + 4);
        push_line(
            &mut self.marks,
            html! {
                path class="whisker"
                    d=(format!("M{left} {y0}H{right}M{x} {y0}V{y1}M{left} {y1}H{right}"))
                    stroke="#000" fill="none" {}
            },
        );
    }

    /// Free text at `p` (anchor `start`, `middle` or `end`), not checked for overlap: axis-like
    /// text such as category names under bars.
    pub fn text(&mut self, p: (i32, i32), anchor: &str, size: f64, text: &str) {
        push_line(
            &mut self.labels,
            html! {
                text x=(p.0) y=(p.1) text-anchor=(anchor) font-family="sans-serif"
                    font-size=(size) fill="#222" { (text) }
            },
        );
        let w = text_width(text, size);
        let x0 = match anchor {
            "end" => p.0 - w,
            "middle" => p.0 - w / 2,
            _ => p.0,
        };
        self.placed.push((x0, p.1 - size as i32, x0 + w, p.1 + 2));
    }

    /// Labels the point `p` directly with `text`, beside it where the label overlaps no label
    /// or mark placed before and stays inside a plot area, nearest places first, with a leader
    /// line from the point where the label sits further off; leaves it out (the mark's tooltip
    /// still has it) where no such place exists. Returns whether it was placed.
    pub fn label(&mut self, p: (i32, i32), text: &str) -> bool {
        let w = text_width(text, FONT);
        let h = FONT as i32;
        let mut candidates = Vec::new();
        for dy in [-6, h + 4, -20, h + 18, -36, h + 34, -52, h + 50] {
            candidates.push((p.0 + 7, p.1 + dy));
            candidates.push((p.0 - 7 - w, p.1 + dy));
            if dy == h + 4 {
                candidates.push((p.0 - w / 2, p.1 - 10));
                candidates.push((p.0 - w / 2, p.1 + h + 8));
            }
        }
        for (x, y) in candidates {
            let bounds = (x - 1, y - h, x + w + 1, y + 2);
            let inside = self
                .plots
                .iter()
                .any(|a| bounds.0 >= a.0 && bounds.2 <= a.2 && bounds.1 >= a.1 && bounds.3 <= a.3);
            if !inside || self.placed.iter().any(|b| overlaps(*b, bounds)) {
                continue;
            }
            if (y - p.1).abs() > h + 8 {
                let lx = if x > p.0 { x } else { x + w };
                let ly = if y < p.1 { y + 2 } else { y - h };
                push_line(
                    &mut self.labels,
                    html! {
                        line class="leader" x1=(p.0) y1=(p.1) x2=(lx) y2=(ly)
                            stroke="#888" stroke-width="1" {}
                    },
                );
            }
            push_line(
                &mut self.labels,
                html! {
                    text class="label" x=(x) y=(y) font-family="sans-serif" font-size=(FONT)
                        fill="#111" stroke="#fff" stroke-width="3" paint-order="stroke" { (text) }
                },
            );
            self.placed.push(bounds);
            return true;
        }
        false
    }

    /// [`Overlay::label`], but placed after every label placed directly: for labels that
    /// matter less than the data's own (a roof's, whose value the legend also gives).
    pub fn label_later(&mut self, p: (i32, i32), text: &str) {
        self.later.push((p, text.to_string()));
    }

    /// Adds a legend entry.
    pub fn legend(&mut self, key: Key, text: impl Into<String>) {
        self.legend.push((key, text.into()));
    }

    /// Replaces the legend entries given so far with `entries`.
    pub fn replace_legend(&mut self, entries: Vec<(Key, String)>) {
        self.legend = entries;
    }

    /// How many legend entries there are so far.
    pub fn legend_len(&self) -> usize {
        self.legend.len()
    }

    /// Drops the legend entries after the first `len`.
    pub fn truncate_legend(&mut self, len: usize) {
        self.legend.truncate(len);
    }

    /// Adds a sentence to the chart's text alternative (its `<desc>`): a short data summary.
    pub fn describe(&mut self, text: impl Into<String>) {
        self.summary.push(text.into());
    }

    /// The legend's rows: entries flowed left to right within `width`, as (x, row, key, text);
    /// an entry too long for one row takes rows of its own, broken at spaces, with its key on
    /// the first (the others have none).
    fn legend_layout(&self, width: i32) -> Vec<(i32, i32, Option<Key>, String)> {
        let (mut x, mut row) = (12, 0);
        let mut out = Vec::new();
        let room = width - 24 - 46;
        for (key, text) in &self.legend {
            let w = 28 + text_width(text, FONT) + 18;
            if w - 46 > room {
                if x > 12 {
                    row += 1;
                }
                let max = (f64::from(room) / (FONT * 0.58)).floor().max(8.0) as usize;
                for (i, line) in wrap_words(text, max).into_iter().enumerate() {
                    out.push((12, row, (i == 0).then_some(*key), line));
                    row += 1;
                }
                x = 12;
                continue;
            }
            if x + w > width - 12 && x > 12 {
                x = 12;
                row += 1;
            }
            out.push((x, row, Some(*key), text.clone()));
            x += w;
        }
        out
    }

    /// The key of a legend entry whose row's middle is at `y`, starting at `x`.
    fn key(key: Key, x: i32, y: i32) -> Markup {
        match key {
            Key::Line(c) | Key::Dashed(c) => html! {
                line class="key" x1=(x) y1=(y) x2=(x + 20) y2=(y) stroke=(hex(c)) stroke-width="2"
                    stroke-dasharray=[matches!(key, Key::Dashed(_)).then_some("5 3")] {}
            },
            Key::Block(c, opacity) => html! {
                rect class="key" x=(x + 3) y=(y - 5) width="14" height="10" fill=(hex(c))
                    fill-opacity=(opacity) {}
            },
            Key::Marker(c, shape) => marker_shape((x + 10, y), shape, c, ("key", None)),
        }
    }

    /// The legend's entries as laid out by [`Self::legend_layout`], under `top` (the height
    /// plotters drew) in a box `width` wide and `height` high.
    fn legend_box(
        layout: &[(i32, i32, Option<Key>, String)],
        (width, top): (u32, u32),
        height: i32,
    ) -> Markup {
        html! {
            g class="legend" {
                rect class="legend-box" x="4" y=(top + 2) width=(width - 8) height=(height - 6)
                    fill="#fff" stroke="#999" {}
                "\n"
                @for (x, row, key, text) in layout {
                    @let y = top as i32 + 4 + LEGEND_ROW / 2 + row * LEGEND_ROW + 2;
                    @if let Some(key) = key {
                        (Self::key(*key, *x, y))
                        "\n"
                    }
                    text x=(*x + 26) y=(y + 4) font-family="sans-serif" font-size=(FONT)
                        fill="#222" { (text) }
                    "\n"
                }
            }
            "\n"
        }
    }

    /// The `<desc>` text: the summary sentences, the number of data marks and the legend.
    fn description(&self) -> String {
        let mut parts = self.summary.clone();
        let marks = self.marks.matches("class=\"mark").count();
        if marks > 0 {
            parts.push(format!(
                "{marks} data marks, each with its value as a tooltip."
            ));
        }
        if !self.legend.is_empty() {
            let entries: Vec<&str> = self.legend.iter().map(|(_, t)| t.as_str()).collect();
            parts.push(format!("Legend: {}.", entries.join("; ")));
        }
        parts.join(" ")
    }

    /// Writes the plot areas, marks, labels and the legend (under `top`, the height plotters
    /// drew) into `svg`, growing its height to fit the legend, and replaces plotters' opening
    /// tag with a scalable one (a `viewBox`, no fixed size) with `role="img"`, `alt` (the
    /// chart's text alternative) as its `aria-label` and `<title>`, and the summary as
    /// `<desc>`. The chart is made [`printable`], plotters' texts included.
    pub fn finish(mut self, svg: String, width: u32, top: u32, alt: &str) -> String {
        for (p, text) in std::mem::take(&mut self.later) {
            self.label(p, &text);
        }
        let layout = self.legend_layout(width as i32);
        let rows = layout.iter().map(|e| e.1 + 1).max().unwrap_or(0);
        let legend_h = if rows > 0 { rows * LEGEND_ROW + 12 } else { 0 };
        let height = top as i32 + legend_h;
        let (before, drawn, after) = plotters_content(&svg);
        let chart = html! {
            (PreEscaped(before))
            svg xmlns="http://www.w3.org/2000/svg" class="chart"
                viewBox={ "0 0 " (width) " " (height) } preserveAspectRatio="xMidYMid meet"
                style={ "width:100%;height:auto;max-width:" (width) "px" }
                role="img" aria-label=(alt) {
                "\n"
                title { (alt) }
                "\n"
                desc { (self.description()) }
                "\n"
                // Plotters' drawing: it escapes the texts it draws.
                (PreEscaped(drawn))
                @for (x0, y0, x1, y1) in &self.plots {
                    rect class="plot-area" x=(x0) y=(y0) width=(x1 - x0) height=(y1 - y0)
                        fill="none" stroke="none" {}
                    "\n"
                }
                // The overlay's own elements, each written by a template above.
                (PreEscaped(&self.marks))
                (PreEscaped(&self.labels))
                @if rows > 0 {
                    (Self::legend_box(&layout, (width, top), legend_h))
                }
            }
            (PreEscaped(after))
        };
        printable(&chart.into_string())
    }
}

/// What plotters drew in `svg` inside its `<svg>` element, with what comes before and after
/// that element (the whole of `svg` as the drawing where it has no such element).
fn plotters_content(svg: &str) -> (&str, &str, &str) {
    let open = svg
        .find("<svg")
        .and_then(|s| Some((s, s + svg[s..].find('>')? + 1)));
    match (open, svg.rfind("</svg>")) {
        (Some((start, end)), Some(close)) if close >= end => (
            &svg[..start],
            &svg[end..close],
            &svg[close + "</svg>".len()..],
        ),
        _ => ("", svg, ""),
    }
}

/// `text` in lines of at most `max` characters, broken at spaces (a word longer than `max`
/// stands on a line of its own).
fn wrap_words(text: &str, max: usize) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    for word in text.split(' ') {
        match lines.last_mut() {
            Some(line) if line.chars().count() + 1 + word.chars().count() <= max => {
                line.push(' ');
                line.push_str(word);
            }
            _ => lines.push(word.to_string()),
        }
    }
    lines
}

/// A tick label without spurious decimals: at most three significant digits, trailing zeros
/// dropped (`0.1`, `1`, `10`, `2.5`), exponent form beyond 10^6 and below 10^-3.
pub fn tick(v: f64) -> String {
    if v == 0.0 || !v.is_finite() {
        return if v == 0.0 { "0".into() } else { String::new() };
    }
    let a = v.abs();
    if !(1e-3..1e6).contains(&a) {
        let s = format!("{v:.2e}");
        let (mantissa, exp) = s.split_once('e').unwrap_or((&s, "0"));
        return format!("{}e{exp}", trim(mantissa));
    }
    let digits = (2 - a.log10().floor() as i32).max(0) as usize;
    trim(&format!("{v:.digits$}"))
}

fn trim(s: &str) -> String {
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ticks_have_no_spurious_decimals() {
        let cases = [
            (0.1, "0.1"),
            (1.0, "1"),
            (10.0, "10"),
            (100.0, "100"),
            (2.5, "2.5"),
            (0.0, "0"),
            (140.0, "140"),
            (1e7, "1e7"),
            (12.345, "12.3"),
        ];
        for (v, want) in cases {
            assert_eq!(tick(v), want, "{v}");
        }
    }

    #[test]
    fn a_legend_entry_wider_than_the_chart_wraps_inside_it() {
        let mut o = Overlay::default();
        o.legend(Key::Line(RGBColor(0, 0, 0)), "short");
        let long = "a-very-long-file-name: roof: 4.20 GB/s (roofline/ceiling/bandwidth), 56.9 GFLOP/s (roofline/ceiling/compute); ridge 13.5 FLOP/B";
        o.legend(Key::Line(RGBColor(0, 0, 0)), long);
        let layout = o.legend_layout(600);
        assert!(layout.len() > 2, "the long entry takes several rows");
        for (x, _, _, text) in &layout {
            assert!(x + 26 + text_width(text, FONT) <= 600 - 12, "{text}");
        }
        let keys = layout.iter().filter(|e| e.2.is_some()).count();
        assert_eq!(keys, 2, "one key per entry");
        let joined: Vec<&str> = layout[1..].iter().map(|e| e.3.as_str()).collect();
        assert_eq!(joined.join(" "), long);
    }

    #[test]
    fn labels_never_overlap_and_stay_inside_the_plot() {
        let mut o = Overlay::default();
        o.plot_area((0..400, 0..300));
        let placed: Vec<bool> = (0..40)
            .map(|_| o.label((200, 150), "a long label"))
            .collect();
        assert!(placed[0], "the first label fits");
        assert!(
            placed.iter().any(|p| !p),
            "forty labels at one point cannot all fit"
        );
        for (i, a) in o.placed.iter().enumerate() {
            assert!(a.0 >= 0 && a.2 <= 400 && a.1 >= 0 && a.3 <= 300);
            for b in &o.placed[i + 1..] {
                assert!(!overlaps(*a, *b), "{a:?} {b:?}");
            }
        }
    }
}
