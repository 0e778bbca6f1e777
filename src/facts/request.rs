//! Questions without a question mark and requests, told by how they open, in meshai's eight
//! languages: "Give me a tip for hiking in the rain" was kept as a fact and `!summary` listed
//! it under "You told me" (reported). A sentence is a request when it opens with an
//! imperative that asks for something ("give", "tell", "explain", "dime", "erkläre", …,
//! after an optional "please"), and a question when it opens as one: an interrogative that
//! only asks ("¿qué", "quel", "czy", "welche"), an interrogative followed by a verb ("what
//! is", "wie heißt", "wat is"), or a verb before its subject ("can you", "kannst du", "kun
//! je", "peux-tu"). An interrogative that also opens a clause ("When I hike I take a
//! poncho", "Wo ich wohne, regnet es") is a question only before a verb, so such a statement
//! stays a statement. "Remember …" and "Call me …" tell something: they are no request here.

/// Words that open a request for something, lowercase.
const IMPERATIVES: &[&str] = &[
    // en
    "give",
    "tell",
    "explain",
    "show",
    "list",
    "describe",
    "suggest",
    "recommend",
    "write",
    "translate",
    "find",
    "help",
    "calculate",
    "compare",
    "summarize",
    "summarise",
    "define",
    "teach",
    "search",
    "share",
    "recite",
    // de
    "gib",
    "sag",
    "erzähl",
    "erzähle",
    "erklär",
    "erkläre",
    "zeig",
    "zeige",
    "nenn",
    "nenne",
    "schreib",
    "schreibe",
    "empfiehl",
    "hilf",
    "übersetz",
    "übersetze",
    "finde",
    "such",
    "suche",
    "beschreib",
    "beschreibe",
    "vergleiche",
    "rechne",
    "berechne",
    // es
    "dame",
    "dime",
    "explica",
    "explícame",
    "cuéntame",
    "muestra",
    "muéstrame",
    "recomienda",
    "recomiéndame",
    "sugiere",
    "sugiéreme",
    "escribe",
    "escríbeme",
    "traduce",
    "ayúdame",
    "busca",
    "describe",
    "compara",
    "calcula",
    "enséñame",
    // pt
    "dê",
    "diga",
    "explique",
    "conte",
    "mostre",
    "recomende",
    "sugira",
    "escreva",
    "traduza",
    "ajude",
    "busque",
    "descreva",
    "calcule",
    "dá-me",
    "diz-me",
    "diga-me",
    "explica-me",
    "conta-me",
    "mostra-me",
    "ajuda-me",
    // fr
    "donne",
    "donne-moi",
    "dis",
    "dis-moi",
    "explique",
    "explique-moi",
    "raconte",
    "raconte-moi",
    "montre",
    "montre-moi",
    "recommande",
    "recommande-moi",
    "suggère",
    "écris",
    "traduis",
    "aide-moi",
    "cherche",
    "décris",
    "calcule",
    // it
    "dammi",
    "dimmi",
    "spiega",
    "spiegami",
    "raccontami",
    "mostrami",
    "consigliami",
    "suggerisci",
    "suggeriscimi",
    "scrivi",
    "scrivimi",
    "traduci",
    "aiutami",
    "cerca",
    "descrivi",
    "confronta",
    "calcola",
    // nl
    "geef",
    "vertel",
    "leg",
    "toon",
    "noem",
    "schrijf",
    "vertaal",
    "zoek",
    "beschrijf",
    "vergelijk",
    "bereken",
    // pl
    "daj",
    "powiedz",
    "wyjaśnij",
    "opowiedz",
    "pokaż",
    "poleć",
    "zaproponuj",
    "napisz",
    "przetłumacz",
    "pomóż",
    "znajdź",
    "opisz",
    "porównaj",
    "oblicz",
    "podaj",
];

/// "Please" and its like, and a leading "me" (Brazilian "me dê", "me diga"), skipped before
/// an imperative.
const PLEASE: &[&str] = &[
    "me",
    "please",
    "pls",
    "plz",
    "bitte",
    "por",
    "favor",
    "s'il",
    "te",
    "plaît",
    "vous",
    "per",
    "piacere",
    "alsjeblieft",
    "alstublieft",
    "graag",
    "proszę",
];

/// Interrogatives that open only questions.
const ONLY_ASK: &[&str] = &[
    "¿",
    "qué",
    "cuál",
    "cuáles",
    "quién",
    "quiénes",
    "dónde",
    "cuándo",
    "cómo",
    "cuánto",
    "cuánta",
    "cuántos",
    "cuántas",
    "qual",
    "quais",
    "quem",
    "quel",
    "quelle",
    "quels",
    "quelles",
    "qu'est-ce",
    "est-ce",
    "pourquoi",
    "combien",
    "quale",
    "quali",
    "cosa",
    "welche",
    "welcher",
    "welches",
    "welchen",
    "welke",
    "welk",
    "hoeveel",
    "waarom",
    "czy",
    "dlaczego",
    "czemu",
    "ile",
    "jaki",
    "jaka",
    "jakie",
    "jakiego",
    "jakich",
    "which",
    "whose",
    "how",
];

/// Interrogatives that also open a clause: a question only before a verb. Only of the
/// languages that name their subject (en, de, fr, nl): in Spanish, Portuguese, Italian and
/// Polish "como vivo en Madrid" or "kiedy pada" opens a clause with no subject to tell it by.
const ASK_OR_CLAUSE: &[&str] = &[
    "what", "who", "where", "when", "why", "what's", "who's", "where's", "when's", "why's", "wer",
    "was", "wo", "wann", "warum", "wie", "wieso", "weshalb", "wat", "waar", "wanneer", "hoe", "où",
    "quand", "comment", "qui",
];

