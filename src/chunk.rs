//! Splits a cleaned reply into radio-sized parts. Pure: no I/O, no clock.
//!
//! Invariants, checked by property tests:
//! - every part fits both `max_chars` (Unicode scalar values) and `max_bytes` (UTF-8),
//!   its `" i/n"` marker included;
//! - there are at most `max_chunks` parts; a longer text ends its last part with `…`;
//! - no part is empty and no part starts or ends with whitespace;
//! - cuts fall at sentence ends or word boundaries; only a word longer than a whole part is
//!   split inside, at a grapheme cluster boundary (a code point boundary for a single
//!   grapheme larger than a part), so the words reassemble exactly.

use crate::lang::{Lang, Part, Say, fill, part, say};
use unicode_segmentation::UnicodeSegmentation;

mod stream;

pub(crate) use stream::{Numbering, Parts, StreamChunker};

/// The size rules of one radio reply.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ChunkLimits {
    /// Characters per part: what a phone shows comfortably (the design asks ≤ 150).
    pub max_chars: usize,
    /// UTF-8 bytes per part: what the radio accepts (clients cap at 200). Binds before
    /// `max_chars` for scripts with 3- or 4-byte characters.
    pub max_bytes: usize,
    /// Parts per reply: each costs airtime on a shared channel, so long answers are cut.
    pub max_chunks: usize,
}

impl ChunkLimits {
    /// Smallest usable `max_chars`; lower values are raised to it.
    pub const MIN_CHARS: usize = 12;
    /// Smallest usable `max_bytes`; lower values are raised to it.
    pub const MIN_BYTES: usize = 24;
    /// Largest `max_chunks`; higher values are lowered to it (markers stay ≤ `" 99/99"`).
    pub const MAX_CHUNKS: usize = 99;

    /// The limits actually applied: with these floors a part always has room for its
    /// marker, one character and the `…`.
    fn sane(&self) -> ChunkLimits {
        ChunkLimits {
            max_chars: self.max_chars.max(Self::MIN_CHARS),
            max_bytes: self.max_bytes.max(Self::MIN_BYTES),
            max_chunks: self.max_chunks.clamp(1, Self::MAX_CHUNKS),
        }
    }
}

impl Default for ChunkLimits {
    fn default() -> Self {
        ChunkLimits {
            max_chars: 150,
            max_bytes: 200,
            max_chunks: 4,
        }
    }
}

/// The end of the last part of an answer cut at the budget when the rest can be asked for, in
/// English (`lang::Say::MoreMark` in the conversation's language: "… mehr: !more").
pub const MORE: &str = "… !more";

/// Whether `text` (a stored answer) ends with the `!more` mark, in any language: every mark
/// ends with the command.
pub(crate) fn ends_cut(text: &str) -> bool {
    text.ends_with("!more")
        && Lang::ALL
            .iter()
            .any(|l| text.ends_with(say(*l, Say::MoreMark)))
}

/// `text` without its `!more` mark, in whichever language it is.
pub(crate) fn without_mark(text: &str) -> &str {
    Lang::ALL
        .iter()
        .find_map(|l| text.strip_suffix(say(*l, Say::MoreMark)))
        .unwrap_or(text)
}

/// What ends the last part of a text cut at the budget.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) enum CutMark {
    /// `…`, appended to the last part when the text needs more than `max_chunks` parts:
    /// nothing more can be had (a notice, a summary, an answer without memory).
    #[default]
    Ellipsis,
    /// [`MORE`] in the conversation's language: the user can ask for the rest with `!more`.
    More(Lang),
}

impl CutMark {
    pub fn text(self) -> &'static str {
        match self {
            CutMark::Ellipsis => "…",
            CutMark::More(lang) => say(lang, Say::MoreMark),
        }
    }

    /// Room the mark takes in a part.
    fn room(self) -> Budget {
        let text = self.text();
        Budget {
            chars: text.chars().count(),
            bytes: text.len(),
        }
    }
}

/// Characters that end a sentence when a space or the end of the text follows.
const SENTENCE_ENDS: [char; 7] = ['.', '!', '?', '…', '。', '！', '？'];

/// Full-width sentence ends, which need no space after them (CJK text has none).
const CJK_SENTENCE_ENDS: [char; 3] = ['。', '！', '？'];

