//! Whether the daemon itself declines a question the notes do not answer: one about the
//! operator's own world ("our", "the club's", the treasurer, a word of `[knowledge] about`, a
//! heading or a file of the folder it names, a place or person its documents name) that no
//! passage answers gets "Not in my notes." without the model. Pure, on the question and what
//! its search found; the words are per-language tables, each looked for in every language.
//!
//! Why: told "if this asks about the club and the notes don't answer it, say Not in my notes",
//! Qwen2.5-0.5B answered "What is the password of the club wifi?" with "password123", and 5 of
//! the knowledge bench's 12 uncovered questions with made-up values (issue 38). Which
//! questions those are the daemon knows: no passage was chosen, and none left out is squarely
//! about the question (`choose::squarely`: then the model sees the no-notes line, as before)
//! and holds a value of the kind it asks for (`choose::holding`).
//! An everyday question (a how-to, advice, what a word means) always goes to the model, even
//! "for our group": those are what a newcomer asks, and the model answers them well.

use super::choose::{self, Verdict};
use super::search::Found;
use crate::lang::Lang;
use crate::mesh::matcher::{self, fold, holds_entry, words};

/// What the turn does with a question, as far as the documents go.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Decision {
    /// The model answers, with the note (or without one).
    Model,
    /// The daemon replies "Not in my notes." (`lang::Say::NotInNotes`).
    NotInNotes,
}

/// A heading the question names at least this share of makes it about the documents
/// ("last year's rally" names a third of "Rally and bring-and-buy").
pub(crate) const NAMED_HEADING: f64 = 0.3;

/// One language's words.
struct Words {
    /// The group and its people: "our", "club", "the treasurer".
    group: &'static [&'static str],
    /// A how-to, advice, or what a word means: the model's, whatever it names.
    everyday: &'static [&'static str],
}

fn table(lang: Lang) -> &'static Words {
    match lang {
        Lang::En => &EN,
        Lang::De => &DE,
        Lang::Es => &ES,
        Lang::Pt => &PT,
        Lang::Fr => &FR,
        Lang::It => &IT,
        Lang::Nl => &NL,
        Lang::Pl => &PL,
    }
}

const EN: Words = Words {
    group: &[
        "we",
        "our",
        "ours",
        "club",
        "committee",
        "member",
        "members",
        "membership",
        "treasurer",
        "secretary",
        "chairman",
        "chairwoman",
        "chairperson",
        "president",
    ],
    everyday: &[
        "how far",
        "what range",
        "what size",
        "how big",
        "how large",
        "do i need",
        "how much power",
        "how do i",
        "how can i",
        "how do we",
        "how can we",
        "how to",
        "how should",
        "should",
        "best",
        "good",
        "better",
        "why",
        "what is a",
        "what is an",
        "what's a",
        "mean",
        "means",
        "tips",
        "advice",
        "recommend*",
        "is it rude",
        "is it ok",
        "is it okay",
        "is it polite",
        "explain",
        "difference",
    ],
};

const DE: Words = Words {
    group: &[
        "wir",
        "unser*",
        "verein*",
        "club*",
        "klub*",
        "vorstand",
        "mitglied*",
        "kassenwart*",
        "kassierer*",
        "schriftfuhrer*",
        "vorsitzende*",
    ],
    everyday: &[
        "wie weit",
        "welche reichweite",
        "wie gross",
        "welche grosse",
        "brauche ich",
        "wie kann ich",
        "wie mache ich",
        "wie sollte",
        "sollte",
        "soll ich",
        "am besten",
        "gut",
        "gute*",
        "besser",
        "warum",
        "was ist ein",
        "was ist eine",
        "bedeutet",
        "tipps",
        "empfiehl*",
        "ist es unhoflich",
        "ist es ok",
        "erklar*",
        "unterschied",
    ],
};

const ES: Words = Words {
    group: &[
        "nosotros",
        "nosotras",
        "nuestro",
        "nuestra",
        "nuestros",
        "nuestras",
        "club",
        "asociacion",
        "comite",
        "directiva",
        "socio",
        "socios",
        "miembro",
        "miembros",
        "tesorero",
        "tesorera",
        "secretario",
        "secretaria",
        "presidente",
    ],
    everyday: &[
        "hasta que distancia",
        "que distancia",
        "que alcance",
        "que tamano",
        "que tan grande",
        "necesito",
        "como puedo",
        "como hago",
        "como se",
        "deberia",
        "mejor",
        "buen",
        "buena",
        "por que",
        "que es un",
        "que es una",
        "significa",
        "consejo*",
        "recomienda*",
        "es de mala educacion",
        "esta bien",
        "explica*",
        "diferencia",
    ],
};

