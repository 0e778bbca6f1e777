//! The languages meshai speaks besides English, and which one a message is in.
//!
//! The set is chosen by who uses Meshtastic (its community outside the English-speaking world
//! is largely in the German-speaking countries, Brazil and Portugal, Spain, France, Italy, the
//! Netherlands and Poland): for these the prompt's fixed parts and the bot's own texts exist
//! in the language; any other language gets English ones. The texts are named once, with
//! what each means, in [`say`] (the bot's own) and [`parts`] (the prompt's parts); each
//! language's words for them are one file, `en.rs` … `pl.rs` (English byte-identical to what
//! it was before there were others). A new text is one variant and one line per language.
//!
//! Detection is `whatlang`'s trigram model (no model call, no I/O), limited to the languages
//! here, and only for a message of at least [`MIN_WORDS`] words it is sure of: "ok", "73!"
//! or "Danke" say nothing about a conversation. On a short message the trigrams alone err
//! (measured: "question during outage" comes out French at 0.53, "first question" French at
//! 0.36), so the guess must also hold one of its language's own small words ("ich", "me",
//! "le", …), and no fewer than English ones. Words in quotes are someone else's and are left
//! out ([`aside`]). Which language a conversation is in is [`Sticky`]'s to say.

/// Declares a text enum and its `ALL` (every variant, in order, for the tests) from one list.
macro_rules! texts {
    ($(#[$meta:meta])* pub enum $name:ident { $($(#[$vmeta:meta])* $variant:ident,)* }) => {
        $(#[$meta])*
        pub enum $name {
            $($(#[$vmeta])* $variant,)*
        }

        impl $name {
            /// Every one, in order.
            pub const ALL: [$name; [$(stringify!($variant)),*].len()] = [$($name::$variant),*];
        }
    };
}

/// One language's table of a text kind, a text a line (rustfmt leaves it so):
/// `table! { Say: StoreFailed => "…", … }`.
macro_rules! table {
    ($kind:ident: $($text:ident => $words:expr,)*) => {
        &[$(($kind::$text, $words)),*]
    };
}

pub(crate) mod aside;
mod de;
mod en;
mod es;
mod fr;
mod it;
mod nl;
pub(crate) mod parts;
mod pl;
mod pt;
pub(crate) mod related;
pub mod say;
mod small;
pub(crate) mod stem;
pub(crate) mod sticky;

use std::sync::LazyLock;

pub use parts::Part;
pub use say::{Say, fill};
pub(crate) use sticky::Sticky;

/// One language's words for each text of a kind ([`Say`], [`Part`]): a pair per text, every
/// text once (`tests::every_table_has_every_text_once`), so a new text is one line per
/// language and a missing one fails the tests, not a user.
type Table<T> = &'static [(T, &'static str)];

/// `t`'s words in `table`; English's when the table lacks it (the tests rule that out), and
/// nothing when English lacks it too.
fn look_up<T: PartialEq + Copy>(table: Table<T>, english: Table<T>, t: T) -> &'static str {
    let find = |table: Table<T>| table.iter().find(|(k, _)| *k == t).map(|(_, v)| *v);
    find(table).or_else(|| find(english)).unwrap_or_default()
}

/// The bot's texts and the prompt's parts of `lang`.
fn tables(lang: Lang) -> (Table<Say>, Table<Part>) {
    match lang {
        Lang::En => (en::SAY, en::PART),
        Lang::De => (de::SAY, de::PART),
        Lang::Es => (es::SAY, es::PART),
        Lang::Pt => (pt::SAY, pt::PART),
        Lang::Fr => (fr::SAY, fr::PART),
        Lang::It => (it::SAY, it::PART),
        Lang::Nl => (nl::SAY, nl::PART),
        Lang::Pl => (pl::SAY, pl::PART),
    }
}

/// The bot's own text `s` in `lang`.
pub fn say(lang: Lang, s: Say) -> &'static str {
    look_up(tables(lang).0, en::SAY, s)
}

/// The prompt's part `p` in `lang`.
pub fn part(lang: Lang, p: Part) -> &'static str {
    look_up(tables(lang).1, en::PART, p)
}

/// The form a count's noun takes (CLDR's plural categories, as far as meshai's languages and
/// counts need them): "1 skok", "2 skoki", "5 skoków".
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Plural {
    One,
    /// Polish 2–4, 22–24, 32–34, … (not 12–14).
    Few,
    Many,
}

/// A language meshai has texts in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Lang {
    #[default]
    En,
    De,
    Es,
    Pt,
    Fr,
    It,
    Nl,
    Pl,
}

/// A message shorter than this many words is not detected (one or two words are too few for
/// trigrams: "Hallo Pepper" and "Ciao Mateo" are anyone's).
pub(crate) const MIN_WORDS: usize = 3;

/// Below this `whatlang` confidence a message's language counts as unknown. Measured on the
/// table in the tests: short sentences of the eight languages come out at 0.5 and above when
/// right; below 0.3 the guesses are as often wrong as right.
pub(crate) const MIN_CONFIDENCE: f64 = 0.3;

impl Lang {
    /// The plural form of a count of `n` in this language.
    pub(crate) fn plural(self, n: u64) -> Plural {
        match (self, n % 10, n % 100) {
            _ if n == 1 => Plural::One,
            (Lang::Pl, 2..=4, tens) if !(12..=14).contains(&tens) => Plural::Few,
            _ => Plural::Many,
        }
    }

