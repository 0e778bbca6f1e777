//! [`Controls`]: only text goes on air. Removes what a terminal or an app would act on instead
//! of showing, or what hides or reorders text: control characters (C0 but tab, newline and
//! carriage return; DEL; C1), escape sequences (CSI `ESC[31m`, OSC `ESC]0;title BEL` or
//! `… ESC\`, DCS, SOS, PM, APC, and two- or three-byte `ESC` sequences), and the invisible
//! format characters (Unicode category Cf: bidi overrides, embeddings, isolates and marks,
//! zero-width space, word joiner, BOM, soft hyphen, tags). A control that is whitespace
//! (vertical tab, form feed, NEL) becomes a space, so the words it separated stay apart.
//!
//! Two format characters are part of text, and kept where they are: the zero-width joiner and
//! non-joiner (U+200D, U+200C) after a character that is not ASCII — they build emoji (👨‍👩‍👧)
//! and shape Arabic, Persian and Indic script —, and tag characters inside an emoji tag
//! sequence (the flags of England, Scotland, Wales: 🏴 then tags). Variation selectors (❤️)
//! are marks, not format characters, and stay anyway.
//!
//! A transducer, character by character: it holds no text back, only the state of a sequence
//! under way (a sequence split across two pieces of a streamed answer is removed whole), so
//! the streamed answer and the whole one come out the same. A string sequence (OSC and the
//! like) ends at its terminator, or at the end of its line: a malformed one cannot swallow
//! the rest of the answer.

use crate::text::unicode::is_format;

/// Escape (`ESC`), and the 8-bit introducers and terminator of C1.
const ESC: char = '\u{1b}';
const BEL: char = '\u{7}';
const CSI: char = '\u{9b}';
const ST: char = '\u{9c}';
/// DCS, SOS, OSC, PM, APC: each opens a string that runs to its terminator.
const STRING_C1: [char; 5] = ['\u{90}', '\u{98}', '\u{9d}', '\u{9e}', '\u{9f}'];
/// After `ESC`, the 7-bit forms of those: `P`, `X`, `]`, `^`, `_`.
const STRING_AFTER_ESC: [char; 5] = ['P', 'X', ']', '^', '_'];

/// The black flag that starts an emoji tag sequence, and the tag range (U+E0020 to the cancel
/// tag, U+E007F, which ends it).
const BLACK_FLAG: char = '\u{1f3f4}';
const TAGS: std::ops::RangeInclusive<char> = '\u{e0020}'..='\u{e007f}';

/// Where the filter is: in text, or inside a sequence to drop.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
enum State {
    #[default]
    Text,
    /// After `ESC`.
    Escape,
    /// After `ESC` and intermediate bytes (0x20–0x2F), waiting for the final byte.
    EscapeIntermediate,
    /// A control sequence: parameter and intermediate bytes until a final byte (0x40–0x7E).
    Csi,
    /// A string (OSC, DCS, …) until BEL (OSC's), ST or the end of the line.
    Str,
    /// An `ESC` inside a string: `\` ends it, anything else starts a new escape.
    StrEscape,
}

/// Removes control characters, escape sequences and invisible format characters from text
/// given piece by piece (see the module's comment).
#[derive(Debug, Clone, Default)]
pub(crate) struct Controls {
    state: State,
    /// The last character let through, for the joiners and tags, which stay only after
    /// what they join.
    last: Option<char>,
}

impl Controls {
    /// Appends to `out` what `raw` holds of text.
    pub(crate) fn push(&mut self, raw: &str, out: &mut String) {
        for c in raw.chars() {
            self.char(c, out);
        }
    }

    fn char(&mut self, c: char, out: &mut String) {
        match self.state {
            State::Text => self.text(c, out),
            State::Escape => match c {
                '[' => self.state = State::Csi,
                c if STRING_AFTER_ESC.contains(&c) => self.state = State::Str,
                '\u{20}'..='\u{2f}' => self.state = State::EscapeIntermediate,
                '\u{30}'..='\u{7e}' => self.state = State::Text,
                // Not a sequence: the `ESC` alone is dropped, the character read as text.
                c => {
                    self.state = State::Text;
                    self.text(c, out);
                }
            },
            State::EscapeIntermediate => match c {
                '\u{20}'..='\u{2f}' => {}
                '\u{30}'..='\u{7e}' => self.state = State::Text,
                c => {
                    self.state = State::Text;
                    self.text(c, out);
                }
            },
            State::Csi => match c {
                '\u{20}'..='\u{3f}' => {}
                '\u{40}'..='\u{7e}' => self.state = State::Text,
                // A malformed sequence ends at the first character that cannot be in one.
                c => {
                    self.state = State::Text;
                    self.text(c, out);
                }
            },
            State::Str => match c {
                BEL | ST => self.state = State::Text,
                ESC => self.state = State::StrEscape,
                '\n' => {
                    self.state = State::Text;
                    self.text(c, out);
                }
                _ => {}
            },
            State::StrEscape => match c {
                '\\' => self.state = State::Text,
                c => {
                    self.state = State::Escape;
                    self.char(c, out);
                }
            },
        }
    }

    fn text(&mut self, c: char, out: &mut String) {
        let keep = match c {
            ESC => {
                self.state = State::Escape;
                return;
            }
            CSI => {
                self.state = State::Csi;
                return;
            }
            c if STRING_C1.contains(&c) => {
                self.state = State::Str;
                return;
            }
            '\t' | '\n' | '\r' => Some(c),
            c if c.is_control() => c.is_whitespace().then_some(' '),
            '\u{200c}' | '\u{200d}' => self
                .last
                .is_some_and(|l| !l.is_ascii() && !l.is_whitespace())
                .then_some(c),
            c if TAGS.contains(&c) => self
                .last
                .is_some_and(|l| l == BLACK_FLAG || (TAGS.contains(&l) && l != '\u{e007f}'))
                .then_some(c),
            c if is_format(c) => None,
            c => Some(c),
        };
        if let Some(k) = keep {
            out.push(k);
            self.last = Some(k);
        }
    }
}

/// `raw` without control characters, escape sequences and invisible format characters.
pub(crate) fn strip_controls(raw: &str) -> String {
    let mut out = String::with_capacity(raw.len());
    Controls::default().push(raw, &mut out);
    out
}

#[cfg(test)]
mod tests;