/// Closing quotes and brackets that may follow a sentence end: `"Yes."` ends a sentence.
const CLOSERS: [char; 9] = ['"', '\'', ')', ']', '”', '’', '»', '」', '』'];

/// Splits `text` into parts that each fit `limits`, numbered `" i/n"` when there are several.
///
/// Whitespace is collapsed first; an empty or blank text gives no parts.
pub fn chunk(text: &str, limits: &ChunkLimits) -> Vec<String> {
    chunk_cut(text, limits, CutMark::Ellipsis).0
}

/// Like [`chunk`], with `mark` at the end of a text cut at the budget, and whether it was.
pub(crate) fn chunk_cut(text: &str, limits: &ChunkLimits, mark: CutMark) -> (Vec<String>, bool) {
    let layout = layout(text, limits, mark);
    if layout.truncated {
        tracing::debug!(
            parts = layout.parts.len(),
            "reply too long, cut with an ellipsis"
        );
    }
    (layout.parts, layout.truncated)
}

/// A part without its `" i/n"` (or streamed `" i/?"`) marker; a part without a marker is
/// returned unchanged.
///
/// Meant for parts that [`chunk`] or [`Numbering`] numbered: a single part ending in e.g.
/// `" 1/2"` (a fraction in the text itself) would lose it.
pub fn strip_marker(part: &str) -> &str {
    let Some((body, marker)) = part.rsplit_once(' ') else {
        return part;
    };
    let numbered = marker.split_once('/').is_some_and(|(i, n)| {
        let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
        digits(i) && (digits(n) || n == "?")
    });
    if numbered { body } else { part }
}

/// The phrase the system prompt uses to tell the model its length budget.
///
/// The first number is one part; the second is what fits in all parts, less a little slack
/// for markers and cuts at word boundaries, e.g. "Answer in at most 150 characters; never
/// more than 560." for the defaults.
pub(crate) fn budget_hint(lang: Lang, limits: &ChunkLimits) -> String {
    let limits = limits.sane();
    let chars = limits.max_chars.to_string();
    if limits.max_chunks <= 1 {
        return fill(part(lang, Part::BudgetOne), &[("chars", &chars)]);
    }
    let total = budget_chars(&limits).to_string();
    fill(
        part(lang, Part::BudgetMany),
        &[("chars", &chars), ("total", &total)],
    )
}

/// What a whole reply holds, in characters: one part's `max_chars` for a single part; for
/// several, each part less its marker and a little slack for cuts at word boundaries,
/// rounded down to tens (560 for the defaults).
pub(crate) fn budget_chars(limits: &ChunkLimits) -> usize {
    let limits = limits.sane();
    if limits.max_chunks <= 1 {
        return limits.max_chars;
    }
    let slack = marker_len(limits.max_chunks, limits.max_chunks) + 6;
    limits
        .max_chars
        .saturating_sub(slack)
        .saturating_mul(limits.max_chunks)
        / 10
        * 10
}

/// The parts of a text and whether the chunker cut it short (and added the `…`).
#[derive(Debug)]
struct Layout {
    parts: Vec<String>,
    truncated: bool,
}

fn layout(text: &str, limits: &ChunkLimits, mark: CutMark) -> Layout {
    let limits = limits.sane();
    let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if text.is_empty() {
        return Layout {
            parts: Vec::new(),
            truncated: false,
        };
    }
    let whole = Budget::new(&limits, 0);
    if whole.fits(text.chars().count(), text.len()) {
        return Layout {
            parts: vec![text],
            truncated: false,
        };
    }
    if limits.max_chunks == 1 {
        return Layout {
            parts: vec![ellipsized(&text, whole, mark)],
            truncated: true,
        };
    }
    // Cuts at sentence ends read better but waste room; drop them before dropping text.
    if let Some(parts) =
        fit(&text, &limits, Ends::Sentence).or_else(|| fit(&text, &limits, Ends::Word))
    {
        return Layout {
            parts: numbered(&parts),
            truncated: false,
        };
    }
    // These are the first parts `fit` tried with `max_chunks` as the total, so `rest` does
    // not fit the last part: the `…` always stands for text that was really cut.
    let last = limits.max_chunks;
    let (mut parts, rest) = split(&text, &limits, last, last - 1, Ends::Sentence);
    let tail = ellipsized(rest, Budget::new(&limits, marker_len(last, last)), mark);
    parts.push(&tail);
    Layout {
        parts: numbered(&parts),
        truncated: true,
    }
}

