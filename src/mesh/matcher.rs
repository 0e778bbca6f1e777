//! Whether a message is about the mesh, and what it asks: a node it names (by its long or
//! short name, loosely — "the hilltop relay", "hiltop", "Hill's battery"), who is around,
//! the nearest nodes, the channel; which readings (battery, temperature, distance, …).
//!
//! Pure and word-based: the message and the names are folded (lowercase, Latin diacritics
//! removed) and cut into words. A long name is named when one of its distinctive words is in
//! the message (a word like "relay" or "node" alone names nothing), allowing one typo in a
//! word of five letters or more; a short name when it is a word of the message that is not
//! an everyday word (or written in the name's own capitals). A message that asks about a node
//! ("node", "battery", "last heard", …) but names none the view holds is [`Topic::Unknown`]:
//! the daemon says it does not know that node rather than leave it to the model.
//!
//! The words are data, one table per language (`words`), each looked for in every language
//! at once; the functions here only read them.

mod words;

use crate::node::NodeId;
use crate::radio::NodeNames;
pub use crate::text::fold;
use words::{All, Entries, all};

/// What the message asks about the mesh.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Topic {
    /// These nodes (best match first).
    Nodes(Vec<NodeId>),
    /// A node, but none the view holds.
    Unknown,
    /// Who is around, heard lately.
    Around,
    /// The nodes nearest to the asker.
    Nearest,
    /// How busy the channel is.
    Channel,
}

/// A reading a message asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Reading {
    LastHeard,
    Battery,
    Voltage,
    Temperature,
    Humidity,
    Pressure,
    Wind,
    Light,
    Distance,
    Hops,
    Signal,
}

/// What a message asks of the mesh.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct MeshQuestion {
    pub(crate) topic: Topic,
    /// The readings it names, in [`Reading`]'s order; empty: all of them.
    pub(crate) readings: Vec<Reading>,
    /// It is about the asker: "from me", "to me", "am I".
    pub(crate) about_me: bool,
    /// [`Topic::Unknown`] only: it surely asks about a particular node (a node word like
    /// "relay" and a reading, or "read"), so the daemon itself may say it does not know it.
    pub(crate) surely_a_node: bool,
    /// [`Topic::Unknown`] only: the names it writes ("the Foobar relay", "der Knoten
    /// Foobar"), folded, a word each; none when only a word stands before a node word ("the
    /// fire station").
    pub(crate) names: Vec<String>,
}

impl MeshQuestion {
    /// Only a guess that it asks about the mesh: a node word and no name of the view, no
    /// reading asked, and no node surely meant — after a word that may be a name ("the fire
    /// station where we meet"), or with names the documents may hold ("the 2 m repeater on
    /// Beacon Hill", "le relais DMR"): the turn decides, by its documents (`mesh::Answer::Guess`).
    pub(crate) fn guessed(&self) -> bool {
        self.topic == Topic::Unknown && !self.surely_a_node && self.readings.is_empty()
    }
}

/// French and Italian words that lose their vowel before one that starts with a vowel
/// ("l'Hilltop Relay", "dell'umidità", "qu'il"), folded.
const ELIDED: &[&str] = &[
    "l", "d", "j", "m", "n", "s", "t", "c", "qu", "jusqu", "lorsqu", "puisqu", "all", "dall",
    "dell", "nell", "sull", "coll", "un", "quell", "quest", "po",
];

/// The words of a folded text: letters and digits; a possessive `'s` is dropped, and so is
/// an elided article or preposition before its word ("l'hilltop" is "hilltop": as one word,
/// Italian and French questions named no node of the view, and the daemon said it did not
/// know "L'Hilltop Relay").
pub(crate) fn words(folded: &str) -> Vec<&str> {
    folded
        .split(|c: char| !(c.is_alphanumeric() || c == '\''))
        .map(|w| w.trim_matches('\''))
        .map(|w| w.strip_suffix("'s").unwrap_or(w))
        .map(|w| match w.split_once('\'') {
            Some((head, word)) if ELIDED.contains(&head) && !word.is_empty() => word,
            _ => w,
        })
        .filter(|w| !w.is_empty())
        .collect()
}

