//! An answer that says nothing, pure: it repeats the question's own words (a yes or a no
//! aside), or it writes out a passage's label from the notes. Qwen2.5-0.5B answered "Jaki kod
//! pocztowy ma remiza, w której się spotykamy?" with "Pocztowy ma remiza, w której się
//! spotykamy.", "Czy mogę zabrać psa na field day?" with "Nie, nie mogę zabrać psa na field
//! day." (a "no" the notes do not say), and "Kto wygrał zeszłoroczne polowanie na lisa?" with
//! "Oto odpowiedź: Dave Lintona Notatki z dokumentów operatora: [events.md > Wydarzenia
//! 2026 > Polowanie na lisa] …" (the Polish knowledge bench, issue 38). The value check let
//! them pass: what they write is in the prompt. (Any message written back word for word is
//! `responder::answer::echo`'s; here, for an answer checked against the notes, the question's
//! words in any order, a yes or a no added, are no answer either.)

use super::same_word;
use crate::lang::{Lang, small_words};
use crate::mesh::matcher::{fold, words};

/// Yes, no and not in meshai's languages, folded: an echo with one of them is still an echo.
const YES_NO: &[&str] = &[
    "yes", "no", "not", "ja", "nein", "nicht", "kein", "keine", "si", "non", "oui", "pas", "ne",
    "sim", "nao", "nee", "niet", "geen", "tak", "nie",
];

/// Whether `answer` only repeats `question`: every word it writes is one of the question's
/// (an inflection counts: "mogę" and "moge", "spotykamy"), a small word of any of meshai's
/// languages, or a yes or a no — and it writes at least one of the question's words that is
/// none of those.
pub(super) fn echoes(answer: &str, question: &str) -> bool {
    let small = |w: &str| {
        YES_NO.contains(&w)
            || Lang::ALL
                .iter()
                .any(|&l| small_words(l).iter().any(|s| fold(s) == w))
    };
    let folded_question = fold(question);
    let asked = words(&folded_question);
    let folded = fold(answer);
    let said: Vec<&str> = words(&folded).into_iter().filter(|w| !small(w)).collect();
    let in_question = |w: &&str| asked.iter().any(|a| same_word(a, w));
    !said.is_empty() && said.iter().all(in_question)
}

/// Whether `answer` writes out a passage label of `notes` (a line "[file > heading]").
pub(super) fn labels(answer: &str, notes: &str) -> bool {
    notes
        .lines()
        .filter_map(|l| l.strip_prefix('[')?.strip_suffix(']'))
        .filter(|label| !label.is_empty())
        .any(|label| answer.contains(label))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_answer_that_only_repeats_the_question_says_nothing() {
        let cases = [
            (
                "Jaki kod pocztowy ma remiza, w której się spotykamy?",
                "Pocztowy ma remiza, w której się spotykamy.",
                true,
            ),
            (
                "Czy mogę zabrać psa na field day?",
                "Nie, nie mogę zabrać psa na field day.",
                true,
            ),
            (
                "Can I bring my dog to the field day?",
                "Yes, you can bring your dog.",
                true,
            ),
            // A value, a name or a word of its own is an answer.
            (
                "What time does club night start?",
                "Club night starts at 19:30.",
                false,
            ),
            (
                "Who looks after the money?",
                "Priya Raman looks after it.",
                false,
            ),
            (
                "Can I bring my dog to the field day?",
                "Dogs on a lead are welcome.",
                false,
            ),
            // Nothing but small words, or nothing: not this rule's to judge.
            ("Is it on?", "Yes.", false),
            ("Is it on?", "", false),
        ];
        for (question, answer, want) in cases {
            assert_eq!(echoes(answer, question), want, "{question} / {answer}");
        }
    }

    #[test]
    fn an_answer_that_writes_a_passage_label_says_nothing() {
        let notes = "Notes from the operator's documents:\n\n\
[events.md > Events 2026 > Fox hunt]\nSunday 26 April 2026.\n\n\
If these notes do not contain the answer, reply exactly: Not in my notes.";
        assert!(labels(
            "Here is the answer: Dave [events.md > Events 2026 > Fox hunt] Sunday",
            notes
        ));
        assert!(!labels("The fox hunt is on Sunday 26 April 2026.", notes));
        assert!(!labels("[events.md]", "no labels here"));
    }
}