/// Lays out all of `text` in at most `max_chunks` numbered parts, if it fits.
///
/// The cuts depend on the marker widths, and those depend on the total only through its
/// number of digits. A narrower marker can still give more parts (a long word that now
/// fits a part alone leaves a short part before it), so every width is tried, narrowest
/// first, each with the largest total of that width. Fewer parts than that total is fine:
/// their real markers are no wider.
fn fit<'a>(text: &'a str, limits: &ChunkLimits, ends: Ends) -> Option<Vec<&'a str>> {
    let max = limits.max_chunks;
    (2..=max)
        .filter(|&total| total == max || marker_len(1, total + 1) > marker_len(1, total))
        .find_map(|total| {
            let (parts, rest) = split(text, limits, total, total, ends);
            rest.is_empty().then_some(parts)
        })
}

/// Takes up to `cap` parts from the front of `text`, sized for markers `" i/total"`;
/// returns them and the text left over.
fn split<'a>(
    text: &'a str,
    limits: &ChunkLimits,
    total: usize,
    cap: usize,
    ends: Ends,
) -> (Vec<&'a str>, &'a str) {
    let mut parts = Vec::new();
    let mut rest = text;
    while !rest.is_empty() && parts.len() < cap {
        let budget = Budget::new(limits, marker_len(parts.len() + 1, total));
        let cut = take(rest, budget, ends);
        parts.push(rest.get(..cut.end).unwrap_or(rest));
        rest = rest.get(cut.next..).unwrap_or("");
    }
    (parts, rest)
}

/// The last part of a truncated text: as much as fits with `mark` after it.
fn ellipsized(rest: &str, budget: Budget, mark: CutMark) -> String {
    let cut = take(rest, budget.less(mark.room()), Ends::Word);
    let mut part = rest.get(..cut.end).unwrap_or("").to_owned();
    part.push_str(mark.text());
    part
}

fn numbered(parts: &[&str]) -> Vec<String> {
    let total = parts.len();
    parts
        .iter()
        .enumerate()
        .map(|(i, part)| format!("{part}{}", marker(i + 1, total)))
        .collect()
}

fn marker(i: usize, total: usize) -> String {
    if total <= 1 {
        String::new()
    } else {
        format!(" {i}/{total}")
    }
}

/// Characters (and bytes: it is ASCII) of the marker of part `i` of `total`.
fn marker_len(i: usize, total: usize) -> usize {
    marker(i, total).len()
}

/// Room for text in one part, its marker already taken off.
#[derive(Debug, Clone, Copy)]
struct Budget {
    chars: usize,
    bytes: usize,
}

impl Budget {
    fn new(limits: &ChunkLimits, marker_len: usize) -> Budget {
        Budget {
            chars: limits.max_chars.saturating_sub(marker_len),
            bytes: limits.max_bytes.saturating_sub(marker_len),
        }
    }

    fn fits(&self, chars: usize, bytes: usize) -> bool {
        chars <= self.chars && bytes <= self.bytes
    }

    /// This budget with `other`'s room taken off.
    fn less(self, other: Budget) -> Budget {
        Budget {
            chars: self.chars.saturating_sub(other.chars),
            bytes: self.bytes.saturating_sub(other.bytes),
        }
    }

    /// At least 60 % of either limit used: a sentence end here makes a good cut.
    fn full_enough(&self, chars: usize, bytes: usize) -> bool {
        // Saturating, since the limits may be anything up to `usize::MAX`: a product only
        // saturates for sizes no reply comes near, and there the answer stays right.
        let enough = |used: usize, room: usize| used.saturating_mul(5) >= room.saturating_mul(3);
        enough(chars, self.chars) || enough(bytes, self.bytes)
    }
}

/// Where a part prefers to end.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Ends {
    /// At a sentence's end where one leaves the part full enough, else at a word's.
    Sentence,
    /// At the last word boundary that fits.
    Word,
}

/// Whether the text being cut is all there, or a streamed answer that may go on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Text {
    Whole,
    Growing,
}

/// Where a part ends in the remaining text and where the next one starts (after a space
/// for a cut at a word boundary, right there for a cut inside a word).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Cut {
    end: usize,
    next: usize,
}

