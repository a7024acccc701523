//! The Morris board as SVG.

use crate::picture::Draw;
use crate::picture::svg::{badge, caption, open, open_mark, outcome_colour, verdict_or_unknown};
use super::board::{POINT_COUNT, POINT_NAMES};
use super::position::{Color, Move, NO_POINT, Position};
use super::variant::{MorrisRules, MorrisVariant};
use super::{MorrisTablebase, PositionText};
use crate::probe::Probed;
use crate::value::Value;
use std::collections::BTreeMap;
use std::fmt::Write;

const STEP: f64 = 64.0;
const MARGIN: f64 = 56.0;
const SIZE: u32 = (2.0 * MARGIN + 6.0 * STEP) as u32;
const CAPTION: u32 = 118;

/// Where point `p` is drawn: files a..g left to right, ranks 7..1 top to bottom.
fn at(p: usize) -> (f64, f64) {
    let name = POINT_NAMES[p].as_bytes();
    let file = f64::from(name[0] - b'a');
    let rank = f64::from(name[1] - b'1');
    (MARGIN + file * STEP, MARGIN + (6.0 - rank) * STEP)
}

/// The position of variant `rules` as SVG (see [`Draw`]).
pub fn morris_svg(position: &Position, probed: &Probed<Move>, rules: &MorrisRules) -> String {
    let mut out = String::new();
    open(&mut out, SIZE, SIZE + CAPTION, &format!("{}: {}", rules.name, PositionText(position)));
    out.push_str("<defs>\n");
    for value in [Value::Win(1), Value::Draw, Value::Loss(2)] {
        let colour = outcome_colour(value);
        let _ = writeln!(
            out,
            "<marker id=\"head-{}\" viewBox=\"0 0 10 10\" refX=\"8\" refY=\"5\" markerWidth=\"5\" markerHeight=\"5\" orient=\"auto\"><path d=\"M0,0 L10,5 L0,10 z\" fill=\"{colour}\"/></marker>",
            value.word()
        );
    }
    out.push_str("</defs>\n");
    board(&mut out, rules);
    stones(&mut out, position);
    let flying = flies(position, rules);
    marks(&mut out, probed, flying);
    let mut lines = vec![verdict_or_unknown(position.to_move.name(), probed.value)];
    if !position.is_moving_phase() {
        lines.push(format!("In hand: White {}, Black {}", position.hand[0], position.hand[1]));
    }
    if flying {
        let name = position.to_move.name();
        lines.push(if position.hand[position.to_move.index()] > 0 {
            format!("{name} places or flies: each point shows its best move")
        } else {
            format!("{name} flies: each empty point shows the best flight to it")
        });
    }
    caption(&mut out, MARGIN as u32 - 30, SIZE + 6, &lines);
    out.push_str("</svg>\n");
    out
}

/// The three squares and the lines that join them (with the diagonals where the variant has
/// them), the points, and the coordinates.
fn board(out: &mut String, rules: &MorrisRules) {
    out.push_str("<g stroke=\"#3d3d3d\" stroke-width=\"3\" stroke-linecap=\"round\">\n");
    for p in 0..POINT_COUNT {
        for q in (p + 1)..POINT_COUNT {
            if rules.adjacent[p] & (1 << q) != 0 {
                let ((x1, y1), (x2, y2)) = (at(p), at(q));
                let _ = writeln!(out, "<line x1=\"{x1}\" y1=\"{y1}\" x2=\"{x2}\" y2=\"{y2}\"/>");
            }
        }
    }
    out.push_str("</g>\n<g fill=\"#3d3d3d\">\n");
    for p in 0..POINT_COUNT {
        let (x, y) = at(p);
        let _ = writeln!(out, "<circle cx=\"{x}\" cy=\"{y}\" r=\"5\"/>");
    }
    out.push_str("</g>\n<g font-size=\"14\" fill=\"#666\" text-anchor=\"middle\">\n");
    for k in 0..7u8 {
        let x = MARGIN + f64::from(k) * STEP;
        let y = MARGIN + f64::from(k) * STEP;
        let _ =
            writeln!(out, "<text x=\"{x}\" y=\"{}\">{}</text>", f64::from(SIZE) - 18.0, (b'a' + k) as char);
        let _ = writeln!(out, "<text x=\"20\" y=\"{}\">{}</text>", y + 5.0, 7 - k);
    }
    out.push_str("</g>\n");
}

