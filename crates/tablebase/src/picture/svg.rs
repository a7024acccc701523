//! What both boards share: colours of outcomes, labels, the caption and text escaping.

pub use crate::text::verdict_or_unknown;
use crate::value::Value;
use std::fmt::Write;

/// The colour a move's mark has: green wins, grey draws, red losses.
pub fn outcome_colour(value: Value) -> &'static str {
    match value {
        Value::Win(_) | Value::WinUnknown => "#1e8449",
        Value::Draw => "#7f8c8d",
        Value::Loss(_) | Value::LossUnknown => "#c0392b",
    }
}

/// The short label inside a mark: the distance, `=` for a draw, `?` for a distance not known.
pub fn outcome_label(value: Value) -> String {
    match value.distance() {
        Some(n) => n.to_string(),
        None if value.distance_unknown() => "?".to_string(),
        None => "=".to_string(),
    }
}

/// `text` safe inside an SVG element or attribute.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            c if c.is_control() && c != '\n' => {}
            c => out.push(c),
        }
    }
    out
}

/// The opening of a document `width` by `height` with its title; fonts are generic families
/// only, so that it renders the same without any file beside it.
pub fn open(out: &mut String, width: u32, height: u32, title: &str) {
    let _ = write!(
        out,
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n\
         <svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width}\" height=\"{height}\" \
         viewBox=\"0 0 {width} {height}\" font-family=\"Helvetica, Arial, sans-serif\">\n\
         <title>{}</title>\n\
         <rect width=\"{width}\" height=\"{height}\" fill=\"#fbfaf6\"/>\n",
        escape(title)
    );
}

/// The caption lines under the board, and the legend of the colours.
pub fn caption(out: &mut String, x: u32, y: u32, lines: &[String]) {
    let mut y = y;
    for (n, line) in lines.iter().enumerate() {
        let weight = if n == 0 { " font-weight=\"bold\"" } else { "" };
        let _ = writeln!(
            out,
            "<text x=\"{x}\" y=\"{y}\" font-size=\"17\"{weight} fill=\"#222\">{}</text>",
            escape(line)
        );
        y += 22;
    }
    let mut lx = x;
    for (value, word) in [(Value::Win(1), "win in n"), (Value::Draw, "draw"), (Value::Loss(2), "loss in n")] {
        let _ = writeln!(
            out,
            "<circle cx=\"{}\" cy=\"{}\" r=\"7\" fill=\"{}\"/><text x=\"{}\" y=\"{}\" font-size=\"14\" fill=\"#444\">{word}</text>",
            lx + 7,
            y - 5,
            outcome_colour(value),
            lx + 18,
            y
        );
        lx += 100;
    }
    let _ = writeln!(
        out,
        "<text x=\"{x}\" y=\"{}\" font-size=\"13\" fill=\"#666\">n: plies to the end of the game under perfect play</text>",
        y + 20
    );
}

/// A move's mark: a group that carries the moves it stands for and their best value, so that
/// a program reading the picture finds every legal move in it; for a mark of several moves, the
/// `question` the page asks to choose among them.
pub fn open_mark(out: &mut String, moves: &[(String, Value)], question: &str) {
    let best = moves.iter().map(|&(_, v)| v).max().expect("a mark stands for a move");
    let names: Vec<&str> = moves.iter().map(|(m, _)| m.as_str()).collect();
    let plies = best.distance().map_or(String::new(), |n| format!(" data-plies=\"{n}\""));
    let question = match question.is_empty() {
        true => String::new(),
        false => format!(" data-question=\"{}\"", escape(question)),
    };
    let _ = writeln!(
        out,
        "<g class=\"move\" data-moves=\"{}\" data-value=\"{}\"{plies}{question}>",
        escape(&names.join(" ")),
        best.word()
    );
    let tips: Vec<String> = moves.iter().map(|(m, v)| format!("{m}: {v}")).collect();
    let _ = writeln!(out, "<title>{}</title>", escape(&tips.join("\n")));
}

/// A round label with the outcome's colour and distance at (`x`, `y`).
pub fn badge(out: &mut String, x: f64, y: f64, value: Value) {
    let _ = writeln!(
        out,
        "<circle cx=\"{x:.1}\" cy=\"{y:.1}\" r=\"13\" fill=\"{}\" stroke=\"#fff\" stroke-width=\"2\"/>\
         <text x=\"{x:.1}\" y=\"{:.1}\" font-size=\"13\" font-weight=\"bold\" fill=\"#fff\" text-anchor=\"middle\">{}</text>",
        outcome_colour(value),
        y + 4.5,
        outcome_label(value)
    );
}
