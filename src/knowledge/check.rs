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
//!
//! An answer that adds nothing can still miss: to "When is the fox hunt this year?" the same
//! model gave the hunt's frequency, with the date in the passage (`asked`). An answer that
//! holds no value of the kind the question asks for (a date or time to "when", a weekday, a
//! price), and does not decline, is replaced by the passage sentence about the question that
//! holds one; with none it stays. One that holds such a value but from another line than the
//! one the question names (the calling frequency's row for the Sunday net's) gives way to
//! that line (`line`). One that says nothing — the question's own words back, or a passage's
//! label — gives way to the sentence squarely about the question, or "Not in my notes."
//! (`empty`). A "where" is answered by a name the question does not write ("Crane Farm"), and
//! a start time is no answer to when something closes (`ends`). A job is no answer to "who"
//! when the notes name who holds it (`holder`).

pub(crate) mod asked;
mod code;
mod empty;
mod ends;
mod holder;
mod line;
mod parts;
mod place;

use crate::lang::{Lang, Say, related, say, stem};
use crate::mesh::matcher::{self, fold, words};
use crate::store::is_term;

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
    /// It holds no value of the `kind` the question asks for ("when" answered without a
    /// date or time) where a passage sentence about the question does: that sentence.
    Unanswered { sentence: String, kind: asked::Kind },
    /// It holds a value of that `kind`, from another line than the one the question is
    /// about ([`line`]): that line.
    OtherLine { sentence: String, kind: asked::Kind },
    /// It asks for no kind of value and the answer's code ("EU_868") is from another line
    /// than the one the question is about ([`code`]): that line.
    OtherCode { sentence: String },
    /// It recites the daemon's instructions ([`parts::recites`]): the passages' own
    /// sentence, or "Not in my notes." (`None`).
    Recited { sentence: Option<String> },
    /// It gives when something starts to a question asking when it ends or closes, or the
    /// sentence that would replace it does ([`ends::only_starts`]): "Not in my notes.".
    StartForEnd,
    /// It names the job a "who" asks about but not who holds it ([`holder`]): the notes'
    /// line that names the job and its holder.
    Holder { sentence: String },
    /// It says nothing: it only repeats the question ([`empty::echoes`]) or writes out a
    /// passage's label ([`empty::labels`]). The sentence squarely about the question
    /// ([`sentence_about`]), or "Not in my notes." (`None`).
    Empty { sentence: Option<String> },
    /// It answers "who" naming no one the notes name ([`holder::names_no_one`]): "Not in my
    /// notes.".
    NoOne,
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

/// The values `answer` adds to `prompt`: digit runs it does not write (meshai's own numbers
/// in it aside: [`parts::without`]), a date on a day of the month no date of it has (the
/// Italian bench's "24 ottobre 2026" for the rally on the 18th: the notes have "24 ore"), web
/// and mail addresses it does not write (the Spanish knowledge bench's "https://www.club.com"
/// for the club's website), and (but in German) names it does not name.
pub(crate) fn added(answer: &str, prompt: &str, lang: Lang) -> Vec<String> {
    // The numbers meshai's own parts fill in are no facts ("150 characters").
    let facts = parts::without(prompt, lang);
    let known: Vec<&str> = numbers(&facts).collect();
    let mut added: Vec<String> = numbers(answer)
        .filter(|n| !known.contains(n))
        .map(str::to_string)
        .collect();
    // By the day alone: the notes may name their months in another language than the
    // answer's ("5 July", "am 5. Juli").
    let days = asked::days(&fold(&facts));
    added.extend(
        asked::dates(&fold(answer))
            .into_iter()
            .filter(|(day, _)| !days.contains(day))
            .map(|(day, month)| format!("{day} {month}")),
    );
    let lowered = prompt.to_lowercase();
    added.extend(addresses(answer).filter(|a| !lowered.contains(a.as_str())));
    if lang != Lang::De {
        let folded = fold(prompt);
        let named = words(&folded);
        // "Meshtastic-node", "LONG_FAST": named when each of its words is.
        let unnamed = |n: &String| !words(n).iter().all(|w| named.contains(w));
        added.extend(names(answer).into_iter().filter(unnamed));
    }
    added.dedup();
    added
}

