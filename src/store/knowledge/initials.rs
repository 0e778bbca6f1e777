//! Initials, pure: a heading of capitalised words indexed with its initials ("Annual General
//! Meeting" → "AGM"), and an abbreviation a question uses spelled out the way the documents
//! define it ("… auf der Jahreshauptversammlung (JHV) …"), so "An welchem Datum ist die
//! JHV?" searches for "Jahreshauptversammlung", the heading of the section that has the date.
//! Clubs write their abbreviations in their own language, most of them not from capitalised
//! words ("assemblée générale annuelle (AG)", "algemene ledenvergadering (ALV)"): only the
//! documents can say what they stand for.

/// The initials of a heading whose words are capitalised ("Annual General Meeting" → "AGM"),
/// indexed with it: people ask about the AGM of a section headed "Annual General Meeting".
/// `None` for fewer than two capitalised words, or a heading with a word that is not (a
/// sentence: "Monthly club night").
pub(super) fn initialism(heading: &str) -> Option<String> {
    let words: Vec<&str> = heading
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| w.chars().count() >= 3)
        .collect();
    let capitalised = |w: &&str| w.chars().next().is_some_and(char::is_uppercase);
    if words.len() < 2 || !words.iter().all(capitalised) {
        return None;
    }
    Some(words.iter().filter_map(|w| w.chars().next()).collect())
}

/// An abbreviation has this many letters at most ("JHV", "AGM", "CTCSS").
const MAX_LETTERS: usize = 6;

/// At most this many abbreviations of one question are looked up.
pub(super) const MAX_ASKED: usize = 3;

/// The words of `question` that may be abbreviations: 2 to [`MAX_LETTERS`] letters, all
/// capitals, each once ("JHV", "AG"; not "GB3KV", a call sign, nor "I" or "Ok").
pub(super) fn asked(question: &str) -> Vec<&str> {
    let mut found: Vec<&str> = Vec::new();
    for word in question.split(|c: char| !c.is_alphanumeric()) {
        let letters = word.chars().count();
        let abbreviation = (2..=MAX_LETTERS).contains(&letters)
            && word.chars().all(|c| c.is_alphabetic() && c.is_uppercase());
        if abbreviation && !found.contains(&word) && found.len() < MAX_ASKED {
            found.push(word);
        }
    }
    found
}

/// What `abbreviation` stands for where `text` defines it, written "long form (ABBR)": the
/// words right before the parenthesis, from the farthest of the last `letters + 1` words
/// (in the same clause) that starts with the abbreviation's first letter, when the
/// abbreviation's letters are in the long form in order ("Jahreshauptversammlung" holds J, H,
/// V; "algemene ledenvergadering" A, L, V). `None` when `text` does not define it.
pub(super) fn defined(text: &str, abbreviation: &str) -> Option<String> {
    let marker = format!("({abbreviation})");
    text.match_indices(&marker).find_map(|(at, _)| {
        let before = &text[..at];
        let clause = before
            .rfind(['.', ',', ';', ':', '(', ')', '\n', '!', '?'])
            .map_or(before, |i| &before[i + 1..]);
        long_form(clause, abbreviation)
    })
}

/// The long form at the end of `clause` for `abbreviation` (see [`defined`]).
fn long_form(clause: &str, abbreviation: &str) -> Option<String> {
    let words: Vec<&str> = clause.split_whitespace().map(elided).collect();
    let first = abbreviation.chars().next()?.to_lowercase().next()?;
    let window = abbreviation.chars().count() + 1;
    let start = (words.len().saturating_sub(window)..words.len()).find(|&i| {
        words[i]
            .chars()
            .next()
            .and_then(|c| c.to_lowercase().next())
            == Some(first)
    })?;
    let long = words[start..].join(" ");
    let longer = long.chars().count() > abbreviation.chars().count();
    (longer && in_order(&long, abbreviation)).then_some(long)
}

/// `word` without an elided article before an apostrophe ("l'assemblée" → "assemblée").
fn elided(word: &str) -> &str {
    let apostrophe = word.char_indices().find(|&(_, c)| c == '\'' || c == '’');
    match apostrophe {
        Some((i, c)) if word[..i].chars().count() <= 2 => &word[i + c.len_utf8()..],
        _ => word,
    }
}

/// Whether the letters of `abbreviation` stand in `long` in that order (case aside).
fn in_order(long: &str, abbreviation: &str) -> bool {
    let mut letters = long.chars().flat_map(char::to_lowercase);
    abbreviation
        .chars()
        .flat_map(char::to_lowercase)
        .all(|a| letters.any(|l| l == a))
}

