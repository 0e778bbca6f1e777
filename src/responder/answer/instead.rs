//! What goes instead of the model's answer, decided before any of it is on air: the daemon's
//! "Noted." for an answer that writes the message back (`echo`), and the line of the
//! person's memory a question asks about for an answer from a neighbouring line
//! (`recalled`).

use super::echo::{self, Echo};
use super::recalled::{self, Lines};
use crate::facts;
use crate::lang::{Lang, Say, fill, say};

/// What an answer is checked against before it goes.
#[derive(Debug, Clone)]
pub(crate) struct Guard {
    echo: Echo,
    /// The person's message, when it asks something.
    question: Option<String>,
    /// What the prompt shows of the person's memory (`Question::lines`).
    lines: Lines,
    lang: Lang,
}

/// Which of the daemon's texts went instead of the model's answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Replaced {
    /// "Noted." (or the unusable-answer notice) for an echo: no prompt repeats it.
    Echo,
    /// The line asked about, quoted: the prompt repeats it as said.
    Row,
}

impl Replaced {
    /// The prompt text its stored reply keeps: none for an echo's ([`echo::UNSAID`]), the
    /// text as said for a quoted line (`None`: no text of the model's to keep instead).
    pub(crate) fn prompt(self) -> Option<&'static str> {
        match self {
            Replaced::Echo => Some(echo::UNSAID),
            Replaced::Row => None,
        }
    }
}

impl Guard {
    /// For `message` in `lang`, with `previous` the exchange before it and `lines` the
    /// memory its prompt shows.
    pub(crate) fn new(
        message: &str,
        previous: Option<(&str, &str)>,
        lines: &Lines,
        lang: Lang,
    ) -> Guard {
        Guard {
            echo: Echo::new(message, previous, lang),
            question: facts::asks(message).then(|| message.to_string()),
            lines: lines.clone(),
            lang,
        }
    }

    /// The daemon's text instead of `answer`, and which it is; `None`: the answer goes as
    /// written.
    pub(crate) fn instead_of(&self, answer: &str) -> Option<(String, Replaced)> {
        if let Some(text) = self.echo.instead_of(answer) {
            return Some((text.to_string(), Replaced::Echo));
        }
        let (question, lines) = (self.question.as_deref()?, &self.lines);
        let row = recalled::wrong_row(question, &lines.told, &lines.summary, answer)?;
        let quoted = fill(say(self.lang, Say::YouWrote), &[("word", row)]);
        Some((quoted, Replaced::Row))
    }
}

/// What a log line says of `replaced`.
pub(crate) fn log(replaced: Replaced) {
    match replaced {
        Replaced::Echo => {
            tracing::info!("the model wrote a message back: the daemon's own answer instead")
        }
        Replaced::Row => tracing::info!(
            "the model answered from another line of the memory than the one asked about: \
             that line instead"
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_echo_then_a_neighbouring_line() {
        let rows = Lines {
            told: vec![
                "Mein Hund heißt Bello.".to_string(),
                "Meine Tochter heißt Mia.".to_string(),
                "Mein Locator ist JO44QM.".to_string(),
            ],
            summary: Vec::new(),
        };
        let asked = Guard::new("Wie heißt meine Tochter?", None, &rows, Lang::De);
        assert_eq!(
            asked.instead_of("Mein Locator ist JO44QM."),
            Some((
                "Du hast mir geschrieben: \u{201e}Meine Tochter heißt Mia.\u{201c}".to_string(),
                Replaced::Row
            ))
        );
        assert_eq!(asked.instead_of("Sie heißt Mia."), None);
        assert_eq!(
            asked.instead_of("Wie heißt meine Tochter?"),
            Some((say(Lang::De, Say::LlmUnusable).to_string(), Replaced::Echo))
        );
        // Told, not asked: no line is asked about.
        let told = Guard::new("Meine Tochter spielt Geige.", None, &rows, Lang::De);
        assert_eq!(told.instead_of("Mein Locator ist JO44QM."), None);
    }
}
