//! What is removed and what stays, whole and cut into pieces anywhere.

use super::*;
use crate::llm::clean::clean_reply;

/// (model output, what goes on air).
const CASES: &[(&str, &str)] = &[
    // Escape sequences: colours, a window title, a hyperlink, a charset, the 8-bit CSI.
    ("\u{1b}[31mred\u{1b}[0m text", "red text"),
    ("\u{1b}[1;38;5;196mbold\u{1b}[m", "bold"),
    ("\u{1b}]0;pwned\u{7}Title", "Title"),
    (
        "\u{1b}]8;;http://evil.example/\u{1b}\\link\u{1b}]8;;\u{1b}\\ here",
        "link here",
    ),
    ("\u{1b}(Bok \u{1b}7saved\u{1b}8", "ok saved"),
    ("\u{9b}1mX\u{9d}2;t\u{9c}Y", "XY"),
    ("\u{1b}\u{1b}[1mX", "X"),
    ("\u{1b}P1$r\u{1b}\\after", "after"),
    // Not a sequence after all: only the `ESC` goes.
    ("\u{1b}\u{e9}t\u{e9}", "été"),
    // A string sequence that never ends stops at the end of its line.
    ("a \u{1b}]0;title\nb", "a b"),
    // Control characters: BEL, NUL, backspaces, DEL, C1; whitespace ones become spaces.
    (
        "bell\u{7} nul\u{0} bs\u{8}\u{8}x del\u{7f}",
        "bell nul bsx del",
    ),
    ("c1\u{80}\u{8f} ok", "c1 ok"),
    ("\u{9f}application\u{9c}after", "after"),
    ("line\u{b}tab\u{c}feed\u{85}nel", "line tab feed nel"),
    ("a\tb\r\nc", "a b c"),
    // Bidi overrides, embeddings, isolates and marks; invisible format characters.
    ("abc\u{202e}fed\u{202c}", "abcfed"),
    ("\u{202a}x\u{202b}y\u{202d}z", "xyz"),
    ("\u{2066}a\u{2067}b\u{2068}c\u{2069}", "abc"),
    ("\u{200e}left\u{200f}right\u{61c}", "leftright"),
    (
        "zero\u{200b}width\u{2060}joiner\u{feff}bom\u{ad}soft",
        "zerowidthjoinerbomsoft",
    ),
    ("hi\u{e0041}\u{e0042}\u{e007f}", "hi"),
    ("a\u{200d}b \u{200d}c\u{200c}", "ab c"),
    // Emoji sequences and every script survive.
    ("👨‍👩‍👧 ❤️ ❤️‍🔥 🏳️‍🌈 👍🏽", "👨‍👩‍👧 ❤️ ❤️‍🔥 🏳️‍🌈 👍🏽"),
    (
        "🏴\u{e0067}\u{e0062}\u{e0073}\u{e0063}\u{e0074}\u{e007f} Scotland",
        "🏴\u{e0067}\u{e0062}\u{e0073}\u{e0063}\u{e0074}\u{e007f} Scotland",
    ),
    (
        "你好，世界。こんにちは 안녕하세요",
        "你好，世界。こんにちは 안녕하세요",
    ),
    ("Привет, мир! Ελληνικά", "Привет, мир! Ελληνικά"),
    ("مرحبا بالعالم شكرا", "مرحبا بالعالم شكرا"),
    ("می\u{200c}خواهم", "می\u{200c}خواهم"),
    ("क्\u{200d}ष नमस्ते", "क्\u{200d}ष नमस्ते"),
];

#[test]
fn only_text_is_left() {
    for (raw, want) in CASES {
        assert_eq!(clean_reply(raw), *want, "{raw:?}");
    }
}

#[test]
fn a_sequence_split_anywhere_is_removed_whole() {
    for (raw, _) in CASES {
        let whole = strip_controls(raw);
        for (at, _) in raw.char_indices().skip(1) {
            let mut controls = Controls::default();
            let mut out = String::new();
            controls.push(&raw[..at], &mut out);
            let first = out.len();
            controls.push(&raw[at..], &mut out);
            assert_eq!(out, whole, "{raw:?} cut at {at}");
            // Nothing is held back: the first piece's text is out before the second comes.
            assert_eq!(
                &out[..first],
                strip_controls(&raw[..at]).as_str(),
                "{raw:?} cut at {at}"
            );
        }
    }
}