/// Subjects: after an interrogative of [`ASK_OR_CLAUSE`] they open a clause ("what I need",
/// "was ich brauche", "wat ik wil", "quand je randonne"), not a question.
const SUBJECTS: &[&str] = &[
    "i", "i'm", "we", "you", "he", "she", "they", "it", "ich", "du", "er", "sie", "es", "wir",
    "ihr", "man", "je", "j'ai", "tu", "il", "elle", "on", "nous", "vous", "ils", "elles", "ik",
    "jij", "hij", "zij", "ze", "wij",
];

/// Verbs that ask when they open a sentence before one of their language's subjects: "can
/// you", "ist es", "kun je". Per language, so German "Was ich brauche" is no English "was I".
const ASKING: &[(&[&str], &[&str])] = &[
    (
        &[
            "is", "are", "was", "were", "am", "do", "does", "did", "can", "could", "will", "would",
            "should", "shall", "may", "might", "have", "has",
        ],
        &[
            "i", "you", "it", "we", "they", "he", "she", "there", "this", "that", "my", "your",
            "the", "a", "an",
        ],
    ),
    (
        &[
            "kannst",
            "könntest",
            "kann",
            "können",
            "hast",
            "hat",
            "ist",
            "sind",
            "bist",
            "gibt",
            "weißt",
            "wird",
            "würdest",
            "würde",
            "soll",
            "sollte",
            "muss",
            "darf",
        ],
        &[
            "du", "es", "ihr", "sie", "man", "das", "der", "die", "mein", "meine", "dein", "deine",
        ],
    ),
    (
        &[
            "kun", "kan", "heb", "ben", "weet", "wil", "zou", "mag", "moet", "heeft", "is", "zijn",
            "kunnen", "wordt",
        ],
        &[
            "je", "jij", "u", "het", "er", "ik", "ze", "we", "mijn", "de", "een", "dit", "dat",
        ],
    ),
];

/// Whether `sentence` (one line) is a request or a question by its opening words.
pub(crate) fn is_request_or_question(sentence: &str) -> bool {
    let words: Vec<String> = sentence
        .split(|c: char| c.is_whitespace() || matches!(c, ',' | ';' | ':' | '.' | '!' | '"'))
        .filter(|w| !w.is_empty())
        .map(|w| {
            w.trim_matches(|c: char| !c.is_alphanumeric() && !"¿'’-".contains(c))
                .replace('’', "'")
                .to_lowercase()
        })
        .filter(|w| !w.is_empty())
        .collect();
    let first = words.iter().position(|w| !PLEASE.contains(&w.as_str()));
    let Some(first) = first else {
        return false;
    };
    let at = |i: usize| words.get(i).map_or("", String::as_str);
    let (w, next) = (at(first), at(first + 1));
    // A French or Portuguese verb before its pronoun: "peux-tu", "sais-tu", "pouvez-vous".
    let inverted = ["-tu", "-vous", "-il", "-elle", "-on", "-t-il", "-t-elle"]
        .iter()
        .any(|p| w.ends_with(p));
    // "o que": Portuguese "what".
    let o_que = w == "o" && next == "que";
    let w = w.trim_start_matches('¿');
    let asking_verb = ASKING
        .iter()
        .any(|(verbs, subjects)| verbs.contains(&w) && subjects.contains(&next));
    w.is_empty()
        || IMPERATIVES.contains(&w)
        || ONLY_ASK.contains(&w)
        || inverted
        || o_que
        || (ASK_OR_CLAUSE.contains(&w) && !next.is_empty() && !SUBJECTS.contains(&next))
        || asking_verb
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_and_questions_by_their_opening_in_each_language() {
        let asks = [
            "Give me a tip for hiking in the rain",
            "Please tell me about the Alps",
            "What is LoRa",
            "How far can a node reach",
            "Can you remember that",
            "Erkläre mir bitte LoRa",
            "Bitte gib mir einen Tipp für Regen",
            "Wie heißt mein Hund",
            "Kannst du mir helfen",
            "Dime un consejo para la lluvia",
            "Qué antena es mejor",
            "Por favor, explícame LoRa",
            "Me dê uma dica para a chuva",
            "Diga-me uma dica",
            "Qual antena é melhor",
            "O que é LoRa",
            "Donne-moi un conseil pour la pluie",
            "Peux-tu m'aider",
            "Quelle antenne est la meilleure",
            "Dammi un consiglio per la pioggia",
            "Cosa è LoRa",
            "Geef me een tip voor regen",
            "Wat is LoRa",
            "Kun je me helpen",
            "Daj mi radę na deszcz",
            "Czy możesz mi pomóc",
            "Jaka antena jest najlepsza",
        ];
        for s in asks {
            assert!(is_request_or_question(s), "{s:?}");
        }
        let tells = [
            "Hi, I am Marta, callsign EA3MRT.",
            "My dog is called Rex",
            "When I hike I take a poncho",
            "What I need is a new antenna",
            "Remember that my callsign is SP9QRZ",
            "Call me Bob",
            "Mein Hund heißt Pepper.",
            "Wo ich wohne, regnet es oft",
            "Mi perro se llama Toby",
            "Como yo vivo en Madrid, uso 868 MHz",
            "Je m'appelle Léa.",
            "Quand je randonne, je prends un poncho",
            "Il mio cane si chiama Rex",
            "Ik woon in Utrecht",
            "Wat ik nodig heb is een antenne",
            "Mój znak to SP9QRZ.",
            "Kiedy pada, siedzę w domu",
            "I'm fine thanks",
        ];
        for s in tells {
            assert!(!is_request_or_question(s), "{s:?}");
        }
    }
}
