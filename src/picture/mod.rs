//! Pictures: a position as an SVG board with every legal move marked by what it gives
//! (`probe --svg`), and charts of the tables (`info --plot`).
//!
//! The boards are written by hand (a few dozen shapes whose geometry the games know); the
//! charts go through `plotters`, which does axes, ticks and legends properly.

mod plot;
pub mod svg;
mod tables;

pub use plot::{PlotError, StoneAxes, class_heat_map, distance_chart, outcome_chart};
pub use tables::{ChartError, plot, write_chart};

use crate::probe::{Probe, Probed};

/// A game whose positions can be drawn.
pub trait Draw: Probe {
    /// The position as a standalone SVG document (no external fonts or files): the board, each
    /// legal move marked in the colour of its outcome with its distance, and a caption with the
    /// side to move and the value.
    fn svg(&self, position: &Self::Position, probed: &Probed<Self::Move>) -> String;
}
