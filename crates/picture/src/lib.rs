//! Charts of a game's tables as SVG documents (`tablebase info --plot`), drawn with `plotters`:
//! a distance histogram per complete table, the outcomes of all of them, and the charts a game
//! adds ([`tablebase::picture::Chart`]). Kept out of the `tablebase` library so that a program
//! that only generates or probes does not build a plotting library.

#![warn(missing_docs)]

mod plot;
mod tables;

pub use plot::{PlotError, StoneAxes, class_heat_map, distance_chart, outcome_chart};
pub use tables::{ChartError, plot, write_chart};

use tablebase::picture::Chart;

/// Draws a chart a game adds: its file name and SVG document.
pub fn draw(chart: &Chart) -> Result<(String, String), PlotError> {
    match chart {
        Chart::Classes { file, title, mover_axis, other_axis, least, most, classes } => {
            let axes = StoneAxes { mover: mover_axis, other: other_axis, least: *least, most: *most };
            Ok((file.clone(), class_heat_map(title, axes, classes)?))
        }
    }
}
