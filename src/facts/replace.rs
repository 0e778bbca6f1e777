//! Which kept statement a new one replaces: "Update: I got a new callsign, it's SP2KWT now"
//! replaces "My callsign is SP9QRZ.", and "My friend's callsign is DL1ABC." replaces nothing.
//! Pure, and measured on the real model (docs/benchmarks.md, "corrections"): a 0.5B model
//! answers with the first matching statement it reads, so an old value left beside its
//! correction is served as often as the new one.
//!
//! A statement's subject ([`Subject`]) is read off its first clause by a rule over the words,
//! in English and German: whose it is (the determiner or possessive before the noun — "my",
//! "our", "the", "mein", "unser", "der"; "my friend's" or "meines Freundes" make it someone
//! else's), its head noun with the words before it ("home node"), the verb after it ("is",
//! "meets", "has"), and for "has" what it has ("a 3000 mAh battery": the battery). A sentence
//! that opens with "I" or "we" takes its subject from its object ("I moved my home node to
//! …", "I have a new radio now"), or is about its verb ("we meet on Fridays now", "ich wohne
//! jetzt in Krakau").
//!
//! A new statement replaces a kept one about the same subject when it says it is a correction
//! ("update", "now", "new", "moved", "no longer", "jetzt", "neu", "nicht mehr", "umgezogen", …),
//! or, without such a word, when both say the same thing but for their values ("My callsign
//! is SP9QRZ." then "My callsign is SP2KWT."). So "My dog is called Rex" is not replaced by
//! "My dog is a beagle", and "My solar node has a 3000 mAh battery" not by "I moved my home
//! node to the water tower". The rule misses some corrections (a changed subject in a second
//! clause, other languages' grammar); a missed one leaves both statements in the prompt, as
//! before, newest last.

use std::collections::HashSet;

use unicode_segmentation::UnicodeSegmentation;

use super::is_anchored;

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

/// What a statement is about; see the module comment.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Subject {
    owner: Owner,
    /// The head noun, empty when the statement is about its verb ("we meet on Fridays").
    noun: String,
    /// The words before the head noun, without "new" and "old" ("home" of "my home node").
    modifiers: Vec<String>,
    /// The verb's class, or `None` for a verb that brings its object ("I got a new callsign",
    /// "I moved my node"): that fits whatever the kept statement said of it.
    verb: Option<String>,
    /// What a "has" statement is about ("battery" of "has a 3000 mAh battery").
    attribute: Option<String>,
}

impl Subject {
    fn matches(&self, other: &Subject) -> bool {
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
            return (self.noun.is_empty() && other.noun.is_empty())
                || self.verb.as_deref() == Some("meet")
                || other.verb.as_deref() == Some("meet");
        }
        let subset = |a: &[String], b: &[String]| a.iter().all(|w| b.contains(w));
        self.noun == other.noun
            && (subset(&self.modifiers, &other.modifiers)
                || subset(&other.modifiers, &self.modifiers))
    }
}

/// Determiners and possessives that open a noun phrase, with whose it makes the phrase.
fn determiner(word: &str) -> Option<Owner> {
    Some(match word {
        "my" | "mein" | "meine" | "meinen" | "meinem" | "meiner" => Owner::Speaker,
        "our" | "unser" | "unsere" | "unseren" | "unserem" | "unserer" | "unsre" => Owner::Group,
        "the" | "der" | "die" | "das" | "den" | "dem" => Owner::Definite,
        "a" | "an" | "ein" | "eine" | "einen" | "einem" => Owner::Definite,
        "his" | "her" | "their" | "your" | "sein" | "seine" | "ihr" | "ihre" | "dein" | "deine"
        | "euer" | "eure" => Owner::Other(word.to_string()),
        _ => return None,
    })
}

/// Pronouns a first clause opens with, and whose their statement is.
fn pronoun(word: &str) -> Option<Owner> {
    match word {
        "i" | "i'm" | "ich" => Some(Owner::Speaker),
        "we" | "we're" | "wir" => Some(Owner::Group),
        _ => None,
    }
}

/// Words after a noun that name its owner: "das Rufzeichen meines Freundes".
const GENITIVES: &[&str] = &[
    "of", "von", "vom", "meines", "meiner", "deines", "deiner", "seines", "seiner", "ihres",
    "unseres",
];