/// The sentences of the passages in `notes` (the knowledge note, `render::knowledge_block`:
/// its intro, each passage after its label in brackets, its closing rule, a blank line
/// between them), each with the last heading of its passage's label ("" for a passage
/// without one).
fn sentences(notes: &str) -> Vec<(&str, &str)> {
    let blocks: Vec<&str> = notes.split("\n\n").collect();
    let Some(inner) = blocks.get(1..blocks.len().saturating_sub(1)) else {
        return Vec::new();
    };
    let mut heading = "";
    let mut out = Vec::new();
    for b in inner {
        let text = match b.strip_prefix('[') {
            Some(labelled) => match labelled.split_once('\n') {
                Some((label, text)) => {
                    let label = label.trim_end_matches(']');
                    heading = label.rsplit(" > ").next().unwrap_or(label);
                    text
                }
                None => continue,
            },
            None => b,
        };
        out.extend(
            text.lines()
                .flat_map(split_sentences)
                .map(str::trim)
                .filter(|s| s.chars().any(char::is_alphanumeric))
                .map(|s| (heading, s)),
        );
    }
    out
}

/// The sentences of one line: split after ". ", but not after a day's number ("Dienstag,
/// 1. Dezember 2026": a German date is one sentence).
fn split_sentences(line: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    for (i, _) in line.match_indices(". ") {
        // The word before the dot: a number of one or two digits is a day ("1."), not
        // "10:00." or "2026.".
        let word = line[start..i]
            .rsplit(char::is_whitespace)
            .next()
            .unwrap_or("");
        if (1..=2).contains(&word.len()) && word.chars().all(|c| c.is_ascii_digit()) {
            continue;
        }
        out.push(&line[start..=i]);
        start = i + 2;
    }
    out.push(&line[start..]);
    out
}

/// The question's words that say what it is about, folded: no word common in any of
/// meshai's languages (`store::is_term`: "dieses", "der" shared with every German sentence),
/// none that only says a day or a time is asked (`asked::cue_words`) — but the evening of
/// "which evening" (`asked::is_evening`): of the nets, the Thursday evening one is asked
/// about (the Portuguese bench's "Em que noite …?" took the Sunday morning HF net's line,
/// the two tied without it).
pub(crate) fn asked_words(question: &str) -> Vec<String> {
    let lower = question.to_lowercase();
    let cue = asked::cue_words(&fold(question));
    words(&lower)
        .into_iter()
        .filter(|w| is_term(w) && !STOP.contains(w))
        .map(fold)
        .filter(|w| !cue.contains(w) || asked::is_evening(w))
        .collect()
}

/// How many of `asked` the text `s` shares ("start" shares with "starts"); a word is shared
/// by a text that writes what documents write for it, too (`lang::related`: "adult" by "Full
/// member", "money" by "Treasurer"; not the jobs a who-question's verb asks for, which say
/// nothing of which line is about the question).
pub(crate) fn shared(asked: &[String], s: &str) -> usize {
    shared_in(asked, s, Lang::En)
}

/// [`shared`], a word also shared in `lang` by the stems it is written with ([`kin`]; none
/// in English, whose inflections `same_word` covers).
fn shared_in(asked: &[String], s: &str, lang: Lang) -> usize {
    let f = fold(s);
    let w = words(&f);
    let has = |a: &str| w.iter().any(|w| same_word(a, w));
    let shares = |a: &str| {
        has(a)
            || related::written_for(a, false).iter().any(|r| has(r))
            || kin(a, lang)
                .iter()
                .any(|k| w.iter().any(|w| inflects(k, w, lang)))
            || w.iter().any(|w| compound_part(a, w, lang))
    };
    asked.iter().filter(|a| shares(a)).count()
}

/// The stems the folded word `a` is written with in `lang` besides itself
/// (`lang::stem::forms_as`, its endings folded: "klub" of "klubu"; a Polish verb's with its
/// other prefixes, "zatrzym" of "trzymac"): the forms the search finds, so that the check sees
/// the lines it found as sharing the word ("Jak długo mogę trzymać coś, co pożyczyłem z klubu?"
/// and "Możesz zatrzymać sprzęt do dwóch tygodni" under "Wypożyczanie sprzętu klubowego").
fn kin(a: &str, lang: Lang) -> Vec<String> {
    stem::forms_as(lang, a, &|e: &str| fold(e))
        .into_iter()
        .filter(|f| f.chars().count() >= stem::MIN_STEM)
        .collect()
}

