//! Two candidates that hold no notes about the person, whatever their shape: the bot's own
//! answers copied back (reported: the summary became the bot's own line, and `!summary` then
//! told the person what the bot had said), and a loop of a few words ("Lara: Hi, Lara,
//! Hello, Lara, Hi, Lara…", which the real-model tier let pass). Both are told by words, not
//! by meaning, so they hold in any language.

use std::collections::HashSet;

use crate::store::{Role, StoredMessage};
use crate::text::key;

/// A candidate whose word pairs are at least this share (in percent) of the bot's answers'
/// and not of the person's messages is the bot's own words.
const OWN_PERCENT: usize = 60;

/// A candidate of at least this many words repeats itself when fewer than half are distinct.
const LOOP_MIN_WORDS: usize = 6;

/// The words of `text` as `key` compares them, in order.
fn words(text: &str) -> Vec<String> {
    text.split_whitespace()
        .map(key)
        .filter(|w| !w.is_empty())
        .collect()
}

/// The pairs of neighbouring words of `text`.
fn pairs(text: &str) -> HashSet<(String, String)> {
    let w = words(text);
    w.windows(2)
        .filter_map(|p| match p {
            [a, b] => Some((a.clone(), b.clone())),
            _ => None,
        })
        .collect()
}

/// Whether `candidate` is mostly the bot's own answers among `messages`: of its pairs of
/// neighbouring words, [`OWN_PERCENT`] or more are in an answer and in none of the person's
/// messages (notes may repeat what the person said; the bot's "Hi Lara! How can I help you
/// today?" is no note about them). Fewer than two pairs say too little to tell.
pub(super) fn is_own_words(candidate: &str, messages: &[StoredMessage]) -> bool {
    let of = |role: Role| -> HashSet<(String, String)> {
        messages
            .iter()
            .filter(|m| m.role == role)
            .flat_map(|m| pairs(&m.text).into_iter().chain(pairs(m.prompt_text())))
            .collect()
    };
    let (answers, said) = (of(Role::Assistant), of(Role::User));
    let mine = pairs(candidate);
    if mine.len() < 2 {
        return false;
    }
    let own = mine
        .iter()
        .filter(|p| answers.contains(*p) && !said.contains(*p))
        .count();
    own * 100 >= mine.len() * OWN_PERCENT
}

/// Whether `candidate` is a loop of a few words: [`LOOP_MIN_WORDS`] or more, under half of
/// them distinct.
pub(super) fn is_loop(candidate: &str) -> bool {
    let w = words(candidate);
    let distinct: HashSet<&String> = w.iter().collect();
    w.len() >= LOOP_MIN_WORDS && distinct.len() * 2 < w.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn msg(role: Role, text: &str) -> StoredMessage {
        StoredMessage {
            id: 0,
            role,
            text: text.to_string(),
            at: 0,
            prompt: None,
        }
    }

    #[test]
    fn the_bots_own_words_and_loops_are_told_apart_from_notes() {
        let conversation = [
            msg(Role::User, "Hi, I am Lara, callsign DL1LAR. What is LoRa?"),
            msg(
                Role::Assistant,
                "Hi Lara! LoRa is a long range radio technique for small messages. How can I help you today?",
            ),
            msg(Role::User, "Give me a tip for hiking in the rain"),
            msg(
                Role::Assistant,
                "Wear a good rain jacket and keep your radio in a dry bag.",
            ),
        ];
        let own = [
            "Hi Lara! How can I help you today?",
            "LoRa is a long range radio technique for small messages.",
            "Lara: Wear a good rain jacket and keep your radio in a dry bag.",
        ];
        for c in own {
            assert!(is_own_words(c, &conversation), "{c:?}");
        }
        let notes = [
            "Lara, callsign DL1LAR, asked what LoRa is and for a hiking tip.",
            "Lara has callsign DL1LAR.",
            "I am Lara, callsign DL1LAR.",
            "Lara.",
        ];
        for c in notes {
            assert!(!is_own_words(c, &conversation), "{c:?}");
        }
        for (c, want) in [
            ("Lara: Hi, Lara, Hello, Lara, Hi, Lara, Hello, Lara", true),
            ("Lara Lara Lara Lara Lara Lara", true),
            (
                "Lara, callsign DL1LAR, hikes in the rain with a radio.",
                false,
            ),
            ("Ann. Ann. Ann.", false),
        ] {
            assert_eq!(is_loop(c), want, "{c:?}");
        }
    }
}
