//! Bar charts: bars grouped by category, one colour per group member (one member per file for
//! cross-card charts), each bar with its 95% whisker, its best sample ticked where known, and a
//! tooltip. Category names are written under the bars in whole lines (broken at `/`, `-`, `_`)
//! rather than cut or rotated, so every label stays readable.

use plotters::coord::types::RangedCoordf64;
use plotters::prelude::*;

use super::charts::{AXIS_FONT, Area, Chart2d, TICK_FONT, colour, err, svg};
use super::data::Bar;
use super::overlay::{Key, Overlay, tick};
use crate::ReportError;
use crate::numbers::sig3;

/// Font size of category labels.
const CATEGORY_FONT: f64 = 12.0;
/// Plotters' size of a panel's caption (14.5 px).
const PANEL_CAPTION_FONT: u32 = 18;
/// Most lines a category label takes.
const CATEGORY_LINES: usize = 3;

/// One panel of bars: its own axis and categories.
pub struct Panel<'a> {
    /// Caption above the panel.
    pub title: &'a str,
    /// Value axis label.
    pub unit: &'a str,
    /// Category names, one group of bars each.
    pub categories: &'a [String],
    /// `values[category][member]`.
    pub values: &'a [Vec<Option<Bar>>],
    /// The colour and opacity of (category, member).
    pub style: &'a dyn Fn(usize, usize) -> (RGBColor, f64),
}

impl Panel<'_> {
    fn top(&self) -> f64 {
        self.values
            .iter()
            .flatten()
            .flatten()
            .map(|b| b.high.max(b.value).max(b.best.unwrap_or(0.0)))
            .fold(0.0f64, f64::max)
    }

    /// The panel's text alternative: its title, its unit, and each category's medians by
    /// member (`members` names them; a missing bar reads "not drawn").
    pub fn alt(&self, members: &[String]) -> String {
        let rows: Vec<String> = self
            .categories
            .iter()
            .zip(self.values)
            .map(|(name, row)| {
                let cells: Vec<String> = row
                    .iter()
                    .enumerate()
                    .map(|(m, bar)| {
                        let value = bar
                            .as_ref()
                            .map_or("not drawn".to_string(), |b| sig3(b.value));
                        match members.get(m).filter(|_| members.len() > 1) {
                            Some(member) => format!("{member} {value}"),
                            None => value,
                        }
                    })
                    .collect();
                format!("{name}: {}", cells.join(", "))
            })
            .collect();
        format!(
            "Bar chart, {}: median {} with 95% intervals. {}.",
            self.title,
            self.unit,
            rows.join("; ")
        )
    }

    /// Whether any bar has a best sample to tick.
    pub fn has_best(&self) -> bool {
        self.values
            .iter()
            .flatten()
            .flatten()
            .any(|b| b.best.is_some())
    }
}

/// `label` broken into lines of at most `max` characters, after `/`, `-`, `_` or a space where it
/// can be, at most [`CATEGORY_LINES`] lines (the last ending in `…` when cut).
pub fn wrap(label: &str, max: usize) -> Vec<String> {
    let max = max.max(4);
    let mut pieces: Vec<String> = Vec::new();
    let mut piece = String::new();
    for ch in label.chars() {
        piece.push(ch);
        if matches!(ch, '/' | '-' | '_' | ' ') {
            pieces.push(std::mem::take(&mut piece));
        }
    }
    pieces.push(piece);
    let mut lines: Vec<String> = vec![String::new()];
    for piece in pieces.into_iter().filter(|p| !p.is_empty()) {
        for ch in piece.chars().collect::<Vec<_>>().chunks(max) {
            let part: String = ch.iter().collect();
            let last = lines
                .last_mut()
                .filter(|l| l.chars().count() + part.chars().count() <= max);
            match last {
                Some(line) => line.push_str(&part),
                None => lines.push(part),
            }
        }
    }
    if lines.len() > CATEGORY_LINES {
        lines.truncate(CATEGORY_LINES);
        if let Some(last) = lines.last_mut() {
            let keep: String = last.chars().take(max.saturating_sub(1)).collect();
            *last = format!("{keep}…");
        }
    }
    lines.into_iter().map(|l| l.trim().to_string()).collect()
}

