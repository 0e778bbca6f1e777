//! Facts a user states about themselves or their group, kept word for word next to the
//! narrative summary.
//!
//! A summary that is rewritten at every fold loses details: a small model paraphrases "my
//! callsign is EA3MRT, relay on Montseny" into "a radio amateur with a relay", and the callsign
//! is gone for good. So when messages are folded, the user's statements are also kept
//! verbatim, in a bounded list per node that goes into the prompt next to the summary.
//! Nothing is asked of the model, so nothing can erode or be invented.
//!
//! Which sentences are statements is decided by their shape, not by words of one language:
//! a statement is not a question and not a command, and it names something — a word with a
//! digit (a number, a time, a callsign, a frequency), or a capitalised word after the first
//! (a name, a place; every noun in German) — or is long enough to say something (five words
//! or more; a dozen characters in scripts without spaces or capitals, such as Chinese). So
//! "Mein Hund heißt Pepper", "Der Verein trifft sich donnerstags um 19:30" and "The club meets
//! on Thursdays" are kept as "I am Marta" is, and "thanks!" or "ok cool" are not. A question
//! without its question mark or a request ("Give me a tip for hiking in the rain", "Dime un
//! consejo") is told by its opening words in meshai's eight languages ([`request`]); in
//! others such a sentence can still be kept. The list keeps the newest `facts_max` statements, and drops one that names
//! nothing before one that does ([`is_anchored`]), so such a sentence cannot push a callsign
//! out. Pure: the store saves what this module picks, in the summary's transaction. Which
//! kept statement a new one corrects ("Update: my new callsign is …") is [`replace`]'s, and
//! what a save does to the kept facts [`saving`]'s.

use unicode_segmentation::UnicodeSegmentation;

use crate::text::cap;

pub(crate) mod replace;
pub(crate) mod request;
pub(crate) mod saving;

/// A kept statement is cut to this many characters (one packet's worth).
pub(crate) const FACT_CHARS: usize = 150;

/// A statement without a name or a number needs this many words.
const MIN_WORDS: usize = 5;

/// A statement in a script without spaces or capitals needs this many letters.
const MIN_UNSPACED_LETTERS: usize = 12;

/// Marks that end a question in the scripts people text in (Latin, CJK full width, Arabic,
/// Greek, Armenian, Ethiopic).
const QUESTION_ENDS: [char; 6] = ['?', '？', '؟', ';', '՞', '፧'];

/// Closing quotes and brackets that may follow a sentence's last mark.
const CLOSERS: [char; 9] = ['"', '\'', ')', ']', '”', '’', '»', '」', '』'];

/// The sentences of `text` worth keeping as facts, in order, each whitespace-normalised and
/// cut to [`FACT_CHARS`].
pub(crate) fn statements(text: &str) -> Vec<String> {
    // One line first: a line break would end a sentence in the middle.
    let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
    text.split_sentence_bounds()
        .map(|s| s.split_whitespace().collect::<Vec<_>>().join(" "))
        .filter(|s| is_statement(s))
        .map(|s| cap(&s, FACT_CHARS))
        .collect()
}

/// Whether `sentence` (one line) is a statement worth keeping: see the module comment.
pub(crate) fn is_statement(sentence: &str) -> bool {
    if sentence.is_empty() || sentence.starts_with('!') || asks(sentence) {
        return false;
    }
    let words = words(sentence);
    if words.len() < 2 && !is_unspaced(sentence) {
        return false;
    }
    is_anchored(sentence)
        || words.len() >= MIN_WORDS
        || (is_unspaced(sentence) && letters(sentence) >= MIN_UNSPACED_LETTERS)
}

/// Whether a statement names something: a word with a digit, a word in mixed case or capitals
/// after its first letter ("SP9QRZ", "LoRa"), or a capitalised word of two letters or more
/// after the first.
pub(crate) fn is_anchored(sentence: &str) -> bool {
    let words = words(sentence);
    let digit = words.iter().any(|w| w.chars().any(|c| c.is_numeric()));
    let inner_capital = words
        .iter()
        .any(|w| w.chars().skip(1).any(char::is_uppercase));
    // Two letters at least: "Yes I do" names nothing.
    let proper = words.iter().skip(1).any(|w| {
        w.chars().next().is_some_and(char::is_uppercase)
            && w.chars().filter(|c| c.is_alphabetic()).count() >= 2
    });
    digit || inner_capital || proper
}

/// The keys of the facts that go when `kept` (key, text; oldest first) holds more than
/// `max`: those that name nothing ([`is_anchored`]) first, oldest first, then the oldest of
/// the rest.
pub(crate) fn evicted<K: Copy>(kept: &[(K, String)], max: usize) -> Vec<K> {
    let over = kept.len().saturating_sub(max);
    let bare = kept.iter().filter(|(_, text)| !is_anchored(text));
    let named = kept.iter().filter(|(_, text)| is_anchored(text));
    bare.chain(named).take(over).map(|(id, _)| *id).collect()
}