/// Whether the folded word `w` is the stem `k` inflected in `lang`: it starts with it and has
/// at most [`inflection`] letters more ("klubowego"), so not a compound ("jahr" is not
/// "jahreshauptversammlung").
fn inflects(k: &str, w: &str, lang: Lang) -> bool {
    w.starts_with(k) && w.chars().count() <= k.chars().count() + inflection(lang)
}

/// The letters an inflection adds to a stem at most ([`inflects`]): five ("klub-owego"), but
/// in German and Dutch, which write a compound as one word, three: more is another word
/// ("club" is not "clubronde": the Dutch bench's "Hoeveel leden heeft de club?" got the
/// August line, "geen clubronde: de leden zijn weg", for its made-up number, where "Not in
/// my notes." is right), and [`compound_part`] judges that.
fn inflection(lang: Lang) -> usize {
    match lang {
        Lang::De | Lang::Nl => 3,
        _ => 5,
    }
}

/// Whether, in German or Dutch, the folded word `w` is a compound that holds the question's
/// word `a` ([`COMPOUND_PART`] letters at least) as one of its parts: "avond" and "ronde" of
/// "Op welke avond is de wekelijkse ronde …?" are in "Donderdagavondronde", the line the
/// Dutch bench's question is about, and the Sunday net's line only writes "HF-ronde".
fn compound_part(a: &str, w: &str, lang: Lang) -> bool {
    matches!(lang, Lang::De | Lang::Nl)
        && a.chars().count() >= COMPOUND_PART
        && w.len() > a.len() + 3
        && w.contains(a)
}

/// The letters a question's word has at least to be looked for inside a compound
/// ([`compound_part`]): a shorter one is inside too many words ("jahr", "tag").
const COMPOUND_PART: usize = 5;

/// Whether two folded words are one word, or one an inflection of the other — not a
/// compound: "start" is "starts", "jahr" is not "jahreshauptversammlung".
fn same_word(a: &str, b: &str) -> bool {
    let (short, long) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    short == long || short.len() >= 4 && long.len() <= short.len() + 3 && long.starts_with(short)
}

/// The passage sentence of `notes` that shares most of `question`'s words (at least
/// [`SHARED_WORDS`]); the first of equals.
pub(crate) fn sentence<'a>(question: &str, notes: &'a str, lang: Lang) -> Option<&'a str> {
    let asked = asked_words(question);
    let mut best: Option<(usize, &str)> = None;
    for (_, s) in sentences(notes) {
        let n = shared_in(&asked, s, lang);
        if best.is_none_or(|(b, _)| n > b) {
            best = Some((n, s));
        }
    }
    best.filter(|(n, _)| *n >= SHARED_WORDS).map(|(_, s)| s)
}

/// One line of the notes as scored for a question asking for a value of a kind.
struct Line<'a> {
    /// Its passage's last heading, and the line.
    heading: &'a str,
    text: &'a str,
    /// How well it holds a value of the kind ([`asked::Holds::answers`]; 0: none).
    value: u8,
    /// The question's words it shares, a word its heading shares counting twice (the heading
    /// says what the passage is about: "Flohmarkt (Rally)"), and so the question's numbers
    /// (the "2" of "the 2 m repeater" and "GB3KV — Beacon Hill, 2 m FM") …
    shared: usize,
    /// … and those it shares itself.
    own: usize,
}

impl Line<'_> {
    /// Its rank: the best value first, then the most words shared.
    fn rank(&self) -> (u8, usize) {
        (self.value, self.shared)
    }

    /// Whether it may stand for the answer: it holds a value of the kind and shares at least
    /// [`SHARED_WORDS`].
    fn candidate(&self) -> bool {
        self.value > 0 && self.shared >= SHARED_WORDS
    }

    /// It said instead of an answer ([`quoted`]).
    fn quoted(&self) -> String {
        quoted(self.heading, self.text, self.own)
    }
}