/// Draws `panel` on `area`, marks and category labels into `overlay`.
pub fn draw_panel(area: &Area<'_>, overlay: &mut Overlay, panel: &Panel<'_>) -> Result<(), String> {
    let top = panel.top();
    if panel.categories.is_empty() || top.is_nan() || top <= 0.0 {
        return Ok(());
    }
    let n = panel.categories.len();
    let mut chart = ChartBuilder::on(area)
        .caption(panel.title, ("sans-serif", PANEL_CAPTION_FONT))
        .margin(12)
        .x_label_area_size(12 + 15 * CATEGORY_LINES as u32)
        .y_label_area_size(64)
        .build_cartesian_2d(0f64..n as f64, 0f64..(top * 1.12).min(f64::MAX))
        .map_err(err)?;
    chart
        .configure_mesh()
        .label_style(("sans-serif", TICK_FONT))
        .axis_desc_style(("sans-serif", AXIS_FONT))
        .disable_x_mesh()
        .light_line_style(WHITE)
        .x_labels(0)
        .x_label_formatter(&|_| String::new())
        .y_label_formatter(&|v| tick(*v))
        .y_desc(panel.unit)
        .draw()
        .map_err(err)?;
    let range = chart.plotting_area().get_pixel_range();
    overlay.plot_area(range.clone());
    let per_category = (range.0.end - range.0.start) / n as i32;
    let max_chars = (f64::from(per_category - 6) / (CATEGORY_FONT * 0.58)) as usize;
    for (c, name) in panel.categories.iter().enumerate() {
        let x = chart.backend_coord(&(c as f64 + 0.5, 0.0)).0;
        for (line, text) in wrap(name, max_chars).iter().enumerate() {
            let y = range.1.end + 16 + 14 * line as i32;
            overlay.text((x, y), "middle", CATEGORY_FONT, text);
        }
        let members = panel.values.get(c).map_or(0, Vec::len);
        for (m, bar) in panel.values.get(c).into_iter().flatten().enumerate() {
            if let Some(bar) = bar {
                let (col, opacity) = (panel.style)(c, m);
                draw_bar(&chart, overlay, (c, m, members), bar, (col, opacity));
            }
        }
    }
    Ok(())
}

type BarChart<'a, 'b> = Chart2d<'a, 'b, RangedCoordf64, RangedCoordf64>;

/// One bar of category `c`, member `m` of `members`: the bar, its whisker and its best tick.
fn draw_bar(
    chart: &BarChart<'_, '_>,
    overlay: &mut Overlay,
    (c, m, members): (usize, usize, usize),
    bar: &Bar,
    (col, opacity): (RGBColor, f64),
) {
    let share = 0.8 / members.max(1) as f64;
    let x0 = c as f64 + 0.1 + share * m as f64;
    let x1 = x0 + share * 0.92;
    let a = chart.backend_coord(&(x0, 0.0));
    let b = chart.backend_coord(&(x1, bar.value));
    overlay.rect((a.0, b.1, b.0, a.1), col, opacity, "mark", &bar.tip);
    if bar.high > bar.low {
        let x = (a.0 + b.0) / 2;
        let low = chart.backend_coord(&(x0, bar.low)).1;
        let high = chart.backend_coord(&(x0, bar.high)).1;
        overlay.whisker(x, low, high);
    }
    if let Some(best) = bar.best {
        let y = chart.backend_coord(&(x0, best)).1;
        let first = bar.tip.lines().next().unwrap_or_default();
        let tip = format!(
            "best sample (the fastest; max rate): {}\n{first}\nmedian {}",
            sig3(best),
            sig3(bar.value)
        );
        overlay.rect((a.0, y - 2, b.0, y + 2), BLACK, 1.0, "mark best", &tip);
    }
}

/// The legend entries every bar chart shares: the whisker and, where drawn, the best tick.
pub fn common_legend(overlay: &mut Overlay, has_best: bool) {
    overlay.legend(Key::Line(BLACK), "whisker: 95% CI of the median");
    if has_best {
        overlay.legend(
            Key::Block(BLACK, 1.0),
            "tick: best sample (fastest; max rate, as BabelStream and STREAM report)",
        );
    }
}

/// Bars with 95% confidence whiskers, grouped by category; one colour per group member (one
/// member per file for cross-card charts). `unit` labels the value axis.
pub fn bars(
    title: &str,
    unit: &str,
    categories: &[String],
    members: &[String],
    values: &[Vec<Option<Bar>>],
) -> Result<Option<String>, ReportError> {
    let style = |_: usize, m: usize| (colour(m), 0.85);
    let panel = Panel {
        title,
        unit,
        categories,
        values,
        style: &style,
    };
    let top = panel.top();
    if categories.is_empty() || top.is_nan() || top <= 0.0 {
        return Ok(None);
    }
    svg(&panel.alt(members), |root, overlay| {
        draw_panel(root, overlay, &panel)?;
        if members.len() > 1 {
            for (m, member) in members.iter().enumerate() {
                overlay.legend(Key::Block(colour(m), 0.85), member.clone());
            }
        }
        common_legend(overlay, panel.has_best());
        Ok(())
    })
    .map(Some)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_wrap_at_separators_and_never_exceed_the_width() {
        assert_eq!(wrap("copy/vec4-f32/16MiB", 10), ["copy/vec4-", "f32/16MiB"]);
        assert_eq!(wrap("triad", 10), ["triad"]);
        let long = wrap("a/very/long/label/that/goes/on/and/on", 6);
        assert_eq!(long.len(), CATEGORY_LINES);
        assert!(long.iter().all(|l| l.chars().count() <= 6), "{long:?}");
        assert!(long[CATEGORY_LINES - 1].ends_with('…'));
    }
}
