//! The cube as SVG: its four layers side by side, the bottom one on the left, each a 4x4 grid
//! with row 1 at the bottom; every legal move marked on its cell with its outcome (for Sogo, the
//! cell a stone dropped into each column would land on).

use super::board::{self, CELLS};
use super::probe::{CubeMove, CubeTablebase, Played};
use crate::picture::Draw;
use crate::picture::svg::{badge, caption, open, open_mark, verdict_or_unknown};
use crate::probe::Probed;
use std::fmt::Write;

const CELL: u32 = 46;
const MARGIN: u32 = 28;
/// Room between two layers.
const GAP: u32 = 30;
/// Room above the layers for their names.
const TOP: u32 = 44;
const CAPTION: u32 = 118;
const WHITE: &str = "#f5f5f0";
const BLACK: &str = "#222222";

/// The position as SVG (see [`Draw`]).
pub fn cube_svg<const GRAVITY: bool>(played: &Played<GRAVITY>, probed: &Probed<CubeMove<GRAVITY>>) -> String {
    let layer = 4 * CELL;
    let width = 2 * MARGIN + 4 * layer + 3 * GAP;
    let grid_bottom = TOP + layer;
    let height = grid_bottom + 34 + CAPTION;
    let centre = |index: u32| {
        let (x, y, z) = board::coordinates(index);
        (MARGIN + z * (layer + GAP) + x * CELL + CELL / 2, grid_bottom - y * CELL - CELL / 2)
    };
    let name = super::catalogue::name(GRAVITY);
    let moves: String = played.moves.iter().map(CubeMove::to_string).collect();
    let title = if moves.is_empty() { "the empty cube".to_string() } else { moves };
    let mut out = String::new();
    open(&mut out, width, height, &format!("{name}: {title}"));
    for z in 0..4 {
        let left = MARGIN + z * (layer + GAP);
        let _ = writeln!(
            out,
            "<text x=\"{}\" y=\"{}\" font-size=\"15\" fill=\"#444\" text-anchor=\"middle\">height {}</text>",
            left + layer / 2,
            TOP - 14,
            z + 1
        );
        let _ = writeln!(
            out,
            "<rect x=\"{left}\" y=\"{TOP}\" width=\"{layer}\" height=\"{layer}\" fill=\"#e8d9b5\" stroke=\"#8a6d3b\" stroke-width=\"2\"/>"
        );
        for k in 1..4 {
            let _ = writeln!(
                out,
                "<line x1=\"{0}\" y1=\"{TOP}\" x2=\"{0}\" y2=\"{grid_bottom}\" stroke=\"#8a6d3b\"/><line x1=\"{left}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\" stroke=\"#8a6d3b\"/>",
                left + k * CELL,
                TOP + k * CELL,
                left + layer
            );
        }
        for x in 0..4 {
            let _ = writeln!(
                out,
                "<text x=\"{}\" y=\"{}\" font-size=\"12\" fill=\"#666\" text-anchor=\"middle\">{}</text>",
                left + x * CELL + CELL / 2,
                grid_bottom + 16,
                char::from(b'a' + x as u8)
            );
        }
        for y in 0..4 {
            let _ = writeln!(
                out,
                "<text x=\"{}\" y=\"{}\" font-size=\"12\" fill=\"#666\" text-anchor=\"middle\">{}</text>",
                left - 9,
                grid_bottom - y * CELL - CELL / 2 + 4,
                y + 1
            );
        }
    }
    let p = &played.position;
    let first = p.first_player();
    for index in 0..CELLS {
        let bit = 1u64 << index;
        if p.mask & bit == 0 {
            continue;
        }
        let (x, y) = centre(index);
        let (class, fill, stroke) =
            if first & bit != 0 { ("stone white", WHITE, "#555") } else { ("stone black", BLACK, "#000") };
        let _ = writeln!(
            out,
            "<circle class=\"{class}\" cx=\"{x}\" cy=\"{y}\" r=\"{}\" fill=\"{fill}\" stroke=\"{stroke}\" stroke-width=\"1.5\"/>",
            CELL / 2 - 6
        );
    }
    for &(mv, value) in &probed.moves {
        let (x, y) = centre(u32::from(mv.0));
        open_mark(&mut out, &[(mv.to_string(), value)], "");
        badge(&mut out, f64::from(x), f64::from(y), value);
        out.push_str("</g>\n");
    }
    let side = if p.ply.is_multiple_of(2) { "White" } else { "Black" };
    let mut lines = vec![verdict_or_unknown(side, probed.value)];
    if p.is_won_by_previous() {
        lines[0] = format!("{side} to move has lost: the last move made four in a row");
    } else if p.ply == CELLS {
        lines[0] = format!("{side} to move: the cube is full, a draw");
    }
    lines.push(format!("{name}, ply {} of {CELLS}", p.ply));
    caption(&mut out, MARGIN, grid_bottom + 56, &lines);
    out.push_str("</svg>\n");
    out
}

impl<const GRAVITY: bool> Draw for CubeTablebase<GRAVITY> {
    fn svg(&self, played: &Played<GRAVITY>, probed: &Probed<CubeMove<GRAVITY>>) -> String {
        cube_svg(played, probed)
    }
}
