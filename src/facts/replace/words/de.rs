//! German, as the rule read it before there were tables. German statements were read with
//! the English words too then; of those, "in" and "also" are German words as well and are
//! listed here. "Ein" opens a statement about the speaker's or the group's thing, as before
//! ("Eine neue Antenne steht jetzt auf dem Dach"), where English "a" opens nobody's.

use super::{Kind, Words};

pub(super) const WORDS: Words = Words {
    my: &["mein", "meine", "meinen", "meinem", "meiner"],
    our: &["unser", "unsere", "unseren", "unserem", "unserer", "unsre"],
    articles: &[
        "der", "die", "das", "den", "dem", "ein", "eine", "einen", "einem",
    ],
    others: &[
        "sein", "seine", "ihr", "ihre", "dein", "deine", "euer", "eure",
    ],
    nobody: &[],
    i: &["ich"],
    we: &["wir"],
    i_verbs: &[],
    we_verbs: &[],
    genitives: &[
        "von", "vom", "meines", "meiner", "deines", "deiner", "seines", "seiner", "ihres",
        "unseres",
    ],
    not_noun: &[
        "lauft", "auf", "in", "im", "am", "an", "um", "bei", "mit", "zu", "zum", "zur", "und",
        "aber", "seit", "sich", "uns", "heute", "hier", "dort", "nutzt", "benutzt",
    ],
    age: &[
        "neu",
        "neue",
        "neues",
        "neuer",
        "neuen",
        "neuem",
        "alt",
        "alte",
        "alter",
        "altes",
        "alten",
        "aktuelle",
        "aktuelles",
        "aktueller",
    ],
    adverbs: &[
        "jetzt",
        "nun",
        "nicht",
        "mehr",
        "auch",
        "also",
        "inzwischen",
        "mittlerweile",
        "neuerdings",
        "wieder",
    ],
    bringing: &[
        "habe", "hab", "haben", "bekam", "kaufte", "nutze", "benutze", "verlegte", "stellte",
    ],
    verbs: &[
        (Kind::Name, &["heisst", "heisse", "heissen"]),
        (Kind::Meet, &["trifft", "treffen", "treffe"]),
        (
            Kind::Be,
            &["ist", "sind", "war", "steht", "stehen", "liegt", "hangt"],
        ),
        (Kind::Have, &["hat", "haben", "habe"]),
        (Kind::Live, &["wohnt", "wohne", "wohnen"]),
    ],
    naming: &["genannt"],
    value_verbs: &["fahre", "fahrt"],
    markers: &[
        "jetzt",
        "neu",
        "neue",
        "neues",
        "neuer",
        "neuen",
        "neuem",
        "nun",
        "umgezogen",
        "geandert",
        "stattdessen",
        "inzwischen",
        "mittlerweile",
        "neuerdings",
        "korrektur",
        "verlegt",
        "gewechselt",
        "nicht mehr",
    ],
    openings: &["korrektur", "hallo"],
    elided: &[],
    head_first: false,
};
