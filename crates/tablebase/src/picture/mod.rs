//! Pictures of positions: a position as an SVG board with every legal move marked by what it
//! gives (`probe --svg`), written by hand (a few dozen shapes whose geometry the games know).
//! The charts of the tables (`info --plot`) are drawn by the `tablebase-picture` crate, from
//! the figures a game gives as [`Chart`]s.

pub mod svg;

use crate::table::Counts;

use crate::probe::{Probe, Probed};

/// A game whose positions can be drawn.
pub trait Draw: Probe {
    /// The position as a standalone SVG document (no external fonts or files): the board, each
    /// legal move marked in the colour of its outcome with its distance, and a caption with the
    /// side to move and the value.
    fn svg(&self, position: &Self::Position, probed: &Probed<Self::Move>) -> String;
}

/// A chart a game adds to those every table gets (`info --plot`), as the figures it shows; the
/// `tablebase-picture` crate draws it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Chart {
    /// The outcomes of the Morris moving-phase classes as a heat map by stones on the board.
    Classes {
        /// The chart's file name: `morris-classes.svg`.
        file: String,
        /// Each class: stones of the side to move, of the other, and its counts.
        classes: Vec<(u32, u32, Counts)>,
    },
}
