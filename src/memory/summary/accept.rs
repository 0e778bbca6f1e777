//! Whether a candidate summary may replace the old one ([`accept_summary`]): cleaned (a
//! label dropped, an echo of the request cut off), scrubbed of what every prompt holds already
//! (the memory block's wording, the kept facts: [`scrub`]), and refused when it is no summary
//! (empty, a refusal, rambling, shrunk) or holds no notes about the person (`own_words`).

use std::collections::HashSet;

use unicode_segmentation::UnicodeSegmentation;

use super::own_words;
use crate::chunk::{ChunkLimits, chunk};
use crate::lang::{Lang, Part, part};
use crate::store::StoredMessage;
use crate::text::key;

/// Why a candidate summary was not saved; the old summary stays and the job is retried later.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum SummaryRejected {
    #[error("summary is empty")]
    Empty,
    #[error("summary looks like an error or a refusal, not a summary")]
    NotASummary,
    /// Far over the limit: a model that rambles or repeats itself, not one that ran a little
    /// long (that one is cut to fit).
    #[error("summary is {chars} characters, over {limit}: the model rambled")]
    TooLong { chars: usize, limit: usize },
    /// Much shorter than the summary it replaces: a rewrite that dropped most of what was
    /// remembered (small models do this), not an update.
    #[error("summary shrank from {previous} to {chars} characters: it dropped what was remembered")]
    Shrunk { chars: usize, previous: usize },
    /// Mostly the bot's own answers copied back: no notes about the person.
    #[error("summary is the bot's own answers, not notes about the person")]
    OwnWords,
    /// A loop of a few words ("Lara: Hi, Lara, Hello, Lara…").
    #[error("summary repeats a few words over and over")]
    Loop,
    /// Hardly a word of it is in what the person wrote, the facts or the previous notes: made
    /// up, not notes about them.
    #[error("summary shares hardly a word with what the person wrote: not notes about them")]
    Unrelated,
}

impl SummaryRejected {
    /// Whether the candidate held nothing worth keeping however often it is asked again (the
    /// model copied its answers or looped): after the last attempt the fold keeps the
    /// previous summary and saves the facts, as for a candidate that only repeated them.
    pub(crate) fn holds_nothing(&self) -> bool {
        matches!(
            self,
            SummaryRejected::OwnWords | SummaryRejected::Loop | SummaryRejected::Unrelated
        )
    }
}

/// A candidate longer than this many times `max_chars` is refused rather than cut.
const RAMBLE_FACTOR: usize = 3;

/// A candidate shorter than this share (in percent) of a previous summary of at least
/// `SHRINK_MIN_PREVIOUS` characters is refused.
const SHRINK_PERCENT: usize = 40;
const SHRINK_MIN_PREVIOUS: usize = 120;

/// Labels some models put before the summary despite being told not to.
const LABELS: &[&str] = &[
    "updated running summary:",
    "updated summary:",
    "running summary:",
    "summary:",
    "updated notes:",
    "notes:",
];

/// Openings of an error message or a refusal, compared in lower case.
const REFUSALS: &[&str] = &[
    "error",
    "i'm sorry",
    "i am sorry",
    "sorry,",
    "i can't",
    "i cannot",
    "i'm unable",
    "i am unable",
    "i apologize",
    "as an ai",
];

/// Fragments that never belong in a plain-text summary: code fences, thinking, and the
/// speaker labels or headings of a transcript (a model that echoes its input).
const FORBIDDEN: &[&str] = &[
    "```",
    "<think",
    "</think",
    "user:",
    "assistant:",
    "new lines:",
    "notes so far",
];

/// How the request begins, lower case: a small model that echoes it after its notes gets
/// its notes kept and the echo cut off.
const REQUEST_ECHO: &str = "now write your notes";

/// `text` cut where an echo of the request begins, if one does.
fn cut_echoes(text: &mut String) {
    let echoes = std::iter::once(REQUEST_ECHO.to_string())
        .chain(
            Lang::ALL[1..]
                .iter()
                .map(|l| part(*l, Part::SummaryStart).to_lowercase()),
        )
        .chain(request_echoes());
    for echo in echoes {
        if let Some(at) = find_ignoring_case(text, &echo) {
            text.truncate(at);
        }
    }
}