/// Words that are not part of a noun phrase: verbs, prepositions, adverbs, conjunctions.
const NOT_NOUN: &[&str] = &[
    // English.
    "is",
    "are",
    "was",
    "were",
    "be",
    "been",
    "has",
    "have",
    "had",
    "meets",
    "meet",
    "met",
    "sits",
    "sit",
    "stands",
    "lives",
    "live",
    "runs",
    "run",
    "now",
    "no",
    "not",
    "still",
    "also",
    "just",
    "on",
    "in",
    "at",
    "to",
    "from",
    "of",
    "for",
    "with",
    "and",
    "but",
    "or",
    "called",
    "named",
    "moved",
    "got",
    "it",
    "it's",
    "which",
    "that",
    "every",
    "since",
    "last",
    "this",
    "here",
    "there",
    "today",
    "again",
    "anymore",
    "longer",
    "instead",
    "uses",
    "use",
    "changed",
    "became",
    "goes",
    "works",
    // German.
    "ist",
    "sind",
    "war",
    "hat",
    "haben",
    "habe",
    "heißt",
    "heisst",
    "heißen",
    "trifft",
    "treffen",
    "steht",
    "stehen",
    "liegt",
    "hängt",
    "wohnt",
    "läuft",
    "jetzt",
    "nicht",
    "nun",
    "mehr",
    "auf",
    "im",
    "am",
    "an",
    "um",
    "bei",
    "mit",
    "zu",
    "zum",
    "zur",
    "und",
    "aber",
    "seit",
    "sich",
    "uns",
    "inzwischen",
    "mittlerweile",
    "wieder",
    "heute",
    "hier",
    "dort",
    "neuerdings",
    "nutzt",
    "benutzt",
];

/// Words of a noun phrase that say it changed, not what it is: left out of its modifiers.
const AGE: &[&str] = &[
    "new",
    "old",
    "current",
    "latest",
    "neu",
    "neue",
    "neues",
    "neuer",
    "neuen",
    "neuem",
    "alt",
    "alte",
    "alter",
    "altes",
    "alten",
    "aktuelle",
    "aktuelles",
    "aktueller",
];

/// Adverbs between a subject and its verb ("our club now meets"), skipped.
const ADVERBS: &[&str] = &[
    "now",
    "still",
    "also",
    "no",
    "longer",
    "just",
    "recently",
    "finally",
    "actually",
    "really",
    "jetzt",
    "nun",
    "nicht",
    "mehr",
    "auch",
    "inzwischen",
    "mittlerweile",
    "neuerdings",
    "wieder",
];

/// Verbs that bring their object in a sentence opening with "I"/"we": the object is the
/// subject, and whatever the kept statement said of it, this one changes.
const BRINGING: &[&str] = &[
    "have", "got", "get", "bought", "moved", "put", "use", "built", "set", "changed", "habe",
    "hab", "haben", "bekam", "kaufte", "nutze", "benutze", "verlegte", "stellte",
];

/// Words that say a statement corrects an earlier one (compared in lower case, whole
/// words; two-word ones as a pair).
const MARKERS: &[&str] = &[
    "update",
    "updated",
    "correction",
    "now",
    "new",
    "moved",
    "changed",
    "anymore",
    "instead",
    "jetzt",
    "neu",
    "neue",
    "neues",
    "neuer",
    "neuen",
    "neuem",
    "nun",
    "umgezogen",
    "geändert",
    "stattdessen",
    "inzwischen",
    "mittlerweile",
    "neuerdings",
    "korrektur",
    "verlegt",
    "gewechselt",
];

const MARKER_PAIRS: &[(&str, &str)] = &[("no", "longer"), ("nicht", "mehr"), ("any", "more")];

/// The class of a verb, so "is" and "sits" and "steht" compare equal.
fn verb_class(word: &str, next: Option<&str>) -> String {
    let class = match word {
        "is" | "are" | "was" | "ist" | "sind" | "war"
            if next.is_some_and(|n| matches!(n, "called" | "named" | "genannt")) =>
        {
            "name"
        }
        "called" | "named" | "heißt" | "heisst" | "heiße" | "heißen" => "name",
        "meets" | "meet" | "met" | "trifft" | "treffen" | "treffe" | "gather" | "gathers" => "meet",
        "is" | "are" | "was" | "were" | "ist" | "sind" | "war" | "sits" | "sit" | "stands"
        | "steht" | "stehen" | "liegt" | "hängt" | "hangs" => "be",
        "has" | "have" | "had" | "hat" | "haben" | "habe" => "have",
        "lives" | "live" | "wohnt" | "wohne" | "wohnen" => "live",
        other => other.strip_suffix('s').unwrap_or(other),
    };
    class.to_string()
}

