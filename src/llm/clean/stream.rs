//! [`StreamCleaner`]: the rules of [`clean_reply`](super::clean_reply), applied while the answer
//! streams in. Pure: pieces of raw answer in, pieces of plain text out.
//!
//! Text is handed out only once no later text can change it, so that what goes on air is
//! exactly what `clean_reply` would make of the whole answer:
//! - control characters, escape sequences and invisible format characters are removed as
//!   they come (`Controls`, which holds no text back: a sequence split over two pieces is
//!   removed whole);
//! - a `<think>` block is dropped as it comes; the start of a tag split over two pieces is
//!   held back until it is known to be (or not be) a tag;
//! - a line is held until its start is known (a heading, a quote, a bullet, a fence, a rule);
//! - within a line, text goes out up to the last space before which nothing is left open (a
//!   code span, a link, an emphasis opener without its closer): such a piece cleans the same
//!   alone as within the whole line.
//!
//! One rule cannot hold while streaming: a `</think>` without a `<think>` (a chat template
//! that opened the block in the prompt) drops everything before it. The cleaner reports it
//! as [`Cleaned::restart`]; text already on air cannot be taken back (see the caller).
//!
//! Property (tested): for any answer cut into any pieces, the text after the last restart,
//! whitespace collapsed, equals `clean_reply` of the whole answer.

use super::controls::Controls;
use super::{THINK_CLOSE, THINK_OPEN, clean_line, is_fence, strip_block_prefix, strip_inline_open};

/// What one piece of raw answer gave.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Cleaned {
    /// Everything handed out before is not part of the answer: the model's reasoning ended
    /// with a `</think>` that had no `<think>`.
    pub(crate) restart: bool,
    /// Plain text to append (after dropping what came before, on a restart). Whitespace is
    /// not collapsed yet; pieces may end inside a word.
    pub(crate) text: String,
}

/// Cleans an answer piece by piece.
#[derive(Debug, Default)]
pub(crate) struct StreamCleaner {
    controls: Controls,
    think: ThinkFilter,
    lines: LineCleaner,
}

impl StreamCleaner {
    pub fn new() -> StreamCleaner {
        StreamCleaner::default()
    }

    /// Takes the next piece of the raw answer.
    pub(crate) fn push(&mut self, raw: &str) -> Cleaned {
        let mut out = Cleaned::default();
        let mut text = String::with_capacity(raw.len());
        self.controls.push(raw, &mut text);
        for visible in self.think.push(&text) {
            self.take(visible, &mut out);
        }
        out
    }

    /// The answer is complete: hands out whatever was held back.
    pub(crate) fn finish(&mut self) -> Cleaned {
        let mut out = Cleaned::default();
        if let Some(visible) = self.think.finish() {
            self.take(visible, &mut out);
        }
        self.lines.finish(&mut out.text);
        out
    }

    fn take(&mut self, visible: Visible, out: &mut Cleaned) {
        match visible {
            Visible::Text(text) => self.lines.push(&text, &mut out.text),
            Visible::Restart => {
                out.restart = true;
                out.text.clear();
                self.lines = LineCleaner::default();
            }
        }
    }
}

/// What the think filter lets through.
#[derive(Debug, PartialEq, Eq)]
enum Visible {
    Text(String),
    /// A `</think>` without a `<think>`: drop everything so far.
    Restart,
}

/// Drops `<think>` blocks (tags matched case-insensitively), as `strip_thinking` does.
#[derive(Debug, Default)]
struct ThinkFilter {
    /// Raw text not decided yet: the start of a possible tag, or the inside of a block.
    held: String,
    in_think: bool,
}

impl ThinkFilter {
    fn push(&mut self, raw: &str) -> Vec<Visible> {
        self.held.push_str(raw);
        let mut out = Vec::new();
        loop {
            // ASCII lower-casing keeps byte offsets.
            let lower = self.held.to_ascii_lowercase();
            if self.in_think {
                match lower.find(THINK_CLOSE) {
                    Some(c) => {
                        self.held.drain(..c + THINK_CLOSE.len());
                        self.in_think = false;
                    }
                    None => {
                        let keep = partial_tag(&lower, &[THINK_CLOSE]);
                        self.held.drain(..self.held.len() - keep);
                        return out;
                    }
                }
                continue;
            }
            let open = lower.find(THINK_OPEN);
            let close = lower.find(THINK_CLOSE);
            match (open, close) {
                (open, Some(c)) if open.is_none_or(|o| c < o) => {
                    out.push(Visible::Restart);
                    self.held.drain(..c + THINK_CLOSE.len());
                }
                (Some(o), _) => {
                    let before: String = self.held.drain(..o + THINK_OPEN.len()).collect();
                    let text = before.get(..o).unwrap_or("");
                    out.push(Visible::Text(format!("{text} ")));
                    self.in_think = true;
                }
                (None, _) => {
                    let keep = partial_tag(&lower, &[THINK_OPEN, THINK_CLOSE]);
                    let text: String = self.held.drain(..self.held.len() - keep).collect();
                    if !text.is_empty() {
                        out.push(Visible::Text(text));
                    }
                    return out;
                }
            }
        }
    }

