//! Which kept statement a new one replaces: "Update: I got a new callsign, it's SP2KWT now"
//! replaces "My callsign is SP9QRZ.", and "My friend's callsign is DL1ABC." replaces nothing.
//! Pure, and measured on the real model (docs/benchmarks.md, "corrections"): a 0.5B model
//! answers with the first matching statement it reads, so an old value left beside its
//! correction is served as often as the new one.
//!
//! A statement's subject (`subject`) is read off its first clause by a rule over its
//! (folded) words, with the tables (`words`, one per language) of the languages its opening
//! word belongs to: whose it is (the determiner or possessive before the noun — "my", "our",
//! "the", "mein", "mi", "il mio"; "my friend's", "meines Freundes" or "de mi amigo" make it
//! someone else's), its head noun with the words beside it ("home node", "nodo solar"), the
//! verb after it ("is", "meets", "has", "se llama"), and for "has" what it has ("a 3000 mAh
//! battery": the battery). A sentence that opens with "I" or "we", or with a verb that says
//! so itself ("vivo", "mieszkam"), takes its subject from its object ("I moved my home node
//! to …", "I have a new radio now"), or is about its verb ("we meet on Fridays now", "ich
//! wohne jetzt in Krakau").
//!
//! A new statement replaces a kept one about the same subject when it says it is a correction
//! (a marker of any language: "update", "now", "no longer", "jetzt", "ahora", "ya no", …), or,
//! without such a word, when both say the same thing but for their values ("My callsign is
//! SP9QRZ." then "My callsign is SP2KWT."). So "My dog is called Rex" is not replaced by "My
//! dog is a beagle", and "My solar node has a 3000 mAh battery" not by "I moved my home node
//! to the water tower".
//!
//! What the rule misses leaves both statements in the prompt, as before, newest last: a
//! changed subject in a second clause; in Spanish, Portuguese, French and Italian an object
//! said by a pronoun before the verb ("lo moví a la torre": I moved it, read by its verb
//! only), a verb without its pronoun whose first-person form is not in the table (a
//! compound tense: "he movido mi nodo", "he" being English), and a modifier after "de" or
//! "di" ("mi nodo de casa" is read as someone else's, so it replaces nothing); in Polish,
//! which has no article, an object with no possessive ("mam teraz nowe radio").

mod subject;
mod words;

use std::collections::HashSet;

use unicode_segmentation::UnicodeSegmentation;

use super::is_anchored;
use crate::lang::Lang;
use crate::text::fold;
use subject::{Tables, first_clause, subject, words};
use words::{is, table};

/// At most this many words between the parts of a marker written with `…` ("ne … plus").
const GAP: usize = 3;

/// Whether `said` (a statement's words) holds `entry`: a word, words in a row, or parts
/// around `…` in this order with at most [`GAP`] words between them ("ne se réunit plus").
fn says(said: &[String], entry: &str) -> bool {
    if !entry.contains(' ') {
        return said.iter().any(|w| is(w, entry));
    }
    let parts: Vec<Vec<String>> = entry.split('…').map(words).collect();
    (0..said.len()).any(|i| follows(said, i, &parts))
}

/// Whether `parts` start at `said[i]`, each within [`GAP`] words of the one before.
fn follows(said: &[String], i: usize, parts: &[Vec<String>]) -> bool {
    let Some((part, rest)) = parts.split_first() else {
        return true;
    };
    let end = i + part.len();
    if part.is_empty() || said.get(i..end) != Some(part.as_slice()) {
        return false;
    }
    rest.is_empty() || (end..=end + GAP).any(|j| follows(said, j, rest))
}

/// Whether `word` is a one-word marker of any language.
fn is_marker(word: &str) -> bool {
    Lang::ALL
        .iter()
        .flat_map(|l| table(*l).markers)
        .any(|m| !m.contains(' ') && is(word, m))
}

/// Whether `statement` says it corrects something: a marker of any language.
fn is_correction(statement: &str) -> bool {
    let said = words(statement);
    Lang::ALL
        .iter()
        .flat_map(|l| table(*l).markers)
        .any(|m| says(&said, m))
}

