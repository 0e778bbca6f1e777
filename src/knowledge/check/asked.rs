//! What kind of value a question asks for ("when", "what time", "which day", "how much",
//! "which frequency"), and whether a text holds one, in each of meshai's languages; the words
//! are per-language tables, each looked for in every language (as `knowledge::local`'s).
//!
//! Why: with the right passage in its prompt, Qwen2.5-0.5B answered "When is the fox hunt
//! this year?" with the hunt's frequency, "How much is a year's membership for an adult?"
//! with when the membership year runs, and "¿Qué día de la semana es la noche del club?"
//! with a clock time (issue 38). An answer to a "when" that holds no date or time does not
//! answer it, and the daemon can tell: the passages' own sentence that holds one replaces it
//! (`check::check`).

use crate::mesh::matcher::words;
use tables::{ALL, Words};

mod tables;

/// What a question asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// A date or a time ("when"): a day named, a date, a clock time.
    When,
    /// A clock time ("what time", "um wie viel Uhr").
    Time,
    /// A day ("which day of the week", "an welchem Tag"): a weekday or a date.
    Day,
    /// A price ("how much … cost", "wie viel kostet"): an amount of money, or free.
    Price,
    /// A frequency ("what frequency"): a number in kHz, MHz or GHz, or one a frequency's
    /// label precedes.
    Frequency,
    /// An access tone ("welchen Subton"): a number in Hz, or one after "CTCSS".
    Tone,
    /// A repeater's offset ("welche Ablage", "what shift"): a signed number in kHz or MHz
    /// ("−600 kHz", "+7,6 MHz"), or one an offset's word precedes.
    Offset,
    /// A length of time ("how long", "jak długo"): a number, in digits or words, before a
    /// unit of time ("30 minutes", "dwa tygodnie"), else clock times ("19:30 to 22:00").
    Duration,
    /// A place ("where", "wo", "gdzie"): a name the question does not write ("Plough Inn",
    /// "Crane Farm"). Which names a text holds depends on the question, so `check` judges
    /// it ([`Holds::answers`] says nothing of it), and any passage may hold one.
    Place,
}

/// A cue must start within this many words of the asking clause ([`asking_clause`]): "Do you
/// know if anyone knows when …" is no "when" question.
const CUE_WORDS: usize = 3;

/// Whether `phrase` (words separated by spaces) is in `ws` at `at`.
fn phrase_at(ws: &[&str], at: usize, phrase: &str) -> bool {
    let mut i = at;
    for p in phrase.split(' ') {
        // A phrase's hyphenated word ("segunda-feira") is two words of `ws`.
        for part in p.split('-') {
            if ws.get(i) != Some(&part) {
                return false;
            }
            i += 1;
        }
    }
    true
}

fn has_phrase(ws: &[&str], phrase: &str) -> bool {
    (0..ws.len()).any(|at| phrase_at(ws, at, phrase))
}

/// Question words of every language, folded: a clause that starts with one asks.
const ASKING: &[&str] = &[
    "how", "what", "which", "who", "where", "why", "when", "wie", "was", "welche", "welcher",
    "welchen", "welchem", "welches", "wer", "wo", "warum", "wann", "como", "que", "cual", "quien",
    "donde", "cuando", "cuanto", "cuanta", "comment", "quel", "quelle", "qui", "ou", "pourquoi",
    "quand", "combien", "come", "che", "quale", "chi", "dove", "perche", "quando", "quanto",
    "qual", "quem", "onde", "quand'e", "dov'e", "cos'e", "hoe", "wat", "welke", "wie", "waar",
    "waarom", "wanneer", "hoeveel", "jak", "co", "jaki", "jaka", "jakie", "ktory", "ktora", "kto",
    "gdzie", "dlaczego", "kiedy", "ile",
];

/// The clause of a question (folded) that asks: after its last "¿" where it has one (Spanish
/// marks where the question starts: "Cuando ha tronado, ¿cuánto rato…?"); else the last
/// clause when a question word starts it ("When it rains, how long…?"), else the first that
/// one starts ("C'est quel jour de la semaine, la soirée du club ?"), else the last.
fn asking_clause(folded_question: &str) -> &str {
    let body = folded_question.trim_end().trim_end_matches(['?', ' ']);
    if let Some((_, asked)) = body.rsplit_once('¿') {
        return asked;
    }
    let clauses: Vec<&str> = body.split([',', '.', ';', ':', '!']).collect();
    let asks = |clause: &&str| starts_asking(clause);
    let last = clauses.last().copied().unwrap_or(body);
    if asks(&last) {
        return last;
    }
    clauses.iter().find(|c| asks(c)).copied().unwrap_or(last)
}

