//! Light stemming for the knowledge folder's full-text search, one suffix list per language.
//!
//! The index's porter tokenizer stems English ("meetings" finds "meeting"); the other
//! languages' words it leaves as written, so "nächsten" did not find the heading "Nächstes
//! Krankenhaus" and "reuniones" not "Reunión mensual": in German and Spanish the right
//! passage, ranked first, was left out as covering too little of the question
//! (docs/benchmarks.md). Here a word loses its inflection — the longest ending of its
//! language's list that leaves [`MIN_STEM`] letters — and the search looks for what is left
//! as a prefix (`fts::Query`), which also finds a compound that starts with the word ("Club"
//! finds "Clubabend"). Only endings, as Savoy's light stemmers do: no dictionary, nothing a
//! newcomer cannot add a line to.

use super::Lang;

/// What a stem keeps at least, in letters: a shorter one finds too many words ("soc" would
/// find "social" and "sociedad" for "socios").
pub(crate) const MIN_STEM: usize = 4;

/// The inflectional endings of `lang`, longest first where one ends another (the first that
/// fits is taken); English has none here (porter's).
fn endings(lang: Lang) -> &'static [&'static str] {
    match lang {
        Lang::En => &[],
        Lang::De => &["ern", "em", "en", "er", "es", "e", "n", "s"],
        // "reuniones" keeps "reunion", which "reunión" is to the index (no diacritics).
        Lang::Es => &[
            "ados", "adas", "idos", "idas", "ado", "ada", "ido", "ida", "es", "os", "as", "a", "o",
            "e", "s",
        ],
        Lang::Pt => &[
            "ações", "ação", "ados", "adas", "idos", "idas", "ado", "ada", "ido", "ida", "ões",
            "ão", "es", "os", "as", "a", "o", "e", "s",
        ],
        Lang::Fr => &["ements", "ement", "es", "s", "e", "x"],
        Lang::It => &[
            "zioni", "zione", "ati", "ate", "ato", "ata", "iti", "ite", "ito", "ita", "i", "e",
            "a", "o",
        ],
        Lang::Nl => &["en", "e", "s"],
        // A verbal noun loses its "-anie" too: "budowania" (building) finds "budowy" (the
        // node-building day's heading).
        Lang::Pl => &[
            "aniach", "eniach", "aniem", "eniem", "ania", "enia", "anie", "enie", "ami", "ach",
            "ów", "om", "ie", "em", "ą", "ę", "y", "i", "a", "u", "e", "o",
        ],
    }
}

/// What of `word` (lowercase) the search looks for as a prefix in `lang`: `None` in English
/// (the index stems it) and for a word shorter than [`MIN_STEM`] ("día" would find
/// "diagrama"), else `word` without its inflection — the first of the language's endings that
/// leaves [`MIN_STEM`] letters — or all of it when none does.
pub(crate) fn stem(lang: Lang, word: &str) -> Option<&str> {
    if lang == Lang::En || word.chars().count() < MIN_STEM {
        return None;
    }
    let letters = word.chars().count();
    let cut = endings(lang)
        .iter()
        .find(|e| word.ends_with(*e) && letters >= MIN_STEM + e.chars().count());
    Some(cut.map_or(word, |e| &word[..word.len() - e.len()]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_lose_their_inflection() {
        let cases = [
            (Lang::En, "meetings", None),
            (Lang::De, "nächsten", Some("nächst")),
            (Lang::De, "nächstes", Some("nächst")),
            (Lang::De, "versammlungen", Some("versammlung")),
            (Lang::De, "monatlicher", Some("monatlich")),
            (Lang::De, "clubs", Some("club")),
            // No ending leaves four letters: the word as written.
            (Lang::De, "club", Some("club")),
            (Lang::De, "geld", Some("geld")),
            (Lang::Es, "día", None),
            (Lang::De, "krankenhaus", Some("krankenhau")),
            (Lang::Es, "reuniones", Some("reunion")),
            (Lang::Es, "reunión", Some("reunión")),
            (Lang::Es, "repetidores", Some("repetidor")),
            (Lang::Es, "socios", Some("soci")),
            (Lang::Es, "mensual", Some("mensual")),
            (Lang::Pt, "reuniões", Some("reuni")),
            (Lang::Fr, "réunions", Some("réunion")),
            (Lang::It, "riunioni", Some("riunion")),
            (Lang::Nl, "bijeenkomsten", Some("bijeenkomst")),
            (Lang::Pl, "spotkaniach", Some("spotk")),
            (Lang::Pl, "spotkanie", Some("spotk")),
            (Lang::Pl, "zebrania", Some("zebr")),
            (Lang::Pl, "budowania", Some("budow")),
            (Lang::Pl, "budowy", Some("budow")),
            // A participle finds its noun: "prestado" the heading "Préstamo de material",
            // "emprestado" "Empréstimo", "prestato" "Prestito".
            (Lang::Es, "prestado", Some("prest")),
            (Lang::Pt, "emprestado", Some("emprest")),
            (Lang::It, "prestato", Some("prest")),
            (Lang::It, "prestito", Some("prest")),
            // No ending leaves four letters: "pedida" is not "pe".
            (Lang::Es, "nada", Some("nada")),
            (Lang::Es, "pedida", Some("pedid")),
        ];
        for (lang, word, want) in cases {
            assert_eq!(stem(lang, word), want, "{lang} {word}");
        }
    }
}