/// The statement without its values: its words, folded, but those that name something (a
/// word with a digit, capitals inside, or capitalised after the first word; as
/// [`is_anchored`] reads them).
fn frame(statement: &str) -> Vec<String> {
    let normalised = statement.replace(['\u{2019}', '\u{2018}'], "'");
    normalised
        .split(|c: char| c.is_whitespace() || matches!(c, ',' | ';' | ':' | '.' | '!' | '(' | ')'))
        .map(|w| w.trim_matches(|c: char| !c.is_alphanumeric() && c != '\''))
        .filter(|w| w.chars().any(char::is_alphanumeric))
        .enumerate()
        .filter(|(i, w)| {
            let named = if *i == 0 {
                is_anchored(w)
            } else {
                is_anchored(&format!("x {w}"))
            };
            !named
        })
        .map(|(_, w)| fold(w))
        .collect()
}

/// Whether the `new` statement replaces the kept `old` one: see the module comment.
pub(crate) fn replaces(new: &str, old: &str) -> bool {
    let (Some(n), Some(o)) = (subject(new), subject(old)) else {
        return false;
    };
    if !n.matches(&o) {
        return false;
    }
    if is_correction(new) {
        return true;
    }
    // Without a marker: the same words but the values ("My callsign is X" → "… is Y"), and
    // the values differ (a restatement is not a correction; the store keeps it once).
    let (fn_, fo) = (frame(new), frame(old));
    fn_ == fo && words(new) != words(old) && n.verb.is_some() && o.verb.is_some()
}

/// The keys of the `kept` statements (key, text) that `new` replaces.
pub(crate) fn replaced<K: Copy>(kept: &[(K, String)], new: &str) -> Vec<K> {
    kept.iter()
        .filter(|(_, old)| replaces(new, old))
        .map(|(key, _)| *key)
        .collect()
}

/// The words of a replaced statement's value that its replacement does not say ("roof" and
/// "library" of "My home node is on the roof of the library." against "I moved my home node
/// to the water tower."): after its verb, a name, a number, or a word of four letters or more
/// that is not one of a sentence's small words (by the tables `old` is read with). A sentence
/// holding one of them says the old value.
pub(crate) fn stale_words(old: &str, new: &str) -> Vec<String> {
    let said: HashSet<String> = words(new).into_iter().collect();
    let tables = Tables::opening(&first_clause(old)).unwrap_or_else(Tables::all);
    let old = words(old);
    // The value follows the verb; the subject's words ("Verein") are not stale.
    let value = old
        .iter()
        .position(|w| tables.is_verb(w))
        .map_or(0, |i| i + 1);
    let mut seen = HashSet::new();
    old.into_iter()
        .skip(value)
        .filter(|w| !said.contains(w))
        .filter(|w| {
            w.chars().any(char::is_numeric)
                || (w.chars().count() >= 4
                    && !tables.ends_phrase(w)
                    && !tables.has(|t| t.age, w)
                    && !is_marker(w))
        })
        .filter(|w| seen.insert(w.clone()))
        .collect()
}

/// Whether `sentence` says one of `stale` words (or a longer form of one of them:
/// "donnerstags" for "donnerstag").
pub(crate) fn mentions(sentence: &str, stale: &[String]) -> bool {
    let said = words(sentence);
    stale.iter().any(|s| {
        said.iter()
            .any(|w| w == s || (s.len() >= 4 && w.starts_with(s.as_str())))
    })
}

/// `text` without its sentences that say a value a correction replaced: each (retired,
/// replacement) pair's [`stale_words`], but those a `current` fact says (a value changed back
/// is current again). Whitespace between the sentences kept is as it was.
pub(crate) fn without_stale(
    text: &str,
    replaced: &[(String, String)],
    current: &[String],
) -> String {
    let now: HashSet<String> = current.iter().flat_map(|c| words(c)).collect();
    let stale: Vec<String> = replaced
        .iter()
        .flat_map(|(old, new)| stale_words(old, new))
        .filter(|w| !now.contains(w))
        .collect();
    if stale.is_empty() {
        return text.to_string();
    }
    text.split_sentence_bounds()
        .filter(|s| !mentions(s, &stale))
        .collect::<String>()
        .trim()
        .to_string()
}

#[cfg(test)]
mod tests;