/// The language of a message `lang::detect` cannot place, by the mesh words it writes
/// ([`words::language_of`]); its words written with a capital, but the first, are left out
/// as names.
pub(crate) fn language(message: &str) -> Option<crate::lang::Lang> {
    let unnamed: Vec<&str> = message
        .split_whitespace()
        .enumerate()
        .filter(|(i, w)| *i == 0 || !w.chars().next().is_some_and(char::is_uppercase))
        .map(|(_, w)| w)
        .collect();
    let folded = fold(&unnamed.join(" "));
    words::language_of(&folded, &words(&folded))
}

/// Whether the folded words `message` hold `entry`: a word or a phrase of words in a row, the
/// last one standing for any word it starts when `entry` ends with `*`, and the message's end
/// when it ends with ` $` (the caller puts `$` after the message's last word). For word
/// tables written as data, one entry a line.
pub(crate) fn holds_entry(message: &[&str], entry: &str) -> bool {
    let (entry, prefix) = match entry.strip_suffix('*') {
        Some(e) => (e, true),
        None => (entry, false),
    };
    let folded = fold(entry);
    let mut want = words(&folded);
    if entry.ends_with(" $") {
        want.push("$");
    }
    if want.is_empty() || want.len() > message.len() {
        return false;
    }
    let last = want.len() - 1;
    message.windows(want.len()).any(|w| {
        w.iter()
            .zip(&want)
            .enumerate()
            .all(|(i, (got, want))| got == want || (prefix && i == last && got.starts_with(want)))
    })
}

/// Whether `a` and `b` are at most one edit apart (insert, delete, substitute, swap).
fn near(a: &str, b: &str) -> bool {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    if a.len().abs_diff(b.len()) > 1 {
        return false;
    }
    let (mut i, mut j, mut edits) = (0, 0, 0);
    while i < a.len() && j < b.len() {
        if a[i] == b[j] {
            i += 1;
            j += 1;
            continue;
        }
        edits += 1;
        if edits > 1 {
            return false;
        }
        if i + 1 < a.len() && j + 1 < b.len() && a[i] == b[j + 1] && a[i + 1] == b[j] {
            i += 2;
            j += 2;
        } else if a.len() > b.len() {
            i += 1;
        } else if b.len() > a.len() {
            j += 1;
        } else {
            i += 1;
            j += 1;
        }
    }
    edits + (a.len() - i) + (b.len() - j) <= 1
}

/// Whether the message's words hold `word`: the same, or one typo off for a long word.
fn holds(message: &[&str], word: &str) -> bool {
    message.iter().any(|m| {
        *m == word || (word.chars().count() >= 5 && m.chars().count() >= 5 && near(m, word))
    })
}

/// How well `names` are named by the message (`original`: as written; `message`: its
/// folded words; `cue`: it asks about a node or a reading, so a short name written in
/// lowercase counts too); 0 when they are not.
fn score(original: &str, message: &[&str], names: &NodeNames, cue: bool) -> u32 {
    let long = fold(&names.long_name);
    let long_words = words(&long);
    let distinctive: Vec<&str> = long_words
        .iter()
        .copied()
        .filter(|w| !all().generic.holds(w) && w.chars().count() >= 2)
        .collect();
    if another_name(original, &long_words, &distinctive) {
        return 0;
    }
    let mut score = 0;
    if distinctive.is_empty() {
        // A name made of generic words only ("Base Station") is named whole.
        if !long_words.is_empty() && long_words.iter().all(|w| message.contains(w)) {
            score += 2 * u32::try_from(long_words.len()).unwrap_or(1);
        }
    } else {
        let found = distinctive.iter().filter(|w| holds(message, w)).count();
        if found > 0 {
            score += 3 * u32::try_from(found).unwrap_or(1);
            score += u32::try_from(long_words.iter().filter(|w| message.contains(w)).count())
                .unwrap_or(0);
        }
    }
    let short_raw = names.short_name.trim();
    let short = fold(short_raw);
    if short.chars().count() >= 2 && !short.contains(char::is_whitespace) {
        let as_written = original
            .split(|c: char| !c.is_alphanumeric())
            .any(|w| w == short_raw);
        let as_word = cue && message.contains(&short.as_str()) && !all().everyday.holds(&short);
        if as_written && short_raw.chars().any(char::is_uppercase) || as_word {
            score += 4;
        }
    }
    score
}

