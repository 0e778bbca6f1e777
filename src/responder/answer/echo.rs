//! An answer that only writes the person's message back ("Hi, my name is Ingrid." →
//! "Hi, my name is Ingrid."). Qwen2.5-0.5B does so to a greeting with a name whatever its
//! system prompt says (probed 2026-12-06: each sentence of it left out in turn, temperature
//! 0.7, a note asking it not to: always the echo). Stored, the echo teaches the rest of the
//! conversation to echo: in the English recall bench's second set every one of the 28
//! answers was the question written back, and 0 of 8 facts came back. The daemon answers
//! instead ([`instead`]): "Noted." to something told, the unusable-answer notice to a
//! question (asking again gets the same echo, so there is no retry). That text is kept with
//! an empty prompt ([`UNSAID`]), so no prompt repeats it: kept as the bot's answer, "Noted."
//! taught the model to answer "Noted." to every later question (the same bench, 0 of 8).

use crate::facts;
use crate::lang::{Lang, Say, say};
use crate::text::key_words;

/// The prompt text of a reply the daemon sent instead of an echo: none
/// (`memory::layout::conversation` leaves an answer with an empty prompt out).
pub(crate) const UNSAID: &str = "";

/// A message shorter than this many words is not judged ("Hi" → "Hi!" is a greeting).
const MIN_WORDS: usize = 3;

/// The words of `text` outside parentheses, as [`key`] compares them: a model writing a
/// message back also copies a tag in parentheses from an earlier one ("(session 28-1-0)").
fn words(text: &str) -> Vec<String> {
    let mut depth = 0usize;
    let mut outside = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '(' => depth += 1,
            ')' => depth = depth.saturating_sub(1),
            c if depth == 0 => outside.push(c),
            _ => {}
        }
    }
    key_words(&outside)
}

/// Whether `answer` is `said` written back: the same words in the same order (case,
/// punctuation and parenthesised tags aside), for a text of at least [`MIN_WORDS`] words.
fn repeats(answer: &str, said: &str) -> bool {
    let said = words(said);
    said.len() >= MIN_WORDS && words(answer) == said
}

/// What an answer is checked against: the person's message, the exchange before it (their
/// message and the bot's answer as the prompt has it), and their language.
#[derive(Debug, Clone)]
pub(crate) struct Echo {
    said: String,
    previous: Option<(String, String)>,
    lang: Lang,
}

impl Echo {
    pub(crate) fn new(said: &str, previous: Option<(&str, &str)>, lang: Lang) -> Echo {
        Echo {
            said: said.to_string(),
            previous: previous.map(|(a, b)| (a.to_string(), b.to_string())),
            lang,
        }
    }

    /// The daemon's text instead of `answer` when it only writes back the person's message,
    /// or, to something told, the bot's previous answer to a message that was not this one
    /// (once an echo was left out, Qwen2.5-0.5B answered every later message of a German
    /// conversation with its first answer, "Hallo, Ingrid! Wie kann ich Ihnen helfen?"; two
    /// questions may well have one answer, "I don't know."): "Noted." to something told, the
    /// unusable-answer notice to a question. `None`: the answer goes as written.
    pub(crate) fn instead_of(&self, answer: &str) -> Option<&'static str> {
        let again = !facts::asks(&self.said)
            && self.previous.as_ref().is_some_and(|(asked, answered)| {
                repeats(answer, answered) && !repeats(&self.said, asked)
            });
        (repeats(answer, &self.said) || again).then(|| instead(&self.said, self.lang))
    }
}

/// What the daemon says instead of an echo of `said`, in `lang`.
fn instead(said: &str, lang: Lang) -> &'static str {
    if facts::asks(said) {
        say(lang, Say::LlmUnusable)
    } else {
        say(lang, Say::Noted)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_echo_is_the_same_words_back() {
        for (answer, said, echo) in [
            (
                "Hi, my name is Ingrid. (session 28-1-0)",
                "Hi, my name is Ingrid. (session 28-1-0)",
                true,
            ),
            // The tag copied from the first message onto a later one.
            (
                "My callsign is LA7KJV. (session 28-1-0)",
                "My callsign is LA7KJV.",
                true,
            ),
            ("hi my name is ingrid", "Hi, my name is Ingrid!", true),
            ("Mein Hund heißt Bello.", "Mein Hund heißt Bello.", true),
            ("What is an ACK?", "What is an ACK?", true),
            // Answers that repeat some of it, or all of it and more.
            (
                "Hello Ingrid! How can I help?",
                "Hi, my name is Ingrid.",
                false,
            ),
            (
                "My callsign is LA7KJV, noted.",
                "My callsign is LA7KJV.",
                false,
            ),
            ("Mein Hund heißt Bello.", "Wie heißt mein Hund?", false),
            // Too short to tell.
            ("Hi Ann", "Hi Ann", false),
            ("", "", false),
        ] {
            assert_eq!(repeats(answer, said), echo, "{answer:?} to {said:?}");
        }
    }

    #[test]
    fn the_previous_answer_again_is_an_echo_unless_the_message_is_the_same_again() {
        let greeting = "Hallo, Ingrid! Wie kann ich Ihnen helfen?";
        let echo = Echo::new(
            "Ich wohne in Husum.",
            Some(("Hallo, ich heiße Ingrid.", greeting)),
            Lang::De,
        );
        assert_eq!(echo.instead_of(greeting), Some("Notiert."));
        assert_eq!(echo.instead_of("Ich wohne in Husum."), Some("Notiert."));
        assert_eq!(echo.instead_of("Husum liegt an der Nordsee."), None);
        let again = Echo::new(
            "Wie heiße ich?",
            Some(("Wie heiße ich?", "Du heißt Ingrid.")),
            Lang::De,
        );
        assert_eq!(again.instead_of("Du heißt Ingrid."), None);
        // Two questions, one answer: it may be right.
        let asked = Echo::new(
            "Wo wohnt Bello?",
            Some(("Wie heiße ich?", "Das weiß ich nicht.")),
            Lang::De,
        );
        assert_eq!(asked.instead_of("Das weiß ich nicht."), None);
        let first = Echo::new("Wie heiße ich?", None, Lang::De);
        assert_eq!(first.instead_of("Du heißt Ingrid."), None);
        assert_eq!(
            first.instead_of("Wie heiße ich?"),
            Some(say(Lang::De, Say::LlmUnusable))
        );
    }

    #[test]
    fn told_is_noted_and_asked_is_unusable() {
        for lang in Lang::ALL {
            assert_eq!(
                instead("My dog is called Pepper.", lang),
                say(lang, Say::Noted)
            );
            assert_eq!(
                instead("What is an ACK?", lang),
                say(lang, Say::LlmUnusable)
            );
            assert_eq!(
                instead("¿Cómo se llama mi perro?", lang),
                say(lang, Say::LlmUnusable)
            );
        }
    }
}