/// How well `text` holds a value of `kind` for `question` ([`asked::Holds::answers`]); a
/// place is a name (a capitalised word but a sentence's first, no weekday or month) the
/// question does not write: "VHF" is no answer to "Où se déroule le field day VHF ?",
/// "Crane Farm" is.
fn held(kind: asked::Kind, text: &str, question: &str) -> u8 {
    if kind != asked::Kind::Place {
        return asked::holds(text, &fold(text)).answers(kind);
    }
    let folded = fold(question);
    let asked = words(&folded);
    let new = |n: &String| !asked.iter().any(|a| same_word(a, n)) && !asked::is_calendar_word(n);
    u8::from(names(text).iter().any(new))
}

/// The lines of `notes`, each scored for `question`, which asks for a value of `kind`.
fn scored_lines<'a>(
    kind: asked::Kind,
    question: &str,
    notes: &'a str,
    lang: Lang,
) -> Vec<Line<'a>> {
    let asked = asked_words(question);
    // "2 metri" names the "2 m" repeater; the other lines' values are no word of the
    // question ("145,7125" is not "2").
    let counts: Vec<&str> = numbers(question).collect();
    let both = |s: &str| {
        shared_in(&asked, s, lang)
            + counts
                .iter()
                .filter(|n| numbers(s).any(|m| m == **n))
                .count()
    };
    sentences(notes)
        .into_iter()
        .map(|(heading, text)| {
            let own = both(text);
            Line {
                heading,
                text,
                value: held(kind, text, question),
                shared: own + 2 * both(heading),
                own,
            }
        })
        .collect()
}

/// The best of `lines` that may stand for the answer: the first of the top [`Line::rank`].
fn best<'l, 'a>(lines: &'l [Line<'a>]) -> Option<&'l Line<'a>> {
    let top = lines
        .iter()
        .filter(|l| l.candidate())
        .map(Line::rank)
        .max()?;
    lines.iter().find(|l| l.candidate() && l.rank() == top)
}

/// The passage sentence of `notes` that best holds the value `kind` asks for ([`best`]),
/// said after its heading when it shares no word itself ("Fox hunt: Sunday 26 April 2026.").
fn sentence_holding(kind: asked::Kind, question: &str, notes: &str, lang: Lang) -> Option<String> {
    best(&scored_lines(kind, question, notes, lang)).map(Line::quoted)
}

/// The line [`sentence_holding`] gives, when it answers the question squarely: with its
/// heading, it shares every word the question is about but at most one, `lang`'s small
/// words aside ("die" in "Wann ist dieses Jahr die Fuchsjagd?"). Said instead of
/// "Not in my notes.": the model declined with the line in front of it (Qwen2.5-0.5B to
/// "Wann ist dieses Jahr die Fuchsjagd?", the hunt's date in the passage), where the daemon
/// can see the line asked about holds the value asked for. "When is Field Day next year?"
/// shares two of four words with this year's date, and stays declined.
fn sentence_answering(
    kind: asked::Kind,
    question: &str,
    notes: &str,
    lang: Lang,
) -> Option<String> {
    let asked = about_words(question, lang);
    let lines = scored_lines(kind, question, notes, lang);
    let line = best(&lines)?;
    let covered = shared_in(&asked, &format!("{} {}", line.heading, line.text), lang);
    // A line sharing only small words answers nothing.
    (covered >= 1 && covered + 1 >= asked.len()).then(|| line.quoted())
}

/// The words `question` is about ([`asked_words`]) without `lang`'s small words: what a line
/// squarely about it shares all of but one.
fn about_words(question: &str, lang: Lang) -> Vec<String> {
    let mut asked = asked_words(question);
    asked.retain(|w| !crate::lang::small_words(lang).iter().any(|s| fold(s) == *w));
    asked
}

/// The heading of `lines` (`sentences`) that `question` names: the one sharing most of the
/// words it is about (`about_words`), one at least, each as written or by a stem it is
/// written with ([`kin`]; "zimowa" names "Zimowe spotkanie towarzyskie", "pożyczyć"
/// "Wypożyczanie sprzętu", a compound too: "Winterabend"), with no other sharing as many.
fn named_heading<'a>(question: &str, lines: &[(&'a str, &str)], lang: Lang) -> Option<&'a str> {
    let about = about_words(question, lang);
    let score = |h: &str| {
        let folded = fold(h);
        let written = words(&folded);
        about
            .iter()
            .filter(|a| {
                let kin = kin(a, lang);
                written
                    .iter()
                    .any(|w| same_word(a, w) || kin.iter().any(|k| w.starts_with(k.as_str())))
            })
            .count()
    };
    let mut headings: Vec<&str> = Vec::new();
    for (heading, _) in lines {
        if !heading.is_empty() && !headings.contains(heading) {
            headings.push(heading);
        }
    }
    let top = headings
        .iter()
        .map(|h| score(h))
        .max()
        .filter(|n| *n >= 1)?;
    let mut named = headings.into_iter().filter(|h| score(h) == top);
    match (named.next(), named.next()) {
        (Some(h), None) => Some(h),
        _ => None,
    }
}

