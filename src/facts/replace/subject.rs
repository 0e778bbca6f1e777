//! What a statement is about: its first clause read by the tables of the languages it
//! opens in (`words`), as the module comment of `facts::replace` says — whose it is, its head
//! noun and the words beside it, its verb, and for "has" what it has.

use super::words::{Kind, List, Words, listed, table};
use crate::lang::Lang;
use crate::text::fold;

/// Whose a subject is.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Owner {
    /// "my", "I", "mein", "ich".
    Speaker,
    /// "our", "we", "unser", "wir".
    Group,
    /// "the", "der", "die", "das": the speaker's or the group's, whichever the other says.
    Definite,
    /// Someone else's: "my friend's", "his", "meines Freundes" (the word that names them).
    Other(String),
}

impl Owner {
    fn matches(&self, other: &Owner) -> bool {
        match (self, other) {
            (Owner::Other(a), Owner::Other(b)) => a == b,
            (Owner::Other(_), _) | (_, Owner::Other(_)) => false,
            (Owner::Definite, _) | (_, Owner::Definite) => true,
            (a, b) => a == b,
        }
    }
}

/// A verb as the rule compares it: a kind the tables know ("is", "sits" and "steht" are one),
/// or the word itself without a final "s".
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Verb {
    Kind(Kind),
    Other(String),
}

/// What a statement is about; see the module comment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Subject {
    owner: Owner,
    /// The head noun, empty when the statement is about its verb ("we meet on Fridays").
    noun: String,
    /// The words beside the head noun, without "new" and "old" ("home" of "my home node").
    modifiers: Vec<String>,
    /// The verb, or `None` for a verb that brings its object ("I got a new callsign", "I
    /// moved my node"): that fits whatever the kept statement said of it.
    pub(super) verb: Option<Verb>,
    /// What a "has" statement is about ("battery" of "has a 3000 mAh battery").
    attribute: Option<String>,
}

impl Subject {
    pub(super) fn matches(&self, other: &Subject) -> bool {
        if !self.owner.matches(&other.owner) || self.attribute != other.attribute {
            return false;
        }
        let verbs = match (&self.verb, &other.verb) {
            (Some(a), Some(b)) => a == b,
            _ => true,
        };
        if !verbs {
            return false;
        }
        if self.noun.is_empty() || other.noun.is_empty() {
            // "We meet on Fridays now" is about any meeting of ours: the club's, the group's.
            // Any other verb without a noun ("I live in …") only matches its own kind.
            let meet = Some(Verb::Kind(Kind::Meet));
            return (self.noun.is_empty() && other.noun.is_empty())
                || self.verb == meet
                || other.verb == meet;
        }
        let subset = |a: &[String], b: &[String]| a.iter().all(|w| b.contains(w));
        self.noun == other.noun
            && (subset(&self.modifiers, &other.modifiers)
                || subset(&other.modifiers, &self.modifiers))
    }
}

/// Whose a noun phrase opened by `word` is, by one language's table.
fn determiner_in(t: &Words, word: &str) -> Option<Owner> {
    if listed(t.my, word) {
        Some(Owner::Speaker)
    } else if listed(t.our, word) {
        Some(Owner::Group)
    } else if listed(t.articles, word) {
        Some(Owner::Definite)
    } else if listed(t.others, word) {
        Some(Owner::Other(word.to_string()))
    } else {
        None
    }
}

/// Whether a clause may open with `word` in one language: a determiner, a pronoun, or a
/// verb that says who.
fn opens(t: &Words, word: &str) -> bool {
    determiner_in(t, word).is_some()
        || [t.i, t.we, t.i_verbs, t.we_verbs]
            .iter()
            .any(|list| listed(list, word))
}

/// The words of `sentence`, folded, punctuation dropped, an elided article or pronoun split
/// off its word ("l'antenne": "l'", "antenne").
pub(super) fn words(sentence: &str) -> Vec<String> {
    let elided: Vec<&str> = Lang::ALL
        .iter()
        .flat_map(|l| table(*l).elided)
        .copied()
        .collect();
    let mut out = Vec::new();
    for w in fold(sentence)
        .split(|c: char| c.is_whitespace() || matches!(c, ',' | ';' | ':' | '.' | '!' | '(' | ')'))
        .map(|w| w.trim_matches(|c: char| !c.is_alphanumeric() && c != '\''))
        .filter(|w| w.chars().any(char::is_alphanumeric))
    {
        match elided
            .iter()
            .find(|e| w.len() >= e.len() + 2 && w.starts_with(**e))
        {
            Some(e) => out.extend([e.to_string(), w[e.len()..].to_string()]),
            None => out.push(w.to_string()),
        }
    }
    out
}

