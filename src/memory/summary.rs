//! The rolling-summary policy: the prompt that folds evicted messages into a node's running
//! summary, and the check a candidate summary must pass before it replaces the old one.
//! Pure: the responder asks the store for a `SummaryJob`, the LLM for the text, and the store
//! to save it.

use std::collections::HashSet;

use unicode_segmentation::UnicodeSegmentation;

use crate::chunk::{ChunkLimits, chunk};
use crate::lang::{Lang, Part, fill, part};
use crate::llm::{ChatMessage, ChatRole};
use crate::memory::layout;
use crate::store::{StoredMessage, Summary};
use crate::text::key;

mod own_words;

/// Why a candidate summary was not saved; the old summary stays and the job is retried later.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum SummaryRejected {
    #[error("summary is empty")]
    Empty,
    #[error("summary looks like an error or a refusal, not a summary")]
    NotASummary,
    /// Far over the limit: a model that rambles or repeats itself, not one that ran a little
    /// long (that one is cut to fit).
    #[error("summary is {chars} characters, over {limit}: the model rambled")]
    TooLong { chars: usize, limit: usize },
    /// Much shorter than the summary it replaces: a rewrite that dropped most of what was
    /// remembered (small models do this), not an update.
    #[error("summary shrank from {previous} to {chars} characters: it dropped what was remembered")]
    Shrunk { chars: usize, previous: usize },
    /// Mostly the bot's own answers copied back: no notes about the person.
    #[error("summary is the bot's own answers, not notes about the person")]
    OwnWords,
    /// A loop of a few words ("Lara: Hi, Lara, Hello, Lara…").
    #[error("summary repeats a few words over and over")]
    Loop,
    /// Hardly a word of it is in what the person wrote, the facts or the previous notes: made
    /// up, not notes about them.
    #[error("summary shares hardly a word with what the person wrote: not notes about them")]
    Unrelated,
}

impl SummaryRejected {
    /// Whether the candidate held nothing worth keeping however often it is asked again (the
    /// model copied its answers or looped): after the last attempt the fold keeps the
    /// previous summary and saves the facts, as for a candidate that only repeated them.
    pub(crate) fn holds_nothing(&self) -> bool {
        matches!(
            self,
            SummaryRejected::OwnWords | SummaryRejected::Loop | SummaryRejected::Unrelated
        )
    }
}

/// A candidate longer than this many times `max_chars` is refused rather than cut.
const RAMBLE_FACTOR: usize = 3;

/// A candidate shorter than this share (in percent) of a previous summary of at least
/// `SHRINK_MIN_PREVIOUS` characters is refused.
const SHRINK_PERCENT: usize = 40;
const SHRINK_MIN_PREVIOUS: usize = 120;

/// Whether `msgs` is a summary request (its last message is [`summary_prompt`]'s request).
#[cfg(test)]
pub(crate) fn is_summary_request(msgs: &[ChatMessage]) -> bool {
    msgs.last()
        .is_some_and(|m| m.role == ChatRole::User && is_summary_text(&m.content))
}

/// Whether `text` is a summary request's last message, in any of meshai's languages.
pub fn is_summary_text(text: &str) -> bool {
    Lang::ALL
        .iter()
        .any(|l| text.starts_with(part(*l, Part::SummaryStart)))
}

/// The messages asking the LLM to write its notes again after `messages` (the ones to fold,
/// and those that stay verbatim after them), in at most `max_chars`: the conversation as the
/// node's reply prompts have it — the system prompt, the memory block with the `previous`
/// summary and the kept `facts`, the messages as the model saw and wrote them — followed by
/// one request. `kept`: as for the node's reply prompts (see [`layout::conversation`]).
///
/// Being the reply prompts' own beginning, it reuses the server's cache of the conversation:
/// the server evaluates only the request (on a one-slot Raspberry Pi that is the difference
/// between a second and half a minute). Small models (Qwen2.5-0.5B, SmolLM2) also summarise
/// "the conversation above" better than a transcript pasted into one message, which they
/// echo.
pub(crate) fn summary_prompt(
    lang: Lang,
    system: &str,
    previous: Option<&Summary>,
    facts: &[String],
    messages: &[StoredMessage],
    kept: usize,
    max_chars: usize,
) -> Vec<ChatMessage> {
    let mut msgs = layout::conversation(lang, system, previous, facts, messages, kept);
    let max_chars = max_chars.to_string();
    msgs.push(ChatMessage::new(
        ChatRole::User,
        fill(
            part(lang, Part::SummaryRequest),
            &[("max_chars", &max_chars)],
        ),
    ));
    msgs
}

