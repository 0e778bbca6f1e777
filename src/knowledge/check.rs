//! A wrong value is worse than none: the model's answer to a question the documents' notes
//! came with must not carry a number, a date or a name its prompt does not hold. Pure: the
//! answer, what the prompt held (the passages, the question, the conversation) and the
//! passages go in; the answer, or what replaces it, comes out.
//!
//! Why: with the passages about the question but not holding the asked value, Qwen2.5-0.5B
//! answered "When is Field Day next year?" with "October 10, 2023" and the club wifi's
//! password with "password123" (issue 38). Every digit run of the answer must be one the
//! prompt writes, and every capitalised word (not a sentence's first) one it names; else the
//! answer is replaced by the passages' own sentence that shares most with the question, or by
//! "Not in my notes." when none shares enough. German writes every noun capitalised: there
//! only the numbers are checked.

use crate::lang::Lang;
use crate::mesh::matcher::{self, fold, words};

/// What the answer comes to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Checked {
    /// It carries nothing the prompt does not hold.
    Kept,
    /// It does (`added`, for the log): the passages' own sentence instead …
    Sentence {
        sentence: String,
        added: Vec<String>,
    },
    /// … or, none sharing enough with the question, "Not in my notes.".
    NotInNotes { added: Vec<String> },
}

/// A sentence must share at least this many of the question's words to stand for the answer.
pub(crate) const SHARED_WORDS: usize = 2;

/// Words of a question that say nothing of what it is about.
const STOP: &[&str] = &[
    "what", "when", "where", "which", "who", "whom", "whose", "does", "this", "that", "have",
    "with", "your", "from", "there", "their", "about", "will", "would", "could", "should", "is",
    "are", "the", "and", "for",
];

/// The digit runs of `text`: `19:30` is `19` and `30`.
fn numbers(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !c.is_ascii_digit())
        .filter(|n| !n.is_empty())
}

/// The capitalised words of `text` that are not a sentence's first, folded.
fn names(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut first = true;
    for raw in text.split_whitespace() {
        let word = raw.trim_matches(|c: char| !c.is_alphanumeric());
        if !first
            && word.chars().next().is_some_and(char::is_uppercase)
            && word.chars().count() >= 2
            && !word.chars().any(|c| c.is_ascii_digit())
        {
            let f = fold(word);
            if !matcher::not_a_name(&f) {
                out.push(f);
            }
        }
        first = raw.ends_with(['.', '!', '?', ':']) || word.is_empty() && first;
    }
    out
}

/// The web and mail addresses of `text`, lowercased: a word with `://`, one that starts with
/// `www.`, or one with an `@` before a dot ("https://www.club.com", "info@club.org").
fn addresses(text: &str) -> impl Iterator<Item = String> + '_ {
    text.split_whitespace()
        .map(|w| {
            w.trim_matches(|c: char| !c.is_alphanumeric() && c != '/')
                .to_lowercase()
        })
        .filter(|w| {
            w.contains("://")
                || w.starts_with("www.")
                || w.split_once('@').is_some_and(|(user, host)| {
                    !user.is_empty() && host.contains('.') && !host.starts_with('.')
                })
        })
}

/// The values `answer` adds to `prompt`: digit runs it does not write, web and mail
/// addresses it does not write (the Spanish knowledge bench's "https://www.club.com" for the
/// club's website), and (but in German) names it does not name.
pub(crate) fn added(answer: &str, prompt: &str, lang: Lang) -> Vec<String> {
    let known: Vec<&str> = numbers(prompt).collect();
    let mut added: Vec<String> = numbers(answer)
        .filter(|n| !known.contains(n))
        .map(str::to_string)
        .collect();
    let lowered = prompt.to_lowercase();
    added.extend(addresses(answer).filter(|a| !lowered.contains(a.as_str())));
    if lang != Lang::De {
        let folded = fold(prompt);
        let named = words(&folded);
        added.extend(
            names(answer)
                .into_iter()
                .filter(|n| !named.contains(&n.as_str())),
        );
    }
    added.dedup();
    added
}

/// The sentences of the passages in `notes` (the knowledge note, `render::knowledge_block`:
/// its intro, each passage after its label in brackets, its closing rule, a blank line
/// between them).
fn sentences(notes: &str) -> Vec<&str> {
    let blocks: Vec<&str> = notes.split("\n\n").collect();
    let Some(inner) = blocks.get(1..blocks.len().saturating_sub(1)) else {
        return Vec::new();
    };
    inner
        .iter()
        .filter_map(|b| match b.strip_prefix('[') {
            Some(labelled) => labelled.split_once('\n').map(|(_, text)| text),
            None => Some(*b),
        })
        .flat_map(|text| text.lines())
        .flat_map(|line| line.split_inclusive(". "))
        .map(str::trim)
        .filter(|s| s.chars().any(char::is_alphanumeric))
        .collect()
}

/// The passage sentence of `notes` that shares most of `question`'s words (at least
/// [`SHARED_WORDS`]; "start" shares with "starts").
pub(crate) fn sentence<'a>(question: &str, notes: &'a str) -> Option<&'a str> {
    let folded = fold(question);
    let asked: Vec<&str> = words(&folded)
        .into_iter()
        .filter(|w| w.chars().count() >= 3 && !STOP.contains(w))
        .collect();
    let (shared, best) = sentences(notes)
        .into_iter()
        .map(|s| {
            let f = fold(s);
            let w = words(&f);
            let shares = |a: &str| {
                w.iter().any(|w| {
                    *w == a
                        || (a.len().min(w.len()) >= 4 && (w.starts_with(a) || a.starts_with(*w)))
                })
            };
            (asked.iter().filter(|a| shares(a)).count(), s)
        })
        .max_by_key(|(n, _)| *n)?;
    (shared >= SHARED_WORDS).then_some(best)
}

/// What becomes of `answer` to `question`, whose prompt held `prompt` and whose knowledge
/// note was `notes`, in `lang`.
pub(crate) fn check(
    answer: &str,
    question: &str,
    prompt: &str,
    notes: &str,
    lang: Lang,
) -> Checked {
    let added = added(answer, prompt, lang);
    if added.is_empty() {
        return Checked::Kept;
    }
    match sentence(question, notes) {
        Some(s) => Checked::Sentence {
            sentence: s.to_string(),
            added,
        },
        None => Checked::NotInNotes { added },
    }
}

#[cfg(test)]
mod tests;
