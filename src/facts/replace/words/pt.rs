//! Portuguese. The head noun comes first ("meu repetidor solar"). A clause often has no
//! pronoun: the verb says who ("moro", "tenho"), and the first-person forms the rule knows
//! are in `i_verbs` and `we_verbs`. "No" and "nos" (in the) are not in `not_noun`: "nó"
//! (node) folds to "no", so "meu nó" must stay a noun phrase. "A" is English's article too:
//! a statement opening with "a" alone is read as English reads it (nobody's), "a minha" as
//! Portuguese.

use super::{Kind, Words};

pub(super) const WORDS: Words = Words {
    my: &["meu", "minha", "meus", "minhas"],
    our: &["nosso", "nossa", "nossos", "nossas"],
    articles: &["o", "a", "um", "uma", "uns", "umas"],
    others: &[
        "seu", "sua", "seus", "suas", "teu", "tua", "teus", "tuas", "vosso", "vossa",
    ],
    nobody: &["um", "uma", "uns", "umas"],
    i: &["eu"],
    we: &["nos"],
    i_verbs: &[
        "moro", "vivo", "tenho", "uso", "mudei", "comprei", "coloquei", "troquei", "instalei",
    ],
    we_verbs: &[
        "moramos",
        "vivemos",
        "temos",
        "usamos",
        "mudamos",
        "compramos",
    ],
    genitives: &[
        "de", "do", "da", "dos", "das", "dele", "dela", "deles", "delas",
    ],
    not_noun: &[
        "de", "do", "da", "dos", "das", "em", "na", "nas", "ao", "com", "por", "pelo", "pela",
        "para", "sobre", "desde", "ate", "entre", "e", "ou", "mas", "que", "cada", "aqui", "ali",
        "hoje", "usa", "funciona",
    ],
    age: &[
        "novo", "nova", "novos", "novas", "velho", "velha", "antigo", "antiga", "atual",
    ],
    adverbs: &[
        "agora",
        "ja",
        "nao",
        "ainda",
        "tambem",
        "so",
        "finalmente",
        "realmente",
        "se",
        "me",
        "nos",
    ],
    bringing: &[
        "tenho",
        "temos",
        "mudei",
        "mudamos",
        "comprei",
        "compramos",
        "coloquei",
        "uso",
        "usamos",
        "troquei",
        "instalei",
    ],
    verbs: &[
        (Kind::Name, &["chama", "chamo", "chamam", "chama-se"]),
        (
            Kind::Meet,
            &["reune", "reunem", "reunimos", "encontra", "encontramos"],
        ),
        (
            Kind::Be,
            &["e", "sao", "esta", "estao", "era", "foi", "fica"],
        ),
        (Kind::Have, &["tem", "tenho", "temos", "tinha"]),
        (
            Kind::Live,
            &[
                "mora", "moro", "moramos", "moram", "vive", "vivo", "vivemos",
            ],
        ),
    ],
    naming: &["chamado", "chamada"],
    value_verbs: &["usa", "dirijo"],
    markers: &[
        "agora",
        "atualizacao",
        "atualizado",
        "correcao",
        "novo",
        "nova",
        "novos",
        "novas",
        "mudei",
        "mudou",
        "mudamos",
        "mudado",
        "troquei",
        "trocado",
        "em vez",
        "ja nao",
        "nao … mais",
    ],
    openings: &[
        "atualizacao",
        "correcao",
        "ola",
        "oi",
        "bem",
        "entao",
        "alias",
    ],
    elided: &[],
    head_first: true,
};