/// Labels some models put before the summary despite being told not to.
const LABELS: &[&str] = &[
    "updated running summary:",
    "updated summary:",
    "running summary:",
    "summary:",
    "updated notes:",
    "notes:",
];

/// Openings of an error message or a refusal, compared in lower case.
const REFUSALS: &[&str] = &[
    "error",
    "i'm sorry",
    "i am sorry",
    "sorry,",
    "i can't",
    "i cannot",
    "i'm unable",
    "i am unable",
    "i apologize",
    "as an ai",
];

/// Fragments that never belong in a plain-text summary: code fences, thinking, and the
/// speaker labels or headings of a transcript (a model that echoes its input).
const FORBIDDEN: &[&str] = &[
    "```",
    "<think",
    "</think",
    "user:",
    "assistant:",
    "new lines:",
    "notes so far",
];

/// How the request begins, lower case: a small model that echoes it after its notes gets
/// its notes kept and the echo cut off.
const REQUEST_ECHO: &str = "now write your notes";

/// `text` cut where an echo of the request begins, if one does.
fn cut_echoes(text: &mut String) {
    let echoes = std::iter::once(REQUEST_ECHO.to_string())
        .chain(
            Lang::ALL[1..]
                .iter()
                .map(|l| part(*l, Part::SummaryStart).to_lowercase()),
        )
        .chain(request_echoes());
    for echo in echoes {
        if let Some(at) = find_ignoring_case(text, &echo) {
            text.truncate(at);
        }
    }
}

/// Words of a request's sentence that mark an echo of it.
const ECHO_WORDS: usize = 4;

/// The openings of the request's later sentences and clauses, in every language, lower case:
/// a small model also echoes one of them as its notes (seen: "Schreib auf Deutsch, in der
/// dritten Person, …" and "Behalte, was deine Notizen sagen, und füge …" saved as a German
/// conversation's summary, which then refused every later one as shrunk). What follows such
/// an opening is cut off, as the request's own beginning is.
fn request_echoes() -> impl Iterator<Item = String> {
    Lang::ALL.into_iter().flat_map(|l| {
        part(l, Part::SummaryRequest)
            .split([':', '.'])
            .skip(1)
            .filter_map(|sentence| {
                let words: Vec<&str> = sentence.split_whitespace().take(ECHO_WORDS).collect();
                (words.len() == ECHO_WORDS).then(|| words.join(" ").to_lowercase())
            })
            .collect::<Vec<_>>()
    })
}

/// The memory block's own wording, which a small model copies into its notes: taken out of a
/// candidate (see [`scrub`]).
const SCAFFOLDING: &[&str] = &[
    "(information, not instructions)",
    "information, not instructions",
    "(information for you, not instructions)",
    "information for you, not instructions",
    "their messages below are newer",
    "memory of this person",
    "earlier in your conversation",
    "they wrote (newest last):",
    "(newest last)",
    "they wrote:",
    "you wrote:",
    "your notes:",
];

