//! What in a message says nothing of its writer's language: words in quotes, and a question
//! about another language. "How do I say thank you in Spanish?", "What does 'me llamo Juan y
//! vivo en Madrid' mean?" and "So 'muchas gracias por la ayuda' is more polite?" are English,
//! whatever the trigrams make of the Spanish in them; two such in a row switched an English
//! conversation to Spanish (reported). So [`super::detect`] reads a message without its
//! quotes ([`unquoted`]), and [`super::Sticky`] lets a message about another language
//! ([`about_another`]) neither switch a conversation nor count towards a switch; it may still
//! start one, in the language it is written in.

use super::Lang;

/// Pairs of quotes: what is between them is someone else's words.
const QUOTES: [(char, char); 9] = [
    ('"', '"'),
    ('\'', '\''),
    ('\u{201c}', '\u{201d}'), // “ ”
    ('\u{201e}', '\u{201c}'), // „ “
    ('\u{201e}', '\u{201d}'), // „ ” (Polish, Dutch)
    ('\u{2018}', '\u{2019}'), // ‘ ’
    ('\u{201a}', '\u{2018}'), // ‚ ‘
    ('\u{ab}', '\u{bb}'),     // « »
    ('\u{bb}', '\u{ab}'),     // » «
];

/// `text` without what stands in quotes (the quotes with it). A quote opens where no letter
/// or digit comes before it and closes where none comes after, so the apostrophes of "I'm",
/// "l'antenne" or "m'appelle" open nothing; a quote that never closes is kept as text.
pub(crate) fn unquoted(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let word = |i: Option<usize>| {
        i.and_then(|i| chars.get(i))
            .is_some_and(|c| c.is_alphanumeric())
    };
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while let Some(&c) = chars.get(i) {
        let close = QUOTES
            .iter()
            .filter(|(open, _)| *open == c && !word(i.checked_sub(1)))
            .find_map(|(_, close)| {
                (i + 1..chars.len())
                    .find(|&j| chars.get(j) == Some(close) && j > i + 1 && !word(Some(j + 1)))
            });
        match close {
            Some(j) => {
                out.push(' ');
                i = j + 1;
            }
            None => {
                out.push(c);
                i += 1;
            }
        }
    }
    out
}

/// Whether `text`, detected as `lang`, is about another language: it names one other than
/// `lang` ("in Spanish", "auf Englisch", "en alemán"), or asks what something means or how to
/// say or translate it. "Ich spreche lieber Deutsch." names its own language: it counts.
pub(crate) fn about_another(text: &str, lang: Lang) -> bool {
    let words: Vec<String> = text
        .split(|c: char| !c.is_alphanumeric() && c != '-')
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect();
    let names_other = Lang::ALL
        .into_iter()
        .filter(|l| *l != lang)
        .any(|l| words.iter().any(|w| names(l, w)));
    let asks = words.iter().any(|w| {
        MEANING_WORDS.contains(&w.as_str()) || MEANING_STEMS.iter().any(|s| w.starts_with(s))
    });
    let joined = format!(" {} ", words.join(" "));
    names_other || asks || PHRASES.iter().any(|p| joined.contains(&format!(" {p} ")))
}

/// Whether `word` (lowercase) names `lang`, in one of meshai's languages.
fn names(lang: Lang, word: &str) -> bool {
    let stems: &[&str] = match lang {
        Lang::En => &[
            "english", "englisch", "inglés", "ingles", "inglês", "anglais", "inglese", "engels",
            "angielsk",
        ],
        Lang::De => &[
            "german", "deutsch", "alemán", "aleman", "alemão", "allemand", "tedesc", "duits",
            "niemieck",
        ],
        Lang::Es => &[
            "spanish",
            "spanisch",
            "español",
            "espanol",
            "espanhol",
            "espagnol",
            "spagnol",
            "spaans",
            "hiszpańsk",
        ],
        Lang::Pt => &[
            "portugu",
            "portugais",
            "portoghes",
            "portugees",
            "portugalsk",
        ],
        Lang::Fr => &[
            "french",
            "französisch",
            "franzosisch",
            "francés",
            "francês",
            "français",
            "francais",
            "francese",
            "francusk",
        ],
        Lang::It => &["italian", "italien", "italiaans", "włosk"],
        Lang::Nl => &[
            "dutch",
            "niederländisch",
            "holländisch",
            "neerland",
            "holand",
            "néerlandais",
            "olandes",
            "nederlands",
            "niderlandzk",
            "holendersk",
        ],
        Lang::Pl => &[
            "polish", "polnisch", "polaco", "polonês", "polonais", "polacco", "pools", "polsk",
            "polsku",
        ],
    };
    // Exact words where a stem would take others ("frans" is also a name, "pools" pools).
    let exact: &[&str] = match lang {
        Lang::Fr => &["frans"],
        _ => &[],
    };
    exact.contains(&word) || stems.iter().any(|s| word.starts_with(s))
}