/// What `question` (folded) asks for, if it says: a time or a day before a date ("what time"
/// is no "when" of any day), and a date before a price ("when do I pay the fee?"). Read in
/// its asking clause ([`asking_clause`]), else in the first clause a question word starts: in
/// "Jak długo mogę trzymać coś, co pożyczyłem z klubu?" the last clause's "co" is a relative
/// pronoun, and the question is the first. But not a "when" or a day there: "when" is a
/// conjunction as often ("When I get to the field day, who do I report to?").
pub(crate) fn kind(folded_question: &str) -> Option<Kind> {
    let asking = asking_clause(folded_question);
    kind_in(folded_question, asking).or_else(|| {
        let first = first_asking(folded_question)?;
        (first != asking)
            .then(|| kind_in(folded_question, first))
            .flatten()
            .filter(|k| !matches!(k, Kind::When | Kind::Day))
    })
}

/// The first clause of `folded_question` that a question word starts.
fn first_asking(folded_question: &str) -> Option<&str> {
    folded_question
        .split([',', '.', ';', ':', '!', '?', '¿'])
        .find(|clause| starts_asking(clause))
}

/// Whether a question word stands in the first [`CUE_WORDS`] words of `clause`.
fn starts_asking(clause: &str) -> bool {
    words(clause.trim())
        .iter()
        .take(CUE_WORDS)
        .any(|w| ASKING.contains(w))
}

/// What the clause `clause` of `folded_question` asks for (see [`kind`]).
fn kind_in(folded_question: &str, clause: &str) -> Option<Kind> {
    let ws = words(clause);
    let starts_within = |phrases: &[&str], n: usize| {
        phrases
            .iter()
            .any(|p| (0..n.min(ws.len())).any(|at| phrase_at(&ws, at, p)))
    };
    let starts = |phrases: &[&str]| starts_within(phrases, CUE_WORDS);
    let anywhere = |phrases: &[&str]| phrases.iter().any(|p| has_phrase(&ws, p));
    if ALL.iter().any(|w| anywhere(w.tone)) {
        return Some(Kind::Tone);
    }
    if ALL.iter().any(|w| anywhere(w.offset)) {
        return Some(Kind::Offset);
    }
    // A noun, one word later than a cue: "Qual è la frequenza di uscita …?", "Quelle est
    // la fréquence …?" (no conjunction reads like it).
    if ALL
        .iter()
        .any(|w| starts_within(w.frequency, CUE_WORDS + 1))
    {
        return Some(Kind::Frequency);
    }
    if ALL.iter().any(|w| starts(w.duration)) {
        return Some(Kind::Duration);
    }
    if ALL.iter().any(|w| starts(w.time)) {
        return Some(Kind::Time);
    }
    if ALL.iter().any(|w| starts(w.day)) {
        return Some(Kind::Day);
    }
    if ALL.iter().any(|w| starts(w.when)) {
        // The year may be named in another clause ("C'est quand, la brocante cette année ?").
        let whole = words(folded_question);
        let dated = ALL
            .iter()
            .any(|w| w.year.iter().any(|p| has_phrase(&whole, p)));
        return Some(if dated { Kind::Day } else { Kind::When });
    }
    if ALL
        .iter()
        .any(|w| anywhere(w.price) || starts(w.how_much) && anywhere(w.pay))
    {
        return Some(Kind::Price);
    }
    if ALL.iter().any(|w| starts(w.place)) {
        return Some(Kind::Place);
    }
    None
}