    /// Every language, English first.
    pub const ALL: [Lang; 8] = [
        Lang::En,
        Lang::De,
        Lang::Es,
        Lang::Pt,
        Lang::Fr,
        Lang::It,
        Lang::Nl,
        Lang::Pl,
    ];

    /// Its place in [`Lang::ALL`].
    pub(crate) fn index(self) -> usize {
        self as usize
    }

    /// The ISO 639-1 code: `en`, `de`, …
    pub(crate) fn code(self) -> &'static str {
        match self {
            Lang::En => "en",
            Lang::De => "de",
            Lang::Es => "es",
            Lang::Pt => "pt",
            Lang::Fr => "fr",
            Lang::It => "it",
            Lang::Nl => "nl",
            Lang::Pl => "pl",
        }
    }

    /// The language of an ISO 639-1 code (any case), or `None` for one meshai has no texts in.
    pub(crate) fn from_code(code: &str) -> Option<Lang> {
        Lang::ALL
            .into_iter()
            .find(|l| l.code().eq_ignore_ascii_case(code.trim()))
    }

    fn whatlang(self) -> whatlang::Lang {
        match self {
            Lang::En => whatlang::Lang::Eng,
            Lang::De => whatlang::Lang::Deu,
            Lang::Es => whatlang::Lang::Spa,
            Lang::Pt => whatlang::Lang::Por,
            Lang::Fr => whatlang::Lang::Fra,
            Lang::It => whatlang::Lang::Ita,
            Lang::Nl => whatlang::Lang::Nld,
            Lang::Pl => whatlang::Lang::Pol,
        }
    }
}

impl std::fmt::Display for Lang {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.code())
    }
}

/// `lang`'s small words, lowercased: articles, pronouns, question words ("die", "wer",
/// "qué").
pub(crate) fn small_words(lang: Lang) -> &'static [&'static str] {
    small::words(lang)
}

/// The language `text` is written in, when it has [`MIN_WORDS`] words and `whatlang` is sure
/// enough ([`MIN_CONFIDENCE`]); `None` otherwise. Only meshai's languages are considered, so
/// a message in another one comes out as the nearest of them with a low confidence, mostly
/// `None`. What stands in quotes is not read ([`aside::unquoted`]).
pub(crate) fn detect(text: &str) -> Option<Lang> {
    let text = &aside::unquoted(text);
    let words = text
        .split_whitespace()
        .filter(|w| w.chars().any(char::is_alphabetic))
        .count();
    if words < MIN_WORDS {
        return None;
    }
    let words: Vec<String> = text
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect();
    let small = |l: Lang| {
        words
            .iter()
            .filter(|w| small::words(l).contains(&w.as_str()))
            .count()
    };
    static DETECTOR: LazyLock<whatlang::Detector> = LazyLock::new(|| {
        whatlang::Detector::with_allowlist(Lang::ALL.map(Lang::whatlang).to_vec())
    });
    let info = DETECTOR.detect(text);
    let guess = info
        .as_ref()
        .and_then(|info| Lang::ALL.into_iter().find(|l| l.whatlang() == info.lang()));
    let trigrams = guess
        .filter(|_| {
            info.as_ref()
                .is_some_and(|info| info.confidence() >= MIN_CONFIDENCE)
        })
        .filter(|guess| {
            // At least one small word of its own, and no fewer than another language has
            // ("Wie lautet die Kontonummer des Clubs?": French by its trigrams and "des",
            // German by "wie" and "die").
            let own = small(*guess);
            own >= 1 && Lang::ALL.iter().all(|l| own >= small(*l))
        });
    trigrams.or_else(|| by_small_words(small, guess))
}

/// The language whose small words the message holds at least two of, more than any other's:
/// a short sentence the trigrams are unsure of ("Hola, me llamo Mateo.", "Wo wohne ich?",
/// "Mi perro se llama Pepper." taken for Italian). Without it a conversation whose first
/// messages are short started in English, and the model, reading its own English answers,
/// stayed in English (11 of 28 answers in a Spanish run). Or the language of the only small
/// word it holds, when the trigrams' unsure `guess` is that language too: a short question
/// around an English node name ("Kiedy ostatnio słyszano Tower Relay?") has one, and the
/// name pulls the trigrams below `MIN_CONFIDENCE`.
///
/// Two languages with as many small words, at least two each, are told apart by the unsure
/// `guess` when it is one of them: "Chi tiene i soldi del club?" has Italian "chi", "del" and
/// Spanish "tiene", "del", and its trigrams say Italian; before, it was no language, and the
/// daemon declined it in English (issue 38).
fn by_small_words(small: impl Fn(Lang) -> usize, guess: Option<Lang>) -> Option<Lang> {
    let mut counts: Vec<(usize, Lang)> = Lang::ALL.iter().map(|l| (small(*l), *l)).collect();
    counts.sort_by_key(|(n, _)| std::cmp::Reverse(*n));
    match counts.as_slice() {
        [(best, lang), (second, _), ..] if *best >= 2 && best > second => Some(*lang),
        [(best, _), ..] if *best >= 2 => guess.filter(|g| {
            counts
                .iter()
                .take_while(|(n, _)| n == best)
                .any(|(_, l)| l == g)
        }),
        [(1, lang), (0, _), ..] if guess == Some(*lang) => Some(*lang),
        _ => None,
    }
}

#[cfg(test)]
mod tests;
