//! The words a club's documents write for the everyday words people ask with — above all the
//! names of jobs, and a few words of first aid ("bitten" for "bite" where the stems differ):
//! "Who looks after the club's money?" shares no word with "| Treasurer | Priya Raman |", and
//! "Who is in charge of the Meshtastic nodes?" none with "The Meshtastic coordinator, Ben
//! Carrow, looks after the fixed nodes" but the nodes. The knowledge folder's full-text search
//! looks for a row's document words wherever the question writes one of its asking words
//! (`store::fts::Query::with_phrases`), as one term: a passage that holds either covers it.
//!
//! One table per language, each looked for in every language (a question's language is a
//! guess, and "geld" is Dutch and German alike); every word folded as `text::fold` folds
//! (lowercase, no diacritics: "tresoriere", "zustandig"), and every form that is asked with.
//! The full-text index drops diacritics too, so a folded word finds the written one ("ł" it
//! keeps: no written word here has one). A newcomer adds a line, no code. An embedding model
//! (`[knowledge.embeddings]`) relates words by meaning without a table, but the defaults have
//! none, and all-MiniLM-L6-v2 did not relate these (docs/benchmarks.md).

/// One relation: the words a question asks with, and the words documents write for it.
struct Row {
    asked: &'static [&'static str],
    written: &'static [&'static str],
    /// Only in a question that asks who ([`asks_who`]): "Who looks after …?" asks for
    /// whoever's job it is, but "What does the site look like?" for no job.
    who: bool,
}

const EN: &[Row] = &[
    Row {
        asked: &["adult", "adults"],
        written: &["full", "ordinary", "regular", "standard"],
        who: false,
    },
    Row {
        asked: &["money", "cash", "funds", "finances", "accounts", "subs"],
        written: &["treasurer"],
        who: false,
    },
    Row {
        asked: &[
            "looks",
            "look",
            "manages",
            "manage",
            "handles",
            "handle",
            "runs",
            "run",
            "charge",
            "responsible",
            "keeps",
            "minds",
        ],
        written: &[
            "treasurer",
            "secretary",
            "chair",
            "chairman",
            "chairwoman",
            "coordinator",
            "officer",
            "organiser",
            "organizer",
        ],
        who: true,
    },
];

const DE: &[Row] = &[
    Row {
        asked: &["erwachsene", "erwachsenen", "erwachsener"],
        written: &[
            "vollmitglied",
            "vollmitglieder",
            "ordentliche",
            "ordentliches",
        ],
        who: false,
    },
    Row {
        asked: &["geld", "kasse", "finanzen", "beitrage"],
        written: &[
            "kassenwart",
            "kassenwartin",
            "schatzmeister",
            "schatzmeisterin",
        ],
        who: false,
    },
    Row {
        asked: &[
            "verwaltet",
            "kummert",
            "zustandig",
            "verantwortlich",
            "betreut",
            "leitet",
        ],
        written: &[
            "vorsitzende",
            "vorsitzender",
            "schriftfuhrer",
            "schriftfuhrerin",
            "kassenwart",
            "kassenwartin",
            "schatzmeister",
            "schatzmeisterin",
            "geratewart",
            "koordinator",
            "koordinatorin",
            "beauftragte",
            "beauftragter",
        ],
        who: true,
    },
];

const ES: &[Row] = &[
    Row {
        asked: &["adulto", "adultos", "adulta"],
        written: &["pleno", "ordinario", "numerario"],
        who: false,
    },
    Row {
        asked: &["dinero", "cuentas", "finanzas", "cuotas"],
        written: &["tesorero", "tesorera"],
        who: false,
    },
    Row {
        asked: &[
            "lleva",
            "encarga",
            "responsable",
            "ocupa",
            "gestiona",
            "maneja",
            "administra",
            "cuida",
        ],
        written: &[
            "presidente",
            "presidenta",
            "secretario",
            "secretaria",
            "tesorero",
            "tesorera",
            "coordinador",
            "coordinadora",
            "responsable",
        ],
        who: true,
    },
];

const FR: &[Row] = &[
    Row {
        asked: &["adulte", "adultes"],
        written: &["titulaire", "ordinaire"],
        who: false,
    },
    Row {
        asked: &["argent", "caisse", "finances", "comptes", "cotisations"],
        written: &["tresorier", "tresoriere"],
        who: false,
    },
    Row {
        asked: &[
            "gere",
            "occupe",
            "responsable",
            "charge",
            "garde",
            "administre",
        ],
        written: &[
            "president",
            "presidente",
            "secretaire",
            "tresorier",
            "tresoriere",
            "coordinateur",
            "coordinatrice",
            "responsable",
        ],
        who: true,
    },
];

