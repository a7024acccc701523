//! Words shared by every game's messages and pictures: a value as a sentence, a distance in
//! plies, an error with its causes on one line, and input quoted safely for an error message.

use crate::value::Value;

/// The sentence that says who is to move and what they get: `White to move wins in 5 plies`.
pub fn verdict(side: &str, value: Value) -> String {
    match value {
        Value::Win(n) => format!("{side} to move wins in {}", plies(n)),
        Value::Loss(0) => format!("{side} to move has lost"),
        Value::Loss(n) => format!("{side} to move loses in {}", plies(n)),
        Value::Draw => format!("{side} to move: draw"),
        Value::WinUnknown => format!("{side} to move wins (proved; the distance is not known)"),
        Value::LossUnknown => format!("{side} to move loses (proved; the distance is not known)"),
    }
}

/// What a value not settled within the time limit is called in text, and how to lift the limit.
pub const UNSETTLED: &str = "unknown: not settled within the time limit (--max-time S searches longer)";

/// [`verdict`], or where the value was not settled within the time limit, that it is unknown.
pub fn verdict_or_unknown(side: &str, value: Option<Value>) -> String {
    match value {
        Some(value) => verdict(side, value),
        None => format!("{side} to move: {UNSETTLED}"),
    }
}

/// An error and its causes on one line, as the command line and the Python package show it:
/// `tables/x.tbl: I/O error: No space left on device`.
pub fn one_line(error: &dyn std::error::Error) -> String {
    let mut line = error.to_string();
    let mut cause = error.source();
    while let Some(e) = cause {
        line.push_str(": ");
        line.push_str(&e.to_string());
        cause = e.source();
    }
    line
}

/// A distance in words: `1 ply`, `17 plies`.
pub fn plies(n: u32) -> String {
    if n == 1 { "1 ply".to_string() } else { format!("{n} plies") }
}

/// Input as error messages echo it: at most 60 characters, control characters escaped, so
/// that a megabyte line or a terminal escape sequence cannot flood or garble the terminal.
pub fn quote(text: &str) -> String {
    const MOST: usize = 60;
    let mut quoted = String::new();
    for (n, c) in text.chars().enumerate() {
        if n == MOST {
            quoted.push_str("...");
            break;
        }
        match c.is_control() {
            true => quoted.extend(c.escape_default()),
            false => quoted.push(c),
        }
    }
    quoted
}

/// `text` as a JSON string, quotes included.
pub fn json_string(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if c.is_control() => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// `n` of `thing`, in the plural unless one: `1 position`, `7244 positions`.
pub fn count(n: u64, thing: &str) -> String {
    match n {
        1 => format!("1 {thing}"),
        n => format!("{n} {thing}s"),
    }
}

/// The longest `--max-time`: a year. Longer is no limit in practice, and past about 1e19 seconds
/// no clock can represent the deadline.
pub const MOST_SECONDS: f64 = 365.0 * 24.0 * 3600.0;

/// The shortest `--max-time`: a millisecond. A shorter limit stops any search at once all the
/// same, and a number such as 1e-300 would be written out in messages as 300 digits.
pub const LEAST_SECONDS: f64 = 0.001;

/// A time limit in seconds (`--max-time S`), or why `text` is not one.
pub fn parse_seconds(text: &str) -> Result<f64, String> {
    match text.trim().parse::<f64>() {
        Ok(s) if (LEAST_SECONDS..=MOST_SECONDS).contains(&s) => Ok(s),
        _ => Err(format!(
            "bad time '{}': expected seconds, a number at least {LEAST_SECONDS} and at most {MOST_SECONDS} (a year)",
            quote(text)
        )),
    }
}
