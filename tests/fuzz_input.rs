//! Fuzzing the parsers of positions and moves, as property tests: any string, however hostile
//! (control characters, other scripts, huge or empty), gives a value or a typed error whose
//! message is one short line, never a panic.

use proptest::prelude::*;
use tablebase::connect4::{Geometry, parse_moves};
use tablebase::morris::{parse_move, parse_position};
use tablebase::probe::quote;

/// Strings near the notation (its letters, digits and punctuation) and anything at all.
fn hostile() -> impl Strategy<Value = String> {
    prop_oneof![
        "[WBwbx:, a-h0-9\\-]{0,40}",
        "W:[a-g][1-7](,[a-g][1-7]){0,9} B:[a-g][1-7](,[a-g][1-7]){0,9} [wb]( [0-9]{1,2} [0-9]{1,2})?",
        any::<String>(),
        "\\PC{0,300}",
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 4000, ..ProptestConfig::default() })]

    #[test]
    fn morris_positions_parse_or_say_why(text in hostile(), stones in 3u8..=9) {
        if let Err(e) = parse_position(&text, stones) {
            let message = e.to_string();
            prop_assert!(!message.contains('\n') && !message.chars().any(char::is_control), "{message:?}");
            prop_assert!(message.chars().count() < 900, "{message:?}");
        }
    }

    #[test]
    fn morris_moves_parse_or_say_why(text in "[a-h0-9x\\- ]{0,12}|\\PC{0,20}") {
        if let Err(e) = parse_move(&text) {
            prop_assert!(!e.to_string().contains('\n'));
        }
    }

    #[test]
    fn connect4_moves_parse_or_say_why(text in "[0-9]{0,50}|\\PC{0,60}", width in 4u32..=9, height in 4u32..=7) {
        if let Ok(g) = Geometry::new(width, height)
            && let Err(e) = parse_moves(&g, &text)
        {
            let message = e.to_string();
            prop_assert!(!message.contains('\n') && message.chars().count() < 900, "{message:?}");
        }
    }

    #[test]
    fn quoting_is_short_and_has_no_control_characters(text in any::<String>()) {
        let quoted = quote(&text);
        prop_assert!(quoted.chars().count() <= 63 + 10 * 60);
        prop_assert!(!quoted.chars().any(char::is_control));
    }
}