/// The nodes `name` names (a command's argument: a short name in lowercase counts), best
/// first.
pub(crate) fn named<'a>(
    name: &str,
    nodes: impl IntoIterator<Item = (NodeId, &'a NodeNames)>,
) -> Vec<NodeId> {
    scored(name, nodes, true)
        .into_iter()
        .map(|(_, id)| id)
        .collect()
}

/// Whether the message writes one of the name's distinctive words inside another name: next
/// to a capitalised word that is not the name's ("the Golden Tower repeater" is not "Tower
/// Relay"). The message's first word is capitalised anyway and does not count.
fn another_name(original: &str, name_words: &[&str], distinctive: &[&str]) -> bool {
    let written: Vec<&str> = original
        .split(|c: char| !(c.is_alphanumeric() || c == '\'' || c == '’'))
        .filter(|w| !w.is_empty())
        .collect();
    let folded: Vec<String> = written.iter().map(|w| fold(w)).collect();
    let foreign = |j: usize| {
        let Some(w) = written.get(j) else {
            return false;
        };
        let f = folded[j].trim_end_matches("'s");
        j > 0
            && w.chars().next().is_some_and(char::is_uppercase)
            && !name_words.contains(&f)
            && !all().generic.holds(f)
            && !all().everyday.holds(f)
    };
    folded.iter().enumerate().any(|(i, w)| {
        distinctive.contains(&w.trim_end_matches("'s"))
            && ((i > 0 && foreign(i - 1)) || foreign(i + 1))
    })
}

/// `message` with the node words that folding would make another word written out:
/// Portuguese "nó" (node) folds to "no" (English and Spanish "no", Portuguese "no" = "in
/// the"), so "O que marca o nó Crystal Peak?" named no node word and the model answered for
/// a node that does not exist. Only the word alone, in any case.
pub(crate) fn spelled_out(message: &str) -> std::borrow::Cow<'_, str> {
    const WRITTEN: &[(&str, &str)] = &[("nó", "node")];
    let lower = message.to_lowercase();
    if !WRITTEN.iter().any(|(w, _)| lower.contains(w)) {
        return std::borrow::Cow::Borrowed(message);
    }
    let mut out = String::with_capacity(message.len() + 8);
    let mut word = String::new();
    let flush = |word: &mut String, out: &mut String| {
        let lower = word.to_lowercase();
        match WRITTEN.iter().find(|(w, _)| *w == lower) {
            Some((_, instead)) => out.push_str(instead),
            None => out.push_str(word),
        }
        word.clear();
    };
    for c in message.chars() {
        if c.is_alphanumeric() {
            word.push(c);
        } else {
            flush(&mut word, &mut out);
            out.push(c);
        }
    }
    flush(&mut word, &mut out);
    std::borrow::Cow::Owned(out)
}

/// "the foobar node": one or two words between the article and a node word, not a kind
/// ("the golden cabin node", not "the club repeater"). Also "the fire station": a name only
/// maybe ([`MeshQuestion::guessed`]).
fn the_x_node(said: &Said<'_>) -> bool {
    let all = all();
    let w = &said.words;
    w.iter().enumerate().any(|(i, word)| {
        all.node.holds(word)
            && (1..=2).any(|n| {
                i > n
                    && all.the.holds(w[i - n - 1])
                    && w[i - n..i]
                        .iter()
                        .all(|x| !all.generic.holds(x) && !all.kinds.holds(x))
            })
    })
}