/// `question` with each whole-word `abbreviation` written as `long`.
pub(super) fn spelled_out(question: &str, abbreviation: &str, long: &str) -> String {
    let mut out = String::with_capacity(question.len() + long.len());
    let mut word_start = None;
    let flush = |out: &mut String, word: &str| {
        out.push_str(if word == abbreviation { long } else { word });
    };
    for (i, c) in question.char_indices() {
        match (c.is_alphanumeric(), word_start) {
            (true, None) => word_start = Some(i),
            (false, Some(s)) => {
                flush(&mut out, &question[s..i]);
                word_start = None;
                out.push(c);
            }
            (false, None) => out.push(c),
            (true, Some(_)) => {}
        }
    }
    if let Some(s) = word_start {
        flush(&mut out, &question[s..]);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn capitalised_headings_are_indexed_with_their_initials() {
        let cases = [
            ("Annual General Meeting", Some("AGM")),
            ("Nearest Hospital (A&E)", Some("NH")),
            ("GB3KV — Beacon Hill, 2 m FM", Some("GBH")),
            ("Monthly club night", None),
            ("Fees", None),
            ("", None),
        ];
        for (heading, want) in cases {
            assert_eq!(initialism(heading).as_deref(), want, "{heading:?}");
        }
    }

    #[test]
    fn a_question_may_ask_with_capitals_alone() {
        let cases: [(&str, &[&str]); 6] = [
            ("An welchem Datum ist die JHV?", &["JHV"]),
            ("À quelle date a lieu l'AG ?", &["AG"]),
            ("Op welke datum is de ALV? En de ALV daarna?", &["ALV"]),
            // A call sign has digits; one capital is a word ("I"); a capitalised word is no
            // abbreviation; seven letters are a word shouted.
            ("Which tone does GB3KV need? I Think so. REPEATER", &[]),
            (
                "Is the APRS digi on VHF or UHF? And DMR?",
                &["APRS", "VHF", "UHF"],
            ),
            ("", &[]),
        ];
        for (question, want) in cases {
            assert_eq!(asked(question), want, "{question:?}");
        }
    }

    #[test]
    fn an_abbreviation_stands_for_the_words_the_documents_put_before_it() {
        let cases = [
            (
                "Der Vorstand wird jedes Jahr im Dezember auf der Jahreshauptversammlung (JHV) gewählt.",
                "JHV",
                Some("Jahreshauptversammlung"),
            ),
            (
                "Le comité est élu lors de l'assemblée générale annuelle (AG), chaque mois de décembre.",
                "AG",
                Some("assemblée générale annuelle"),
            ),
            (
                "Het bestuur wordt elk jaar in december gekozen op de algemene ledenvergadering (ALV).",
                "ALV",
                Some("algemene ledenvergadering"),
            ),
            (
                "Elections are held at the Annual General Meeting (AGM) in December.",
                "AGM",
                Some("Annual General Meeting"),
            ),
            // Defined twice: the first that reads as a definition counts.
            (
                "Bring it to the AGM (AGM). See the Annual General Meeting (AGM).",
                "AGM",
                Some("Annual General Meeting"),
            ),
            // The words before it do not hold its letters: no definition.
            ("Ask at the desk (ALV) for a key.", "ALV", None),
            // Another clause's words are not the long form.
            ("Annual dinner, (AG) to follow.", "AG", None),
            // Named, not defined.
            ("Elections are at the AGM in December.", "AGM", None),
            ("", "AGM", None),
        ];
        for (text, abbreviation, want) in cases {
            assert_eq!(
                defined(text, abbreviation).as_deref(),
                want,
                "{text:?} {abbreviation}"
            );
        }
    }

    #[test]
    fn a_question_is_searched_with_the_abbreviation_spelled_out() {
        let cases = [
            (
                "An welchem Datum ist die JHV?",
                "JHV",
                "Jahreshauptversammlung",
                "An welchem Datum ist die Jahreshauptversammlung?",
            ),
            (
                "À quelle date a lieu l'AG ?",
                "AG",
                "assemblée générale annuelle",
                "À quelle date a lieu l'assemblée générale annuelle ?",
            ),
            // Only the whole word: "AGB" and "AGs" stay.
            ("AG, AGB, AGs: AG", "AG", "x y", "x y, AGB, AGs: x y"),
        ];
        for (question, abbreviation, long, want) in cases {
            assert_eq!(
                spelled_out(question, abbreviation, long),
                want,
                "{question:?}"
            );
        }
    }
}