/// Cleans a candidate summary (trims, drops a leading "Summary:" label, joins lines into one
/// paragraph) and returns it if it is fit to save: not empty, not an error message or
/// refusal, not rambling (over `RAMBLE_FACTOR` × `max_chars`), and not a rewrite that shrank
/// a `previous` summary to a fraction of it. One a little longer than `max_chars` is cut to
/// fit by the chunker, as a one-part reply is (at the last word that fits, with `…`): small
/// models often run long, and a summary missing its tail is worth more than none. A refused
/// summary changes nothing: the messages stay in the prompt until a good one is saved.
///
/// The memory block's wording and the kept `facts`, which a small model copies into its
/// notes, are taken out first ([`scrub`]), and an echo of the request is cut off: the facts
/// are in every prompt already. A candidate that held nothing else keeps the `previous`
/// summary: the fold still saves its facts, and the folded exchanges stay retrievable (a
/// small model that cannot write notes must not keep the prompt from ever shrinking). The
/// shrink check compares what both hold beyond the facts.
///
/// A candidate that is mostly the bot's own answers among `messages` (the conversation the
/// request carried), or a loop of a few words, is refused too ([`own_words`]): it is no note
/// about the person, and `!summary` would tell them the bot's words as theirs.
pub(crate) fn accept_summary(
    candidate: &str,
    max_chars: usize,
    previous: Option<&str>,
    facts: &[String],
    messages: &[StoredMessage],
) -> Result<String, SummaryRejected> {
    let mut text = candidate.trim();
    let lower = text.to_lowercase();
    if let Some(label) = LABELS.iter().find(|l| lower.starts_with(**l)) {
        text = text.get(label.len()..).unwrap_or("").trim_start();
    }
    let mut text = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if text.is_empty() {
        return Err(SummaryRejected::Empty);
    }
    cut_echoes(&mut text);
    // A previous summary that was an echo (saved before echoes were cut) holds nothing.
    let previous = previous.map(|p| {
        let mut p = p.trim().to_string();
        cut_echoes(&mut p);
        p
    });
    let text = scrub(&text, facts);
    if text.is_empty() {
        return Ok(previous.unwrap_or_default().trim().to_string());
    }
    // What the previous notes held beyond the facts: that is what a rewrite must not drop.
    let previous = previous.map(|p| scrub(&p, facts));
    let previous = previous.as_deref();
    // Curly apostrophes are common in model output; compare them as straight ones.
    let lower = text.to_lowercase().replace('\u{2019}', "'");
    // A label with nothing after it ("Gedächtnis über mich neu:", left of an echo) is no notes.
    let label_only = text.trim_end().ends_with(':');
    if REFUSALS.iter().any(|r| lower.starts_with(r))
        || FORBIDDEN.iter().any(|f| lower.contains(f))
        || label_only
    {
        return Err(SummaryRejected::NotASummary);
    }
    let chars = text.chars().count();
    let limit = max_chars.saturating_mul(RAMBLE_FACTOR);
    if chars > limit {
        return Err(SummaryRejected::TooLong { chars, limit });
    }
    let text = said_once(&text);
    if own_words::is_loop(&text) {
        return Err(SummaryRejected::Loop);
    }
    if own_words::is_own_words(&text, messages) {
        return Err(SummaryRejected::OwnWords);
    }
    if own_words::is_unrelated(&text, messages, previous, facts) {
        return Err(SummaryRejected::Unrelated);
    }
    let chars = text.chars().count();
    let previous = previous.map_or(0, |p| p.trim().chars().count());
    if previous >= SHRINK_MIN_PREVIOUS && chars * 100 < previous * SHRINK_PERCENT {
        return Err(SummaryRejected::Shrunk { chars, previous });
    }
    let limits = ChunkLimits {
        max_chars,
        max_bytes: usize::MAX,
        max_chunks: 1,
    };
    chunk(&text, &limits)
        .into_iter()
        .next()
        .ok_or(SummaryRejected::Empty)
}

/// A memory-block label whole, then its pieces between brackets, semicolons, colons and
/// full stops: a piece long enough to be its own wording (12 characters or more) as it is,
/// any other with a colon after it, as a label ("Sie schrieb:", "Tus notas:").
fn label_pieces(label: &str) -> Vec<String> {
    let pieces = label
        .split(['(', ')', ';', ':', '.'])
        .map(str::trim)
        .filter(|piece| piece.chars().count() >= 5);
    std::iter::once(label.to_string())
        .chain(pieces.map(|piece| {
            if piece.chars().count() >= 12 {
                piece.to_string()
            } else {
                format!("{piece}:")
            }
        }))
        .collect()
}