/// Whether `sentence` asks rather than tells: a question, with its mark or by its opening,
/// or a request ([`request`]). Never something the person told.
pub(crate) fn asks(sentence: &str) -> bool {
    is_question(sentence) || request::is_request_or_question(sentence)
}

/// A question: it ends with a question mark (before closing quotes), or opens with `¿`.
fn is_question(sentence: &str) -> bool {
    let end = sentence.trim_end_matches(|c: char| CLOSERS.contains(&c) || c.is_whitespace());
    end.ends_with(QUESTION_ENDS) || sentence.starts_with('¿')
}

/// The words of `sentence`, split at whitespace and punctuation that separates words.
fn words(sentence: &str) -> Vec<&str> {
    sentence
        .split(|c: char| c.is_whitespace() || matches!(c, ',' | ';' | ':' | '.' | '!' | '(' | ')'))
        .filter(|w| w.chars().any(char::is_alphanumeric))
        .collect()
}

/// A sentence written without spaces between words (Chinese, Japanese, Thai): most of its
/// letters are in one run with no space, and none has a case.
fn is_unspaced(sentence: &str) -> bool {
    let letters: Vec<char> = sentence.chars().filter(|c| c.is_alphabetic()).collect();
    !letters.is_empty()
        && letters
            .iter()
            .all(|c| !c.is_uppercase() && !c.is_lowercase())
        && !sentence.trim().contains(' ')
}

fn letters(sentence: &str) -> usize {
    sentence.chars().filter(|c| c.is_alphabetic()).count()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_statements_in_any_language_with_or_without_i() {
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
            (
                "The club meets on Thursdays at 19:30.",
                &["The club meets on Thursdays at 19:30."],
            ),
            ("Mein Hund heißt Pepper.", &["Mein Hund heißt Pepper."]),
            (
                "Der Verein trifft sich donnerstags um 19:30.",
                &["Der Verein trifft sich donnerstags um 19:30."],
            ),
            ("Je m'appelle Léa.", &["Je m'appelle Léa."]),
            (
                "mi perro se llama toby y vive conmigo",
                &["mi perro se llama toby y vive conmigo"],
            ),
            ("Mój znak to SP9QRZ.", &["Mój znak to SP9QRZ."]),
            (
                "我的狗叫小白，它三岁了，住在北京。",
                &["我的狗叫小白，它三岁了，住在北京。"],
            ),
            (
                "Thanks! My   car is a\nblue Land Rover. Can you remember that?",
                &["My car is a blue Land Rover."],
            ),
            // Questions, commands, small talk.
            ("I'm fine thanks", &[]),
            ("ok cool", &[]),
            ("Yes I do", &[]),
            ("Danke!", &[]),
            ("What antenna would you put on my relay?", &[]),
            ("Wie lautet mein Rufzeichen?", &[]),
            ("¿Cómo se llama mi perro", &[]),
            ("Where is \"Bern\"?\"", &[]),
            ("你好吗？", &[]),
            ("!reset", &[]),
            ("", &[]),
            // Requests and questions without a question mark (reported: the first was listed
            // under "You told me").
            ("Give me a tip for hiking in the rain", &[]),
            (
                "I'm Lara, callsign DL1LAR. Tell me a joke about antennas",
                &["I'm Lara, callsign DL1LAR."],
            ),
            ("Erkläre mir bitte, wie LoRa funktioniert", &[]),
            ("Dame un consejo para la lluvia", &[]),
            ("what is the best antenna for 868 MHz", &[]),
        ];
        for (text, want) in cases {
            assert_eq!(statements(text), *want, "{text:?}");
        }
    }

    #[test]
    fn anchored_statements_name_something() {
        let cases = [
            ("My callsign is SP9QRZ.", true),
            ("Der Akku hat 3000 mAh.", true),
            ("I live in Bern.", true),
            ("We use LoRa every day", true),
            ("i love spicy lentil soup", false),
            ("Thanks, that helps a lot.", false),
        ];
        for (sentence, want) in cases {
            assert_eq!(is_anchored(sentence), want, "{sentence:?}");
        }
    }

    #[test]
    fn the_bound_drops_statements_that_name_nothing_first() {
        let kept: Vec<(i64, String)> = [
            (1, "My callsign is SP9QRZ."),
            (2, "thanks, that helps a lot today"),
            (3, "I live in Bern."),
            (4, "that is a really good idea"),
        ]
        .iter()
        .map(|(id, t)| (*id, t.to_string()))
        .collect();
        let cases: &[(usize, &[i64])] = &[
            (4, &[]),
            (3, &[2]),
            (2, &[2, 4]),
            (1, &[2, 4, 1]),
            (0, &[2, 4, 1, 3]),
        ];
        for (max, want) in cases {
            assert_eq!(evicted(&kept, *max), *want, "max {max}");
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