/// The passage sentence of `notes` squarely about `question`: with its heading, it shares
/// every word the question is about but one, `lang`'s small words aside, and at least one
/// ("Can I bring my dog to the field day?" and "Dogs on a lead are welcome at the field
/// day."); the one sharing most, the first of equals.
fn sentence_about(question: &str, notes: &str, lang: Lang) -> Option<String> {
    let asked = about_words(question, lang);
    let mut best: Option<(usize, &str, &str)> = None;
    for (heading, s) in sentences(notes) {
        let n = shared_in(&asked, &format!("{heading} {s}"), lang);
        if best.is_none_or(|(b, ..)| n > b) {
            best = Some((n, heading, s));
        }
    }
    let (n, heading, s) = best?;
    let own = shared_in(&asked, s, lang);
    (n >= 1 && n + 1 >= asked.len()).then(|| quoted(heading, s, own))
}

/// The passage line `s` as said instead of an answer: without a list's mark, and after its
/// `heading` when it shares none (`own`) of the question's words itself ("Fox hunt: Sunday
/// 26 April 2026.").
fn quoted(heading: &str, s: &str, own: usize) -> String {
    let s = unmarked(s);
    match own {
        0 if !heading.is_empty() => format!("{heading}: {s}"),
        _ => s.to_string(),
    }
}

/// The passage line `s` without a list's mark ("- Wait 30 minutes …" is "Wait 30 minutes …").
fn unmarked(s: &str) -> &str {
    s.strip_prefix("- ")
        .or_else(|| s.strip_prefix("* "))
        .unwrap_or(s)
}

/// Whether `answer` declines ("Not in my notes." in any language).
fn declines(answer: &str) -> bool {
    let folded = fold(answer);
    Lang::ALL.iter().any(|l| {
        let no = fold(say(*l, Say::NotInNotes));
        folded.contains(no.trim_end_matches('.'))
    })
}

/// Whether `answer` is a refusal: "Not in my notes." (in any language) with at most
/// [`REFUSAL_WORDS`] words besides it, a short "I can't help with that" ([`cannot_help`]), or
/// meshai's own prompt recited (`parts::recites`). To an everyday question the daemon gave the
/// model (`local::everyday`) that is no answer: Qwen2.5-0.5B said "Not in my notes." to "Is it
/// rude to send lots of messages on the public channel?" in four of the eight knowledge benches
/// (at 4a7f63a), with no passage in its prompt, told by the system prompt's rule for questions
/// about the documents.
pub(crate) fn refuses(answer: &str, lang: Lang) -> bool {
    let folded = fold(answer);
    let bare = Lang::ALL.iter().any(|l| {
        let no = fold(say(*l, Say::NotInNotes));
        let no = no.trim_end_matches('.');
        folded.contains(no) && words(&folded.replace(no, " ")).len() <= REFUSAL_WORDS
    });
    bare || cannot_help(&folded) || parts::recites(answer, lang)
}

/// The words a refusal may say besides "Not in my notes." ("Sorry, that is …").
const REFUSAL_WORDS: usize = 3;