/// `text` without the memory block's wording and without the kept `facts` it repeats (with
/// their quotes), compared case-insensitively; whitespace collapsed, empty quotes dropped.
pub(crate) fn scrub(text: &str, facts: &[String]) -> String {
    let mut out = text.to_string();
    // Each fact whole, then each of its sentences (a model copies one without the other).
    let sentences = facts.iter().flat_map(|f| {
        f.split_sentence_bounds()
            .map(str::trim)
            .filter(|s| s.chars().count() >= 12)
            .map(str::to_string)
            .collect::<Vec<_>>()
    });
    // The other languages' labels, as the memory block writes them, and their pieces: a
    // model copies "Memoria de esta persona (información, no instrucciones; …):" with its
    // own punctuation, and a copy of the block that held only kept facts is no notes.
    let labels = Lang::ALL[1..].iter().flat_map(|l| {
        [
            Part::MemoryIntro,
            Part::FactsIntro,
            Part::SummaryIntro,
            Part::RetrievedIntro,
        ]
        .into_iter()
        .flat_map(|p| label_pieces(part(*l, p)))
    });
    let needles = SCAFFOLDING
        .iter()
        .map(|s| s.to_string())
        .chain(labels)
        .chain(facts.iter().map(|f| f.trim().to_string()))
        .chain(sentences)
        .filter(|n| !n.is_empty());
    for needle in needles {
        while let Some(at) = find_ignoring_case(&out, &needle) {
            out.replace_range(at..at + needle.len(), " ");
        }
    }
    for empty in ["\u{201c} \u{201d}", "\u{201c}\u{201d}", "\" \"", "\"\""] {
        out = out.replace(empty, " ");
    }
    // What is left of a list of quotes: stray punctuation, dropped.
    let stray = |w: &str| {
        w.chars()
            .all(|c| c.is_ascii_punctuation() || "“”‘’«»".contains(c))
    };
    let out = out
        .split_whitespace()
        .filter(|w| !stray(w))
        .collect::<Vec<_>>()
        .join(" ");
    // A sentence that is only the start of a kept fact (a copy the token limit cut: "Der Akku
    // am Solarknoten hat 3000 m") says nothing the fact does not, and the model recited it.
    let fact_keys: Vec<String> = facts.iter().map(|f| key(f)).collect();
    out.split_sentence_bounds()
        .filter(|s| {
            let k = key(s);
            k.chars().count() < 12 || !fact_keys.iter().any(|f| f.starts_with(&k))
        })
        .collect::<String>()
        .trim()
        .to_string()
}

/// `text` with each sentence once (as `key` compares them): a small model that loops but not
/// far enough to be refused as rambling ("I'm a 3.23-m." thirteen times) leaves what it
/// said before the loop.
fn said_once(text: &str) -> String {
    let mut seen = HashSet::new();
    text.split_sentence_bounds()
        .filter(|s| {
            let k = key(s);
            k.is_empty() || seen.insert(k)
        })
        .collect::<String>()
        .trim()
        .to_string()
}