/// The words of `folded_question` that only say what kind of value is asked: those of the
/// tone's or offset's phrase, and of the "when", "what time", "which day" or "how long" phrase
/// it asks with (where [`kind`] looks for each) and a word for the week right after it ("W jaki
/// dzień tygodnia jest wieczór klubowy?": "dzien", "tygodnia", which share nothing with
/// "Dzień budowy węzłów", a workshop's heading). The same word elsewhere is the question's
/// ("When is Field Day?": "day" stays).
pub(crate) fn cue_words(folded_question: &str) -> Vec<String> {
    const WEEK: &[&str] = &[
        "week",
        "woche",
        "semana",
        "semaine",
        "settimana",
        "tygodnia",
    ];
    let ws = words(asking_clause(folded_question));
    let mut out = Vec::new();
    // A tone's or an offset's word, anywhere it asks: the passage holds the value, not the
    // word ("subtono" for "Tono di accesso: CTCSS 77,0 Hz").
    for at in 0..ws.len() {
        let phrases = ALL.iter().flat_map(|t| [t.tone, t.offset]).flatten();
        for p in phrases.filter(|p| phrase_at(&ws, at, p)) {
            let n = p.split([' ', '-']).count();
            out.extend(ws[at..at + n].iter().map(|w| w.to_string()));
        }
    }
    for at in 0..CUE_WORDS.min(ws.len()) {
        let phrases = ALL
            .iter()
            .flat_map(|t| [t.when, t.time, t.day, t.duration])
            .flatten();
        for p in phrases.filter(|p| phrase_at(&ws, at, p)) {
            let n = p.split([' ', '-']).count();
            out.extend(ws[at..at + n].iter().map(|w| w.to_string()));
            // "de la semana", "of the week": the week a few words on.
            let after = ws.iter().skip(at + n).take(3);
            out.extend(after.filter(|w| WEEK.contains(w)).map(|w| w.to_string()));
        }
    }
    out
}

/// What a text holds of the kinds' values.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Holds {
    /// A weekday, or a month next to a number, or a full numeric date (4.7.2026, 04/07/2026).
    pub(crate) date: bool,
    /// A clock time: 19:30, 19h30, 7pm, "19 Uhr".
    pub(crate) clock: bool,
    /// A weekday.
    pub(crate) weekday: bool,
    /// An amount of money (£24, 12 €, "24 euros") or "free".
    pub(crate) money: bool,
    /// A number in kHz, MHz or GHz, or one a frequency's label precedes.
    pub(crate) hertz: bool,
    /// A number in Hz, or one after "CTCSS" or "DCS".
    pub(crate) tone: bool,
    /// A signed number in kHz or MHz, or one an offset's word precedes.
    pub(crate) offset: bool,
    /// A number, in digits or words, within two words before a unit of time.
    pub(crate) duration: bool,
}

impl Holds {
    /// How well a text holding this answers `kind`: 0 not at all; more is better (a "when"
    /// is answered best by a date, then by a clock time).
    pub(crate) fn answers(self, kind: Kind) -> u8 {
        match kind {
            Kind::When => u8::from(self.clock) + 2 * u8::from(self.date),
            Kind::Time => u8::from(self.clock),
            Kind::Day => u8::from(self.date) + u8::from(self.weekday),
            Kind::Price => u8::from(self.money),
            Kind::Frequency => u8::from(self.hertz),
            Kind::Tone => u8::from(self.tone),
            Kind::Offset => u8::from(self.offset),
            // "19:30 to 22:00" says how long club night is, too.
            Kind::Duration => 2 * u8::from(self.duration) + u8::from(self.clock),
            Kind::Place => 0,
        }
    }
}

fn is_number(w: &str) -> bool {
    !w.is_empty() && w.chars().all(|c| c.is_ascii_digit())
}

/// A number with its unit in one word: "7pm", "19h30", "50p", "24eur".
fn number_with(w: &str, units: &[&str]) -> bool {
    let digits = w.chars().take_while(char::is_ascii_digit).count();
    if digits == 0 {
        return false;
    }
    let rest = &w[digits..];
    let unit = rest.trim_end_matches(|c: char| c.is_ascii_digit());
    !unit.is_empty() && units.contains(&unit)
}

/// A day of a month as `w` writes it ("18", "18th", "1er"): its digits.
fn day(w: &str) -> Option<&str> {
    let digits = w.len() - w.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    let ordinal = ["", "st", "nd", "rd", "th", "e", "er"].contains(&&w[digits..]);
    (ordinal && (1..=2).contains(&digits)).then(|| &w[..digits])
}