const PT: Words = Words {
    group: &[
        "nosso",
        "nossa",
        "nossos",
        "nossas",
        "clube",
        "associacao",
        "diretoria",
        "socio",
        "socios",
        "membro",
        "membros",
        "tesoureiro",
        "tesoureira",
        "secretario",
        "presidente",
    ],
    everyday: &[
        "que distancia",
        "qual distancia",
        "qual o alcance",
        "ate onde",
        "que tamanho",
        "quao grande",
        "preciso",
        "como posso",
        "como mantenho",
        "como descubro",
        "como faco",
        "como faco",
        "como se",
        "deveria",
        "devo",
        "melhor",
        "bom",
        "boa",
        "por que",
        "o que e um",
        "o que e uma",
        "significa",
        "dica*",
        "conselho*",
        "recomenda*",
        "e falta de educacao",
        "explica*",
        "diferenca",
    ],
};

const FR: Words = Words {
    group: &[
        "notre",
        "nos",
        "club",
        "association",
        "comite",
        "membre",
        "membres",
        "adhesion",
        "cotisation",
        "tresorier",
        "tresoriere",
        "secretaire",
        "president",
        "presidente",
    ],
    everyday: &[
        "quelle distance",
        "quelle portee",
        "quelle taille",
        "ai je besoin",
        "faut il",
        "comment puis je",
        "comment faire",
        "veut dire",
        "est quoi un",
        "est quoi une",
        "comment on",
        "devrais",
        "devrait",
        "meilleur*",
        "mieux",
        "bon",
        "bonne",
        "pourquoi",
        "qu'est ce qu'un",
        "qu'est ce qu'une",
        "signifie",
        "conseil*",
        "recommande*",
        "est il impoli",
        "explique*",
        "difference",
    ],
};

const IT: Words = Words {
    group: &[
        "noi",
        "nostro",
        "nostra",
        "nostri",
        "nostre",
        "club",
        "associazione",
        "comitato",
        "direttivo",
        "socio",
        "soci",
        "membro",
        "membri",
        "tesoriere",
        "segretario",
        "presidente",
    ],
    everyday: &[
        "quanto lontano",
        "che distanza",
        "che portata",
        "che dimensione",
        "quanto grande",
        "mi serve",
        "come posso",
        "come faccio",
        "vuol dire",
        "quanto deve essere",
        "come si",
        "dovrei",
        "dovrebbe",
        "meglio",
        "migliore",
        "buon",
        "buona",
        "perche",
        "cos'e un",
        "cos'e una",
        "significa",
        "consigli*",
        "e maleducato",
        "spiega*",
        "differenza",
    ],
};

const NL: Words = Words {
    group: &[
        "wij",
        "onze",
        "ons",
        "club",
        "vereniging",
        "bestuur",
        "lid",
        "leden",
        "lidmaatschap",
        "penningmeester",
        "secretaris",
        "voorzitter",
    ],
    everyday: &[
        "hoe ver",
        "welk bereik",
        "hoe groot",
        "welke maat",
        "heb ik nodig",
        "hoe kan ik",
        "hoe moet ik",
        "hoe doe ik",
        "moet ik",
        "beste",
        "goed",
        "goede",
        "beter",
        "waarom",
        "wat is een",
        "betekent",
        "tips",
        "advies",
        "aanraden",
        "is het onbeleefd",
        "uitleg*",
        "verschil",
    ],
};

const PL: Words = Words {
    group: &[
        "nasz*",
        "klub*",
        "stowarzyszeni*",
        "zarzad*",
        "czlon*",
        "skarbnik*",
        "sekretarz*",
        "prezes*",
    ],
    everyday: &[
        "jak daleko",
        "jaki zasieg",
        "jaki rozmiar",
        "jak duzy",
        "potrzebuje",
        "jak moge",
        "jak zrobic",
        "jak mam",
        "jak sprawic",
        "jak sprawdzic",
        "jak utrzymac",
        "jak ustawic",
        "kogo zapytac",
        "najlepiej",
        "niegrzeczn*",
        "powinienem",
        "powinnam",
        "najlepsz*",
        "dobr*",
        "lepsz*",
        "dlaczego",
        "czemu",
        "co to jest",
        "co znaczy",
        "oznacza",
        "porad*",
        "polec*",
        "czy to niegrzeczne",
        "wyjasnij",
        "roznica",
    ],
};