    /// An unterminated block runs to the end and is dropped; a held tag start is text.
    fn finish(&mut self) -> Option<Visible> {
        let held = std::mem::take(&mut self.held);
        (!self.in_think && !held.is_empty()).then_some(Visible::Text(held))
    }
}

/// Bytes at the end of `lower` that are the start of one of `tags` (and so may become it).
fn partial_tag(lower: &str, tags: &[&str]) -> usize {
    let Some(lt) = lower.rfind('<') else {
        return 0;
    };
    let tail = lower.get(lt..).unwrap_or("");
    if tags.iter().any(|tag| tag.starts_with(tail)) {
        tail.len()
    } else {
        0
    }
}

/// How the current line is cleaned, once its start is known.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// A fence line: dropped whole, toggles the fence at its end.
    Fence,
    /// Inside a fence: kept verbatim.
    Verbatim,
    /// Prose: the block prefix ends at this byte offset; inline markdown is stripped.
    Prose { body: usize },
}

/// Strips markdown line by line (see `strip_markdown`), handing out settled parts of the
/// current line early.
#[derive(Debug, Default)]
struct LineCleaner {
    /// The current line so far, without its `\n`.
    line: String,
    kind: Option<Kind>,
    /// Bytes of `line` already handed out (for prose, a space or the start of the body).
    done: usize,
    in_fence: bool,
}

impl LineCleaner {
    fn push(&mut self, mut text: &str, out: &mut String) {
        while let Some(nl) = text.find('\n') {
            self.line.push_str(text.get(..nl).unwrap_or(""));
            self.end_line(out);
            text = text.get(nl + 1..).unwrap_or("");
        }
        self.line.push_str(text);
        self.early(out);
    }

    fn finish(&mut self, out: &mut String) {
        if !self.line.is_empty() {
            self.end_line(out);
        }
    }

    /// The line is complete: hands out the rest of it as the whole-text rules would.
    fn end_line(&mut self, out: &mut String) {
        let line = std::mem::take(&mut self.line);
        let line = line.strip_suffix('\r').unwrap_or(&line);
        let rest = line.get(self.done..).unwrap_or("");
        match self.kind {
            None => out.push_str(&clean_line(line, &mut self.in_fence)),
            Some(Kind::Fence) => self.in_fence = !self.in_fence,
            Some(Kind::Verbatim) => out.push_str(rest),
            Some(Kind::Prose { .. }) => out.push_str(&strip_inline_open(rest).0),
        }
        out.push('\n');
        self.kind = None;
        self.done = 0;
    }

    /// Hands out what no later text on this line can change.
    fn early(&mut self, out: &mut String) {
        if self.kind.is_none() {
            self.kind = self.start();
            if let Some(Kind::Prose { body }) = self.kind {
                self.done = body;
            }
        }
        match self.kind {
            None | Some(Kind::Fence) => {}
            Some(Kind::Verbatim) => {
                // A `\r` may be the line's end: keep it until the `\n` says so.
                let end = self.line.trim_end_matches('\r').len();
                out.push_str(self.line.get(self.done..end).unwrap_or(""));
                self.done = end.max(self.done);
            }
            Some(Kind::Prose { .. }) => {
                let pending = self.line.get(self.done..).unwrap_or("");
                let spaces = pending
                    .char_indices()
                    .filter(|&(at, c)| at > 0 && (c == ' ' || c == '\t'))
                    .map(|(at, _)| at);
                let spaces: Vec<usize> = spaces.collect();
                for &at in spaces.iter().rev() {
                    let piece = pending.get(..at).unwrap_or("");
                    let (clean, open) = strip_inline_open(piece);
                    if !open {
                        out.push_str(&clean);
                        self.done += at;
                        break;
                    }
                }
            }
        }
    }

