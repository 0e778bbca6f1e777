//! Polish. There is no article, and a clause often has no pronoun: the verb says who
//! ("mieszkam", "mam"), and the first-person forms the rule knows are in `i_verbs` and
//! `we_verbs`. The owner is said by the noun's case ("znak mojego kolegi": no word before
//! it), so `genitives` is empty: such a statement opens with no possessive and is read as
//! nobody's. The head noun comes last or first ("mój domowy węzeł", "znak wywoławczy"); the
//! rule takes the last, the same in both statements it compares. "To" is a verb here ("mój
//! znak to SP9QRZ"); an English statement, read with English's table, keeps its "to". Left
//! out: "my" (we) is English "my", "ich" (their) German "ich".

use super::{Kind, Words};

pub(super) const WORDS: Words = Words {
    my: &[
        "moj", "moja", "moje", "mojego", "mojej", "moim", "moi", "moich",
    ],
    our: &[
        "nasz", "nasza", "nasze", "naszego", "naszej", "naszym", "nasi",
    ],
    articles: &[],
    others: &[
        "twoj", "twoja", "twoje", "twojego", "twojej", "jego", "jej", "wasz", "wasza", "wasze",
    ],
    nobody: &[],
    i: &["ja"],
    we: &[],
    i_verbs: &[
        "mieszkam",
        "mam",
        "uzywam",
        "przenioslem",
        "przenioslam",
        "kupilem",
        "kupilam",
        "zmienilem",
        "zmienilam",
    ],
    we_verbs: &["mieszkamy", "mamy", "uzywamy", "spotykamy", "przenieslismy"],
    genitives: &[],
    not_noun: &[
        "w", "we", "na", "z", "ze", "do", "od", "po", "przy", "u", "o", "dla", "i", "a", "oraz",
        "lub", "ale", "co", "kazdy", "tutaj", "tu", "tam", "dzis", "dzisiaj", "uzywa", "dziala",
    ],
    age: &[
        "nowy", "nowa", "nowe", "nowego", "nowej", "stary", "stara", "stare", "starego", "obecny",
        "obecna", "aktualny", "aktualna",
    ],
    adverbs: &[
        "teraz", "juz", "nie", "jeszcze", "tez", "takze", "wreszcie", "naprawde", "sie", "obecnie",
    ],
    bringing: &[
        "mam",
        "mamy",
        "przenioslem",
        "przenioslam",
        "przenieslismy",
        "kupilem",
        "kupilam",
        "uzywam",
        "zmienilem",
        "zmienilam",
    ],
    verbs: &[
        (Kind::Name, &["nazywa", "nazywam", "nazywaja"]),
        (
            Kind::Meet,
            &["spotyka", "spotykamy", "spotykaja", "zbiera", "zbieramy"],
        ),
        (
            Kind::Be,
            &[
                "jest", "sa", "byl", "byla", "bylo", "to", "stoi", "stoja", "wisi",
            ],
        ),
        (Kind::Have, &["ma", "mam", "mamy", "maja"]),
        (
            Kind::Live,
            &["mieszka", "mieszkam", "mieszkamy", "mieszkaja"],
        ),
    ],
    naming: &[],
    value_verbs: &["jezdze", "uzywa"],
    markers: &[
        "teraz",
        "obecnie",
        "aktualizacja",
        "korekta",
        "poprawka",
        "nowy",
        "nowa",
        "nowe",
        "nowego",
        "zmienilem",
        "zmienilam",
        "zmienil",
        "zmienila",
        "przenioslem",
        "przenioslam",
        "przeprowadzilem",
        "przeprowadzilam",
        "zamiast",
        "juz nie",
        "od teraz",
    ],
    openings: &[
        "aktualizacja",
        "korekta",
        "poprawka",
        "czesc",
        "hej",
        "witam",
    ],
    elided: &[],
    head_first: false,
};