fn stones(out: &mut String, position: &Position) {
    for (color, fill, stroke) in [(Color::White, "#f7f3e8", "#3d3d3d"), (Color::Black, "#262626", "#000")] {
        for p in 0..POINT_COUNT {
            if position.stones[color.index()] & (1 << p) != 0 {
                let (x, y) = at(p);
                let _ = writeln!(
                    out,
                    "<circle class=\"stone {}\" cx=\"{x}\" cy=\"{y}\" r=\"20\" fill=\"{fill}\" stroke=\"{stroke}\" stroke-width=\"2.5\"/>",
                    color.name().to_lowercase()
                );
            }
        }
    }
}

/// Whether the side to move flies: it may move (hands empty, or a variant where a side moves
/// while it holds stones) with three stones on the board and in hand together, so that any
/// stone on the board may go to any empty point.
fn flies(position: &Position, rules: &MorrisRules) -> bool {
    let may_move = position.is_moving_phase() || rules.moves_while_placing;
    may_move && position.stones[position.to_move.index()] != 0 && position.material(position.to_move) == 3
}

/// One mark per placement or per stone's step: moves that differ only in the stone they
/// remove share a mark, which shows the best of them (each is named in its tooltip). The
/// arrows go underneath, so that no arrow covers a mark. Flights (up to 45 of them, three
/// stones to every empty point) would be a tangle of arrows: they are marked like placements
/// instead, one ring per empty point showing the best flight there, and the mark names every
/// flight to that point (the page asks which stone flies).
fn marks(out: &mut String, probed: &Probed<Move>, flying: bool) {
    let mut groups: BTreeMap<(u8, u8), Vec<(String, Value)>> = BTreeMap::new();
    for &(mv, value) in &probed.moves {
        let from = if flying { NO_POINT } else { mv.from };
        groups.entry((from, mv.to)).or_default().push((mv.to_string(), value));
    }
    let best = |moves: &[(String, Value)]| moves.iter().map(|&(_, v)| v).max().expect("a group has a move");
    let mut badges = Vec::new();
    for ((from, to), moves) in &groups {
        let best = best(moves);
        let (tx, ty) = at(usize::from(*to));
        if *from == NO_POINT {
            badges.push((tx, ty));
            continue;
        }
        let (fx, fy) = at(usize::from(*from));
        let (dx, dy) = (tx - fx, ty - fy);
        let length = (dx * dx + dy * dy).sqrt();
        let (ux, uy) = (dx / length, dy / length);
        // From the rim of the stone to just short of the target point.
        let _ = writeln!(
            out,
            "<line x1=\"{:.1}\" y1=\"{:.1}\" x2=\"{:.1}\" y2=\"{:.1}\" stroke=\"{}\" stroke-width=\"4\" marker-end=\"url(#head-{})\" pointer-events=\"none\"/>",
            fx + ux * 22.0,
            fy + uy * 22.0,
            tx - ux * 8.0,
            ty - uy * 8.0,
            outcome_colour(best),
            best.word()
        );
        let along = if length > STEP * 1.5 { 0.7 } else { 0.55 };
        badges.push((fx + dx * along, fy + dy * along));
    }
    for (((from, to), moves), (x, y)) in groups.iter().zip(badges) {
        let best = best(moves);
        // Several moves behind one mark: flights of different stones to the point, or one
        // move with a choice of the stone its mill removes.
        let sources: std::collections::BTreeSet<&str> =
            moves.iter().filter_map(|(m, _)| m.split('x').next()).collect();
        let question = match moves.len() {
            1 => "",
            _ if sources.len() > 1 => "Which stone flies there?",
            _ => "Which stone to remove?",
        };
        open_mark(out, moves, question);
        if *from == NO_POINT {
            let (tx, ty) = at(usize::from(*to));
            let colour = outcome_colour(best);
            let _ = writeln!(
                out,
                "<circle cx=\"{tx}\" cy=\"{ty}\" r=\"19\" fill=\"{colour}\" fill-opacity=\"0.25\" stroke=\"{colour}\" stroke-width=\"3\"/>"
            );
        }
        badge(out, x, y, best);
        out.push_str("</g>\n");
    }
}

impl<V: MorrisVariant> Draw for MorrisTablebase<V> {
    fn svg(&self, position: &Position, probed: &Probed<Move>) -> String {
        morris_svg(position, probed, &V::RULES)
    }
}