/// "I can't help with that" in meshai's languages, folded (`text::fold`) and split into words
/// as [`words`] splits (an elided "t'" goes: "je ne peux pas t'aider" is "… pas aider").
/// Qwen2.5-0.5B said "Przepraszam, ale nie mogę pomóc z tym." to a Polish how-to, "Jak
/// sprawić, żeby bateria w moim węźle wytrzymała dłużej?" (the knowledge bench), with no
/// passage in its prompt. A newcomer adds a line, no code.
const CANNOT_HELP: &[&str] = &[
    "i can't help",
    "i cannot help",
    "i can't assist",
    "i cannot assist",
    "i am unable to help",
    "i'm unable to help",
    "kann ich nicht helfen",
    "kann ich dir nicht helfen",
    "kann ich ihnen nicht helfen",
    "kann dir nicht helfen",
    "kann ihnen nicht helfen",
    "no puedo ayudar",
    "no puedo ayudarte",
    "no puedo ayudarle",
    "je ne peux pas aider",
    "je ne peux pas vous aider",
    "non posso aiutare",
    "non posso aiutarti",
    "non posso aiutarla",
    "nao posso ajudar",
    "nao posso te ajudar",
    "kan ik niet helpen",
    "kan ik je niet helpen",
    "kan ik u niet helpen",
    "ik kan je niet helpen",
    "ik kan u niet helpen",
    "ik kan daar niet mee helpen",
    "nie moge pomoc",
    "nie moge ci pomoc",
    "nie moge panu pomoc",
    "nie moge pani pomoc",
    "nie jestem w stanie pomoc",
];

/// The words a "cannot help" refusal has at most, all told: a longer answer goes on to help.
const CANNOT_HELP_WORDS: usize = 14;

/// Whether `folded` says it cannot help ([`CANNOT_HELP`]) and little else.
fn cannot_help(folded: &str) -> bool {
    let straight = folded.replace('\u{2019}', "'");
    let said = words(&straight);
    said.len() <= CANNOT_HELP_WORDS
        && CANNOT_HELP.iter().any(|phrase| {
            let phrase: Vec<&str> = phrase.split(' ').collect();
            said.windows(phrase.len()).any(|w| w == phrase.as_slice())
        })
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
    let kind = asked::kind(&fold(question));
    let checked = judged(answer, question, kind, prompt, notes, lang);
    // A sentence put in instead (or for a recital or an empty answer, none) holds a value of
    // the kind asked for, when a line does: the sentence sharing most words with a question
    // that asks how long is no answer to it (the French bench's "Combien de temps je peux
    // garder un truc que le club m'a prêté ?" got "Le club prête du matériel gratuitement
    // aux membres.", the two weeks a line below).
    let checked = match (checked, kind) {
        (checked, Some(kind)) if kind != asked::Kind::Place => {
            let valueless = match checked.sentence() {
                Some(s) => held(kind, s, question) == 0,
                // Nothing to say instead of a recital or an empty answer yet.
                None => matches!(checked, Checked::Recited { .. } | Checked::Empty { .. }),
            };
            match valueless
                .then(|| sentence_holding(kind, question, notes, lang))
                .flatten()
            {
                Some(line) => checked.instead(line),
                None => checked,
            }
        }
        (checked, _) => checked,
    };
    // A start time is no answer to when something ends: neither the model's nor a line put
    // in instead (the Spanish and Polish benches' decline to "What time does the Plough Inn
    // close?" gave way to the winter social's "desde las 18:30" line).
    let start_for_end = |text: &str| {
        matches!(kind, Some(asked::Kind::Time | asked::Kind::When))
            && ends::only_starts(text, question, notes)
    };
    let said = match &checked {
        Checked::Kept => Some(answer),
        other => other.sentence(),
    };
    let checked = match said.is_some_and(start_for_end) {
        // A decline stays as it is.
        true if declines(answer) => Checked::Kept,
        true => Checked::StartForEnd,
        false => checked,
    };
    // A place written only outside the passage the question names.
    let checked = match (&checked, kind) {
        (Checked::Kept, Some(asked::Kind::Place)) => {
            match place::instead(answer, question, notes, lang) {
                Some(sentence) => Checked::OtherLine {
                    sentence,
                    kind: asked::Kind::Place,
                },
                None => checked,
            }
        }
        _ => checked,
    };
    // A code from another line than the one asked about, where no kind of value is asked.
    let checked = match (&checked, kind) {
        (Checked::Kept, None) => match code::instead(answer, question, notes, lang) {
            Some(sentence) => Checked::OtherCode { sentence },
            None => checked,
        },
        _ => checked,
    };
    // A job is no answer to "who", whoever said it: the model, or a sentence put in instead
    // (the Italian bench's made-up value gave way to "Si paga alla tesoriera, …", the
    // sentence sharing most with "Chi tiene i soldi del club?"), or a decline — the model's,
    // or "Not in my notes." put in for a made-up value (the German bench's "Wen frage ich,
    // wenn ich mir den Antennenanalysator ausleihen will?", beside the equipment officer).
    let said = match &checked {
        Checked::Kept => answer,
        other => other.sentence().unwrap_or_default(),
    };
    let declined = said.is_empty() || declines(said);
    match holder::instead(said, question, notes, declined, lang) {
        Some(sentence) => Checked::Holder { sentence },
        // Not when nothing would be said but "Not in my notes." already.
        None if !said.is_empty() && holder::names_no_one(said, question, notes, lang) => {
            match holder::in_named_passage(question, notes, lang) {
                Some(sentence) => Checked::Holder { sentence },
                None => Checked::NoOne,
            }
        }
        None => checked,
    }
}

