//! The tic-tac-toe board as SVG: the grid, the stones, and on each empty cell a mark in the
//! colour of what taking it gives.

use super::board::{Board, Cell};
use super::probe::{Played, TicTacToeTablebase};
use crate::picture::Draw;
use crate::picture::svg::{badge, caption, open, open_mark, outcome_colour, verdict_or_unknown};
use crate::probe::Probed;
use std::fmt::Write;

const CELL: u32 = 110;
const MARGIN: u32 = 40;
const CAPTION: u32 = 118;
const X_COLOUR: &str = "#1d4e89";
const O_COLOUR: &str = "#d62828";

/// The position as SVG (see [`Draw`]).
pub fn tictactoe_svg(played: &Played, probed: &Probed<Cell>) -> String {
    let width = (2 * MARGIN + 3 * CELL).max(440);
    let left = (width - 3 * CELL) / 2;
    let top = MARGIN;
    let bottom = top + 3 * CELL;
    let height = bottom + 34 + CAPTION;
    // Cell (column, row) with row 0 at the bottom.
    let centre = |cell: u8| {
        let (column, row) = Cell(cell).column_row();
        (left + u32::from(column) * CELL + CELL / 2, bottom - u32::from(row) * CELL - CELL / 2)
    };
    let moves: String = played.cells.iter().map(Cell::to_string).collect();
    let title = if moves.is_empty() { "the empty board".to_string() } else { moves };
    let mut out = String::new();
    open(&mut out, width, height, &format!("{}: {title}", super::catalogue::NAME));
    for k in 1..3 {
        let _ = writeln!(
            out,
            "<line x1=\"{x}\" y1=\"{top}\" x2=\"{x}\" y2=\"{bottom}\" stroke=\"#333\" stroke-width=\"4\" stroke-linecap=\"round\"/>\
             <line x1=\"{left}\" y1=\"{y}\" x2=\"{}\" y2=\"{y}\" stroke=\"#333\" stroke-width=\"4\" stroke-linecap=\"round\"/>",
            left + 3 * CELL,
            x = left + k * CELL,
            y = top + k * CELL,
        );
    }
    let board: &Board = &played.board;
    for cell in 0..9u8 {
        let (x, y) = centre(cell);
        let r = CELL / 2 - 22;
        if board.x >> cell & 1 == 1 {
            let _ = writeln!(
                out,
                "<path class=\"stone first\" d=\"M{} {} L{} {} M{} {} L{} {}\" stroke=\"{X_COLOUR}\" stroke-width=\"10\" stroke-linecap=\"round\"/>",
                x - r,
                y - r,
                x + r,
                y + r,
                x + r,
                y - r,
                x - r,
                y + r
            );
        } else if board.o >> cell & 1 == 1 {
            let _ = writeln!(
                out,
                "<circle class=\"stone second\" cx=\"{x}\" cy=\"{y}\" r=\"{r}\" fill=\"none\" stroke=\"{O_COLOUR}\" stroke-width=\"10\"/>"
            );
        }
    }
    for &(cell, value) in &probed.moves {
        let (x, y) = centre(cell.0);
        open_mark(&mut out, &[(cell.to_string(), value)], "");
        // The whole cell answers a click; the badge says what the move gives.
        let _ = writeln!(
            out,
            "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" rx=\"12\" fill=\"{}\" fill-opacity=\"0.12\"/>",
            x - CELL / 2 + 6,
            y - CELL / 2 + 6,
            CELL - 12,
            CELL - 12,
            outcome_colour(value)
        );
        badge(&mut out, f64::from(x), f64::from(y), value);
        out.push_str("</g>\n");
    }
    for column in 0..3u8 {
        let (x, _) = centre(column);
        let _ = writeln!(
            out,
            "<text x=\"{x}\" y=\"{}\" font-size=\"15\" fill=\"#666\" text-anchor=\"middle\">{}</text>",
            bottom + 22,
            (b'a' + column) as char
        );
    }
    for row in 0..3u8 {
        let (_, y) = centre(3 * row);
        let _ = writeln!(
            out,
            "<text x=\"{}\" y=\"{}\" font-size=\"15\" fill=\"#666\" text-anchor=\"middle\">{}</text>",
            left - 18,
            y + 5,
            row + 1
        );
    }
    let side = if board.first_to_move() { "X" } else { "O" };
    let first = if board.is_won_by_previous() {
        format!("{side} to move has lost: the last move made three in a row")
    } else if board.stones() == 9 {
        format!("{side} to move: the board is full, a draw")
    } else {
        verdict_or_unknown(side, probed.value)
    };
    caption(&mut out, MARGIN, bottom + 56, &[first, format!("Ply {} of 9", board.stones())]);
    out.push_str("</svg>\n");
    out
}

impl Draw for TicTacToeTablebase {
    fn svg(&self, played: &Played, probed: &Probed<Cell>) -> String {
        tictactoe_svg(played, probed)
    }
}
