//! Three candidates that hold no notes about the person, whatever their shape: the bot's own
//! answers copied back (reported: the summary became the bot's own line, and `!summary` then
//! told the person what the bot had said), a loop of a few words ("Lara: Hi, Lara,
//! Hello, Lara, Hi, Lara…", which the real-model tier let pass), and words made up ("Lots of
//! work done! I made a big mistake and I'm glad of you…", SmolLM2 in the real-model tier on
//! 2026-12-03). All are told by words, not by meaning, so they hold in any language.

use std::collections::HashSet;

use crate::store::{Role, StoredMessage};
use crate::text::key_words as words;

/// A candidate whose word pairs are at least this share (in percent) of the bot's answers'
/// and not of the person's messages is the bot's own words.
const OWN_PERCENT: usize = 60;

/// A candidate of at least this many words repeats itself when fewer than half are distinct.
const LOOP_MIN_WORDS: usize = 6;

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

/// Content words of a candidate at least this long count (shorter ones are mostly grammar).
const CONTENT_MIN_CHARS: usize = 4;

/// A candidate of at least this many content words is unrelated when fewer than this share
/// (in percent) of them are in the person's messages, the kept facts or the previous notes.
const UNRELATED_MIN_WORDS: usize = 5;
const RELATED_PERCENT: usize = 25;

/// "I" and its forms in meshai's languages, as `key` writes them ("I'm" is "im"): notes about
/// a person speak of them, a reply speaks as itself ("I'm happy to help.", SmolLM2's whole
/// summary in CI on 2026-12-07).
const FIRST_PERSON: &[&str] = &[
    "i", "im", "ive", "ill", "ich", "je", "jai", "yo", "io", "eu", "ik", "ja",
];

/// A word this long in a short candidate may be a name of theirs ("Ann", "Tom").
const NAME_MIN_CHARS: usize = 3;

/// Whether `candidate` is made up: of its distinct content words (at least
/// [`UNRELATED_MIN_WORDS`], and some messages of the person's to compare with), fewer than
/// [`RELATED_PERCENT`] are anywhere in what the person wrote, the `facts` or the `previous`
/// notes. Notes name the person's own things ("Marta (EA3MRT) asked about an antenna for 868
/// MHz": most of it is theirs); a third-person verb or two are not enough to fail them.
///
/// A shorter candidate is too short to tell by share, unless it has no digit and no word of
/// [`NAME_MIN_CHARS`] or more that is theirs ("Ann."), and no content word ("No.", SmolLM2's
/// whole summary in CI on 2026-12-06, passed as notes before) or a word of
/// [`FIRST_PERSON`]. A refused one costs nothing: the fold keeps the facts.
pub(super) fn is_unrelated(
    candidate: &str,
    messages: &[StoredMessage],
    previous: Option<&str>,
    facts: &[String],
) -> bool {
    // Without the person's messages there is nothing to tell it by.
    if !messages.iter().any(|m| m.role == Role::User) {
        return false;
    }
    let theirs: HashSet<String> = messages
        .iter()
        .filter(|m| m.role == Role::User)
        .flat_map(|m| words(&m.text).into_iter().chain(words(m.prompt_text())))
        .chain(previous.into_iter().flat_map(words))
        .chain(facts.iter().flat_map(|f| words(f)))
        .collect();
    let mine: HashSet<String> = words(candidate)
        .into_iter()
        .filter(|w| w.chars().count() >= CONTENT_MIN_CHARS)
        .collect();
    if mine.len() < UNRELATED_MIN_WORDS {
        // Too short to tell by share, unless it names nothing of theirs and says nothing, or
        // speaks as the bot.
        let names = |w: &String| {
            w.chars().count() >= NAME_MIN_CHARS
                && theirs.contains(w)
                && !FIRST_PERSON.contains(&w.as_str())
        };
        let as_itself = words(candidate)
            .iter()
            .any(|w| FIRST_PERSON.contains(&w.as_str()));
        return (mine.is_empty() || as_itself)
            && !candidate.contains(char::is_numeric)
            && !words(candidate).iter().any(names);
    }
    let shared = mine.iter().filter(|w| theirs.contains(*w)).count();
    shared * 100 < mine.len() * RELATED_PERCENT
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
        crate::test_util::stored(0, role, text)
    }

    #[test]
    fn made_up_notes_are_told_apart_from_notes_about_the_person() {
        let conversation = [
            msg(
                Role::User,
                "Hi, I am Marta, callsign EA3MRT. Ann is my sister.",
            ),
            msg(Role::Assistant, "Hello Marta! How can I help?"),
            msg(Role::User, "What is a good antenna for 868 MHz?"),
            msg(Role::User, "Give me a tip for hiking in the rain"),
            msg(Role::User, "Should I use a solar panel for my node?"),
            msg(
                Role::User,
                "Ich wohne in Barcelona und fahre einen alten Seat.",
            ),
        ];
        let made_up = "Lots of work done! I made a big mistake and I'm glad of you for this. I \
                       made a mistake, I should have made it myself, but you're right to say \
                       I'm glad of you.";
        assert!(is_unrelated(made_up, &conversation, None, &[]));
        let notes = [
            "Marta (EA3MRT) asked about a good antenna for 868 MHz, hiking in the rain and a \
             solar panel for her node.",
            "Marta wohnt in Barcelona und fährt einen alten Seat; Rufzeichen EA3MRT.",
            // Too short to tell.
            "Marta, EA3MRT.",
            "Chatted about radios.",
            "Ana, 73.",
            // Her name, though shorter than a content word.
            "Ann.",
            // Speaking as the bot, but of her.
            "I told Marta about LoRa.",
        ];
        for n in notes {
            assert!(!is_unrelated(n, &conversation, None, &[]), "{n}");
        }
        // Short and naming nothing: no notes (SmolLM2's "No." was saved as the summary).
        for made_up in [
            "No.",
            "Yes, it is.",
            "OK, you got it!",
            "Ok",
            "I'm happy to help.",
            "Ich helfe gern.",
        ] {
            assert!(is_unrelated(made_up, &conversation, None, &[]), "{made_up}");
        }
        // What the previous notes or the facts hold counts as theirs.
        let later = "Tomasz lives in Zakopane, drives a Land Rover, dog Biscuit.";
        assert!(is_unrelated(later, &conversation, None, &[]));
        assert!(!is_unrelated(later, &conversation, Some(later), &[]));
        let facts = ["My dog Biscuit and my Land Rover live in Zakopane with Tomasz.".to_string()];
        assert!(!is_unrelated(later, &conversation, None, &facts));
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