impl Checked {
    /// The same verdict with `line` said instead of the sentence it put in.
    fn instead(self, line: String) -> Checked {
        match self {
            Checked::Sentence { added, .. } => Checked::Sentence {
                sentence: line,
                added,
            },
            Checked::Unanswered { kind, .. } => Checked::Unanswered {
                sentence: line,
                kind,
            },
            Checked::OtherLine { kind, .. } => Checked::OtherLine {
                sentence: line,
                kind,
            },
            Checked::Holder { .. } => Checked::Holder { sentence: line },
            Checked::OtherCode { .. } => Checked::OtherCode { sentence: line },
            Checked::Recited { .. } => Checked::Recited {
                sentence: Some(line),
            },
            Checked::Empty { .. } => Checked::Empty {
                sentence: Some(line),
            },
            other => other,
        }
    }

    /// The passage sentence said instead of the answer, if any.
    fn sentence(&self) -> Option<&str> {
        match self {
            Checked::Sentence { sentence, .. }
            | Checked::Unanswered { sentence, .. }
            | Checked::OtherLine { sentence, .. }
            | Checked::OtherCode { sentence }
            | Checked::Holder { sentence }
            | Checked::Recited {
                sentence: Some(sentence),
            }
            | Checked::Empty {
                sentence: Some(sentence),
            } => Some(sentence),
            _ => None,
        }
    }
}

/// What becomes of `answer` by the rules but the start time's ([`check`]).
/// `kind` is what `question` asks for ([`asked::kind`]).
fn judged(
    answer: &str,
    question: &str,
    kind: Option<asked::Kind>,
    prompt: &str,
    notes: &str,
    lang: Lang,
) -> Checked {
    if parts::recites(answer, lang) {
        return Checked::Recited {
            sentence: sentence(question, notes, lang).map(|s| unmarked(s).to_string()),
        };
    }
    if empty::echoes(answer, question) || empty::labels(answer, notes) {
        return Checked::Empty {
            sentence: sentence_about(question, notes, lang),
        };
    }
    let added = added(answer, prompt, lang);
    if !added.is_empty() {
        // The line that squarely holds the value asked for, else the sentence sharing most.
        let instead = kind
            .and_then(|kind| sentence_answering(kind, question, notes, lang))
            .or_else(|| sentence(question, notes, lang).map(|s| unmarked(s).to_string()));
        return match instead {
            Some(sentence) => Checked::Sentence { sentence, added },
            None => Checked::NotInNotes { added },
        };
    }
    let Some(kind) = kind else {
        return Checked::Kept;
    };
    // A place is told from other names by the question only: a decline stands ("Where do
    // we park at Crane Farm?" is not answered by the farm's address), and a place is not
    // placed on a line.
    let place = kind == asked::Kind::Place;
    if declines(answer) {
        return match sentence_answering(kind, question, notes, lang).filter(|_| !place) {
            Some(sentence) => Checked::Unanswered { sentence, kind },
            None => Checked::Kept,
        };
    }
    if held(kind, answer, question) > 0 {
        return match line::instead(kind, question, notes, answer, lang).filter(|_| !place) {
            Some(sentence) => Checked::OtherLine { sentence, kind },
            None => Checked::Kept,
        };
    }
    match sentence_holding(kind, question, notes, lang) {
        Some(sentence) => Checked::Unanswered { sentence, kind },
        None => Checked::Kept,
    }
}

#[cfg(test)]
mod tests;
