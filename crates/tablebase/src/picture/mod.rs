//! Pictures of positions: a position as an SVG board with every legal move marked by what it
//! gives (`probe --svg`), written by hand (a few dozen shapes whose geometry the games know).
//! The charts of the tables (`info --plot`) are drawn by the `tablebase-picture` crate, from
//! the figures a game gives as [`Chart`]s.

internal_mod!(svg);

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
    /// Outcomes as a heat map over the stones of each side: the Morris moving-phase classes by
    /// stones on the board, Lasker Morris's sectors by stones on the board and in hand.
    Classes {
        /// The chart's file name: `morris-classes.svg`.
        file: String,
        /// The title, naming the game.
        title: String,
        /// What the horizontal axis counts: `stones of the side to move`.
        mover_axis: String,
        /// What the vertical axis counts.
        other_axis: String,
        /// The smallest count on either axis.
        least: u32,
        /// The largest: the game's largest class or sector, whichever are on disk.
        most: u32,
        /// Each cell: stones of the side to move, of the other, and its counts.
        classes: Vec<(u32, u32, Counts)>,
    },
}
