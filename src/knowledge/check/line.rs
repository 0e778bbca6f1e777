//! The value asked for, taken from the wrong line: an answer that holds the kind of value
//! its question asks for (a frequency, a time, a date, a price) but takes it from another
//! line of the notes than the one the question is about. Pure.
//!
//! Why: with the right passage in its prompt, Qwen2.5-0.5B answered "Auf welcher Frequenz ist
//! sonntags die KW-Runde?" with the 2 m calling frequency's row ("145,500 MHz") of the table
//! beside the Sunday net's line ("3,720 MHz"), "Sur quelle fréquence sort le relais 2 m de
//! Beacon Hill ?" with the input's line, and "Hoe laat begint de clubavond?" with a time from
//! the nets (issue 38). The kind of value was right, so `check`'s `Unanswered` let them pass.
//!
//! The daemon can tell when the question points at one line: of the notes' lines that hold a
//! value of the kind asked, some hold the best value and share more of the question's words
//! than any other (a word their passage's heading shares counting twice, as
//! `sentence_holding` counts), none of them holds a value of the answer, and a line ranked
//! lower does. Then the first of them goes instead. An answer whose value the best lines also
//! hold, or whose value no line writes ("7:30 pm" for "19:30"), is kept: this rule only moves
//! an answer to the line the question names, it never judges one it cannot place. For a plain
//! "when", any line of the passage asked about is right (its day, its start and its end are
//! each a right answer); a value from another passage is not: "Quando é a feira este ano?"
//! got when the membership year runs (the Portuguese knowledge bench). To a question asking
//! which day, a weekday tells its line as a number does: "Op welke avond is de wekelijkse
//! ronde via de repeater?" got the Sunday HF net's "zondag" (the Dutch bench).

use super::{Line, asked, best, scored_lines};
use crate::mesh::matcher::{fold, words};

/// The number values of `text`, each a run of digits with the `:`, `.` or `,` inside it
/// ("19:30", "145,500", "3.720"; "£24" is "24", "10." is "10"); for a day, its weekdays too
/// (folded: "zondag"), which say which line they are from as a time does.
fn values(kind: asked::Kind, text: &str) -> Vec<String> {
    let mut out: Vec<String> = text
        .split(|c: char| !(c.is_ascii_digit() || matches!(c, ':' | '.' | ',')))
        .map(|v| v.trim_matches([':', '.', ',']))
        .filter(|v| v.chars().any(|c| c.is_ascii_digit()))
        .map(str::to_string)
        .collect();
    if kind == asked::Kind::Day {
        let folded = fold(text);
        out.extend(
            words(&folded)
                .into_iter()
                .filter(|w| asked::is_weekday(w))
                .map(str::to_string),
        );
    }
    out
}