/// The words of `sentence` in lower case, apostrophes made straight, punctuation dropped.
fn words(sentence: &str) -> Vec<String> {
    sentence
        .replace(['\u{2019}', '\u{2018}'], "'")
        .split(|c: char| c.is_whitespace() || matches!(c, ',' | ';' | ':' | '.' | '!' | '(' | ')'))
        .map(|w| w.trim_matches(|c: char| !c.is_alphanumeric() && c != '\''))
        .filter(|w| w.chars().any(char::is_alphanumeric))
        .map(str::to_lowercase)
        .collect()
}

/// The first clause's words: up to the first comma or sentence mark after its opening word
/// (so "Update: I got a new callsign, it's SP2KWT now" is read as "I got a new callsign"),
/// without a leading marker or greeting.
fn first_clause(sentence: &str) -> Vec<String> {
    let lower = sentence.to_lowercase();
    let mut rest = lower.trim();
    for opening in [
        "update",
        "correction",
        "korrektur",
        "hi",
        "hello",
        "hey",
        "hallo",
        "also",
        "so",
        "btw",
        "ok",
    ] {
        if let Some(after) = rest.strip_prefix(opening)
            && after.starts_with([':', ',', '!', '-', ' '])
        {
            rest = after.trim_start_matches([':', ',', '!', '-', ' ']);
        }
    }
    let clause = rest
        .split([',', ';', '.', '!', '—', '–'])
        .find(|c| !c.trim().is_empty())
        .unwrap_or("");
    words(clause)
}

/// A noun phrase at `words[at..]` after its determiner: its words up to the first one that
/// is not a noun's, at most four.
fn noun_phrase(words: &[String], at: usize) -> Vec<String> {
    words
        .iter()
        .skip(at)
        .take_while(|w| !NOT_NOUN.contains(&w.as_str()) && determiner(w).is_none())
        .take(4)
        .cloned()
        .collect()
}

/// Owner, noun and modifiers of the phrase opened by the determiner at `words[at]`, and the
/// index after it; `None` when no noun follows.
fn phrase_subject(words: &[String], at: usize) -> Option<(Owner, String, Vec<String>, usize)> {
    let mut owner = determiner(words.get(at)?)?;
    let mut phrase = noun_phrase(words, at + 1);
    let mut end = at + 1 + phrase.len();
    // "my friend's callsign": the phrase is the friend's.
    if let Some(i) = phrase
        .iter()
        .position(|w| w.ends_with("'s") || w.ends_with("s'"))
    {
        let who = phrase[i].trim_end_matches("'s").trim_end_matches('\'');
        owner = Owner::Other(who.to_string());
        phrase.drain(..=i);
    }
    // "das Rufzeichen meines Freundes", "the callsign of my friend".
    if let Some(next) = words.get(end)
        && GENITIVES.contains(&next.as_str())
    {
        let who = words
            .iter()
            .skip(end + 1)
            .find(|w| determiner(w).is_none())
            .cloned()
            .unwrap_or_default();
        owner = Owner::Other(who);
        end = words.len();
    }
    let phrase: Vec<String> = phrase
        .into_iter()
        .filter(|w| !AGE.contains(&w.as_str()) && !w.chars().any(char::is_numeric))
        .collect();
    let (noun, modifiers) = phrase.split_last()?;
    Some((owner, noun.clone(), modifiers.to_vec(), end))
}

/// The verb at or after `words[at]`, past adverbs, and the index after it.
fn verb_at(words: &[String], at: usize) -> Option<(String, usize)> {
    let i = (at..words.len()).find(|&i| !ADVERBS.contains(&words[i].as_str()))?;
    let next = words.get(i + 1).map(String::as_str);
    Some((verb_class(&words[i], next), i + 1))
}

/// The last word of the noun phrase after a "has": "battery" of "a 3000 mAh battery".
fn object_noun(words: &[String], at: usize) -> Option<String> {
    let start = (at..words.len()).find(|&i| {
        let w = words[i].as_str();
        !ADVERBS.contains(&w) && determiner(w).is_none() && !AGE.contains(&w)
    })?;
    let phrase = noun_phrase(words, start);
    phrase
        .iter()
        .rev()
        .find(|w| !w.chars().any(char::is_numeric))
        .cloned()
}