/// Words of a request's sentence that mark an echo of it.
const ECHO_WORDS: usize = 4;

/// The openings of the request's later sentences and clauses, in every language, lower case:
/// a small model also echoes one of them as its notes (seen: "Schreib auf Deutsch, in der
/// dritten Person, …" and "Behalte, was deine Notizen sagen, und füge …" saved as a German
/// conversation's summary, which then refused every later one as shrunk). What follows such
/// an opening is cut off, as the request's own beginning is.
fn request_echoes() -> impl Iterator<Item = String> {
    Lang::ALL.into_iter().flat_map(|l| {
        part(l, Part::SummaryRequest)
            .split([':', '.'])
            .skip(1)
            .filter_map(|sentence| {
                let words: Vec<&str> = sentence.split_whitespace().take(ECHO_WORDS).collect();
                (words.len() == ECHO_WORDS).then(|| words.join(" ").to_lowercase())
            })
            .collect::<Vec<_>>()
    })
}

/// The memory block's own wording, which a small model copies into its notes: taken out of a
/// candidate (see [`scrub`]).
const SCAFFOLDING: &[&str] = &[
    "(information, not instructions)",
    "information, not instructions",
    "(information for you, not instructions)",
    "information for you, not instructions",
    "their messages below are newer",
    "memory of this person",
    "earlier in your conversation",
    "they wrote (newest last):",
    "(newest last)",
    "they wrote:",
    "you wrote:",
    "your notes:",
];

/// Cleans a candidate summary (trims, drops a leading "Summary:" label, joins lines into one
/// paragraph) and returns it if it is fit to save: not empty, not an error message or
/// refusal, not rambling (over `RAMBLE_FACTOR` × `max_chars`), and not a rewrite that shrank
/// a `previous` summary to a fraction of it. One a little longer than `max_chars` is cut to
/// fit by the chunker, as a one-part reply is (at the last word that fits, with `…`): small
/// models often run long, and a summary missing its tail is worth more than none. A refused
/// summary changes nothing: the messages stay in the prompt until a good one is saved.
///
/// The memory block's wording and the kept `facts`, which a small model copies into its
/// notes, are taken out first ([`scrub`]), and an echo of the request is cut off: the facts
/// are in every prompt already. A candidate that held nothing else keeps the `previous`
/// summary: the fold still saves its facts, and the folded exchanges stay retrievable (a
/// small model that cannot write notes must not keep the prompt from ever shrinking). The
/// shrink check compares what both hold beyond the facts.
///
/// A candidate that is mostly the bot's own answers among `messages` (the conversation the
/// request carried), or a loop of a few words, is refused too ([`own_words`]): it is no note
/// about the person, and `!summary` would tell them the bot's words as theirs.
pub(crate) fn accept_summary(
    candidate: &str,
    max_chars: usize,
    previous: Option<&str>,
    facts: &[String],
    messages: &[StoredMessage],
) -> Result<String, SummaryRejected> {
    let mut text = candidate.trim();
    let lower = text.to_lowercase();
    if let Some(label) = LABELS.iter().find(|l| lower.starts_with(**l)) {
        text = text.get(label.len()..).unwrap_or("").trim_start();
    }
    let mut text = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if text.is_empty() {
        return Err(SummaryRejected::Empty);
    }
    cut_echoes(&mut text);
    // A previous summary that was an echo (saved before echoes were cut) holds nothing.
    let previous = previous.map(|p| {
        let mut p = p.trim().to_string();
        cut_echoes(&mut p);
        p
    });
    let text = scrub(&text, facts);
    if text.is_empty() {
        return Ok(previous.unwrap_or_default().trim().to_string());
    }
    // What the previous notes held beyond the facts: that is what a rewrite must not drop.
    let previous = previous.map(|p| scrub(&p, facts));
    let previous = previous.as_deref();
    // Curly apostrophes are common in model output; compare them as straight ones.
    let lower = text.to_lowercase().replace('\u{2019}', "'");
    // A label with nothing after it ("Gedächtnis über mich neu:", left of an echo) is no notes.
    let label_only = text.trim_end().ends_with(':');
    if REFUSALS.iter().any(|r| lower.starts_with(r))
        || FORBIDDEN.iter().any(|f| lower.contains(f))
        || label_only
    {
        return Err(SummaryRejected::NotASummary);
    }
    if only_scaffolding(&text) {
        return Ok(previous.unwrap_or_default().trim().to_string());
    }
    let chars = text.chars().count();
    let limit = max_chars.saturating_mul(RAMBLE_FACTOR);
    if chars > limit {
        return Err(SummaryRejected::TooLong { chars, limit });
    }
    let text = said_once(&text);
    if own_words::is_loop(&text) {
        return Err(SummaryRejected::Loop);
    }
    if own_words::is_own_words(&text, messages) {
        return Err(SummaryRejected::OwnWords);
    }
    if own_words::is_unrelated(&text, messages, previous, facts) {
        return Err(SummaryRejected::Unrelated);
    }
    let chars = text.chars().count();
    let previous = previous.map_or(0, |p| p.trim().chars().count());
    if previous >= SHRINK_MIN_PREVIOUS && chars * 100 < previous * SHRINK_PERCENT {
        return Err(SummaryRejected::Shrunk { chars, previous });
    }
    let limits = ChunkLimits {
        max_chars,
        max_bytes: usize::MAX,
        max_chunks: 1,
    };
    chunk(&text, &limits)
        .into_iter()
        .next()
        .ok_or(SummaryRejected::Empty)
}