/// The line of `notes` to say instead of `answer` to `question`, which asks for a value of
/// `kind`, when the answer took its value from a line the question is less about (see the
/// module's doc); `None` keeps the answer.
pub(super) fn instead(
    kind: asked::Kind,
    question: &str,
    notes: &str,
    answer: &str,
    lang: crate::lang::Lang,
) -> Option<String> {
    let own = values(kind, question);
    let mut said: Vec<String> = values(kind, answer)
        .into_iter()
        .filter(|v| !own.contains(v))
        .collect();
    // A value with a separator or of three digits says which line it is from ("145,500"),
    // and so does a weekday; beside one, a count ("80 m", "2 m") says nothing: the calling
    // frequency's row said with the Sunday net's band is still the calling frequency.
    let telling = |v: &String| v.contains([':', '.', ',']) || v.len() >= 3;
    if said.iter().any(telling) {
        said.retain(telling);
    }
    if said.is_empty() {
        return None;
    }
    let holds_said = |s: &str| values(kind, s).iter().any(|v| said.contains(v));
    let lines = scored_lines(kind, question, notes, lang);
    let best = best(&lines)?;
    let top = best.rank();
    // A "when" has more than one right line in the passage asked about (the day, the start,
    // the end): only a value from another passage is from the wrong line.
    let right = |l: &&Line<'_>| match kind {
        asked::Kind::When => l.heading == best.heading,
        _ => l.candidate() && l.rank() == top,
    };
    if lines.iter().filter(right).any(|l| holds_said(l.text)) {
        return None;
    }
    if !lines
        .iter()
        .any(|l| l.rank() < top && !right(&l) && holds_said(l.text))
    {
        return None;
    }
    Some(best.quoted())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lang::Lang;
    use asked::Kind;

    const NETS: &str = "Notes from the operator's documents:\n\n\
[nets.txt]\n\
Thursday evening net: every Thursday at 20:00 on GB3KV (145.7125 MHz).\n\
Sunday HF net: Sundays at 10:00 on 3.720 MHz LSB (80 m).\n\n\
[repeaters.md > Repeaters > Simplex and calling frequencies]\n\
Use: Calling 2 m; Frequency: 145.500; Mode: FM\n\
Use: Sunday HF net (80 m); Frequency: 3.720; Mode: LSB\n\n\
[repeaters.md > Repeaters > GB3KV — Beacon Hill, 2 m FM]\n\
- Output (you listen here): 145.7125 MHz\n\
- Input (you transmit here): 145.1125 MHz, shift −600 kHz\n\n\
[handbook.md > Club > Monthly club night]\n\
Club night is on the first Tuesday of every month, 19:30 to 22:00, upstairs at the Old Fire \
Station. The room opens at 19:00 for anyone setting up a demonstration.\n\n\
If these notes do not contain the answer, reply exactly: Not in my notes.";

    #[test]
    fn a_number_the_question_names_says_which_line() {
        // Both outputs' lines share "output", "Beacon" and "Hill"; only one heading writes
        // the "2" of "2 m" (the Italian knowledge bench's "439,5625 MHz", the DMR output).
        let notes = "Notes from the operator's documents:\n\n\
[repeaters.md > Repeaters > GB7KV — DMR, Beacon Hill]\n\
- Output: 439.5625 MHz\n\n\
[repeaters.md > Repeaters > GB3KV — Beacon Hill, 2 m FM]\n\
- Output (you listen here): 145.7125 MHz\n\
- Input (you transmit here): 145.1125 MHz\n\n\
If these notes do not contain the answer, reply exactly: Not in my notes.";
        let question = "What is the output frequency of the 2 m repeater on Beacon Hill?";
        assert_eq!(
            instead(Kind::Frequency, question, notes, "439.5625 MHz", Lang::En).as_deref(),
            Some("Output (you listen here): 145.7125 MHz")
        );
        assert_eq!(
            instead(Kind::Frequency, question, notes, "145.7125 MHz", Lang::En),
            None
        );
    }

    #[test]
    fn the_values_of_a_text() {
        assert_eq!(
            values(Kind::Time, "At 19:30, on 145,500 MHz (£24). Day 10."),
            ["19:30", "145,500", "24", "10"]
        );
        assert!(values(Kind::Time, "No number here, on Sunday.").is_empty());
        // For a day, its weekdays too.
        assert_eq!(
            values(Kind::Day, "Sunday at 10:00, and zondags."),
            ["10:00", "sunday", "zondags"]
        );
    }

    #[test]
    fn an_answer_from_another_line_gives_way_to_the_line_asked_about() {
        let cases: &[(Kind, &str, &str, Option<&str>)] = &[
            // The calling frequency's row, for the Sunday net: its row instead.
            (
                Kind::Frequency,
                "Which frequency is the Sunday HF net on?",
                "The Sunday HF net is on 145.500 MHz.",
                Some("Use: Sunday HF net (80 m); Frequency: 3.720; Mode: LSB"),
            ),
            // The right value, from either of its lines: kept.
            (
                Kind::Frequency,
                "Which frequency is the Sunday HF net on?",
                "3.720 MHz LSB, Sundays at 10:00.",
                None,
            ),
            // The right line's band beside the wrong line's frequency: still the wrong line.
            (
                Kind::Frequency,
                "Which frequency is the Sunday HF net on?",
                "The Sunday HF net is on 145.500 MHz LSB (80 m).",
                Some("Use: Sunday HF net (80 m); Frequency: 3.720; Mode: LSB"),
            ),
            // The input for the output: the output's line, said after its heading.
            (
                Kind::Frequency,
                "Which frequency is the output of the Beacon Hill repeater?",
                "The Beacon Hill repeater is on 145.1125 MHz.",
                Some("Output (you listen here): 145.7125 MHz"),
            ),
            // The set-up time for the start.
            (
                Kind::Time,
                "What time does the monthly club night start?",
                "Club night starts at 19:00.",
                Some(
                    "Club night is on the first Tuesday of every month, 19:30 to 22:00, \
                     upstairs at the Old Fire Station.",
                ),
            ),
            (
                Kind::Time,
                "What time does the monthly club night start?",
                "It starts at 19:30.",
                None,
            ),
            // A value no line writes is not placed: kept (the value check sees to values the
            // prompt does not hold).
            (
                Kind::Time,
                "What time does the monthly club night start?",
                "It starts at 7:30 pm.",
                None,
            ),
            // A value the question itself holds says nothing.
            (
                Kind::Frequency,
                "Which frequency is the 2 m repeater on Beacon Hill?",
                "The 2 m repeater is on Beacon Hill.",
                None,
            ),
            // A "when": the start is as right as the day …
            (
                Kind::When,
                "When is the monthly club night?",
                "It starts at 19:30.",
                None,
            ),
            (
                Kind::When,
                "When is the monthly club night?",
                "The room opens at 19:00.",
                None,
            ),
            // … but not another passage's time.
            (
                Kind::When,
                "When is the monthly club night?",
                "Club night is at 20:00.",
                Some(
                    "Club night is on the first Tuesday of every month, 19:30 to 22:00, \
                     upstairs at the Old Fire Station.",
                ),
            ),
            // "Which evening" names the evening's net, not the Sunday morning one.
            (
                Kind::Day,
                "Which evening is the net?",
                "The net is on Sundays at 10:00.",
                Some("Thursday evening net: every Thursday at 20:00 on GB3KV (145.7125 MHz)."),
            ),
            // No line the question is about: kept.
            (
                Kind::Frequency,
                "Which frequency does the fox hunt use?",
                "The fox hunt uses 145.500 MHz.",
                None,
            ),
        ];
        for (kind, question, answer, want) in cases {
            let got = instead(*kind, question, NETS, answer, Lang::En);
            assert_eq!(got.as_deref(), *want, "{question} → {answer}");
        }
    }

    /// The Dutch bench's nets, as the index splits them.
    const RONDES: &str = "Notities uit de documenten van de beheerder:\n\n\
[nets.txt > KVARC-RONDES - WEKELIJKSE BIJEENKOMSTEN IN DE LUCHT]\n\
Donderdagavondronde: elke donderdag om 20:00 via GB3KV (145,7125 MHz, toon 77,0 Hz). Het \
leiden van de ronde rouleert onder vrijwilligers.\n\n\
HF-ronde op zondag: zondags om 10:00 op 3,720 MHz LSB (80 m). Rondeleider is meestal Margaret \
Ellery, G4XME.\n\n\
DMR-kletsronde: woensdags om 20:30 via GB7KV, tijdslot 2.\n\n\
In augustus is er geen clubronde: de clubavonden in de zomer zijn buiten.\n\n\
Als deze notities het antwoord niet bevatten, antwoord dan precies: Niet in mijn notities.";

    /// A weekday says which line it is from, and in Dutch a question's word inside a
    /// compound is shared ("avond" and "ronde" in "Donderdagavondronde"): the Sunday net's
    /// day, said for the weekly evening net, gives way to that net's line.
    #[test]
    fn a_weekday_from_another_line_gives_way_to_the_line_the_compound_names() {
        let q = "Op welke avond is de wekelijkse ronde via de repeater?";
        let thursday = "Donderdagavondronde: elke donderdag om 20:00 via GB3KV (145,7125 MHz, \
                        toon 77,0 Hz).";
        let cases: &[(&str, Option<&str>)] = &[
            (
                "De wekelijkse ronde via de repeater is op zondag.",
                Some(thursday),
            ),
            ("Zondags.", Some(thursday)),
            // The right day, or one no line writes: kept.
            ("Op donderdag om 20:00.", None),
            ("Op vrijdag.", None),
        ];
        for (answer, want) in cases {
            let got = instead(Kind::Day, q, RONDES, answer, Lang::Nl);
            assert_eq!(got.as_deref(), *want, "{answer}");
        }
        // In English no word is looked for inside another.
        let got = instead(Kind::Day, q, RONDES, "Op zondag.", Lang::En);
        assert_eq!(got, None);
    }
}