/// The first clause's words: up to the first comma or sentence mark after its opening word
/// (so "Update: I got a new callsign, it's SP2KWT now" is read as "I got a new callsign"),
/// without the greetings and markers it opens with (any language's `openings`).
pub(super) fn first_clause(sentence: &str) -> Vec<String> {
    let folded = fold(sentence);
    let mut rest = folded.trim().trim_start_matches(['¡', '¿']);
    let openings: Vec<&str> = Lang::ALL
        .iter()
        .flat_map(|l| table(*l).openings)
        .copied()
        .collect();
    loop {
        let before = rest.len();
        for opening in &openings {
            if let Some(after) = rest.strip_prefix(opening)
                && after.starts_with([':', ',', '!', '-', ' '])
            {
                rest = after.trim_start_matches([':', ',', '!', '-', ' ']);
            }
        }
        if rest.len() == before {
            break;
        }
    }
    let clause = rest
        .split([',', ';', '.', '!', '—', '–'])
        .find(|c| !c.trim().is_empty())
        .unwrap_or("");
    words(clause)
}

/// The tables a statement is read with.
pub(super) struct Tables(Vec<&'static Words>);

impl Tables {
    /// Every language's.
    pub(super) fn all() -> Tables {
        Tables(Lang::ALL.iter().map(|l| table(*l)).collect())
    }

    /// The tables of the languages a clause of `words` may open with its first word in; of
    /// those, the ones whose possessive its second is, after an article ("a minha", "il
    /// mio"). `None` when no language's does.
    pub(super) fn opening(words: &[String]) -> Option<Tables> {
        let first = words.first()?;
        let mut tables: Vec<&'static Words> = Lang::ALL
            .iter()
            .map(|l| table(*l))
            .filter(|t| opens(t, first))
            .collect();
        if let Some(second) = words.get(1) {
            let both: Vec<&'static Words> = tables
                .iter()
                .copied()
                .filter(|t| determiner_in(t, second).is_some())
                .collect();
            if !both.is_empty() {
                tables = both;
            }
        }
        (!tables.is_empty()).then_some(Tables(tables))
    }

    pub(super) fn has(&self, pick: fn(&Words) -> List, word: &str) -> bool {
        self.0.iter().any(|t| listed(pick(t), word))
    }

    fn determiner(&self, word: &str) -> Option<Owner> {
        self.0.iter().find_map(|t| determiner_in(t, word))
    }

    /// Whose a clause opened by the pronoun `word` is.
    fn pronoun(&self, word: &str) -> Option<Owner> {
        if self.has(|t| t.i, word) {
            Some(Owner::Speaker)
        } else if self.has(|t| t.we, word) {
            Some(Owner::Group)
        } else {
            None
        }
    }

    /// Whose a clause opened by the verb `word` is, when the verb says it ("vivo").
    fn says_who(&self, word: &str) -> Option<Owner> {
        if self.has(|t| t.i_verbs, word) {
            Some(Owner::Speaker)
        } else if self.has(|t| t.we_verbs, word) {
            Some(Owner::Group)
        } else {
            None
        }
    }

    fn kind(&self, word: &str) -> Option<Kind> {
        self.0
            .iter()
            .flat_map(|t| t.verbs)
            .find(|(_, list)| listed(list, word))
            .map(|(kind, _)| *kind)
    }

    /// The verb `word`, followed by `next` ("is called" is a name).
    fn verb(&self, word: &str, next: Option<&str>) -> Verb {
        match self.kind(word) {
            Some(Kind::Be) if next.is_some_and(|n| self.has(|t| t.naming, n)) => {
                Verb::Kind(Kind::Name)
            }
            Some(kind) => Verb::Kind(kind),
            None => Verb::Other(word.strip_suffix('s').unwrap_or(word).to_string()),
        }
    }

    /// Whether `word` is one of the verbs the rule knows: a kind's, one that brings its
    /// object, or one a value follows.
    pub(super) fn is_verb(&self, word: &str) -> bool {
        self.kind(word).is_some()
            || self.has(|t| t.bringing, word)
            || self.has(|t| t.value_verbs, word)
    }

    /// Whether `word` is no noun's: it ends a noun phrase.
    pub(super) fn ends_phrase(&self, word: &str) -> bool {
        self.has(|t| t.not_noun, word) || self.has(|t| t.adverbs, word) || self.kind(word).is_some()
    }

    fn head_first(&self) -> bool {
        self.0.iter().all(|t| t.head_first)
    }

    /// The words of a noun phrase at `words[at..]` after its determiner: up to the first that
    /// is no noun's or a determiner, at most four.
    fn noun_phrase(&self, words: &[String], at: usize) -> Vec<String> {
        words
            .iter()
            .skip(at)
            .take_while(|w| !self.ends_phrase(w) && self.determiner(w).is_none())
            .take(4)
            .cloned()
            .collect()
    }

    /// Owner, noun and modifiers of the phrase opened by the determiner at `words[at]`, and
    /// the index after it; `None` when no noun follows.
    fn phrase_subject(
        &self,
        words: &[String],
        at: usize,
    ) -> Option<(Owner, String, Vec<String>, usize)> {
        let mut owner = self.determiner(words.get(at)?)?;
        let mut start = at + 1;
        // "il mio nodo", "a minha antena": the possessive after the article says whose.
        while let Some(next) = words.get(start).and_then(|w| self.determiner(w)) {
            if owner == Owner::Definite {
                owner = next;
            }
            start += 1;
        }
        let mut phrase = self.noun_phrase(words, start);
        let mut end = start + phrase.len();
        // "my friend's callsign": the phrase is the friend's.
        if let Some(i) = phrase
            .iter()
            .position(|w| w.ends_with("'s") || w.ends_with("s'"))
        {
            let who = phrase[i].trim_end_matches("'s").trim_end_matches('\'');
            owner = Owner::Other(who.to_string());
            phrase.drain(..=i);
        }
        // "das Rufzeichen meines Freundes", "the callsign of my friend", "el indicativo de
        // mi amigo".
        if let Some(next) = words.get(end)
            && self.has(|t| t.genitives, next)
        {
            let who = words
                .iter()
                .skip(end + 1)
                .find(|w| self.determiner(w).is_none())
                .cloned()
                .unwrap_or_default();
            owner = Owner::Other(who);
            end = words.len();
        }
        let phrase: Vec<String> = phrase
            .into_iter()
            .filter(|w| !self.has(|t| t.age, w) && !w.chars().any(char::is_numeric))
            .collect();
        let (noun, modifiers) = if self.head_first() {
            phrase.split_first()?
        } else {
            phrase.split_last()?
        };
        Some((owner, noun.clone(), modifiers.to_vec(), end))
    }

    /// The verb at or after `words[at]`, past adverbs, and the index after it.
    fn verb_at(&self, words: &[String], at: usize) -> Option<(Verb, usize)> {
        let i = (at..words.len()).find(|&i| !self.has(|t| t.adverbs, &words[i]))?;
        let next = words.get(i + 1).map(String::as_str);
        Some((self.verb(&words[i], next), i + 1))
    }

    /// The head noun of the phrase after a "has": "battery" of "a 3000 mAh battery".
    fn object_noun(&self, words: &[String], at: usize) -> Option<String> {
        let start = (at..words.len()).find(|&i| {
            let w = words[i].as_str();
            !self.has(|t| t.adverbs, w) && self.determiner(w).is_none() && !self.has(|t| t.age, w)
        })?;
        let phrase = self.noun_phrase(words, start);
        let noun = |w: &&String| !w.chars().any(char::is_numeric);
        let head = if self.head_first() {
            phrase.iter().find(noun)
        } else {
            phrase.iter().rev().find(noun)
        };
        head.cloned()
    }

    /// What the clause `words` is about, its first word read by these tables.
    fn subject(&self, words: &[String]) -> Option<Subject> {
        let first = words.first()?;
        if let Some(owner) = self.pronoun(first) {
            return self.told_by(words, owner, 1);
        }
        if let Some(owner) = self.says_who(first) {
            return self.told_by(words, owner, 0);
        }
        let (owner, noun, modifiers, end) = self.phrase_subject(words, 0)?;
        if owner == Owner::Definite && self.has(|t| t.nobody, first) {
            // "A friend of mine …": nobody's in particular.
            return None;
        }
        let (verb, after) = self.verb_at(words, end)?;
        let attribute = (verb == Verb::Kind(Kind::Have))
            .then(|| self.object_noun(words, after))
            .flatten();
        Some(Subject {
            owner,
            noun,
            modifiers,
            verb: Some(verb),
            attribute,
        })
    }

    /// What a clause is about whose pronoun or verb says it is `owner`'s, its verb at or
    /// after `words[at]`.
    fn told_by(&self, words: &[String], owner: Owner, at: usize) -> Option<Subject> {
        let (verb, after) = self.verb_at(words, at)?;
        let object = (after..words.len()).find(|&i| self.determiner(&words[i]).is_some());
        let object = object.and_then(|i| self.phrase_subject(words, i));
        let brings = self.has(|t| t.bringing, &words[after - 1]);
        Some(match object {
            // "I moved my home node", "I have a new radio": the object is the subject.
            Some((object_owner, noun, modifiers, _)) if brings => Subject {
                owner: match object_owner {
                    Owner::Definite => owner,
                    other => other,
                },
                noun,
                modifiers,
                verb: None,
                attribute: None,
            },
            // "I live in Zakopane", "we meet on Fridays": the verb is the subject.
            _ => Subject {
                owner,
                noun: String::new(),
                modifiers: Vec::new(),
                verb: Some(verb),
                attribute: None,
            },
        })
    }
}

/// What `statement` is about, if its first clause shows it; see the module comment.
pub(super) fn subject(statement: &str) -> Option<Subject> {
    let words = first_clause(statement);
    Tables::opening(&words)?.subject(&words)
}
