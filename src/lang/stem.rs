//! Light stemming for the knowledge folder's full-text search, one suffix list per language.
//!
//! The index's porter tokenizer stems English ("meetings" finds "meeting"); the other
//! languages' words it leaves as written, so "nächsten" did not find the heading "Nächstes
//! Krankenhaus" and "reuniones" not "Reunión mensual": in German and Spanish the right
//! passage, ranked first, was left out as covering too little of the question
//! (docs/benchmarks.md). Here a word loses its inflection — the longest ending of its
//! language's list that leaves [`MIN_STEM`] letters — and the search looks for what is left
//! as a prefix (`fts::Query`), which also finds a compound that starts with the word ("Club"
//! finds "Clubabend"). Only endings, as Savoy's light stemmers do, and a Polish verb's
//! prefixes ([`forms`]): no dictionary, nothing a newcomer cannot add a line to.

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
        // node-building day's heading). A verb its infinitive's and past tense's endings
        // ([`PL_VERB_ENDINGS`]).
        Lang::Pl => &[
            "aniach", "eniach", "aniem", "eniem", "ałem", "ałam", "iłem", "iłam", "yłem", "yłam",
            "ania", "enia", "anie", "enie", "ała", "iła", "yła", "ało", "iło", "yło", "ali", "ili",
            "yli", "ały", "iły", "yły", "ami", "ach", "ać", "eć", "ić", "yć", "ał", "ił", "ył",
            "ów", "om", "ie", "em", "ą", "ę", "y", "i", "a", "u", "e", "o",
        ],
    }
}

/// The Polish endings only a verb has: its infinitive ("pożyczyć") and its past tense
/// ("pożyczyłem").
const PL_VERB_ENDINGS: &[&str] = &[
    "ałem", "ałam", "iłem", "iłam", "yłem", "yłam", "ała", "iła", "yła", "ało", "iło", "yło",
    "ali", "ili", "yli", "ały", "iły", "yły", "ać", "eć", "ić", "yć", "ał", "ił", "ył",
];

/// The prefixes a Polish verb takes for its aspect and shade, longest first where one starts
/// another. A document writes the club "wypożycza" (lends out) what a member asks to
/// "pożyczyć" (borrow), and that one may "zatrzymać" (keep) it what the member asks to
/// "trzymać": the Polish bench's questions shared no word with the passage that answers them.
const PL_PREFIXES: &[&str] = &[
    "prze", "przy", "roz", "pod", "nad", "wy", "za", "po", "od", "do", "na", "ob", "wz", "ws", "u",
    "z", "s", "w", "o",
];

/// What a verb's stem keeps at least once its prefix is taken off: "życz" of "pożycz" is
/// another verb's too ("życzyć", to wish).
const MIN_ROOT: usize = MIN_STEM + 1;

/// What of `word` (lowercase) the search looks for as a prefix in `lang`: `None` in English
/// (the index stems it) and for a word shorter than [`MIN_STEM`] ("día" would find
/// "diagrama"), else `word` without its inflection — the first of the language's endings that
/// leaves [`MIN_STEM`] letters — or all of it when none does.
pub(crate) fn stem(lang: Lang, word: &str) -> Option<&str> {
    cut(lang, word).map(|(stem, _)| stem)
}

/// [`stem`] and the ending it took off ("" for none).
fn cut(lang: Lang, word: &str) -> Option<(&str, &'static str)> {
    cut_as(lang, word, &|e: &str| e.to_string())
}

/// [`cut`] of a word that writes the endings as `written` does: as they are, or folded.
fn cut_as<'w>(
    lang: Lang,
    word: &'w str,
    written: &dyn Fn(&str) -> String,
) -> Option<(&'w str, &'static str)> {
    if lang == Lang::En || word.chars().count() < MIN_STEM {
        return None;
    }
    let letters = word.chars().count();
    let ending = endings(lang).iter().copied().find(|e| {
        let e = written(e);
        word.ends_with(&e) && letters >= MIN_STEM + e.chars().count()
    });
    let cut = ending.map_or(0, |e| written(e).len());
    Some((&word[..word.len() - cut], ending.unwrap_or("")))
}

