//! A start time is no answer to when something ends. Pure.
//!
//! Why: the notes give the winter social's start ("Saturday 17 January 2026, from 18:30, at
//! the Plough Inn") and nothing of when the pub closes; Qwen2.5-0.5B answered "What time does
//! the Plough Inn close?" with the start's line in six of the eight languages of the knowledge
//! bench (an uncovered question: the answer is "Not in my notes."). The time was the prompt's,
//! and of the kind asked, so no other rule of `check` could see it. The daemon can: the
//! question asks when something ends or closes (`asked::asks_end`), and each clock time of the
//! answer is written in the notes only right after a word a start comes after ("from", "ab",
//! "desde las", "à partir de", "od").

use super::asked;
use crate::mesh::matcher::fold;

/// How many words a start word may stand before its time ("desde las 18:30", "à partir de
/// 18:30").
const FROM_WORDS: usize = 2;

/// The clock times of `text` ("18:30", "9:30"): a token of one or two digits, a colon and
/// two digits, its punctuation aside.
fn clock_times(text: &str) -> Vec<&str> {
    text.split_whitespace()
        .map(|t| t.trim_matches(|c: char| !c.is_ascii_digit()))
        .filter(|t| {
            t.split_once(':').is_some_and(|(h, m)| {
                (1..=2).contains(&h.len())
                    && m.len() == 2
                    && h.chars().chain(m.chars()).all(|c| c.is_ascii_digit())
            })
        })
        .collect()
}

/// Whether `answer` to `question` only gives start times where the question asks for an end
/// (see the module's doc): it holds a clock time, and every one is written in `notes`, each
/// time right after a start word.
pub(super) fn only_starts(answer: &str, question: &str, notes: &str) -> bool {
    if !asked::asks_end(&fold(question)) {
        return false;
    }
    let said = clock_times(answer);
    let tokens: Vec<&str> = notes.split_whitespace().collect();
    let started = |time: &str| {
        let at: Vec<usize> = tokens
            .iter()
            .enumerate()
            .filter(|(_, t)| clock_times(t).contains(&time))
            .map(|(i, _)| i)
            .collect();
        !at.is_empty()
            && at.iter().all(|&i| {
                tokens[i.saturating_sub(FROM_WORDS)..i].iter().any(|w| {
                    asked::is_from_word(&fold(w.trim_matches(|c: char| !c.is_alphanumeric())))
                })
            })
    };
    !said.is_empty() && said.iter().all(|t| started(t))
}

#[cfg(test)]
mod tests {
    use super::*;

    const NOTES: &str = "Notes from the operator's documents:\n\n\
[events.md > Events 2026 > Winter social]\n\
Saturday 17 January 2026, from 18:30, at the Plough Inn, High Street.\n\n\
[handbook.md > Club > Monthly club night]\n\
Club night is on the first Tuesday, 19:30 to 22:00. The room opens at 19:00.\n\n\
If these notes do not contain the answer, reply exactly: Not in my notes.";

    #[test]
    fn a_start_time_does_not_answer_when_something_ends() {
        let cases: &[(&str, &str, bool)] = &[
            ("What time does the Plough Inn close?", "From 18:30.", true),
            (
                "¿A qué hora cierra el Plough Inn?",
                "Sábado 17 de enero de 2026, desde las 18:30, en el Plough Inn.",
                true,
            ),
            ("O której zamykają Plough Inn?", "Od 18:30.", true),
            // The end of a range is an end.
            ("What time does club night end?", "At 22:00.", false),
            // A time the notes write not after a start word: not judged here.
            (
                "What time does club night finish?",
                "It ends at 19:30.",
                false,
            ),
            // A start asked for: the start is right.
            (
                "What time does the winter social start?",
                "From 18:30.",
                false,
            ),
            // No clock time: nothing to judge.
            ("What time does the Plough Inn close?", "Late.", false),
        ];
        for (question, answer, want) in cases {
            assert_eq!(
                only_starts(answer, question, NOTES),
                *want,
                "{question} → {answer}"
            );
        }
    }

    #[test]
    fn clock_times_of_a_text() {
        assert_eq!(
            clock_times("from 18:30, to 9:05 (10:00)."),
            ["18:30", "9:05", "10:00"]
        );
        assert!(clock_times("Room 14, 2026, 145.500").is_empty());
    }
}
