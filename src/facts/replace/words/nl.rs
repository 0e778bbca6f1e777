//! Dutch. The head noun comes last, as in English and German ("mijn zonne-node"). Left
//! out: "we" (it is English's: a statement opening with it is read as English; "wij" is
//! Dutch), "je" (your, but French "I").

use super::{Kind, Words};

pub(super) const WORDS: Words = Words {
    my: &["mijn"],
    our: &["ons", "onze"],
    articles: &["de", "het", "een"],
    others: &["zijn", "haar", "hun", "jouw", "uw"],
    nobody: &["een"],
    i: &["ik"],
    we: &["wij"],
    i_verbs: &[],
    we_verbs: &[],
    genitives: &["van"],
    not_noun: &[
        "van", "op", "aan", "bij", "met", "naar", "in", "uit", "om", "tot", "te", "en", "of",
        "maar", "sinds", "hier", "daar", "vandaag", "er", "zich", "elke", "gebruikt", "draait",
    ],
    age: &["nieuw", "nieuwe", "oud", "oude", "huidig", "huidige"],
    adverbs: &[
        "nu",
        "nog",
        "ook",
        "al",
        "niet",
        "meer",
        "inmiddels",
        "tegenwoordig",
        "weer",
        "eindelijk",
        "echt",
        "voortaan",
    ],
    bringing: &[
        "heb",
        "hebben",
        "kocht",
        "kochten",
        "verplaatste",
        "zette",
        "gebruik",
        "gebruiken",
    ],
    verbs: &[
        (Kind::Name, &["heet", "heten"]),
        (
            Kind::Meet,
            &["vergadert", "vergaderen", "ontmoeten", "komt"],
        ),
        (
            Kind::Be,
            &[
                "is", "zijn", "was", "waren", "staat", "staan", "ligt", "hangt", "zit",
            ],
        ),
        (Kind::Have, &["heeft", "heb", "hebben", "had"]),
        (Kind::Live, &["woont", "woon", "wonen"]),
    ],
    naming: &["genaamd", "genoemd"],
    value_verbs: &["rijd", "rijdt", "gebruikt"],
    markers: &[
        "nu",
        "inmiddels",
        "tegenwoordig",
        "voortaan",
        "correctie",
        "nieuw",
        "nieuwe",
        "veranderd",
        "gewijzigd",
        "verhuisd",
        "verplaatst",
        "niet meer",
        "in plaats van",
    ],
    openings: &["correctie", "hoi", "trouwens", "nou"],
    elided: &[],
    head_first: false,
};