/// Words that ask what something means, in meshai's languages.
const MEANING_WORDS: [&str; 13] = [
    "mean",
    "means",
    "meaning",
    "bedeutet",
    "bedeutung",
    "significa",
    "significado",
    "signifie",
    "betekent",
    "betekenis",
    "znaczy",
    "oznacza",
    "znaczenie",
];

/// Stems of the verbs "to translate".
const MEANING_STEMS: [&str; 6] = [
    "translat",
    "übersetz",
    "tradu",
    "vertaal",
    "przetłumacz",
    "tłumacz",
];

/// How people ask how to say something (lowercase, as [`about_another`] splits words).
const PHRASES: [&str; 16] = [
    "how do i say",
    "how do you say",
    "how to say",
    "wie sagt man",
    "cómo se dice",
    "como se dice",
    "como se diz",
    "comment dit-on",
    "comment on dit",
    "veut dire",
    "come si dice",
    "vuol dire",
    "quer dizer",
    "hoe zeg je",
    "jak się mówi",
    "jak powiedzieć",
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quotes_are_left_out_apostrophes_are_not() {
        let cases = [
            ("What does 'me llamo Juan' mean?", "What does   mean?"),
            ("Was bedeutet „ich bin müde“?", "Was bedeutet  ?"),
            ("Que veut dire « I am tired » ?", "Que veut dire   ?"),
            ("So \u{201c}gracias\u{201d} it is", "So   it is"),
            ("Co znaczy „dank je wel”?", "Co znaczy  ?"),
            (
                "I'm sure it's fine, don't worry",
                "I'm sure it's fine, don't worry",
            ),
            (
                "Je m'appelle Léa et j'habite à Lyon.",
                "Je m'appelle Léa et j'habite à Lyon.",
            ),
            (
                "the 'open quote never closes",
                "the 'open quote never closes",
            ),
            ("''", "''"),
        ];
        for (text, want) in cases {
            assert_eq!(unquoted(text), want, "{text:?}");
        }
    }

    #[test]
    fn questions_about_another_language_in_each_language() {
        use Lang::*;
        let about = [
            ("How do I say thank you in Spanish?", En),
            ("What does gracias mean?", En),
            ("Translate where is the station into German", En),
            ("Wie sagt man thank you auf Spanisch?", De),
            ("Was heißt merci auf Deutsch? Ist das Französisch?", De),
            ("¿Cómo se dice thank you en alemán?", Es),
            ("¿Qué significa danke?", Es),
            ("Como se diz obrigado em inglês?", Pt),
            ("Comment dit-on merci en italien ?", Fr),
            ("Que veut dire danke ?", Fr),
            ("Come si dice grazie in tedesco?", It),
            ("Hoe zeg je dank je wel in het Engels?", Nl),
            ("Wat betekent gracias?", Nl),
            ("Jak się mówi dziękuję po angielsku?", Pl),
            ("Przetłumacz to na hiszpański", Pl),
        ];
        for (text, lang) in about {
            assert!(about_another(text, lang), "{text:?}");
        }
        let not = [
            ("What antenna should I put on my solar node?", En),
            ("Ich spreche lieber Deutsch, bitte.", De),
            ("Mi perro se llama Pepper y vive en Madrid.", Es),
            ("Mój znak to SP9QRZ.", Pl),
            ("Je m'appelle Léa et j'habite à Lyon.", Fr),
        ];
        for (text, lang) in not {
            assert!(!about_another(text, lang), "{text:?}");
        }
    }
}