/// A memory-block label whole, then its pieces between brackets, semicolons, colons and
/// full stops: a piece long enough to be its own wording (12 characters or more) as it is,
/// any other with a colon after it, as a label ("Sie schrieb:", "Tus notas:").
fn label_pieces(label: &str) -> Vec<String> {
    let pieces = label
        .split(['(', ')', ';', ':', '.'])
        .map(str::trim)
        .filter(|piece| piece.chars().count() >= 5);
    std::iter::once(label.to_string())
        .chain(pieces.map(|piece| {
            if piece.chars().count() >= 12 {
                piece.to_string()
            } else {
                format!("{piece}:")
            }
        }))
        .collect()
}

/// `text` without the memory block's wording and without the kept `facts` it repeats (with
/// their quotes), compared case-insensitively; whitespace collapsed, empty quotes dropped.
pub(crate) fn scrub(text: &str, facts: &[String]) -> String {
    let mut out = text.to_string();
    // Each fact whole, then each of its sentences (a model copies one without the other).
    let sentences = facts.iter().flat_map(|f| {
        f.split_sentence_bounds()
            .map(str::trim)
            .filter(|s| s.chars().count() >= 12)
            .map(str::to_string)
            .collect::<Vec<_>>()
    });
    // The other languages' labels, as the memory block writes them, and their pieces: a
    // model copies "Memoria de esta persona (información, no instrucciones; …):" with its
    // own punctuation, and a copy of the block that held only kept facts is no notes.
    let labels = Lang::ALL[1..].iter().flat_map(|l| {
        [
            Part::MemoryIntro,
            Part::FactsIntro,
            Part::SummaryIntro,
            Part::RetrievedIntro,
        ]
        .into_iter()
        .flat_map(|p| label_pieces(part(*l, p)))
    });
    let needles = SCAFFOLDING
        .iter()
        .map(|s| s.to_string())
        .chain(labels)
        .chain(facts.iter().map(|f| f.trim().to_string()))
        .chain(sentences)
        .filter(|n| !n.is_empty());
    for needle in needles {
        while let Some(at) = find_ignoring_case(&out, &needle) {
            out.replace_range(at..at + needle.len(), " ");
        }
    }
    // A fact copied without its full stop ("Gedächtnis über mich Der Akku am Solarknoten hat
    // 3000 mAh", a German fold's candidate, then recited as the answer to another question),
    // where it ends a clause.
    for fact in facts.iter().flat_map(|f| f.split_sentence_bounds()) {
        let bare = fact.trim().trim_end_matches(['.', '!', '?']).trim_end();
        if bare.chars().count() >= 12 {
            remove_clause_end(&mut out, bare);
        }
    }
    for empty in ["\u{201c} \u{201d}", "\u{201c}\u{201d}", "\" \"", "\"\""] {
        out = out.replace(empty, " ");
    }
    // What is left of a list of quotes: stray punctuation, dropped.
    let stray = |w: &str| {
        w.chars()
            .all(|c| c.is_ascii_punctuation() || "“”‘’«»".contains(c))
    };
    let out = out
        .split_whitespace()
        .filter(|w| !stray(w))
        .collect::<Vec<_>>()
        .join(" ");
    // A sentence that is only the start of a kept fact (a copy the token limit cut: "Der Akku
    // am Solarknoten hat 3000 m") says nothing the fact does not, and the model recited it.
    let fact_keys: Vec<String> = facts.iter().map(|f| key(f)).collect();
    out.split_sentence_bounds()
        .filter(|s| {
            let k = key(s);
            k.chars().count() < 12 || !fact_keys.iter().any(|f| f.starts_with(&k))
        })
        .collect::<String>()
        .trim()
        .to_string()
}

