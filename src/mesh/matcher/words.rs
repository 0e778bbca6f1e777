//! The words the matcher reads a message by, one table per language (`en.rs` … `pl.rs`): the
//! words of node names that name nothing alone, the everyday words a short name is not taken
//! for, the words for a node and its readings, and the words and phrases that ask about the
//! asker's own node or message, the channel, the nearest nodes and who is around.
//!
//! Every entry is folded (`text::fold`: lowercase, no diacritics). An entry without a space
//! is a word of the message, one ending in `*` any word it starts ("nachstgelegen*"); an entry
//! with a space is a phrase, found anywhere in the folded message as written, so "my node"
//! holds "my nodes" too. (The lookups' tables read a phrase as whole words; the matcher's
//! English phrases were always found as written, and keep that.)
//!
//! A word is looked for in every language's table at once: a German question in an English
//! conversation is still matched. So a word that means something else in another language
//! stays out, or goes in as a phrase: Spanish "red" (network) is an English colour ("Is the
//! red relay busy?" is no channel question) and is written "la red"; Portuguese "nó" (node)
//! folds to "no" and is left out. Each file says what it leaves out.
//!
//! To add a word: write it, folded, in its language's file under the field whose comment
//! fits, and add a question that needs it to that language's table in `matcher/tests.rs`.

mod de;
mod en;
mod es;
mod fr;
mod it;
mod nl;
mod pl;
mod pt;

use std::collections::{BTreeMap, HashSet};
use std::sync::LazyLock;

use super::Reading;
use crate::lang::Lang;

/// A list of entries: words, `*` prefixes and phrases.
pub(crate) type List = &'static [&'static str];

/// One language's words.
pub(crate) struct Words {
    /// Words of node names that name nothing alone: the words for a node, the kit, the small
    /// words ("Base Station", "der Lighthouse-Knoten").
    pub(crate) generic: List,
    /// Everyday words a short name is not taken for, unless written in the name's own
    /// capitals ("hi", "ok", "wo").
    pub(crate) everyday: List,
    /// Words for a node itself ("relay", "Knoten"): with a reading, a question surely about
    /// one node.
    pub(crate) node: List,
    /// Other words that make a question about a node even when it names none the view holds
    /// ("battery", "heard"); the words of `node` do too.
    pub(crate) about_a_node: List,
    /// Each reading and the words that ask for it.
    pub(crate) readings: &'static [(Reading, List)],
    /// Words that ask what a node reads ("read", "Messwert"): with a node word, a question
    /// surely about one node.
    pub(crate) read: List,
    /// The asker ("me", "I"): a distance is then the asker's.
    pub(crate) me: List,
    /// How the asker's own message came ("my signal", "hear me"): the radio note answers.
    pub(crate) my_message: List,
    /// The asker's own node ("my node", "my battery").
    pub(crate) my_node: List,
    /// The channel ("channel", "network"), asked about with a word of `busy`.
    pub(crate) channel: List,
    /// How busy it is ("busy", "traffic").
    pub(crate) busy: List,
    /// The channel's use, asked with no other word ("airtime", "duty cycle").
    pub(crate) channel_use: List,
    /// The nodes nearest to the asker ("nearest", "near me").
    pub(crate) nearest: List,
    /// Who is around ("who is around", "which nodes").
    pub(crate) around: List,
    /// The definite article a name written in lowercase follows, before its node word ("the
    /// foobar node"); empty where a name follows its node word ("el nodo Foobar").
    pub(crate) the: List,
    /// Words between the article and the node word that say which kind, not which node
    /// ("the club repeater", "the nearest node").
    pub(crate) kinds: List,
    /// Capitalised words that name no node: the kit and the protocols people ask about.
    pub(crate) not_names: List,
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

/// One field's entries in every language, ready to be looked in.
pub(crate) struct Entries {
    words: HashSet<&'static str>,
    prefixes: Vec<&'static str>,
    phrases: Vec<&'static str>,
}

impl Entries {
    fn of(lists: impl IntoIterator<Item = List>) -> Entries {
        let mut e = Entries {
            words: HashSet::new(),
            prefixes: Vec::new(),
            phrases: Vec::new(),
        };
        for entry in lists.into_iter().flatten() {
            if entry.contains(' ') {
                e.phrases.push(entry);
            } else if let Some(prefix) = entry.strip_suffix('*') {
                e.prefixes.push(prefix);
            } else {
                e.words.insert(entry);
            }
        }
        e
    }

    /// Whether the folded `word` is one of the entries' words.
    pub(crate) fn holds(&self, word: &str) -> bool {
        self.words.contains(word) || self.prefixes.iter().any(|p| word.starts_with(p))
    }