/// Whether `w` (folded), a word of the phrase that asks for a day ("which evening", "que
/// noche", "w który wieczór"), still says what is asked about: an evening's event ("Thursday
/// evening net", "Rueda de los jueves por la noche"), not the Sunday morning one.
pub(crate) fn is_evening(w: &str) -> bool {
    const EVENING: &[&str] = &[
        "evening", "night", "abend", "noche", "soir", "soiree", "sera", "noite", "avond", "wieczor",
    ];
    EVENING.contains(&w)
}

/// Whether `folded_question` asks when something ends or closes: an end word in its asking
/// clause ("What time does the Plough Inn close?", "O której zamykają Plough Inn?").
pub(crate) fn asks_end(folded_question: &str) -> bool {
    words(asking_clause(folded_question))
        .iter()
        .any(|w| ALL.iter().any(|t| t.end.contains(w)))
}

/// The verbs of `folded_question`'s asking clause that say a start is asked, when it asks
/// for a time or a date ("begint" of "Hoe laat begint de clubavond?"); none otherwise.
pub(crate) fn start_words(folded_question: &str) -> Vec<String> {
    if !matches!(kind(folded_question), Some(Kind::Time | Kind::When)) {
        return Vec::new();
    }
    words(asking_clause(folded_question))
        .into_iter()
        .filter(|w| ALL.iter().any(|t| t.starts.contains(w)))
        .map(str::to_string)
        .collect()
}

/// Whether `w` (folded) is a word a start time comes after ("from", "ab", "desde", "od").
pub(crate) fn is_from_word(w: &str) -> bool {
    ALL.iter().any(|t| t.from.contains(&w))
}

/// Whether `w` (folded) names a weekday or a month in one of meshai's languages: English
/// writes them capitalised, and they are no names of places.
pub(crate) fn is_calendar_word(w: &str) -> bool {
    ALL.iter()
        .any(|t| t.weekdays.contains(&w) || t.months.contains(&w))
}

/// Whether `w` (folded) names a weekday in one of meshai's languages.
pub(crate) fn is_weekday(w: &str) -> bool {
    ALL.iter().any(|t| t.weekdays.contains(&w))
}

/// Whether `w` names a month in one of meshai's languages.
fn is_month(w: &str) -> bool {
    ALL.iter().any(|t| t.months.contains(&w))
}

/// The dates `folded` writes, each as (day, month): "18 ottobre", "26 de abril", "18th of
/// October", "October 18" are ("18", "ottobre"), … A year is no day.
pub(crate) fn dates(folded: &str) -> Vec<(String, String)> {
    let ws = words(folded);
    let at = |i: Option<usize>| i.and_then(|i| ws.get(i)).copied();
    let mut out = Vec::new();
    for (i, m) in ws.iter().enumerate().filter(|(_, m)| is_month(m)) {
        let mut before = at(i.checked_sub(1));
        if matches!(before, Some("de" | "of" | "di")) {
            before = at(i.checked_sub(2));
        }
        let found = before
            .and_then(day)
            .or_else(|| at(Some(i + 1)).and_then(day));
        if let Some(d) = found {
            out.push((d.to_string(), m.to_string()));
        }
    }
    out
}

/// Every day `folded` may write of a month: a number of a day up to four words before a
/// month or right after one ("Saturday 4 and Sunday 5 July": "4" and "5").
pub(crate) fn days(folded: &str) -> Vec<String> {
    let ws = words(folded);
    let mut out = Vec::new();
    for (i, _) in ws.iter().enumerate().filter(|(_, m)| is_month(m)) {
        let near = ws[i.saturating_sub(4)..i].iter().chain(ws.get(i + 1));
        out.extend(near.filter_map(|w| day(w)).map(str::to_string));
    }
    out
}

/// Whether `text` writes a signed number in kHz or MHz ("−600 kHz", "+7,6 MHz", "(shift
/// -9 MHz)"): a sign after no letter or digit, a digit right after it, the unit within the
/// next two words ("AA-55", "10-15 minutes" are no offset).
fn signed_hertz(text: &str) -> bool {
    text.char_indices().any(|(i, c)| {
        let signed = matches!(c, '+' | '-' | '−' | '–')
            && !text[..i]
                .chars()
                .next_back()
                .is_some_and(char::is_alphanumeric);
        let rest = &text[i + c.len_utf8()..];
        signed
            && rest.starts_with(|d: char| d.is_ascii_digit())
            && rest.split_whitespace().take(2).any(|w| {
                let w = w
                    .trim_matches(|c: char| !c.is_alphanumeric())
                    .to_lowercase();
                w.ends_with("khz") || w.ends_with("mhz")
            })
    })
}

