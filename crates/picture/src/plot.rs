//! Charts of the tables, drawn with `plotters` into SVG: the distance histogram of a table,
//! the outcomes of every table of a catalogue, and the Morris classes as a heat map.

use plotters::prelude::*;
use std::fmt;
use tablebase::Value;
use tablebase::picture::svg::outcome_colour;
use tablebase::table::{Counts, Distances};

/// A chart could not be drawn (a plotting error, reported as text).
#[derive(Debug)]
pub struct PlotError(
    /// What went wrong.
    pub String,
);

impl fmt::Display for PlotError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "cannot draw the chart: {}", self.0)
    }
}

impl std::error::Error for PlotError {}

impl<E: std::error::Error + Send + Sync> From<DrawingAreaErrorKind<E>> for PlotError {
    fn from(e: DrawingAreaErrorKind<E>) -> PlotError {
        PlotError(e.to_string())
    }
}

fn colour(value: Value) -> RGBColor {
    let hex = outcome_colour(value).trim_start_matches('#');
    let byte = |k: usize| u8::from_str_radix(&hex[k..k + 2], 16).unwrap_or(0);
    RGBColor(byte(0), byte(2), byte(4))
}

const FONT: &str = "sans-serif";

/// The histogram of a table's distances: entries won and lost in n plies, on a log scale.
pub fn distance_chart(title: &str, distances: &Distances) -> Result<String, PlotError> {
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (820 + LEGEND_WIDTH, 440)).into_drawing_area();
        root.fill(&WHITE)?;
        let (root, side) = root.split_horizontally(820);
        let longest = distances.wins.len().max(distances.losses.len()).max(2) as f64;
        let most = distances.wins.iter().chain(&distances.losses).copied().max().unwrap_or(1).max(1) as f64;
        let caption = format!("{title}: distances ({} drawn)", group_digits(distances.draws));
        let mut chart = ChartBuilder::on(&root)
            .caption(caption, (FONT, 20))
            .margin(14)
            .x_label_area_size(44)
            .y_label_area_size(80)
            .build_cartesian_2d(-0.5f64..longest - 0.5, (0.7f64..most * 2.0).log_scale())
            .map_err(PlotError::from)?;
        chart
            .configure_mesh()
            .disable_x_mesh()
            .x_desc("plies to the end of the game")
            .y_desc("positions (log scale)")
            .x_label_formatter(&|x| format!("{x:.0}"))
            // Ticks and labels at the powers of ten only: the default puts a line at every
            // 2..9 times a power as well, a dozen unlabelled lines a decade.
            .y_labels(2 + decades(most))
            .y_label_formatter(&|y| power_of_ten(*y).map_or(String::new(), group_digits))
            .light_line_style(TRANSPARENT)
            .label_style((FONT, 14))
            .axis_desc_style((FONT, 15))
            .draw()?;
        for (series, value) in [(&distances.wins, Value::Win(1)), (&distances.losses, Value::Loss(2))] {
            let fill = colour(value).filled();
            chart.draw_series(series.iter().enumerate().filter(|&(_, &c)| c > 0).map(|(n, &c)| {
                Rectangle::new([(n as f64 - 0.42, 0.7), (n as f64 + 0.42, c as f64)], fill)
            }))?;
        }
        legend(&side, &[(Value::Win(1), "won in n plies"), (Value::Loss(2), "lost in n plies")])?;
        root.present()?;
    }
    Ok(svg)
}

/// Wins, draws and losses of every table, as shares of its positions, side by side.
pub fn outcome_chart(title: &str, tables: &[(String, Counts)]) -> Result<String, PlotError> {
    let mut svg = String::new();
    {
        let width = (160 + 26 * tables.len() as u32).clamp(640, 1800);
        let root = SVGBackend::with_string(&mut svg, (width + LEGEND_WIDTH, 440)).into_drawing_area();
        root.fill(&WHITE)?;
        let (root, side) = root.split_horizontally(width);
        let names: Vec<&str> = tables.iter().map(|(name, _)| name.as_str()).collect();
        let mut chart = ChartBuilder::on(&root)
            .caption(format!("{title}: outcomes for the side to move"), (FONT, 20))
            .margin(14)
            .x_label_area_size(60)
            .y_label_area_size(60)
            .build_cartesian_2d(-0.5f64..tables.len() as f64 - 0.5, 0f64..100f64)
            .map_err(PlotError::from)?;
        chart
            .configure_mesh()
            .disable_x_mesh()
            .x_labels(tables.len().min(60))
            .x_label_formatter(&|x| {
                let k = x.round();
                if (x - k).abs() < 1e-6 && k >= 0.0 {
                    names.get(k as usize).map_or(String::new(), |n| n.to_string())
                } else {
                    String::new()
                }
            })
            .y_desc("share of positions (%)")
            .y_labels(11)
            .y_label_formatter(&|y| format!("{y:.0}"))
            .light_line_style(TRANSPARENT)
            .label_style((FONT, 12))
            .axis_desc_style((FONT, 15))
            .draw()?;
        let words = [(Value::Win(1), "won"), (Value::Draw, "drawn"), (Value::Loss(2), "lost")];
        for (value, _) in words {
            let fill = colour(value).filled();
            let bars = tables.iter().enumerate().filter_map(move |(k, (_, c))| {
                let total = c.positions() as f64;
                if total == 0.0 {
                    return None;
                }
                let (below, part) = match value {
                    Value::Win(_) | Value::WinUnknown => (0.0, c.win as f64),
                    Value::Draw => (c.win as f64, c.draw as f64),
                    Value::Loss(_) | Value::LossUnknown => ((c.win + c.draw) as f64, c.loss as f64),
                };
                let (low, high) = (100.0 * below / total, 100.0 * (below + part) / total);
                Some(Rectangle::new([(k as f64 - 0.4, low), (k as f64 + 0.4, high)], fill))
            });
            chart.draw_series(bars)?;
        }
        legend(&side, &words)?;
        root.present()?;
    }
    Ok(svg)
}

