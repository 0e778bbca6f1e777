//! An answer taken from the wrong line of the person's memory. The memory block lists what
//! the person told, one line each ("- My daughter is called Mia.", "- My locator is
//! JO44QM."), and Qwen2.5-0.5B, asked "What is my daughter called?", sometimes recites the
//! line next to the one asked about: the German recall bench's second set got the locator
//! line to that question in every run since issue 28, the Spanish first set the callsign line
//! to "¿Cómo me llamo?".
//!
//! The daemon can tell: the question shares its words with one line more than with any other
//! ("daughter"), the answer is another line said again (most of its words are that line's,
//! "locator", "JO44QM"), and it holds none of the asked line's own words ("Mia"). Then the
//! line asked about goes instead, quoted as the person wrote it ("You told me: “My daughter is
//! called Mia.”"). Pure: the question, the lines and the answer go in.

use unicode_segmentation::UnicodeSegmentation;

use crate::facts;
use crate::knowledge::check::{asked_words, shared};
use crate::memory::layout::remembered;
use crate::mesh::matcher::{fold, words};
use crate::store::{Context, Role, is_term};
use crate::text::key;

/// What the prompt shows of a person's memory, a line each.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Lines {
    /// What they told, in their words: the memory block's facts, then the statements of the
    /// window's messages.
    pub(crate) told: Vec<String>,
    /// The summary's sentences: the model's words, never quoted as theirs.
    pub(crate) summary: Vec<String>,
}

impl Lines {
    /// The memory of `ctx` as the prompt shows it: what they told (the memory block's facts,
    /// then the statements of the window's messages, each once, not `message`'s own) and the
    /// summary's sentences.
    pub(crate) fn of(ctx: &Context, message: &str) -> Lines {
        let now = facts::statements(message);
        let remembered = remembered(ctx.summary.as_ref(), &ctx.facts, &[]);
        let window = ctx
            .window
            .iter()
            .filter(|m| m.role == Role::User)
            .flat_map(|m| facts::statements(&m.text));
        let mut told: Vec<String> = Vec::new();
        for line in remembered.facts.iter().cloned().chain(window) {
            if !now.contains(&line) && !told.iter().any(|t| key(t) == key(&line)) {
                told.push(line);
            }
        }
        let summary = remembered
            .summary
            .iter()
            .flat_map(|s| s.split_sentence_bounds())
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(str::to_string)
            .collect();
        Lines { told, summary }
    }
}

/// The line of `rows` that `question` asks about, when `answer` is another line said again
/// (of `rows`, or of `also`: the summary's sentences, which the prompt shows too) and holds
/// none of that line's own words: the model took a neighbouring line. `None`: the answer stands (no
/// line is asked about more than the others, or the answer is from that line, or from none).
pub(crate) fn wrong_row<'a>(
    question: &str,
    rows: &'a [String],
    also: &[String],
    answer: &str,
) -> Option<&'a str> {
    let asked = asked_words(question);
    let scores: Vec<usize> = rows.iter().map(|r| shared(&asked, r)).collect();
    let top = scores.iter().copied().max().filter(|top| *top > 0)?;
    let mut best = scores.iter().enumerate().filter(|(_, s)| **s == top);
    let (best, _) = best.next().filter(|_| best.next().is_none())?;
    let question_words = words_of(question, Words::All);
    let said = words_of(answer, Words::All);
    let holds = |own: &[String]| own.iter().any(|w| said.contains(w));
    // The line asked about: every word of its own counts ("Mia" is an Italian word too), one
    // in no other line and not in the question.
    let others: Vec<Vec<String>> = rows
        .iter()
        .enumerate()
        .filter(|(i, _)| *i != best)
        .map(|(_, r)| words_of(r, Words::All))
        .collect();
    let asked_own: Vec<String> = words_of(&rows[best], Words::All)
        .into_iter()
        .filter(|w| !question_words.contains(w) && others.iter().all(|o| !o.contains(w)))
        .collect();
    if asked_own.is_empty() || holds(&asked_own) {
        return None;
    }
    // The answer is another line said again: at least half of its words that say something
    // (and the question does not) are that line's, one of them its own (none of the question's
    // or the line asked about). An answer of its own that happens to use a word of another
    // line ("a radio-friendly box" to a question about the battery, beside "our radio club")
    // is no recitation.
    let best_words = words_of(&rows[best], Words::All);
    let answer_terms: Vec<String> = words_of(answer, Words::Terms)
        .into_iter()
        .filter(|w| !question_words.contains(w))
        .collect();
    let from_another = rows
        .iter()
        .enumerate()
        .filter(|(i, _)| *i != best)
        .map(|(_, r)| r)
        .chain(also)
        .any(|line| {
            let words = words_of(line, Words::All);
            let from_line = answer_terms.iter().filter(|w| words.contains(w)).count();
            let own: Vec<String> = words_of(line, Words::Terms)
                .into_iter()
                .filter(|w| !question_words.contains(w) && !best_words.contains(w))
                .collect();
            2 * from_line >= answer_terms.len() && holds(&own)
        });
    from_another.then(|| rows[best].as_str())
}