/// What `text` holds (`folded`: the same text folded).
pub(crate) fn holds(text: &str, folded: &str) -> Holds {
    let ws = words(folded);
    let any = |pick: fn(&Words) -> &'static [&'static str], w: &str| {
        ALL.iter().any(|t| pick(t).contains(&w))
    };
    let near_number = |i: usize| {
        let lo = i.saturating_sub(2);
        let hi = (i + 3).min(ws.len());
        ws[lo..hi]
            .iter()
            .any(|w| is_number(w) || number_with(w, &["st", "nd", "rd", "th", "e", "er"]))
    };
    let weekday = ws.iter().any(|w| any(|t| t.weekdays, w));
    let month = ws
        .iter()
        .enumerate()
        .any(|(i, w)| any(|t| t.months, w) && near_number(i));
    let numeric_date = text.split_whitespace().any(|w| {
        let parts: Vec<&str> = w
            .trim_matches(|c: char| !c.is_ascii_digit())
            .split(['.', '/'])
            .collect();
        parts.len() == 3
            && parts[..2]
                .iter()
                .all(|p| (1..=2).contains(&p.len()) && is_number(p))
            && (2..=4).contains(&parts[2].len())
            && is_number(parts[2])
    });
    let colon_time = text.as_bytes().windows(4).any(|b| {
        b[0].is_ascii_digit() && b[1] == b':' && b[2].is_ascii_digit() && b[3].is_ascii_digit()
    });
    let clock_word = ws.iter().enumerate().any(|(i, w)| {
        number_with(w, &["am", "pm", "h", "uhr"])
            || (is_number(w)
                && w.len() <= 2
                && (ws.get(i + 1).is_some_and(|n| any(|t| t.clock, n))
                    || i.checked_sub(1)
                        .and_then(|p| ws.get(p))
                        .is_some_and(|p| any(|t| t.clock_before, p))))
    });
    let money = text.contains(['£', '€', '$'])
        || ws.iter().enumerate().any(|(i, w)| {
            number_with(w, &["p", "eur", "zl", "gbp", "pln", "usd"])
                || any(|t| t.free, w)
                || (any(|t| t.money, w) && near_number(i))
        });
    // Not plain Hz: "CTCSS 77,0 Hz" is an access tone, and stood for the output frequency
    // of "Was ist die Ausgabefrequenz …?" (the tone's line names the output too).
    const HERTZ: &[&str] = &["khz", "mhz", "ghz"];
    // "145.500 MHz", or a table row's "Frequency (MHz): 145.500".
    let labelled = |i: usize| {
        ws[i.saturating_sub(2)..i]
            .iter()
            .any(|w| any(|t| t.frequency_label, w))
    };
    let hertz = ws.iter().enumerate().any(|(i, w)| {
        number_with(w, HERTZ)
            || (is_number(w) && (ws.get(i + 1).is_some_and(|u| HERTZ.contains(u)) || labelled(i)))
    });
    // A label within `n` words before the number at `i` ("CTCSS 77", "desplazamiento es de
    // 600").
    let after = |i: usize, n: usize, labels: &dyn Fn(&str) -> bool| {
        ws[i.saturating_sub(n)..i].iter().any(|w| labels(w))
    };
    let tone = ws.iter().enumerate().any(|(i, w)| {
        number_with(w, &["hz"])
            || is_number(w)
                && (ws.get(i + 1) == Some(&"hz")
                    || after(i, 2, &|l| {
                        matches!(l, "ctcss" | "dcs") || any(|t| t.tone, l)
                    }))
    });
    let offset = signed_hertz(text)
        || ws
            .iter()
            .enumerate()
            .any(|(i, w)| is_number(w) && after(i, 3, &|l| any(|t| t.offset, l)));
    let duration = ws.iter().enumerate().any(|(i, w)| {
        any(|t| t.time_units, w)
            && ws[i.saturating_sub(2)..i]
                .iter()
                .any(|n| is_number(n) || any(|t| t.number_words, n))
    });
    Holds {
        duration,
        date: weekday || month || numeric_date,
        clock: colon_time || clock_word,
        weekday,
        money,
        hertz,
        tone,
        offset,
    }
}

#[cfg(test)]
mod tests;
