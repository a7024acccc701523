//! The Connect Four grid as SVG.

use crate::picture::Draw;
use crate::picture::svg::{badge, caption, open, open_mark, verdict_or_unknown};
use super::{Column, Connect4Tablebase, Game, Geometry};
use crate::probe::Probed;
use std::fmt::Write;

const CELL: u32 = 64;
const MARGIN: u32 = 24;
/// Room above the grid for the moves' badges.
const TOP: u32 = 52;
const CAPTION: u32 = 118;
const FIRST: &str = "#d62828";
const SECOND: &str = "#f4c20d";

/// The Connect Four position as SVG (see [`Draw`]).
pub fn connect4_svg(g: Geometry, game: &Game, probed: &Probed<Column>) -> String {
    let width = (2 * MARGIN + g.width * CELL).max(440);
    let grid_left = (width - g.width * CELL) / 2;
    let grid_bottom = TOP + g.height * CELL;
    let height = grid_bottom + 28 + CAPTION;
    let centre =
        |column: u32, row: u32| (grid_left + column * CELL + CELL / 2, grid_bottom - row * CELL - CELL / 2);
    let moves = if game.moves.is_empty() { "the empty board".to_string() } else { game.moves.clone() };
    let mut out = String::new();
    open(&mut out, width, height, &format!("{} {g}: {moves}", super::catalogue::NAME));
    let _ = writeln!(
        out,
        "<rect x=\"{}\" y=\"{TOP}\" width=\"{}\" height=\"{}\" rx=\"10\" fill=\"#1d4e89\"/>",
        grid_left - 6,
        g.width * CELL + 12,
        g.height * CELL + 6
    );
    let p = &game.position;
    let first = p.first_player();
    for column in 0..g.width {
        for row in 0..g.height {
            let bit = 1u64 << (column * (g.height + 1) + row);
            let (x, y) = centre(column, row);
            let (class, fill) = if first & bit != 0 {
                (" class=\"disc first\"", FIRST)
            } else if p.mask & bit != 0 {
                (" class=\"disc second\"", SECOND)
            } else {
                ("", "#fbfaf6")
            };
            let _ = writeln!(
                out,
                "<circle{class} cx=\"{x}\" cy=\"{y}\" r=\"{}\" fill=\"{fill}\"/>",
                CELL / 2 - 7
            );
        }
        let (x, _) = centre(column, 0);
        let _ = writeln!(
            out,
            "<text x=\"{x}\" y=\"{}\" font-size=\"15\" fill=\"#666\" text-anchor=\"middle\">{}</text>",
            grid_bottom + 22,
            column + 1
        );
    }
    let mover = if p.ply.is_multiple_of(2) { FIRST } else { SECOND };
    for &(Column(column), value) in &probed.moves {
        let c = column - 1;
        let row = (p.mask & g.column(c)).count_ones();
        let (x, y) = centre(c, row);
        open_mark(&mut out, &[(column.to_string(), value)], "");
        // Where the stone would land, in the mover's colour, and the outcome above the column.
        let _ = writeln!(
            out,
            "<circle cx=\"{x}\" cy=\"{y}\" r=\"{}\" fill=\"{mover}\" fill-opacity=\"0.35\" stroke=\"{mover}\" stroke-width=\"2\" stroke-dasharray=\"4 3\"/>",
            CELL / 2 - 9
        );
        badge(&mut out, f64::from(x), f64::from(TOP / 2), value);
        out.push_str("</g>\n");
    }
    let side = if p.ply.is_multiple_of(2) { "First player (red)" } else { "Second player (yellow)" };
    let mut lines = vec![verdict_or_unknown(side, probed.value)];
    if p.ply == g.cells() && probed.moves.is_empty() {
        lines[0] = format!("{side} to move: the board is full, a draw");
    } else if p.is_won_by_previous(&g) {
        lines[0] = format!("{side} to move has lost: the last move made four");
    }
    lines.push(format!("Ply {} of {}", p.ply, g.cells()));
    caption(&mut out, MARGIN, grid_bottom + 50, &lines);
    out.push_str("</svg>\n");
    out
}

impl Draw for Connect4Tablebase {
    fn svg(&self, game: &Game, probed: &Probed<Column>) -> String {
        connect4_svg(self.geometry(), game, probed)
    }
}