/// The axes of a heat map of Morris stones: what each counts, and the counts from `least` to
/// `most` on both, which the game gives (its largest class or sector), so that a chart of a
/// game with 12 stones a side reaches 12-12 even while only its small classes are on disk.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StoneAxes<'a> {
    /// What the horizontal axis counts: `stones of the side to move`.
    pub mover: &'a str,
    /// What the vertical axis counts.
    pub other: &'a str,
    /// The smallest count on either axis.
    pub least: u32,
    /// The largest.
    pub most: u32,
}

/// Three heat maps over (stones of the side to move, stones of the other) as `axes` counts
/// them: the share of positions won, drawn and lost by the side to move. `cells` holds
/// `(mover, other, counts)` of every complete class or group of sectors; `title` names the game.
pub fn class_heat_map(
    title: &str,
    axes: StoneAxes,
    cells: &[(u32, u32, Counts)],
) -> Result<String, PlotError> {
    let StoneAxes { least, most, .. } = axes;
    let most = most.max(least);
    let span = (most - least + 1) as usize;
    let (low, high) = (f64::from(least) - 0.5, f64::from(most) + 0.5);
    // Wide enough for three digits in each cell of the largest game (10 counts a side).
    let width = (3 * (120 + 34 * span as u32)).max(1260);
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (width, 470)).into_drawing_area();
        root.fill(&WHITE)?;
        let (top, panels) = root.split_vertically(46);
        top.draw(&Text::new(title.to_string(), (20, 14), (FONT, 20).into_font()))?;
        for (panel, (value, word)) in panels.split_evenly((1, 3)).iter().zip([
            (Value::Win(1), "won"),
            (Value::Draw, "drawn"),
            (Value::Loss(2), "lost"),
        ]) {
            let base = colour(value);
            let mut chart = ChartBuilder::on(panel)
                .caption(format!("% {word}"), (FONT, 17))
                .margin(10)
                .x_label_area_size(44)
                .y_label_area_size(48)
                .build_cartesian_2d(low..high, low..high)
                .map_err(PlotError::from)?;
            chart
                .configure_mesh()
                .disable_mesh()
                .x_labels(span)
                .y_labels(span)
                .x_label_formatter(&whole_number)
                .y_label_formatter(&whole_number)
                .x_desc(axes.mover)
                .y_desc(axes.other)
                .label_style((FONT, 13))
                .axis_desc_style((FONT, 13))
                .draw()?;
            for &(mover, other, ref counts) in cells {
                let total = counts.positions() as f64;
                if total == 0.0 {
                    continue;
                }
                let part = match value {
                    Value::Win(_) | Value::WinUnknown => counts.win,
                    Value::Draw => counts.draw,
                    Value::Loss(_) | Value::LossUnknown => counts.loss,
                } as f64
                    / total;
                let (x, y) = (f64::from(mover), f64::from(other));
                let shade = mix(base, part);
                chart.draw_series(std::iter::once(Rectangle::new(
                    [(x - 0.48, y - 0.48), (x + 0.48, y + 0.48)],
                    shade.filled(),
                )))?;
                let ink = if part > 0.55 { WHITE } else { BLACK };
                chart.draw_series(std::iter::once(Text::new(
                    format!("{:.0}", 100.0 * part),
                    (x - 0.2, y + 0.12),
                    (FONT, 13).into_font().color(&ink),
                )))?;
            }
        }
        root.present()?;
    }
    Ok(svg)
}

/// A tick's label where it falls on a whole number, else none: a tick between two counts of
/// stones would name no class.
fn whole_number(x: &f64) -> String {
    let k = x.round();
    if (x - k).abs() < 1e-6 { format!("{k:.0}") } else { String::new() }
}

/// Width of the strip right of a chart that holds its legend: outside the plotting area, so
/// that the legend never covers a bar.
const LEGEND_WIDTH: u32 = 170;

/// The legend: a swatch and a word per series, at the top of the strip `side`.
fn legend<DB: DrawingBackend>(
    side: &DrawingArea<DB, plotters::coord::Shift>,
    entries: &[(Value, &str)],
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    for (k, &(value, word)) in entries.iter().enumerate() {
        let y = 60 + 24 * k as i32;
        side.draw(&Rectangle::new([(8, y - 7), (22, y + 7)], colour(value).filled()))?;
        side.draw(&Text::new(word.to_string(), (30, y - 8), (FONT, 14).into_font()))?;
    }
    Ok(())
}

/// The whole decades from 1 up to `most`.
fn decades(most: f64) -> usize {
    most.max(1.0).log10().floor() as usize
}

/// `y` as a whole power of ten (1, 10, 100, ...) when it is one.
fn power_of_ten(y: f64) -> Option<u64> {
    let exponent = y.log10().round();
    let power = 10f64.powf(exponent);
    ((y - power).abs() <= power * 1e-9 && (0.0..=19.0).contains(&exponent)).then_some(power as u64)
}

/// `base` at strength `part` (0: white, 1: the full colour).
fn mix(base: RGBColor, part: f64) -> RGBColor {
    let channel = |c: u8| (255.0 - (255.0 - f64::from(c)) * part.clamp(0.0, 1.0)).round() as u8;
    RGBColor(channel(base.0), channel(base.1), channel(base.2))
}

/// `1234567` as `1,234,567`.
fn group_digits(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (k, c) in digits.chars().enumerate() {
        if k > 0 && (digits.len() - k).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}
