//! Italian. The head noun comes first ("il mio nodo solare"), and a possessive follows its
//! article ("il mio"): the possessive says whose. A clause often has no pronoun: the verb
//! says who ("abito", "ho"), and the first-person forms the rule knows are in `i_verbs` and
//! `we_verbs`; "ci" opens "ci troviamo". An elided article ("l'antenna", "dell'acqua") is
//! split off its word. Left out: "i" (the, plural) is English "I".

use super::{Kind, Words};

pub(super) const WORDS: Words = Words {
    my: &["mio", "mia", "miei", "mie"],
    our: &["nostro", "nostra", "nostri", "nostre"],
    articles: &[
        "il", "lo", "la", "l'", "gli", "le", "un", "una", "uno", "un'",
    ],
    others: &[
        "tuo", "tua", "tuoi", "tue", "suo", "sua", "suoi", "sue", "vostro", "vostra", "loro",
    ],
    nobody: &["un", "una", "uno", "un'"],
    i: &["io"],
    we: &["noi", "ci"],
    i_verbs: &["abito", "vivo", "ho", "uso"],
    we_verbs: &["abitiamo", "viviamo", "abbiamo", "usiamo"],
    genitives: &[
        "di", "del", "dello", "della", "dei", "degli", "delle", "dell'",
    ],
    not_noun: &[
        "di", "del", "dello", "della", "dei", "degli", "delle", "dell'", "a", "al", "allo", "alla",
        "ai", "agli", "alle", "all'", "da", "dal", "dalla", "in", "nel", "nello", "nella", "nei",
        "nell'", "su", "sul", "sulla", "sull'", "con", "per", "tra", "fra", "o", "ma", "che",
        "ogni", "qui", "oggi", "usa", "funziona",
    ],
    age: &[
        "nuovo", "nuova", "nuovi", "nuove", "vecchio", "vecchia", "attuale",
    ],
    adverbs: &[
        "ora",
        "adesso",
        "gia",
        "non",
        "piu",
        "ancora",
        "anche",
        "finalmente",
        "davvero",
        "si",
        "mi",
        "ci",
        "ti",
    ],
    bringing: &["ho", "abbiamo", "uso", "usiamo"],
    verbs: &[
        (Kind::Name, &["chiama", "chiamo", "chiamano"]),
        (
            Kind::Meet,
            &[
                "riunisce",
                "riuniamo",
                "riuniscono",
                "incontra",
                "incontriamo",
                "troviamo",
                "ritroviamo",
            ],
        ),
        (Kind::Be, &["e", "sono", "era", "sta", "stanno", "trova"]),
        (Kind::Have, &["ha", "ho", "abbiamo", "hanno"]),
        (
            Kind::Live,
            &["abita", "abito", "abitiamo", "vive", "vivo", "viviamo"],
        ),
    ],
    naming: &["chiamato", "chiamata"],
    value_verbs: &["usa", "guido"],
    markers: &[
        "ora",
        "adesso",
        "aggiornamento",
        "correzione",
        "nuovo",
        "nuova",
        "nuovi",
        "nuove",
        "cambiato",
        "cambiata",
        "trasferito",
        "spostato",
        "invece",
        "non … piu",
    ],
    openings: &[
        "aggiornamento",
        "correzione",
        "ciao",
        "salve",
        "allora",
        "comunque",
    ],
    elided: &[
        "l'", "dell'", "all'", "nell'", "sull'", "dall'", "un'", "c'",
    ],
    head_first: true,
};
