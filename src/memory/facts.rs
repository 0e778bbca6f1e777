//! Facts a user states about themselves, kept word for word next to the narrative summary.
//!
//! A summary that is rewritten at every fold loses details: a small model paraphrases "my
//! callsign is EA3MRT, relay on Montseny" into "a radio amateur with a relay", and the callsign
//! is gone for good. So when messages are folded, the sentences in which the user says
//! something about themselves ("I am Marta", "my dog is called Rex", "our swap meets are every
//! second Saturday") are also kept verbatim, in a bounded list per node that goes into the
//! prompt next to the summary. Nothing is asked of the model, so nothing can erode; the list
//! keeps the newest `facts_max` statements (older ones are still in the summary and can be
//! retrieved). Pure: the store saves what this module picks, in the summary's transaction.

use unicode_segmentation::UnicodeSegmentation;

use crate::memory::text::cap;

/// A kept statement is cut to this many characters (one packet's worth).
pub const FACT_CHARS: usize = 150;

/// Words that make a sentence a statement about the speaker (compared in lower case, with
/// curly apostrophes straightened).
const FIRST_PERSON: &[&str] = &[
    "i", "i'm", "im", "i've", "ive", "i'll", "i'd", "my", "mine", "myself", "we", "we're", "we've",
    "our", "ours",
];

/// The sentences of `text` worth keeping as facts, in order, each whitespace-normalised and
/// cut to [`FACT_CHARS`]: first-person statements (not questions) with some substance — a
/// digit, a proper name, or at least four words ("I'm fine thanks" is not kept).
pub fn statements(text: &str) -> Vec<String> {
    // One line first: a line break would end a sentence in the middle.
    let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
    text.split_sentence_bounds()
        .map(|s| s.split_whitespace().collect::<Vec<_>>().join(" "))
        .filter(|s| is_statement(s))
        .map(|s| cap(&s, FACT_CHARS))
        .collect()
}

fn is_statement(sentence: &str) -> bool {
    if sentence.is_empty() || sentence.ends_with('?') || sentence.starts_with('!') {
        return false;
    }
    let words: Vec<&str> = sentence
        .split(|c: char| c.is_whitespace() || matches!(c, ',' | ';' | ':' | '.' | '!' | '('))
        .filter(|w| !w.is_empty())
        .collect();
    let lower = |w: &str| w.to_lowercase().replace('\u{2019}', "'");
    if !words
        .iter()
        .any(|w| FIRST_PERSON.contains(&lower(w).as_str()))
    {
        return false;
    }
    let digit = sentence.chars().any(|c| c.is_ascii_digit());
    // A capitalised word after the first that is not "I" or one of its forms: a name, a place.
    let proper = words.iter().skip(1).any(|w| {
        w.chars().next().is_some_and(char::is_uppercase)
            && !FIRST_PERSON.contains(&lower(w).as_str())
    });
    digit || proper || words.len() >= 4
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn picks_first_person_statements_with_substance() {
        let cases: &[(&str, &[&str])] = &[
            (
                "Hi, I am Marta, callsign EA3MRT. I run a relay on Montseny.",
                &[
                    "Hi, I am Marta, callsign EA3MRT.",
                    "I run a relay on Montseny.",
                ],
            ),
            ("My dog is called Rex", &["My dog is called Rex"]),
            (
                "our swap meets are every second Saturday",
                &["our swap meets are every second Saturday"],
            ),
            ("I’m Ann", &["I’m Ann"]),
            ("I live at 1200 m", &["I live at 1200 m"]),
            ("I love spicy lentil soup", &["I love spicy lentil soup"]),
            ("I'm fine thanks", &[]),
            ("What antenna would you put on my relay?", &[]),
            ("When is the swap meet?", &[]),
            ("What is LoRa, in two sentences?", &[]),
            ("Tell me about antennas in the Alps", &[]),
            ("The weather is nice in Bern today", &[]),
            ("", &[]),
            (
                "Thanks! My   car is a\nblue Land Rover. Can you remember that?",
                &["My car is a blue Land Rover."],
            ),
        ];
        for (text, want) in cases {
            assert_eq!(statements(text), *want, "{text:?}");
        }
    }

    #[test]
    fn long_statements_are_cut() {
        let long = format!("My antenna farm has {}", "a very tall mast ".repeat(20));
        let got = statements(&long);
        assert_eq!(got.len(), 1);
        assert_eq!(got[0].chars().count(), FACT_CHARS);
        assert!(got[0].ends_with('…'));
    }
}