/// Which words of a text [`words_of`] gives.
#[derive(Clone, Copy)]
enum Words {
    /// Every one.
    All,
    /// None common in any of meshai's languages (`store::is_term`).
    Terms,
}

/// The words of `text`, folded.
fn words_of(text: &str, which: Words) -> Vec<String> {
    let lower = text.to_lowercase();
    words(&lower)
        .into_iter()
        .filter(|w| match which {
            Words::All => true,
            Words::Terms => is_term(w),
        })
        .map(fold)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rows(lines: &[&str]) -> Vec<String> {
        lines.iter().map(|l| l.to_string()).collect()
    }

    fn en_more() -> Vec<String> {
        rows(&[
            "My solar node has a 3000 mAh battery.",
            "Our radio club meets every second Thursday.",
        ])
    }

    #[test]
    fn the_line_asked_about_replaces_a_neighbours() {
        let de = rows(&[
            "Hallo, ich heiße Ingrid. (session 28-1-0)",
            "Mein Rufzeichen ist DK4RBA.",
            "Ich wohne in Husum.",
            "Mein Hund heißt Bello.",
            "Der Funkverein trifft sich jeden zweiten Montag um 19:30.",
            "Der Akku am Solarknoten hat 5200 mAh.",
            "Meine Tochter heißt Mia.",
            "Mein Locator ist JO44QM.",
        ]);
        let es = rows(&[
            "Hola, me llamo Lucía. (session 28-0-0)",
            "Mi indicativo es EA4GHX.",
            "Vivo en Teruel.",
            "Mi perro se llama Canela.",
            "El radioclub se reúne cada segundo jueves a las 19:30.",
            "La batería del nodo solar tiene 3000 mAh.",
            "Mi hija se llama Alba.",
            "Mi locator es IN90QH.",
        ]);
        let en = rows(&[
            "My callsign is LA7KJV.",
            "My dog is called Rex.",
            "My daughter is called Mia.",
            "My locator is JO44QM.",
        ]);
        for (lines, question, answer, want) in [
            // Seen in the recall benches.
            (
                &de,
                "Wie heißt meine Tochter?",
                "Mein Locator ist JO44QM.",
                Some("Meine Tochter heißt Mia."),
            ),
            (
                &de,
                "Wie heißt meine Tochter?",
                "Ich heiße Ingrid.",
                Some("Meine Tochter heißt Mia."),
            ),
            (
                &es,
                "¿Cómo me llamo?",
                "Mi indicativo es EA4GHX.",
                Some("Hola, me llamo Lucía. (session 28-0-0)"),
            ),
            (
                &en,
                "What is my daughter called?",
                "Your dog is called Rex.",
                Some("My daughter is called Mia."),
            ),
            // From the line asked about: it stands, whatever else it says.
            (&de, "Wie heißt meine Tochter?", "Sie heißt Mia.", None),
            (
                &de,
                "Wie heißt meine Tochter?",
                "Mia, wie Bello weiß.",
                None,
            ),
            (&es, "¿Cómo me llamo?", "Te llamas Lucía.", None),
            (&de, "Wie heiße ich?", "Du heißt Ingrid.", None),
            // From no line: not the daemon's to judge.
            (&de, "Wie heißt meine Tochter?", "Das weiß ich nicht.", None),
            (&en, "What is my daughter called?", "I don't know.", None),
            // An answer of its own that uses a word of another line.
            (
                &en_more(),
                "How do I keep my battery warm in winter?",
                "Insulate the battery box; radio-friendly foam works well.",
                None,
            ),
            (
                &en_more(),
                "How do I keep my battery warm in winter?",
                "Our radio club meets every second Thursday.",
                Some("My solar node has a 3000 mAh battery."),
            ),
            // No line is asked about more than another, or none at all.
            (&en, "What is LoRa?", "Your dog is called Rex.", None),
            (&en, "Is my dog or my daughter older?", "Rex.", None),
        ] {
            assert_eq!(
                wrong_row(question, lines, &[], answer),
                want,
                "{question} → {answer}"
            );
        }
    }

    /// The summary's sentences are in the prompt too: an answer from one of them is no
    /// answer to a line's question (the German recall bench quoted a summary's fragment to
    /// "Wie lautet mein Locator?"). They are never quoted as what the person told.
    #[test]
    fn an_answer_from_the_summary_gives_way_to_the_line_asked_about() {
        let lines = rows(&["Mein Hund heißt Bello.", "Mein Locator ist JO44QM."]);
        let summary = rows(&["Regen kann die Reichweite mindern."]);
        let q = "Wie lautet mein Locator?";
        assert_eq!(
            wrong_row(q, &lines, &summary, "Regen kann die Reichweite."),
            Some("Mein Locator ist JO44QM.")
        );
        assert_eq!(wrong_row(q, &lines, &summary, "JO44QM."), None);
        assert_eq!(
            wrong_row("Mindert Regen die Reichweite?", &lines, &summary, "Ja."),
            None
        );
    }

    #[test]
    fn no_lines_no_judgement() {
        assert_eq!(
            wrong_row("Wie heißt meine Tochter?", &[], &[], "Mia."),
            None
        );
    }
}