/// Chooses the end of the next part of `rest` (normalized text, not starting with a space).
///
/// In order of preference: all of `rest`; the last sentence end that leaves the part full
/// enough (with [`Ends::Sentence`]); the last word boundary; inside a word that is too long for
/// any part. The returned part is never empty.
fn take(rest: &str, budget: Budget, ends: Ends) -> Cut {
    take_with(rest, budget, ends, Text::Whole).unwrap_or_else(|| first_char(rest))
}

/// [`take`] for a text that may go on ([`Text::Growing`]): `None` while text still to come
/// could change the cut — all of `rest` still fits, or the choice depends on the length of a
/// word not finished yet.
fn take_with(rest: &str, budget: Budget, ends: Ends, text: Text) -> Option<Cut> {
    let complete = text == Text::Whole;
    if budget.fits(rest.chars().count(), rest.len()) {
        return complete.then_some(Cut {
            end: rest.len(),
            next: rest.len(),
        });
    }
    let mut word_cut = None;
    let mut sentence_cut = None;
    for (chars, (at, c)) in rest.char_indices().enumerate() {
        if c != ' ' {
            continue;
        }
        if !budget.fits(chars, at) {
            break;
        }
        word_cut = Some((at, chars));
        let prefix = rest.get(..at).unwrap_or("");
        if ends == Ends::Sentence && ends_sentence(prefix) && budget.full_enough(chars, at) {
            sentence_cut = Some(at);
        }
    }
    let at_word = |at: usize| Cut {
        end: at,
        next: at + 1,
    };
    Some(match (sentence_cut, word_cut) {
        (Some(at), _) => at_word(at),
        (None, Some((at, chars))) => {
            // A short part followed by a word too long for any part: that word is split
            // anyway, so start it here rather than send a nearly empty part.
            let next = rest.get(at + 1..).unwrap_or("");
            if budget.full_enough(chars, at) {
                at_word(at)
            } else if fits_alone(next, budget) {
                if !complete && !next.contains(' ') {
                    // The word may still grow past what a part holds.
                    return None;
                }
                at_word(at)
            } else {
                inside_word(rest, at + 1, budget).unwrap_or(at_word(at))
            }
        }
        (None, None) => inside_word(rest, 0, budget)?,
    })
}

/// One code point: the last resort when not even that fits (impossible with sane limits),
/// so that the caller always makes progress.
fn first_char(rest: &str) -> Cut {
    let end = rest.chars().next().map_or(rest.len(), char::len_utf8);
    Cut { end, next: end }
}

/// Whether the first word of `text` fits in a part on its own.
fn fits_alone(text: &str, budget: Budget) -> bool {
    let word = text.split(' ').next().unwrap_or("");
    budget.fits(word.chars().count(), word.len())
}

fn ends_sentence(prefix: &str) -> bool {
    prefix
        .trim_end_matches(CLOSERS)
        .ends_with(SENTENCE_ENDS.as_slice())
}

/// Cuts inside the word starting at `from`: the last grapheme boundary that fits (preferring
/// one after a CJK sentence end), else, for a single grapheme larger than a part, the last
/// code point boundary. `None` when not even one code point of the word fits.
fn inside_word(rest: &str, from: usize, budget: Budget) -> Option<Cut> {
    let head_chars = rest.get(..from).unwrap_or("").chars().count();
    let tail = rest.get(from..).unwrap_or("");
    let word = tail.split(' ').next().unwrap_or(tail);
    let mut chars = head_chars;
    let mut best = None;
    let mut sentence = None;
    for (at, grapheme) in word.grapheme_indices(true) {
        let end = from + at + grapheme.len();
        chars += grapheme.chars().count();
        if !budget.fits(chars, end) {
            break;
        }
        best = Some(end);
        if grapheme.ends_with(CJK_SENTENCE_ENDS.as_slice()) && budget.full_enough(chars, end) {
            sentence = Some(end);
        }
    }
    let end = sentence.or(best).or_else(|| {
        let mut chars = head_chars;
        let mut end = None;
        for (at, c) in word.char_indices() {
            chars += 1;
            let after = from + at + c.len_utf8();
            if !budget.fits(chars, after) {
                break;
            }
            end = Some(after);
        }
        end
    })?;
    Some(Cut { end, next: end })
}

#[cfg(test)]
mod tests;