    /// The kind of the current line, once no later text can change it.
    fn start(&self) -> Option<Kind> {
        let trimmed = self.line.trim_start();
        if is_fence(trimmed) {
            return Some(Kind::Fence);
        }
        if "```".starts_with(trimmed) || "~~~".starts_with(trimmed) {
            return None;
        }
        if self.in_fence {
            return Some(Kind::Verbatim);
        }
        // Headings, quotes, bullets and rules are made of these; once another character
        // shows, the block prefix is what it is.
        let syntax = |c: char| c.is_whitespace() || "#>-*+_`~".contains(c);
        if trimmed.chars().all(syntax) {
            return None;
        }
        let body = strip_block_prefix(trimmed);
        Some(Kind::Prose {
            body: self.line.len() - body.len(),
        })
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::super::clean_reply;
    use super::*;

    /// Cleans `pieces` one by one; returns the text after the last restart, whitespace
    /// collapsed, and every piece of output (to see how early text came out).
    fn stream(pieces: &[&str]) -> (String, Vec<String>) {
        let mut cleaner = StreamCleaner::new();
        let mut text = String::new();
        let mut outs = Vec::new();
        let mut results: Vec<Cleaned> = pieces.iter().map(|p| cleaner.push(p)).collect();
        results.push(cleaner.finish());
        for cleaned in results {
            if cleaned.restart {
                text.clear();
            }
            text.push_str(&cleaned.text);
            outs.push(cleaned.text);
        }
        let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
        (text, outs)
    }

    #[track_caller]
    fn check(pieces: &[&str], early: &[&str]) {
        let whole: String = pieces.concat();
        let (text, outs) = stream(pieces);
        assert_eq!(text, clean_reply(&whole), "{pieces:?}");
        let got: Vec<&str> = outs.iter().map(|s| s.trim()).collect();
        assert_eq!(got, early, "{pieces:?}");
    }

    #[test]
    fn text_comes_out_as_soon_as_it_is_settled() {
        // Plain words go out up to the last space; the last word waits (it may go on).
        check(
            &["Hello wor", "ld, how", " are you"],
            &["Hello", "world,", "how are", "you"],
        );
        // A think block never shows, even split over pieces and in capitals.
        check(
            &["<thi", "nk>plan: be nice</TH", "INK>Hi there", " friend"],
            &["", "", "Hi", "there", "friend"],
        );
        // An unterminated block hides the rest.
        check(&["Yes. <think>wait", " no"], &["Yes.", "", ""]);
        // A `<` that is not a tag is held only until that is clear.
        check(&["a <b", " c d"], &["a", "<b c", "d"]);
        // Emphasis waits for its closer, then goes out stripped.
        check(&["so **very", " big** it is"], &["so", "very big it", "is"]);
        // A heading's start waits for the first real character.
        check(&["#", "# Title\nBody text"], &["", "Title\nBody", "text"]);
        // A bullet list.
        check(&["- one\n- tw", "o\n"], &["one", "two", ""]);
        // Code fences: the fence line is dropped, the code kept verbatim.
        check(
            &["``", "`rust\nlet x", " = 1;\n```\nok"],
            &["", "let x", "= 1;", "ok"],
        );
        // A link waits for its `)`.
        check(
            &["see [the docs](https://x.o", "rg/a) now"],
            &["see", "the docs (https://x.org/a)", "now"],
        );
    }

    #[test]
    fn a_close_tag_without_an_open_one_restarts() {
        let mut cleaner = StreamCleaner::new();
        let first = cleaner.push("I should greet them. ");
        assert_eq!(first.text.trim(), "I should greet them.");
        let second = cleaner.push("</think>Hello!");
        assert!(second.restart);
        assert_eq!(second.text, "");
        let last = cleaner.finish();
        assert_eq!(last.text.trim(), "Hello!");
        assert_eq!(clean_reply("I should greet them. </think>Hello!"), "Hello!");
    }

    fn markdownish() -> impl Strategy<Value = String> {
        let token = prop_oneof![
            "[a-z]{1,8}",
            Just(" ".to_string()),
            Just("  ".to_string()),
            Just("\n".to_string()),
            Just("\r\n".to_string()),
            "[*_~`]{1,3}",
            Just("[".to_string()),
            Just("](http://a.b/c)".to_string()),
            Just("]".to_string()),
            Just("(".to_string()),
            Just(")".to_string()),
            Just("# ".to_string()),
            Just("> ".to_string()),
            Just("- ".to_string()),
            Just("---".to_string()),
            Just("```".to_string()),
            Just("<think>".to_string()),
            Just("</think>".to_string()),
            Just("<THINK>".to_string()),
            Just("<".to_string()),
            Just("!".to_string()),
            Just("\\".to_string()),
            Just("5*3".to_string()),
            Just("snake_case".to_string()),
            Just("https://x.org/a_b".to_string()),
            Just("é".to_string()),
            Just("\t".to_string()),
            Just("\u{1b}[31m".to_string()),
            Just("\u{1b}]0;t\u{7}".to_string()),
            Just("\u{1b}".to_string()),
            Just("\u{7}".to_string()),
            Just("\u{8}".to_string()),
            Just("\u{202e}".to_string()),
            Just("\u{200d}".to_string()),
            Just("\u{200b}".to_string()),
            Just("👨".to_string()),
            Just("\u{fe0f}".to_string()),
        ];
        prop::collection::vec(token, 0..40).prop_map(|t| t.concat())
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(1024))]

        #[test]
        fn streamed_equals_whole(
            text in prop_oneof![markdownish(), any::<String>()],
            cuts in prop::collection::vec(0.0..1.0f64, 0..12),
        ) {
            let pieces = crate::test_util::split_at_fractions(&text, &cuts);
            let pieces: Vec<&str> = pieces.iter().map(String::as_str).collect();
            let (streamed, _) = stream(&pieces);
            prop_assert_eq!(streamed, clean_reply(&text));
        }

        #[test]
        fn token_by_token_equals_whole(text in markdownish()) {
            let pieces: Vec<String> = text.chars().map(String::from).collect();
            let pieces: Vec<&str> = pieces.iter().map(String::as_str).collect();
            let (streamed, _) = stream(&pieces);
            prop_assert_eq!(streamed, clean_reply(&text));
        }
    }
}
