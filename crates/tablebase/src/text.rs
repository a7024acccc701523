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

/// A line read by [`read_line_within`].
#[derive(Debug, PartialEq, Eq)]
pub enum BoundedLine {
    /// The line's bytes, without its newline.
    Whole(Vec<u8>),
    /// A line longer than the bound: read to its end and dropped, so that a line without end
    /// (a file of zeros, a stream) cannot take the machine's memory.
    TooLong,
}

/// The next line of `input`, kept only where it has at most `most` bytes; `None` at the end of
/// the input.
pub fn read_line_within(input: &mut impl std::io::BufRead, most: usize) -> std::io::Result<Option<BoundedLine>> {
    use std::io::{BufRead, Read};
    let mut line = Vec::new();
    if input.by_ref().take(most as u64 + 1).read_until(b'\n', &mut line)? == 0 {
        return Ok(None);
    }
    if line.last() == Some(&b'\n') {
        line.pop();
    } else if line.len() > most {
        input.skip_until(b'\n')?;
        return Ok(Some(BoundedLine::TooLong));
    }
    Ok(Some(BoundedLine::Whole(line)))
}

#[cfg(test)]
mod tests {
    use super::{BoundedLine, read_line_within};

    #[test]
    fn a_line_over_the_bound_is_dropped_and_the_next_one_read() {
        let long = "x".repeat(100);
        let text = format!("ab\n{long}\n\ncd\n{long}");
        let mut input = std::io::BufReader::with_capacity(8, text.as_bytes());
        let mut read = Vec::new();
        while let Some(line) = read_line_within(&mut input, 10).unwrap() {
            read.push(line);
        }
        let whole = |s: &str| BoundedLine::Whole(s.as_bytes().to_vec());
        assert_eq!(read, [whole("ab"), BoundedLine::TooLong, whole(""), whole("cd"), BoundedLine::TooLong]);
        // Exactly the bound is whole, with or without its newline.
        let mut input = "0123456789\n0123456789".as_bytes();
        assert_eq!(read_line_within(&mut input, 10).unwrap(), Some(whole("0123456789")));
        assert_eq!(read_line_within(&mut input, 10).unwrap(), Some(whole("0123456789")));
        assert_eq!(read_line_within(&mut input, 10).unwrap(), None);
    }
}
