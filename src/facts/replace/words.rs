//! The words the correction rule (`facts::replace`) reads a statement by, one table per
//! language (`en.rs` … `pl.rs`): whose a noun phrase is, the pronouns and verbs a clause
//! opens with, the words that end a noun phrase, the kinds of verb, and the words that say a
//! statement corrects an earlier one.
//!
//! Every entry is folded (`text::fold`: lowercase, no diacritics). An entry ending in `*` is
//! any word it starts; an entry with a space is words in a row (markers and openings only),
//! and a marker's `…` stands for up to three words ("ne … plus": "ne se réunit plus").
//!
//! A statement is read with the tables of the languages its opening word belongs to ("my":
//! English; "la": Spanish, French and Italian; "a minha": Portuguese, the possessive after
//! the article deciding), so "son" ends a French noun phrase but not "My son is called Max".
//! The markers and the openings are looked for in every language. So a language's opening
//! words stay out of another's where they mean something else there: Dutch "we" is
//! English's, Polish "my" (we) is English "my", and each file says what it left out.
//!
//! To add a word: write it, folded, in its language's file under the field whose comment
//! fits, and a case to that language's table in `replace/tests.rs`.

mod de;
mod en;
mod es;
mod fr;
mod it;
mod nl;
mod pl;
mod pt;

use crate::lang::Lang;

/// A list of entries.
pub(crate) type List = &'static [&'static str];

/// The kinds of verb the rule compares, so "is", "sits" and "steht" say the same.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// "is called", "heißt".
    Name,
    /// "meets", "trifft sich".
    Meet,
    /// "is", "sits", "steht".
    Be,
    /// "has", "hat".
    Have,
    /// "lives", "wohnt".
    Live,
}

/// One language's words.
pub(crate) struct Words {
    /// Possessives of the speaker: "my", "mein".
    pub(crate) my: List,
    /// Possessives of the speaker's group: "our", "unser".
    pub(crate) our: List,
    /// Articles: "the", "a", "der". The phrase is the speaker's or the group's, whichever the
    /// other statement says.
    pub(crate) articles: List,
    /// Someone else's possessives: "his", "your", "sein" (the word names whose).
    pub(crate) others: List,
    /// Articles that open a statement about nobody in particular when no possessive follows
    /// ("A friend of mine …").
    pub(crate) nobody: List,
    /// Pronouns a first clause opens with: the speaker ("I", "ich").
    pub(crate) i: List,
    /// … and the group ("we", "wir").
    pub(crate) we: List,
    /// Verbs that say their subject themselves and open a clause: the speaker ("vivo", "mam").
    pub(crate) i_verbs: List,
    /// … and the group ("vivimos", "spotykamy").
    pub(crate) we_verbs: List,
    /// Words after a noun phrase that name its owner ("of", "von", "de"): someone else's.
    pub(crate) genitives: List,
    /// Words no noun phrase holds: prepositions, conjunctions, other verbs. The words of
    /// `verbs` and `adverbs` end a noun phrase too.
    pub(crate) not_noun: List,
    /// Words of a noun phrase that say it changed, not what it is ("new", "neu"): left out.
    pub(crate) age: List,
    /// Adverbs and unstressed pronouns between a subject and its verb ("now", "se"), skipped.
    pub(crate) adverbs: List,
    /// Verbs that bring their object after "I" or "we" ("moved", "habe"): the object is the
    /// subject, and whatever the kept statement said of it, this one changes.
    pub(crate) bringing: List,
    /// Each kind of verb and its words.
    pub(crate) verbs: &'static [(Kind, List)],
    /// Words after a "be" verb that make it a name ("is called", "ist genannt").
    pub(crate) naming: List,
    /// Other verbs a value follows ("drives", "fährt"), for the words a replaced statement said.
    pub(crate) value_verbs: List,
    /// Words that say a statement corrects an earlier one ("now", "no longer").
    pub(crate) markers: List,
    /// Greetings and markers a statement may open with, left out before its first clause
    /// ("Update:", "Hi,").
    pub(crate) openings: List,
    /// Articles and pronouns written onto the next word ("l'", "s'"), split off it.
    pub(crate) elided: List,
    /// The head noun comes first in a noun phrase ("mi nodo solar"), not last ("my solar node").
    pub(crate) head_first: bool,
}

/// The words of `lang`.
pub(crate) fn table(lang: Lang) -> &'static Words {
    match lang {
        Lang::En => &en::WORDS,
        Lang::De => &de::WORDS,
        Lang::Es => &es::WORDS,
        Lang::Pt => &pt::WORDS,
        Lang::Fr => &fr::WORDS,
        Lang::It => &it::WORDS,
        Lang::Nl => &nl::WORDS,
        Lang::Pl => &pl::WORDS,
    }
}

/// Whether the folded `word` is `entry` (or starts with it, for an entry ending in `*`).
pub(crate) fn is(word: &str, entry: &str) -> bool {
    match entry.strip_suffix('*') {
        Some(prefix) => word.starts_with(prefix),
        None => word == entry,
    }
}

/// Whether the folded `word` is one of `list`'s.
pub(crate) fn listed(list: List, word: &str) -> bool {
    list.iter().any(|e| is(word, e))
}