/// The names written as such, folded: a capitalised word right after a node word ("der
/// Knoten Crystal Peak", "o nó Crystal Peak"; in German too, a noun does not follow "Knoten"
/// bare), and, but in German, each capitalised word after the first.
fn written_names(message: &str) -> Vec<String> {
    let all = all();
    let written: Vec<&str> = message
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect();
    let a_name = |w: &str| {
        let folded = fold(w);
        (w.chars().next().is_some_and(char::is_uppercase)
            && w.chars().count() >= 2
            && !all.generic.holds(&folded)
            && !all.not_names.holds(&folded))
        .then_some(folded)
    };
    let mut names: Vec<String> = written
        .windows(2)
        .filter(|pair| all.node.holds(&fold(pair[0])))
        .filter_map(|pair| a_name(pair[1]))
        .collect();
    if crate::lang::detect(message) != Some(crate::lang::Lang::De) {
        names.extend(written.iter().skip(1).filter_map(|w| a_name(w)));
    }
    names.sort();
    names.dedup();
    names
}

/// Whether the message, `folded` ([`fold`]), asks what a node reads ("What does Ridge Weather read?", "Was misst …",
/// "¿Qué marca …?"), in any language.
pub(crate) fn asks_what_it_reads(folded: &str) -> bool {
    all().read.said(folded, &words(folded))
}

/// Whether the message, `folded` ([`fold`]), asks how busy the channel is ("How busy is the channel?", "Le canal
/// est-il chargé ?"), in any language: a channel word and a busy word. The channel's use
/// named alone ("What does the channel utilization number tell me?") asks for an
/// explanation: the model's, with the readout.
pub(crate) fn asks_how_busy_the_channel_is(folded: &str) -> bool {
    let said = Said::new(folded);
    said.says(|a| &a.channel) && said.says(|a| &a.busy)
}

/// Whether the message, `folded` ([`fold`]), asks for the nodes nearest the asker ("Which node is closest to me?",
/// "Welcher Knoten ist mir am nächsten?"), in any language.
pub(crate) fn asks_nearest(folded: &str) -> bool {
    all().nearest.said(folded, &words(folded))
}

/// Whether the folded `word`, capitalised, still names no node: the kit and the protocols
/// people ask about ("LoRa", "MQTT"), in any language's table.
pub(crate) fn not_a_name(word: &str) -> bool {
    all().not_names.holds(word)
}

/// The nodes `message` names, with how well, best first, ties in the order `nodes` come in
/// (`mesh::lens`: the one known longest first), and of several with one long name only the
/// first: a clone of a node's name never stands beside it or in its place (`cue`: it asks
/// about a node or a reading, so a short name written in lowercase counts too).
pub(crate) fn scored<'a>(
    message: &str,
    nodes: impl IntoIterator<Item = (NodeId, &'a NodeNames)>,
    cue: bool,
) -> Vec<(u32, NodeId)> {
    let folded = fold(message);
    let w = words(&folded);
    let mut names_seen = std::collections::HashSet::new();
    let mut scored: Vec<(u32, NodeId)> = nodes
        .into_iter()
        .map(|(id, names)| (score(message, &w, names, cue), id, names))
        .filter(|(s, _, _)| *s > 0)
        .filter(|(_, _, names)| {
            let name = fold(names.long_name.trim());
            name.is_empty() || names_seen.insert(name)
        })
        .map(|(s, id, _)| (s, id))
        .collect();
    // Stable: ties keep the order given.
    scored.sort_by_key(|s| std::cmp::Reverse(s.0));
    scored
}

/// At most this many nodes are named by one message.
const MAX_NAMED: usize = 3;

/// A message as the tables read it: folded, and its words.
struct Said<'a> {
    folded: &'a str,
    words: Vec<&'a str>,
}

