//! The small words that tell meshai's languages apart in a short message: articles, pronouns,
//! greetings, and the question words and adverbs a short question is made of ("kiedy", "ile",
//! "ainda", "hoeveel"): a question around an English node name has little else
//! (`super::detect`).

use super::Lang;

/// Small words only `lang` (of meshai's) uses often: a guess must hold one.
pub(super) fn words(lang: Lang) -> &'static [&'static str] {
    match lang {
        Lang::En => &[
            "the", "and", "is", "are", "my", "you", "your", "what", "how", "which", "with", "of",
            "to", "it", "do", "does", "can", "i", "this", "that", "where", "who", "when", "did",
            "many", "much", "still",
        ],
        Lang::De => &[
            "ich", "ist", "und", "der", "die", "das", "mein", "meine", "dein", "wie", "was", "wo",
            "nicht", "ein", "eine", "mit", "für", "auf", "du", "sich", "heißt", "kann", "hallo",
            "heiße", "bin", "habe", "wohne", "warum", "zwischen", "welche", "welcher", "wann",
            "wer", "sind", "einen", "einem", "dem", "von", "zu", "im", "über", "viele", "viel",
            "noch", "hast",
        ],
        Lang::Es => &[
            "el", "la", "los", "las", "es", "mi", "me", "tu", "qué", "cómo", "dónde", "cuál", "se",
            "y", "un", "una", "con", "para", "por", "del", "hola", "llamo", "está", "soy",
            "cuántos", "cuántas", "cuánto", "cuánta", "cuándo", "quién", "hay", "tiene", "sigue",
        ],
        Lang::Pt => &[
            "o", "os", "as", "é", "meu", "minha", "você", "não", "um", "uma", "com", "para", "do",
            "da", "no", "na", "qual", "como", "onde", "olá", "eu", "que", "chamo", "sou", "moro",
            "está", "quantos", "quando", "quem", "agora", "aqui", "ainda", "tem",
        ],
        Lang::Fr => &[
            "le", "la", "les", "est", "je", "mon", "ma", "mes", "tu", "vous", "et", "un", "une",
            "des", "du", "pour", "pas", "quel", "quelle", "comment", "où", "sur", "bonjour",
            "salut", "appelle", "suis", "habite", "combien", "ce", "quand", "qui", "encore",
        ],
        Lang::It => &[
            "il", "lo", "la", "gli", "è", "mio", "mia", "io", "tu", "che", "un", "una", "per",
            "con", "non", "del", "della", "sul", "come", "dove", "quale", "ciao", "chiamo", "sono",
            "abito", "quanto", "quanta", "quando", "cosa", "hai", "adesso", "allo", "ma", "me",
            "chi", "ancora", "quanti", "ci", "di", "vuol",
        ],
        Lang::Nl => &[
            "de", "het", "een", "is", "ik", "mijn", "je", "jij", "wat", "hoe", "waar", "welke",
            "niet", "en", "met", "voor", "op", "van", "zijn", "heet", "hallo", "ben", "woon",
            "hoeveel", "wanneer", "nog", "heb",
        ],
        Lang::Pl => &[
            "jest", "nie", "mój", "moja", "moje", "mam", "jak", "co", "gdzie", "się", "to", "na",
            "w", "z", "dla", "czy", "jaki", "jaka", "ja", "ty", "cześć", "mnie", "jestem",
            "mieszkam", "imię", "kiedy", "ile", "ostatnio", "który", "która", "które", "jaką",
            "jakie", "teraz", "ma", "kto", "daleko", "jeszcze", "kogo", "komu", "czego", "czym",
            "żeby", "której", "którego", "ilu", "dlaczego", "jeśli", "chcę", "muszę", "mogę",
            "trzeba", "są", "sobą", "tylko", "też", "już",
        ],
    }
}