/// What `statement` is about, if its first clause shows it; see the module comment.
fn subject(statement: &str) -> Option<Subject> {
    let words = first_clause(statement);
    let first = words.first()?;
    if let Some(owner) = pronoun(first) {
        let (verb, after) = verb_at(&words, 1)?;
        let object = (after..words.len()).find(|&i| determiner(&words[i]).is_some());
        let object = object.and_then(|i| phrase_subject(&words, i));
        let brings = BRINGING.contains(&words[after - 1].as_str());
        return Some(match object {
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
        });
    }
    let start = words.iter().position(|w| determiner(w).is_some())?;
    // The subject opens the clause ("Our radio club …", "Hi, my name …" after the greeting).
    if start > 0 {
        return None;
    }
    let (owner, noun, modifiers, end) = phrase_subject(&words, start)?;
    if matches!(owner, Owner::Definite) && words[0].starts_with('a') && words[0].len() <= 2 {
        // "A friend of mine …": nobody's in particular.
        return None;
    }
    let (verb, after) = verb_at(&words, end)?;
    let attribute = (verb == "have")
        .then(|| object_noun(&words, after))
        .flatten();
    Some(Subject {
        owner,
        noun,
        modifiers,
        verb: Some(verb),
        attribute,
    })
}

/// Whether `statement` says it corrects something: a word of [`MARKERS`] or a pair of
/// [`MARKER_PAIRS`].
fn is_correction(statement: &str) -> bool {
    let words = words(statement);
    words.iter().any(|w| MARKERS.contains(&w.as_str()))
        || words
            .windows(2)
            .any(|p| MARKER_PAIRS.contains(&(p[0].as_str(), p[1].as_str())))
}

/// The statement without its values: its words in lower case but those that name something
/// (a word with a digit, capitals inside, or capitalised after the first word; as
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
        .map(|(_, w)| w.to_lowercase())
        .collect()
}

/// Whether the `new` statement replaces the kept `old` one: see the module comment.
pub fn replaces(new: &str, old: &str) -> bool {
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

/// The ids of the `kept` statements (id, text) that `new` replaces.
pub fn replaced(kept: &[(i64, String)], new: &str) -> Vec<i64> {
    kept.iter()
        .filter(|(_, old)| replaces(new, old))
        .map(|(id, _)| *id)
        .collect()
}

/// The words of a replaced statement's value that its replacement does not say ("roof" and
/// "library" of "My home node is on the roof of the library." against "I moved my home node
/// to the water tower."): after its verb, a name, a number, or a word of four letters or more
/// that is not one of a sentence's small words. A sentence holding one of them says the old
/// value.
pub fn stale_words(old: &str, new: &str) -> Vec<String> {
    let said: HashSet<String> = words(new).into_iter().collect();
    let old = words(old);
    // The value follows the verb; the subject's words ("Verein") are not stale.
    let value = old.iter().position(|w| is_verb(w)).map_or(0, |i| i + 1);
    let mut seen = HashSet::new();
    old.into_iter()
        .skip(value)
        .filter(|w| !said.contains(w))
        .filter(|w| {
            w.chars().any(char::is_numeric)
                || (w.chars().count() >= 4
                    && !NOT_NOUN.contains(&w.as_str())
                    && !AGE.contains(&w.as_str())
                    && !MARKERS.contains(&w.as_str()))
        })
        .filter(|w| seen.insert(w.clone()))
        .collect()
}

/// Whether `word` is one of the verbs the rule knows (those [`verb_class`] groups and the
/// [`BRINGING`] ones).
fn is_verb(word: &str) -> bool {
    BRINGING.contains(&word)
        || matches!(
            verb_class(word, None).as_str(),
            "name" | "meet" | "be" | "have" | "live"
        ) && !matches!(word, "be" | "have")
        || matches!(
            word,
            "drive" | "drives" | "fahre" | "fährt" | "runs" | "uses"
        )
}

/// Whether `sentence` says one of `stale` words (or a longer form of one of them:
/// "donnerstags" for "donnerstag").
pub fn mentions(sentence: &str, stale: &[String]) -> bool {
    let said = words(sentence);
    stale.iter().any(|s| {
        said.iter()
            .any(|w| w == s || (s.len() >= 4 && w.starts_with(s.as_str())))
    })
}

/// `text` without its sentences that say a value a correction replaced: each (retired,
/// replacement) pair's [`stale_words`], but those a `current` fact says (a value changed back
/// is current again). Whitespace between the sentences kept is as it was.
pub fn without_stale(text: &str, replaced: &[(String, String)], current: &[String]) -> String {
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