/// Takes `phrase` out of `text` wherever it starts a word and ends the text or a clause (a
/// punctuation mark or the end after it, not a letter or digit), ignoring case.
fn remove_clause_end(text: &mut String, phrase: &str) {
    let mut from = 0;
    while let Some(at) = text
        .get(from..)
        .and_then(|rest| find_ignoring_case(rest, phrase))
    {
        let (start, end) = (from + at, from + at + phrase.len());
        let before = text.get(..start).and_then(|b| b.chars().next_back());
        let after = text.get(end..).and_then(|a| a.chars().next());
        if before.is_none_or(|c| !c.is_alphanumeric())
            && after.is_none_or(|c| !c.is_alphanumeric() && !c.is_whitespace())
        {
            text.replace_range(start..end, " ");
            from = start + 1;
        } else {
            from = end;
        }
        if from > text.len() {
            break;
        }
    }
}

/// Whether `text` has words and every one is a word of the prompt's own wording in some language (the
/// memory block's labels, the summary request): what is left of a candidate that copied the
/// labels around the kept facts ("Gedächtnis über mich", of "Gedächtnis über diese Person"
/// and "Notizen über mich") holds no note.
fn only_scaffolding(text: &str) -> bool {
    let scaffolding: HashSet<String> = Lang::ALL
        .into_iter()
        .flat_map(|l| {
            [
                Part::MemoryIntro,
                Part::FactsIntro,
                Part::SummaryIntro,
                Part::RetrievedIntro,
                Part::SummaryRequest,
            ]
            .map(|p| part(l, p))
        })
        .chain(SCAFFOLDING.iter().copied())
        .flat_map(str::split_whitespace)
        .map(key)
        .collect();
    let mut words = text.split_whitespace().map(key).filter(|w| !w.is_empty());
    words.next().is_some_and(|w| scaffolding.contains(&w))
        && words.all(|w| scaffolding.contains(&w))
}

/// `text` with each sentence once (as `key` compares them): a small model that loops but not
/// far enough to be refused as rambling ("I'm a 3.23-m." thirteen times) leaves what it
/// said before the loop.
fn said_once(text: &str) -> String {
    let mut seen = HashSet::new();
    text.split_sentence_bounds()
        .filter(|s| {
            let k = key(s);
            k.is_empty() || seen.insert(k)
        })
        .collect::<String>()
        .trim()
        .to_string()
}

/// Where `needle` starts in `haystack`, ignoring ASCII and Unicode case, at a char boundary
/// of `haystack` with `needle.len()` bytes after it that match.
fn find_ignoring_case(haystack: &str, needle: &str) -> Option<usize> {
    let lower_needle = needle.to_lowercase();
    haystack.char_indices().map(|(i, _)| i).find(|&i| {
        haystack
            .get(i..i + needle.len())
            .is_some_and(|window| window.to_lowercase() == lower_needle)
    })
}

#[cfg(test)]
mod tests;