impl<'a> Said<'a> {
    fn new(folded: &'a str) -> Said<'a> {
        Said {
            folded,
            words: words(folded),
        }
    }

    /// Whether it says an entry of the field `pick` in any language.
    fn says(&self, pick: fn(&All) -> &Entries) -> bool {
        pick(all()).said(self.folded, &self.words)
    }

    /// The readings it asks for, in [`Reading`]'s order.
    fn readings(&self) -> Vec<Reading> {
        all()
            .readings
            .iter()
            .filter(|(_, entries)| entries.said(self.folded, &self.words))
            .map(|(r, _)| *r)
            .collect()
    }
}

/// What `message` asks of the mesh, among `nodes` (the nodes the lens lets be described,
/// with their names) and with `asker` the sender; `None` when it is not about the mesh.
pub(crate) fn question<'a>(
    message: &str,
    nodes: impl IntoIterator<Item = (NodeId, &'a NodeNames)>,
    asker: NodeId,
) -> Option<MeshQuestion> {
    let folded = fold(message);
    let said = Said::new(&folded);
    let readings = said.readings();
    let about_me = said.says(|a| &a.me);
    let cue = said.says(|a| &a.about_a_node) || !readings.is_empty();
    let scored = scored(message, nodes, cue);
    let Some(&(best, _)) = scored.first() else {
        return unnamed(message, &said, asker, readings, about_me);
    };
    let named: Vec<NodeId> = scored
        .iter()
        .take_while(|(s, _)| *s == best || *s >= 3)
        .take(MAX_NAMED)
        .map(|(_, id)| *id)
        .collect();
    Some(MeshQuestion {
        topic: Topic::Nodes(named),
        readings,
        about_me,
        surely_a_node: false,
        names: Vec::new(),
    })
}

/// What a message that names no node of the view asks (`readings` and `about_me` as [`question`]
/// read them), in this order: how the asker's own message came (`None`: the asker's radio
/// note answers that, from the message itself), the asker's own node, the channel, the
/// nearest nodes, who is around, and a node the view lacks.
fn unnamed(
    message: &str,
    said: &Said<'_>,
    asker: NodeId,
    readings: Vec<Reading>,
    about_me: bool,
) -> Option<MeshQuestion> {
    let asked = |topic, readings| {
        Some(MeshQuestion {
            topic,
            readings,
            about_me,
            surely_a_node: false,
            names: Vec::new(),
        })
    };
    if said.says(|a| &a.my_message) {
        return None;
    }
    if said.says(|a| &a.my_node) {
        return asked(Topic::Nodes(vec![asker]), readings);
    }
    if said.says(|a| &a.channel) && said.says(|a| &a.busy) || said.says(|a| &a.channel_use) {
        return asked(Topic::Channel, Vec::new());
    }
    if said.says(|a| &a.nearest) {
        return asked(Topic::Nearest, readings);
    }
    if said.says(|a| &a.around) {
        return asked(Topic::Around, Vec::new());
    }
    // A node word with no name written ("my node's battery", "a repeater") asks about nodes
    // in general: the model's, without mesh facts, as an everyday question.
    // It names something: "the foobar node" (one or two words), a capital right after a
    // node word ("der Knoten Crystal Peak"), or a word after its first that starts with a
    // capital (not "I", a node word, or a word of `not_names`). "Where is a good place to
    // put a repeater?" and "How can I make my node's battery last longer?" name none —
    // everyday questions, for the model — where "What's the battery of the Foobar relay?"
    // does: only then may the daemon itself say it does not know the node. German writes
    // every noun with a capital, so there a capital names nothing ("Was ist der Unterschied
    // zwischen einem Router und einem Client-Knoten?" got "no node by that name" facts,
    // issue 37).
    let names = written_names(message);
    if said.says(|a| &a.about_a_node) && (!names.is_empty() || the_x_node(said)) {
        return Some(MeshQuestion {
            topic: Topic::Unknown,
            surely_a_node: said.says(|a| &a.node)
                && (!readings.is_empty() || said.says(|a| &a.read)),
            names,
            readings,
            about_me,
        });
    }
    None
}

#[cfg(test)]
mod tests;