/// Capitalised words that name no place or person of the documents, besides the kit the
/// mesh's matcher knows (`matcher::not_a_name`): more of the radio's.
const NOT_NAMES: &[&str] = &["i", "aprs", "dmr", "vhf", "uhf", "hf", "fm", "ok"];

/// Words of `about` that say nothing of the group ("the club, its repeaters and events").
const ABOUT_STOP: &[&str] = &[
    "this", "that", "these", "those", "their", "with", "about", "from", "and", "its", "the",
];

fn any(message: &[&str], pick: fn(&Words) -> &'static [&'static str]) -> bool {
    Lang::ALL
        .iter()
        .any(|l| pick(table(*l)).iter().any(|e| holds_entry(message, e)))
}

/// Whether `question` is a how-to, advice or what a word means: the model's.
pub(crate) fn everyday(question: &str) -> bool {
    let folded = fold(question);
    any(&words(&folded), |t| t.everyday)
}

/// Whether `question` is about the operator's own world, as far as `found` (its search) and
/// `about` (`[knowledge] about`; the default says nothing of the group) tell.
pub(crate) fn local(question: &str, found: &Found, about: &str) -> bool {
    let folded = fold(question);
    let w = words(&folded);
    if any(&w, |t| t.group) {
        return true;
    }
    if about.trim() != super::DEFAULT_ABOUT {
        let about = fold(about);
        let named = words(&about)
            .into_iter()
            .filter(|a| a.chars().count() >= 4 && !ABOUT_STOP.contains(a))
            .any(|a| w.contains(&a));
        if named {
            return true;
        }
    }
    // What the search found says something of the question itself only when it was
    // searched alone: a follow-up's hits name the message before it.
    if found.with_previous {
        return names_what_the_documents_name(question, found);
    }
    if found.hits.iter().any(|h| h.topic >= NAMED_HEADING) {
        return true;
    }
    // A file the question names whole: "field day" for field-day.md.
    let file_named = found.hits.iter().any(|h| {
        let stem = h.path.rsplit('/').next().unwrap_or(&h.path);
        let stem = stem.rsplit_once('.').map_or(stem, |(s, _)| s);
        let stem = fold(stem);
        let parts: Vec<&str> = words(&stem)
            .into_iter()
            .flat_map(|p| p.split(['-', '_']))
            .filter(|p| p.chars().count() >= 3)
            .collect();
        !parts.is_empty() && parts.iter().all(|p| w.contains(p))
    });
    file_named || names_what_the_documents_name(question, found)
}

/// Whether `question` writes a name (a capitalised word after its first, not the kit's) that
/// a passage its search found writes too: "Crane Farm", "the Plough".
fn names_what_the_documents_name(question: &str, found: &Found) -> bool {
    question
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .skip(1)
        .filter(|w| w.chars().next().is_some_and(char::is_uppercase) && w.chars().count() >= 2)
        .filter(|w| {
            let f = fold(w);
            !NOT_NAMES.contains(&f.as_str()) && !matcher::not_a_name(&f)
        })
        .any(|name| {
            found.hits.iter().any(|h| {
                h.text
                    .split(|c: char| !c.is_alphanumeric())
                    .any(|t| t == name)
                    || h.heading
                        .split(|c: char| !c.is_alphanumeric())
                        .any(|t| t == name)
            })
        })
}

/// What the turn does with `question`, searched as `found`, with `about`: the daemon
/// declines a question about the operator's own world that no passage answers.
pub(crate) fn decide(question: &str, found: &Found, about: &str) -> Decision {
    // A passage that holds no value of the kind asked cannot answer, squarely about the
    // question or not.
    let squarely = found
        .hits
        .iter()
        .zip(&found.verdicts)
        .any(|(h, v)| *v != Verdict::Lacks && choose::squarely(h));
    let answered = !found.chosen().is_empty() || squarely;
    if !found.searched || answered || everyday(question) || !local(question, found, about) {
        Decision::Model
    } else {
        Decision::NotInNotes
    }
}

#[cfg(test)]
mod tests;