const IT: &[Row] = &[
    Row {
        asked: &["adulto", "adulti", "adulta"],
        written: &["ordinario", "ordinari", "effettivo"],
        who: false,
    },
    Row {
        asked: &["soldi", "denaro", "cassa", "conti", "finanze", "quote"],
        written: &["tesoriere", "tesoriera"],
        who: false,
    },
    Row {
        asked: &[
            "tiene",
            "gestisce",
            "occupa",
            "responsabile",
            "cura",
            "amministra",
        ],
        written: &[
            "presidente",
            "segretario",
            "segretaria",
            "tesoriere",
            "tesoriera",
            "coordinatore",
            "coordinatrice",
            "responsabile",
        ],
        who: true,
    },
];

const PT: &[Row] = &[
    // A bite is asked with its verb and written as first aid's noun: "Uma víbora picou …"
    // shares no word with "Picada de víbora" (stems: "picou", "picad").
    Row {
        asked: &["picou", "picado", "mordeu", "mordido"],
        written: &["picada", "mordida"],
        who: false,
    },
    Row {
        asked: &["adulto", "adultos", "adulta"],
        written: &["efetivo", "ordinario", "pleno"],
        who: false,
    },
    Row {
        asked: &["dinheiro", "caixa", "financas", "contas", "quotas"],
        written: &["tesoureiro", "tesoureira"],
        who: false,
    },
    Row {
        asked: &[
            "cuida",
            "responsavel",
            "gerencia",
            "administra",
            "encarregado",
            "encarregada",
        ],
        written: &[
            "presidente",
            "secretario",
            "secretaria",
            "tesoureiro",
            "tesoureira",
            "coordenador",
            "coordenadora",
            "responsavel",
        ],
        who: true,
    },
];

const NL: &[Row] = &[
    Row {
        asked: &["volwassene", "volwassenen"],
        written: &["gewoon", "volwaardig"],
        who: false,
    },
    Row {
        asked: &["geld", "kas", "financien", "contributie"],
        written: &["penningmeester"],
        who: false,
    },
    Row {
        asked: &["beheert", "verantwoordelijk", "zorgt", "regelt", "leidt"],
        written: &[
            "voorzitter",
            "secretaris",
            "penningmeester",
            "coordinator",
            "beheerder",
        ],
        who: true,
    },
];

const PL: &[Row] = &[
    // "Kogoś ugryzła żmija" (an adder bit someone); first aid writes "Ukąszenie żmii".
    Row {
        asked: &[
            "ugryzla",
            "ugryzl",
            "ugryzlo",
            "ugryzli",
            "ugryzly",
            "ugryziony",
            "ugryziona",
            "pogryzla",
            "pogryzl",
        ],
        written: &["ukaszenie"],
        who: false,
    },
    Row {
        asked: &["dorosly", "doroslego", "doroslych", "dorosla", "doroslej"],
        written: &["zwyczajny"],
        who: false,
    },
    Row {
        asked: &[
            "pieniadze",
            "pieniedzy",
            "pieniedzmi",
            "kasa",
            "kasy",
            "kase",
            "finanse",
            "finansow",
            "skladki",
            "skladek",
        ],
        written: &["skarbnik", "skarbniczka"],
        who: false,
    },
    Row {
        asked: &[
            "pilnuje",
            "odpowiada",
            "odpowiedzialny",
            "odpowiedzialna",
            "zajmuje",
            "opiekuje",
            "zarzadza",
            "prowadzi",
        ],
        written: &[
            "prezes",
            "sekretarz",
            "skarbnik",
            "skarbniczka",
            "koordynator",
            "koordynatorka",
            "opiekun",
        ],
        who: true,
    },
];

const ALL: &[&[Row]] = &[EN, DE, ES, FR, IT, PT, NL, PL];

/// The words that ask who, in every language ("wie" is Dutch's; German's "wie" asks how, and
/// "Wie verwaltet man …?" is rare).
const WHO: &[&str] = &[
    "who", "whom", "wer", "wen", "wem", "quien", "quienes", "qui", "chi", "quem", "wie", "kto",
    "kogo", "komu",
];

/// A question, `folded`, asks who when one of its first three words is a who-word ("¿Quién
/// …?", "À qui …?").
pub(crate) fn asks_who(folded: &str) -> bool {
    folded
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .take(3)
        .any(|w| WHO.contains(&w))
}

