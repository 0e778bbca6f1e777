//! A setting's code taken from the wrong line. Pure.
//!
//! Why: with the club mesh's settings in its prompt ("- Region: EU_868", "- Preset modemu:
//! MEDIUM_FAST (…)"), Qwen2.5-0.5B answered "Na jakim presecie modemu chodzi klubowy mesh?"
//! with "Clubowy mesh chodzi w presecie EU_868." (the Polish knowledge bench, issue 38). A
//! modem preset is no kind of value the question words tell (`asked::Kind`), so the line
//! rule (`line`) never looked; but a code — a word written with an underscore, or with
//! capitals and digits ("MEDIUM_FAST", "EU_868", "GB3KV") — says which line it is from.
//!
//! When every line that holds the answer's code shares fewer of the question's words than the
//! line sharing most among those that hold a code (two words at least, each as written or by
//! its stem: "klubowy" is "klubowa", `check::shared_in`), and none of those best lines holds
//! it, the first of them goes instead. An answer whose code no line writes is the value check's
//! business, and one the best line holds is kept.

use super::{about_words, quoted, sentences, shared_in};
use crate::lang::Lang;

/// The codes of `text` as written: words of letters, digits and underscores that hold an
/// underscore between letters or digits, or capitals and digits both ("EU_868", "GB3KV";
/// not "18:30", "2026", "KVARC").
fn codes(text: &str) -> Vec<&str> {
    text.split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .map(|w| w.trim_matches('_'))
        .filter(|w| {
            let upper = w.chars().any(char::is_uppercase);
            let digit = w.chars().any(|c| c.is_ascii_digit());
            w.contains('_') && w.chars().any(char::is_alphanumeric) || upper && digit
        })
        .collect()
}

/// The line of `notes` to say instead of `answer` to `question` when the answer's code is
/// from a line the question is less about (see the module's doc); `None` keeps it.
pub(super) fn instead(answer: &str, question: &str, notes: &str, lang: Lang) -> Option<String> {
    let own = codes(question);
    let said: Vec<&str> = codes(answer)
        .into_iter()
        .filter(|c| !own.iter().any(|o| o.eq_ignore_ascii_case(c)))
        .collect();
    if said.is_empty() {
        return None;
    }
    let about = about_words(question, lang);
    let shares = |s: &str| shared_in(&about, s, lang);
    let holds_said = |s: &str| codes(s).iter().any(|c| said.contains(c));
    let lines: Vec<(&str, &str, usize)> = sentences(notes)
        .into_iter()
        .filter(|(_, s)| !codes(s).is_empty())
        .map(|(h, s)| (h, s, shares(s)))
        .collect();
    let top = lines.iter().map(|(.., n)| *n).max().filter(|n| *n >= 2)?;
    let best: Vec<&(&str, &str, usize)> = lines.iter().filter(|(.., n)| *n == top).collect();
    let wrong = lines.iter().filter(|(_, s, _)| holds_said(s));
    if best.iter().any(|(_, s, _)| holds_said(s)) || wrong.clone().next().is_none() {
        return None;
    }
    if wrong.clone().any(|(.., n)| *n >= top) {
        return None;
    }
    best.first().map(|(h, s, n)| quoted(h, s, *n))
}

#[cfg(test)]
mod tests {
    use super::*;

    const MESH: &str = "Notatki z dokumentów operatora:\n\n\
[handbook.md > Poradnik członka > Klubowa sieć mesh (Meshtastic)]\n\
Ustawienia klubowej sieci mesh:\n\n\
- Region: EU_868\n\
- Preset modemu: MEDIUM_FAST (sieć klubowa nie używa domyślnego LONG_FAST)\n\
- Limit skoków: 3\n\n\
[mesh-guide.md > Jak dołączyć > Ustawienia dla sieci klubowej]\n\
1. LoRa: region EU_868, preset modemu MEDIUM_FAST, limit skoków 3.\n\n\
Jeśli te notatki nie zawierają odpowiedzi, odpowiedz dokładnie: Nie ma tego w moich notatkach.";

    #[test]
    fn a_code_from_a_line_the_question_is_less_about_gives_way_to_the_best_line() {
        let q = "Na jakim presecie modemu chodzi klubowy mesh?";
        let preset = "Preset modemu: MEDIUM_FAST (sieć klubowa nie używa domyślnego LONG_FAST)";
        let cases: &[(&str, &str, Option<&str>)] = &[
            (q, "Clubowy mesh chodzi w presecie EU_868.", Some(preset)),
            // The best line's code, or one it holds besides: kept.
            (q, "Klubowy mesh chodzi na MEDIUM_FAST.", None),
            (q, "LONG_FAST.", None),
            // No code, or one no line writes: kept (the value check's business).
            (q, "Na średnim presecie.", None),
            (q, "SHORT_TURBO.", None),
            // A code the question writes itself is no answer's.
            ("Czy mesh chodzi na EU_868?", "Tak, EU_868.", None),
            // The question shares fewer than two words with any line: kept.
            ("Jaki region?", "EU_868.", None),
        ];
        for (question, answer, want) in cases {
            assert_eq!(
                instead(answer, question, MESH, Lang::Pl).as_deref(),
                *want,
                "{question} / {answer}"
            );
        }
    }

    #[test]
    fn a_code_has_an_underscore_or_capitals_and_digits() {
        assert_eq!(
            codes("Region EU_868, GB3KV at 18:30 in 2026; KVARC (MEDIUM_FAST). g4kvr _"),
            ["EU_868", "GB3KV", "MEDIUM_FAST"]
        );
    }
}