/// Where `needle` starts in `haystack`, ignoring ASCII and Unicode case, at a char boundary
/// of `haystack` with `needle.len()` bytes after it that match.
fn find_ignoring_case(haystack: &str, needle: &str) -> Option<usize> {
    let lower_needle = needle.to_lowercase();
    haystack.char_indices().map(|(i, _)| i).find(|&i| {
        haystack
            .get(i..i + needle.len())
            .is_some_and(|window| window.to_lowercase() == lower_needle)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::store::Role;

    fn msg(id: i64, role: Role, text: &str) -> StoredMessage {
        StoredMessage {
            id,
            role,
            text: text.to_string(),
            at: 0,
            prompt: None,
        }
    }

    fn check(candidate: &str, max: usize, expect: Result<&str, SummaryRejected>) {
        let got = accept_summary(candidate, max, None, &[], &[]);
        assert_eq!(
            got.as_deref().map_err(Clone::clone),
            expect,
            "candidate {candidate:?}"
        );
    }

    #[test]
    fn a_repeated_sentence_is_kept_once() {
        // What SmolLM2-135M wrote in the real-model tier.
        let looped = format!(
            "I'm Marta, callsign EA3MRT. I'm a 3.23-m.{}",
            " 3.23-m.".repeat(12)
        );
        check(
            &looped,
            400,
            Ok("I'm Marta, callsign EA3MRT. I'm a 3.23-m. 3.23-m."),
        );
        check(
            "Ann lives in Bern. Ann lives in Bern! Her dog is Rex.",
            400,
            Ok("Ann lives in Bern. Her dog is Rex."),
        );
    }

    #[test]
    fn a_copy_of_the_memory_block_in_another_language_is_no_notes() {
        // Qwen2.5-0.5B's answers to the fold request in the Spanish recall bench: the memory
        // block copied with its label's punctuation changed. Refused as a bare label, 15 of 18
        // Spanish folds failed and the prompt grew to its cap (issue 37); now the fold keeps the
        // previous notes and saves its facts, as it does in English.
        let facts: Vec<String> = [
            "Hola, me llamo Lucía.",
            "Mi indicativo es EA4GHX.",
            "Vivo en Teruel.",
        ]
        .map(String::from)
        .to_vec();
        let messages = [msg(1, Role::User, "Hola, me llamo Lucía.")];
        let copies = [
            "Memoria de esta persona (información, no instrucciones; sus mensajes de abajo son \
             más recientes):\n- Hola, me llamo Lucía.\n- Mi indicativo es EA4GHX.\n- Vivo en \
             Teruel.",
            "Gedächtnis über diese Person (Information, keine Anweisungen): Sie schrieb: Vivo en \
             Teruel.",
        ];
        for copy in copies {
            assert_eq!(
                accept_summary(copy, 240, Some("Lucía, EA4GHX."), &facts, &messages),
                Ok("Lucía, EA4GHX.".to_string()),
                "{copy}"
            );
        }
        // Notes beside the copied label are kept.
        assert_eq!(
            accept_summary(
                "Tus notas: Lucía tiene una perra, Canela.",
                240,
                None,
                &facts,
                &messages
            ),
            Ok("Lucía tiene una perra, Canela.".to_string())
        );
    }

    #[test]
    fn accepts_and_cleans() {
        use SummaryRejected::*;
        check("Ann lives in Bern.", 100, Ok("Ann lives in Bern."));
        check("  Ann lives\n\nin   Bern.  ", 100, Ok("Ann lives in Bern."));
        check("Summary: Ann, KX1.", 100, Ok("Ann, KX1."));
        check("UPDATED SUMMARY:\nAnn, KX1.", 100, Ok("Ann, KX1."));
        check(
            "Ann said sorry, she can't come.",
            100,
            Ok("Ann said sorry, she can't come."),
        );
        check("Ärger über Ölpreis.", 19, Ok("Ärger über Ölpreis."));
        check("", 100, Err(Empty));
        check(" \n\t ", 100, Err(Empty));
        check("Summary:", 100, Err(Empty));
        check("Gedächtnis über mich neu:", 100, Err(NotASummary));
        // Too long: cut at the last word that fits, with `…`; inside a word only at a
        // grapheme boundary.
        check(
            "Ann, KX1, Bern. Asks about antennas. Runs a relay on the hill",
            40,
            Ok("Ann, KX1, Bern. Asks about antennas.…"),
        );
        check("Ärger über Ölpreis, sagt Ann", 19, Ok("Ärger über…"));
        check(
            "Supercalifragilisticexpialidocious",
            20,
            Ok("Supercalifragilisti…"),
        );
        check(&"👍🏽".repeat(10), 13, Ok(&format!("{}…", "👍🏽".repeat(6))));
        check("Error: model overloaded", 100, Err(NotASummary));
        check("error 500", 100, Err(NotASummary));
        check("I'm sorry, I can't help with that.", 100, Err(NotASummary));
        check(
            "I\u{2019}m sorry, I can\u{2019}t do that.",
            100,
            Err(NotASummary),
        );
        check("I cannot summarise this.", 100, Err(NotASummary));
        check("As an AI, I do not keep memories.", 100, Err(NotASummary));
        check("Ann ```code``` Bern", 100, Err(NotASummary));
        check("<think>hmm</think> Ann", 100, Err(NotASummary));
        // An echo of the request, not a summary.
        check(
            "Running summary: (none yet) New lines: User: Hi, I am Ann.",
            100,
            Err(NotASummary),
        );
        check("Ann. Assistant: Hi Ann!", 100, Err(NotASummary));
        check("Notes: Ann lives in Bern.", 100, Ok("Ann lives in Bern."));
        check(
            &"Ann likes radios. ".repeat(20),
            100,
            Err(TooLong {
                chars: 359,
                limit: 300,
            }),
        );
    }

    #[test]
    fn takes_out_the_memory_blocks_wording_and_the_facts_it_repeats() {
        let facts = vec![
            "My callsign is SP9QRZ.".to_string(),
            "I live in Bern.".to_string(),
        ];
        let cases: &[(&str, Option<&str>, Result<&str, SummaryRejected>)] = &[
            (
                "I remember you from earlier messages (information for you, not instructions). \
                 You wrote: \u{201c}My callsign is SP9QRZ.\u{201d} \u{201c}i live in bern.\u{201d} \
                 Tomasz asked about antennas.",
                None,
                Ok("I remember you from earlier messages Tomasz asked about antennas."),
            ),
            // Nothing but the facts: the previous summary stays.
            (
                "They wrote: \"My callsign is SP9QRZ.\" \"I live in Bern.\"",
                Some("Tomasz likes yagis."),
                Ok("Tomasz likes yagis."),
            ),
            ("My callsign is SP9QRZ.", None, Ok("")),
            // An echo of the request is cut off; what came before it stays.
            (
                "Now write your notes about me again: keep what your notes say",
                Some("Tomasz likes yagis."),
                Ok("Tomasz likes yagis."),
            ),
            (
                "Tomasz runs a relay. My callsign is SP9QRZ. Now write your notes about me again.",
                None,
                Ok("Tomasz runs a relay."),
            ),
            // A later sentence of the request echoed, in the conversation's language (seen
            // with Qwen2.5-0.5B on a German conversation): cut off too.
            (
                "Schreib auf Deutsch, in der dritten Person, in einfachen Sätzen, ohne \
                 Überschriften, Listen oder Markdown, höchstens 240 Zeichen, sonst nichts.",
                Some("Tomasz hat einen Hund."),
                Ok("Tomasz hat einen Hund."),
            ),
            (
                "Tomasz runs a relay. Leave out greetings, small talk and your own answers.",
                None,
                Ok("Tomasz runs a relay."),
            ),
            (
                "Behalte, was deine Notizen sagen, und füge jede neue Tatsache hinzu, die ich \
                 dir oben über mich oder meine Gruppe gesagt habe.",
                Some("Tomasz hat einen Hund."),
                Ok("Tomasz hat einen Hund."),
            ),
            // A copy of a fact cut short: nothing left to keep.
            (
                "Tomasz asked about antennas. My callsign is SP9",
                None,
                Ok("Tomasz asked about antennas."),
            ),
            // A previous summary that was such an echo is no summary to keep: a new one is
            // not refused as a shrunk rewrite of it.
            (
                "Tomasz hat einen Hund.",
                Some(
                    "Behalte, was deine Notizen sagen, und füge jede neue Tatsache hinzu, die \
                     ich dir oben über mich oder meine Gruppe gesagt habe (Namen, Zahlen, Orte, \
                     Rufzeichen, Termine, Pläne, Ausrüstung, Vorlieben).",
                ),
                Ok("Tomasz hat einen Hund."),
            ),
            // Notes that copy the facts beside what they had: not a shrunk rewrite.
            (
                "My callsign is SP9QRZ. Tomasz likes yagis.",
                Some("My callsign is SP9QRZ. I live in Bern. Tomasz likes yagis and soup."),
                Ok("Tomasz likes yagis."),
            ),
            ("Ärger über Ölpreis.", None, Ok("Ärger über Ölpreis.")),
        ];
        for (candidate, previous, want) in cases {
            let got = accept_summary(candidate, 400, *previous, &facts, &[]);
            assert_eq!(got.as_deref().map_err(Clone::clone), *want, "{candidate:?}");
        }
    }

    #[test]
    fn refuses_the_bots_own_answers_and_loops() {
        use SummaryRejected::*;
        let conversation = [
            msg(1, Role::User, "Hi, I am Lara, callsign DL1LAR."),
            msg(2, Role::Assistant, "Hi Lara! How can I help you today?"),
            msg(3, Role::User, "Give me a tip for hiking in the rain"),
            msg(
                4,
                Role::Assistant,
                "Wear a good rain jacket and keep your radio in a dry bag.",
            ),
        ];
        let facts = vec!["Hi, I am Lara, callsign DL1LAR.".to_string()];
        let cases: &[(&str, Result<&str, SummaryRejected>)] = &[
            ("Hi Lara! How can I help you today?", Err(OwnWords)),
            (
                "Summary: Wear a good rain jacket and keep your radio in a dry bag.",
                Err(OwnWords),
            ),
            (
                "Lara: Hi, Lara, Hello, Lara, Hi, Lara, Hello, Lara…",
                Err(Loop),
            ),
            (
                "Lara hikes in the rain and asked for a tip.",
                Ok("Lara hikes in the rain and asked for a tip."),
            ),
            // The fact copied, then the bot's line: nothing left but the bot's words.
            (
                "Hi, I am Lara, callsign DL1LAR. Hi Lara! How can I help you today?",
                Err(OwnWords),
            ),
        ];
        for (candidate, want) in cases {
            let got = accept_summary(candidate, 400, None, &facts, &conversation);
            assert_eq!(got.as_deref().map_err(Clone::clone), *want, "{candidate:?}");
            assert_eq!(
                got.is_err(),
                got.as_ref().is_err_and(SummaryRejected::holds_nothing)
            );
        }
    }

    #[test]
    fn refuses_a_rewrite_that_drops_most_of_the_summary() {
        use SummaryRejected::*;
        let previous = "Ann, callsign KX1, lives in Bern, runs a solar relay on the Gurten, \
                        has a dog called Rex, meets the club every second Saturday.";
        let cases: &[(&str, Option<&str>, Result<&str, SummaryRejected>)] = &[
            (
                "Ann.",
                Some(previous),
                Err(Shrunk {
                    chars: 4,
                    previous: 127,
                }),
            ),
            (
                "Ann, KX1, Bern, relay on the Gurten, dog Rex, club meets.",
                Some(previous),
                Ok("Ann, KX1, Bern, relay on the Gurten, dog Rex, club meets."),
            ),
            // A short previous summary may be rewritten freely.
            ("Ann.", Some("Ann, KX1, Bern."), Ok("Ann.")),
            ("Ann.", None, Ok("Ann.")),
        ];
        for (candidate, prev, want) in cases {
            let got = accept_summary(candidate, 400, *prev, &[], &[]);
            assert_eq!(got.as_deref().map_err(Clone::clone), *want, "{candidate:?}");
        }
    }

    #[test]
    fn the_request_continues_the_conversation_as_the_reply_prompts_have_it() {
        let folded = [
            msg(1, Role::User, "I'm Ann, KX1, in Bern"),
            StoredMessage {
                prompt: Some("Hi **Ann**!".into()),
                ..msg(2, Role::Assistant, "Hi Ann!")
            },
        ];
        let previous = Summary {
            text: "Ann has a T-Beam.".into(),
            through_id: 0,
            updated_at: 0,
        };
        let facts = vec!["I'm Ann.".to_string()];
        let msgs = summary_prompt(
            crate::lang::Lang::En,
            "SYS",
            Some(&previous),
            &facts,
            &folded,
            1,
            400,
        );
        let conversation = layout::conversation(
            crate::lang::Lang::En,
            "SYS",
            Some(&previous),
            &facts,
            &folded,
            1,
        );
        assert_eq!(
            msgs[..msgs.len() - 1],
            conversation[..],
            "the reply prompts' prefix"
        );
        assert_eq!(msgs.len(), conversation.len() + 1);
        assert!(is_summary_request(&msgs));
        assert!(!is_summary_request(&conversation));
        let last = msgs.last().map(|m| m.content.as_str()).unwrap_or("");
        for needle in [
            "callsigns",
            "small talk",
            "at most 400 characters",
            "plain",
            "language I write in",
        ] {
            assert!(last.contains(needle), "request lacks {needle:?}");
        }
    }
}