    /// Whether a message says one of the entries: `folded` as written, `words` its words.
    pub(crate) fn said(&self, folded: &str, words: &[&str]) -> bool {
        words.iter().any(|w| self.holds(w)) || self.phrases.iter().any(|p| folded.contains(p))
    }
}

/// Every field of [`Words`], each in every language at once.
pub(crate) struct All {
    pub(crate) generic: Entries,
    pub(crate) everyday: Entries,
    pub(crate) node: Entries,
    /// `about_a_node` and `node`.
    pub(crate) about_a_node: Entries,
    /// In [`Reading`]'s order.
    pub(crate) readings: Vec<(Reading, Entries)>,
    pub(crate) read: Entries,
    pub(crate) me: Entries,
    pub(crate) my_message: Entries,
    pub(crate) my_node: Entries,
    pub(crate) channel: Entries,
    pub(crate) busy: Entries,
    pub(crate) channel_use: Entries,
    pub(crate) nearest: Entries,
    pub(crate) around: Entries,
    pub(crate) the: Entries,
    pub(crate) kinds: Entries,
    pub(crate) not_names: Entries,
}

/// The tables of all the languages, merged once.
pub(crate) fn all() -> &'static All {
    static ALL: LazyLock<All> = LazyLock::new(|| {
        let field = |pick: fn(&'static Words) -> List| {
            Entries::of(Lang::ALL.iter().map(move |l| pick(table(*l))))
        };
        let mut readings: BTreeMap<Reading, Vec<List>> = BTreeMap::new();
        for lang in Lang::ALL {
            for (reading, list) in table(lang).readings {
                readings.entry(*reading).or_default().push(list);
            }
        }
        All {
            generic: field(|t| t.generic),
            everyday: field(|t| t.everyday),
            node: field(|t| t.node),
            about_a_node: Entries::of(
                Lang::ALL
                    .iter()
                    .flat_map(|l| [table(*l).about_a_node, table(*l).node]),
            ),
            readings: readings
                .into_iter()
                .map(|(r, lists)| (r, Entries::of(lists)))
                .collect(),
            read: field(|t| t.read),
            me: field(|t| t.me),
            my_message: field(|t| t.my_message),
            my_node: field(|t| t.my_node),
            channel: field(|t| t.channel),
            busy: field(|t| t.busy),
            channel_use: field(|t| t.channel_use),
            nearest: field(|t| t.nearest),
            around: field(|t| t.around),
            the: field(|t| t.the),
            kinds: field(|t| t.kinds),
            not_names: field(|t| t.not_names),
        }
    });
    &ALL
}

/// The language whose mesh words a message writes most, when one does: a short question
/// around an English node name that `lang::detect` cannot place ("Que mesure la station
/// Ridge Weather ?", "Co pokazuje stacja Ridge Weather?", "L'Harbour Gateway va a
/// batteria?" were answered in English in the mesh bench). `words` are the message's folded
/// words that are not written with a capital (a node's name says nothing of the asker's
/// language). A word that asks for something (a reading, what a node reads, the nearest,
/// who is around, the channel) counts 2, a word for a node 1; a tie is no answer.
pub(crate) fn language_of(folded: &str, words: &[&str]) -> Option<Lang> {
    static TABLES: LazyLock<Vec<(Lang, Entries, Entries)>> = LazyLock::new(|| {
        Lang::ALL
            .iter()
            .map(|l| {
                let t = table(*l);
                let asks = [
                    t.read,
                    t.nearest,
                    t.around,
                    t.channel,
                    t.busy,
                    t.channel_use,
                ]
                .into_iter()
                .chain(t.readings.iter().map(|(_, list)| *list));
                (*l, Entries::of(asks), Entries::of([t.node, t.about_a_node]))
            })
            .collect()
    });
    let score = |asks: &Entries, node: &Entries| {
        let phrases = asks.phrases.iter().filter(|p| folded.contains(*p)).count();
        let words: usize = words
            .iter()
            .map(|w| match (asks.holds(w), node.holds(w)) {
                (true, _) => 2,
                (false, true) => 1,
                (false, false) => 0,
            })
            .sum();
        2 * phrases + words
    };
    let mut scores: Vec<(usize, Lang)> = TABLES
        .iter()
        .map(|(l, asks, node)| (score(asks, node), *l))
        .collect();
    scores.sort_by_key(|(n, _)| std::cmp::Reverse(*n));
    match scores.as_slice() {
        [(best, lang), (second, _), ..] if *best > 0 && best > second => Some(*lang),
        _ => None,
    }
}