/// Whether the folded `word` names a job: a word documents write for what a who-question
/// asks ("treasurer", "kassenwartin", "coordinatore"), or one declined ("opiekuna").
pub(crate) fn is_job(word: &str) -> bool {
    ALL.iter()
        .flat_map(|rows| rows.iter())
        .filter(|row| row.who)
        .flat_map(|row| row.written)
        .any(|w| *w == word || word.starts_with(w) && word.len() <= w.len() + JOB_ENDING)
}

/// The letters a job's name takes at most as it is declined ("opiekuna", "opiekunem" of
/// "opiekun"; "treasurers").
const JOB_ENDING: usize = 3;

/// Whether the folded `word` asks for whoever's job it is ("looks", "verwaltet", "responsable"
/// in a who-question).
pub(crate) fn asks_for_a_job(word: &str) -> bool {
    ALL.iter()
        .flat_map(|rows| rows.iter())
        .any(|row| row.who && row.asked.contains(&word))
}

/// The words documents write for `word` (folded), in every language; the rows that need a who-question only when `who`. None for a word no
/// row asks with.
pub(crate) fn written_for(word: &str, who: bool) -> Vec<&'static str> {
    let mut out: Vec<&'static str> = Vec::new();
    for row in ALL.iter().flat_map(|rows| rows.iter()) {
        if (who || !row.who) && row.asked.contains(&word) {
            for w in row.written {
                if !out.contains(w) {
                    out.push(w);
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::fold;

    #[test]
    fn an_everyday_word_finds_the_jobs_name_in_each_language() {
        let cases: &[(&str, bool, &[&str])] = &[
            ("money", false, &["treasurer"]),
            // German and Dutch alike.
            (
                "geld",
                false,
                &[
                    "kassenwart",
                    "kassenwartin",
                    "schatzmeister",
                    "schatzmeisterin",
                    "penningmeester",
                ],
            ),
            ("dinero", false, &["tesorero", "tesorera"]),
            ("argent", false, &["tresorier", "tresoriere"]),
            ("soldi", false, &["tesoriere", "tesoriera"]),
            ("dinheiro", false, &["tesoureiro", "tesoureira"]),
            ("kasy", false, &["skarbnik", "skarbniczka"]),
            ("ugryzla", false, &["ukaszenie"]),
            ("picou", false, &["picada", "mordida"]),
            // A verb of looking after names a job only in a question that asks who.
            ("looks", false, &[]),
            (
                "pilnuje",
                true,
                &[
                    "prezes",
                    "sekretarz",
                    "skarbnik",
                    "skarbniczka",
                    "koordynator",
                    "koordynatorka",
                    "opiekun",
                ],
            ),
            (
                "beheert",
                true,
                &[
                    "voorzitter",
                    "secretaris",
                    "penningmeester",
                    "coordinator",
                    "beheerder",
                ],
            ),
            // No row asks with these.
            ("nodes", true, &[]),
            ("treasurer", true, &[]),
            ("", true, &[]),
        ];
        for (word, who, want) in cases {
            assert_eq!(written_for(word, *who), *want, "{word}");
        }
        // Spanish and French write "responsable" alike; each language's jobs come in.
        let responsable = written_for("responsable", true);
        assert!(responsable.contains(&"tesorera") && responsable.contains(&"tresoriere"));
    }

    #[test]
    fn a_question_asks_who_by_its_first_words() {
        let cases = [
            ("Who looks after the club's money?", true),
            ("Wer verwaltet das Geld des Clubs?", true),
            ("¿Quién lleva el dinero del club?", true),
            (
                "À qui je demande si je veux emprunter l'analyseur d'antenne ?",
                true,
            ),
            ("Chi tiene i soldi del club?", true),
            ("Quem cuida do dinheiro do clube?", true),
            ("Wie beheert het geld van de club?", true),
            ("Kogo poprosić, żeby pożyczyć analizator antenowy?", true),
            ("What does the site look like?", false),
            ("Do you know who runs the net? I was wondering", false),
            ("", false),
        ];
        for (text, want) in cases {
            assert_eq!(asks_who(&fold(text)), want, "{text}");
        }
    }

    #[test]
    fn every_word_is_one_lowercase_word_asked_once_per_language() {
        for rows in ALL {
            let mut seen: Vec<&str> = Vec::new();
            for row in rows.iter() {
                assert!(!row.asked.is_empty() && !row.written.is_empty());
                for w in row.asked.iter().chain(row.written) {
                    assert_eq!(fold(w), *w, "{w}: folded");
                    // Letters only: a word is quoted into a full-text query as it is.
                    assert!(
                        w.chars().all(char::is_alphabetic),
                        "{w}: one word, letters only"
                    );
                }
                for w in row.asked {
                    assert!(!seen.contains(w), "{w} asked twice");
                    seen.push(w);
                }
            }
        }
    }
}