/// The stems the search looks for as prefixes for `word` (lowercase) in `lang`: its
/// [`stem`], and for a Polish verb the same verb with another prefix or none — its stem
/// without the prefix it has (when [`MIN_ROOT`] letters are left), alone and with each of
/// [`PL_PREFIXES`]. Empty where [`stem`] is `None`.
pub(crate) fn forms(lang: Lang, word: &str) -> Vec<String> {
    forms_as(lang, word, &|e: &str| e.to_string())
}

/// [`forms`] of a `word` that writes endings and prefixes as `written` does: the answer
/// check compares folded words ("pozyczylem"), and passes `text::fold`.
pub(crate) fn forms_as(lang: Lang, word: &str, written: &dyn Fn(&str) -> String) -> Vec<String> {
    let Some((stem, ending)) = cut_as(lang, word, written) else {
        return Vec::new();
    };
    let mut forms = vec![stem.to_string()];
    if lang != Lang::Pl {
        return forms;
    }
    // A noun in "-ija"/"-yja" loses its "j" before the "i" of most cases: "żmija" (adder) is
    // "żmii" in "Ukąszenie żmii" (an adder's bite), "szyja" "szyi".
    if let Some(before) = stem.strip_suffix("ij").or_else(|| stem.strip_suffix("yj")) {
        let last = &stem[before.len()..stem.len() - 1];
        forms.push(format!("{before}{last}i"));
    }
    if !PL_VERB_ENDINGS.contains(&ending) {
        return forms;
    }
    let prefixes: Vec<String> = PL_PREFIXES.iter().map(|p| written(p)).collect();
    let root = prefixes
        .iter()
        .filter_map(|p| stem.strip_prefix(p.as_str()))
        .find(|root| root.chars().count() >= MIN_ROOT)
        .unwrap_or(stem);
    for form in
        std::iter::once(root.to_string()).chain(prefixes.iter().map(|p| format!("{p}{root}")))
    {
        if !forms.contains(&form) {
            forms.push(form);
        }
    }
    forms
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

    #[test]
    fn a_polish_verb_is_searched_with_its_prefixes_too() {
        let has = |word: &str, form: &str| forms(Lang::Pl, word).iter().any(|f| f == form);
        let cases = [
            // The infinitive and the past tense lose their endings.
            ("pożyczyć", "pożycz", true),
            ("pożyczyłem", "pożycz", true),
            ("trzymać", "trzym", true),
            // A prefix is put on: "wypożycza", "zatrzymać".
            ("pożyczyć", "wypożycz", true),
            ("trzymać", "zatrzym", true),
            // And taken off: "wypożyczyć" finds "pożyczyć".
            ("wypożyczyć", "pożycz", true),
            // Not down to a root another verb shares: "życz" is to wish.
            ("pożyczyć", "życz", false),
            // A noun keeps its stem alone.
            ("wypożyczanie", "pożycz", false),
            ("przemiennik", "miennik", false),
        ];
        for (word, form, want) in cases {
            assert_eq!(
                has(word, form),
                want,
                "{word} {form}: {:?}",
                forms(Lang::Pl, word)
            );
        }
        // Folded, as the answer check has its words.
        let fold = |s: &str| s.replace(['ż', 'ź'], "z").replace('ł', "l");
        let folded = forms_as(Lang::Pl, "pozyczylem", &fold);
        assert!(folded.contains(&"wypozycz".to_string()), "{folded:?}");
        assert_eq!(forms_as(Lang::Pl, "zmija", &fold), ["zmij", "zmii"]);
        assert_eq!(forms(Lang::Pl, "przemienniku"), ["przemiennik"]);
        assert_eq!(forms(Lang::Pl, "żmija"), ["żmij", "żmii"]);
        assert_eq!(forms(Lang::Pl, "szyja"), ["szyj", "szyi"]);
        assert_eq!(forms(Lang::De, "versammlungen"), ["versammlung"]);
        assert!(forms(Lang::En, "meetings").is_empty());
    }
}
