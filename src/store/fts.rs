//! Turning a user's message into a safe FTS5 query.
//!
//! User text is never passed to `MATCH` as written: FTS5 gives `"`, `*`, `-`, `:`, `^`, `(`,
//! `NEAR`, `AND`, `OR` and `NOT` meaning, and a stray one is a syntax error. Instead the text is
//! split into words of letters and digits, short words and stop-words are dropped, and each
//! remaining word is quoted as a string literal (so even `NEAR` is just a word) and OR-ed.
//!
//! Also the weights a match is judged by, shared by every full-text table (the exchanges',
//! the knowledge passages'): each term weighs its inverse document frequency in the table.

use rusqlite::{Connection, OptionalExtension, params};

use crate::lang::{Lang, related, stem};
use crate::text::fold;

/// Words shorter than this (in characters) carry too little meaning to search for.
const MIN_WORD: usize = 3;

/// At most this many terms are searched, so a long message cannot make a slow query.
const MAX_TERMS: usize = 16;

/// Common English words that would match nearly every exchange (the other languages':
/// [`OTHER_STOP_WORDS`]).
const STOP_WORDS: &[&str] = &[
    "about", "after", "again", "all", "also", "and", "any", "are", "because", "been", "before",
    "being", "between", "but", "can", "could", "did", "does", "doing", "don", "down", "each",
    "for", "from", "get", "got", "had", "has", "have", "having", "hello", "her", "here", "hers",
    "hey", "him", "his", "how", "into", "its", "just", "know", "like", "more", "most", "much",
    "not", "now", "off", "once", "one", "only", "other", "our", "ours", "out", "over", "own",
    "please", "same", "she", "should", "some", "such", "tell", "than", "thank", "thanks", "that",
    "the", "their", "theirs", "them", "then", "there", "these", "they", "this", "those", "through",
    "too", "under", "until", "very", "was", "were", "what", "when", "where", "which", "while",
    "who", "whom", "why", "will", "with", "would", "yes", "you", "your", "yours",
];

/// Common words of the other seven languages meshai speaks, which would match nearly every
/// exchange of a conversation in them (issue 37: in German, "Wie heißt mein Hund?" brought
/// back "Wie halte ich einen Akku im Winter warm?", and the note cost that turn and the next
/// the server's cache). Words that are English content words too ("car", "son", "hat", "war",
/// "door", "come") are not among them.
const OTHER_STOP_WORDS: &[&[&str]] = &[
    // German.
    &[
        "aber", "alle", "allem", "allen", "aller", "alles", "als", "also", "andere", "anderen",
        "auch", "auf", "aus", "bei", "bist", "damit", "dann", "darf", "das", "dass", "dein",
        "deine", "deinem", "deinen", "deiner", "dem", "den", "denn", "der", "des", "dich", "dies",
        "diese", "diesem", "diesen", "dieser", "dieses", "dir", "doch", "dort", "durch", "dürfen",
        "ein", "eine", "einem", "einen", "einer", "eines", "etwas", "euer", "eure", "für", "gegen",
        "gibt", "gut", "habe", "haben", "hatte", "hier", "ich", "ihm", "ihn", "ihr", "ihre",
        "ihrem", "ihren", "ihrer", "immer", "ist", "jede", "jedem", "jeden", "jeder", "jedes",
        "jetzt", "kann", "kein", "keine", "können", "mein", "meine", "meinem", "meinen", "meiner",
        "mich", "mir", "muss", "möchte", "müssen", "nach", "nicht", "noch", "nun", "nur", "oder",
        "ohne", "schon", "sehr", "sein", "seine", "sich", "sie", "sind", "soll", "sollen", "und",
        "uns", "unser", "unsere", "unter", "viel", "vom", "von", "vor", "wann", "waren", "warum",
        "weil", "welche", "welchem", "welchen", "welcher", "welches", "wenn", "wer", "wie",
        "wieder", "will", "wir", "wird", "zum", "zur", "zwischen", "über",
    ],
    // Spanish.
    &[
        "algo", "alguna", "algunos", "ante", "antes", "aquí", "así", "aunque", "cada", "como",
        "con", "contra", "cual", "cuando", "cuál", "cómo", "debe", "debo", "del", "desde", "donde",
        "durante", "dónde", "ella", "ellas", "ello", "ellos", "entre", "eran", "eres", "esa",
        "esas", "ese", "eso", "esos", "esta", "estaba", "estar", "este", "esto", "estos", "estoy",
        "está", "están", "fue", "fueron", "hay", "hola", "las", "les", "los", "mis", "mucho",
        "muy", "más", "mía", "mío", "nada", "nos", "nosotros", "otra", "otro", "para", "pero",
        "poco", "por", "porque", "puede", "puedo", "que", "quien", "quiero", "quién", "qué", "ser",
        "sido", "sin", "sobre", "soy", "sus", "también", "tanto", "tener", "tengo", "tiene",
        "todo", "todos", "tras", "tus", "una", "uno", "unos", "usted",
    ],
    // French.
    &[
        "alors", "aussi", "autre", "avec", "avoir", "cela", "ces", "cet", "cette", "comme",
        "comment", "dans", "des", "dois", "doit", "donc", "elle", "elles", "entre", "est", "eux",
        "faire", "fait", "faut", "ils", "les", "leur", "lui", "mais", "mes", "moi", "mon", "même",
        "nos", "notre", "nous", "oui", "par", "pas", "peut", "peux", "pourquoi", "puis", "quand",
        "que", "quel", "quelle", "qui", "sans", "ses", "sont", "sur", "ton", "tous", "tout",
        "très", "une", "veux", "vos", "votre", "vous", "était", "être",
    ],
    // Italian.
    &[
        "alla", "alle", "anche", "avere", "bisogna", "che", "chi", "cosa", "cui", "dal", "dalla",
        "dei", "del", "della", "delle", "deve", "devo", "ecco", "fra", "gli", "hai", "hanno",
        "lei", "loro", "lui", "mia", "mio", "molto", "nel", "nella", "non", "perché", "più",
        "posso", "puoi", "può", "quale", "quando", "quanto", "questa", "questo", "sono", "sua",
        "sul", "sulla", "suo", "tra", "tua", "tuo", "una", "uno", "voglio",
    ],
    // Dutch.
    &[
        "aan", "alle", "als", "ben", "bij", "dan", "dat", "deze", "dit", "een", "gaan", "heb",
        "hebben", "heeft", "het", "hij", "hoe", "jij", "jou", "jouw", "kan", "kun", "kunnen",
        "kunt", "maar", "mag", "mijn", "moet", "naar", "niet", "nog", "ons", "onze", "ook", "tot",
        "tussen", "uit", "van", "veel", "voor", "waar", "waarom", "wanneer", "wat", "wel", "welk",
        "welke", "wie", "wij", "wil", "zal", "zich", "zijn", "zou",
    ],
    // Portuguese.
    &[
        "algo", "com", "como", "das", "deve", "devo", "dos", "ela", "elas", "ele", "eles", "entre",
        "essa", "esse", "esta", "este", "estou", "está", "foi", "isso", "isto", "mais", "mas",
        "meu", "minha", "muito", "nas", "nos", "não", "nós", "onde", "para", "pela", "pelas",
        "pelo", "pelos", "pode", "por", "porque", "porquê", "posso", "pra", "pro", "qual",
        "quando", "que", "quem", "quero", "seu", "sua", "são", "também", "tem", "tenho", "uma",
        "umas", "uns", "você",
    ],
    // Polish.
    &[
        "ale", "bardzo", "być", "był", "była", "było", "chcę", "coś", "czy", "dla", "dlaczego",
        "gdzie", "jak", "jaka", "jaki", "jakie", "jego", "jej", "jest", "jestem", "już", "kiedy",
        "kogo", "kto", "która", "które", "który", "mam", "między", "mnie", "mogę", "moja", "moje",
        "może", "można", "muszę", "mój", "nas", "nich", "nie", "oraz", "pod", "przez", "się",
        "tak", "tego", "tej", "też", "trzeba", "tylko", "żeby",
    ],
];

/// A search for one message: the `MATCH` expression of the distinct terms worth looking for.
/// The index's porter tokenizer stems both sides, so "meets" finds "meet"; in the other
/// languages a term is its light stem searched as a prefix ([`Query::with_phrases`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Query {
    pub(crate) expression: String,
    /// Each distinct term as its own quoted `MATCH` expression, to weigh them one by one.
    pub(crate) terms: Vec<String>,
    /// What each term weighs by (its rows counted): the term itself, but the question's own
    /// word for a term that also holds the words documents write for it — "money" weighs
    /// what "money" weighs, however many passages write "treasurer" — and the term for one
    /// of those alone.
    weighed: Vec<String>,
}

impl Query {
    /// `None` when no word of `text` is worth searching for.
    pub fn new(text: &str) -> Option<Query> {
        Query::of(text, Lang::En, false)
    }

    /// The terms of `text` searched as `lang` inflects them ([`searched`]); with `related`,
    /// a word a question asks a job with is one term with the words documents write for it
    /// ([`related::written_for`]: "money" is `("money" OR "treasurer")`), and such a word too
    /// common to search for by itself is a term of those words alone (Italian "Chi tiene i
    /// soldi?": "tiene" is a Spanish stop word).
    fn of(text: &str, lang: Lang, related: bool) -> Option<Query> {
        let mut quoted: Vec<String> = Vec::new();
        let mut weighed: Vec<String> = Vec::new();
        let who = related && related::asks_who(&fold(text));
        let mut also_stop: Vec<String> = Vec::new();
        if related {
            for word in text.split(|c: char| !c.is_alphanumeric()) {
                let word = word.to_lowercase();
                if !word.is_empty() && !is_term(&word) && !also_stop.contains(&word) {
                    also_stop.push(word);
                }
            }
        }
        let own = terms(text).into_iter().map(|w| (w, true));
        let stop = also_stop.into_iter().map(|w| (w, false));
        for (word, searchable) in own.chain(stop) {
            let mut alternatives = Vec::new();
            if searchable {
                alternatives.push(searched_forms(&word, lang));
            }
            if related {
                for also in related::written_for(&fold(&word), who) {
                    let also = searched(also, lang);
                    if !alternatives.contains(&also) {
                        alternatives.push(also);
                    }
                }
            }
            let (term, weighs) = match alternatives.as_slice() {
                [] => continue,
                [one] => (one.clone(), one.clone()),
                [own, ..] => {
                    let term = format!("({})", alternatives.join(" OR "));
                    let weighs = if searchable {
                        own.clone()
                    } else {
                        term.clone()
                    };
                    (term, weighs)
                }
            };
            if !quoted.contains(&term) && quoted.len() < MAX_TERMS {
                quoted.push(term);
                weighed.push(weighs);
            }
        }
        let expression = (!quoted.is_empty()).then(|| quoted.join(" OR "))?;
        Some(Query {
            expression,
            terms: quoted,
            weighed,
        })
    }
}

/// A term (letters and digits only, so the quotes cannot be escaped) as a `MATCH` string: as
/// written in English, whose inflection the index's porter tokenizer strips on both sides;
/// in another language its light stem ([`stem::stem`]) as a prefix, so "nächsten" finds
/// "Nächstes" and "reuniones" "Reunión".
fn searched(term: &str, lang: Lang) -> String {
    match stem::stem(lang, term) {
        Some(stem) => format!("\"{stem}\"*"),
        None => format!("\"{term}\""),
    }
}

/// [`searched`], and a Polish verb with its other prefixes ([`stem::forms`]) as one term:
/// "pożyczyć" is `("pożycz"* OR "wypożycz"* OR …)`.
fn searched_forms(term: &str, lang: Lang) -> String {
    match stem::forms(lang, term).as_slice() {
        [] | [_] => searched(term, lang),
        forms => {
            let forms: Vec<String> = forms.iter().map(|f| format!("\"{f}\"*")).collect();
            format!("({})", forms.join(" OR "))
        }
    }
}

/// At most this many word pairs are searched as phrases.
const MAX_PHRASES: usize = 8;

impl Query {
    /// Like [`Query::new`] with the terms as `lang` inflects them, and each pair of words
    /// worth searching for that stand next to each other in `text`, or with one small word
    /// between them, is searched as a phrase too (the small word as written): a passage that
    /// says "club night" ranks above one that has "club" and "night" apart, and one that says
    /// "noche del club" above one with "noche" and "club" apart. The phrases only add to the
    /// ranking: the terms a match is weighed by stay the single words.
    pub(crate) fn with_phrases(text: &str, lang: Lang) -> Option<Query> {
        let mut query = Query::of(text, lang, true)?;
        let words: Vec<String> = text
            .split(|c: char| !c.is_alphanumeric())
            .filter(|w| !w.is_empty())
            .map(str::to_lowercase)
            .collect();
        let mut phrases: Vec<String> = Vec::new();
        let mut add = |phrase: String| {
            if !phrases.contains(&phrase) {
                phrases.push(phrase);
            }
        };
        for (i, first) in words.iter().enumerate() {
            if !is_term(first) {
                continue;
            }
            let first = searched(first, lang);
            match (words.get(i + 1), words.get(i + 2)) {
                (Some(next), _) if is_term(next) => {
                    add(format!("{first} + {}", searched(next, lang)));
                }
                (Some(small), Some(next)) if is_term(next) => {
                    add(format!("{first} + \"{small}\" + {}", searched(next, lang)));
                }
                _ => {}
            }
        }
        for phrase in phrases.iter().take(MAX_PHRASES) {
            query.expression.push_str(" OR ");
            query.expression.push_str(phrase);
        }
        Some(query)
    }
}

/// How many distinct words of `text` are worth searching for (at most [`MAX_TERMS`]): a
/// question with few of them is likely a follow-up ("And on Sunday?").
pub(crate) fn content_words(text: &str) -> usize {
    terms(text).len()
}

/// The weight of each of `query`'s terms in the full-text table `table`, whose rows number
/// `total`: its inverse document frequency ln((N - n + 0.5) / (n + 0.5)), at least 0. A term
/// in most rows weighs almost nothing, one no row has weighs 0. `table` is one of the
/// store's own names, never user text.
pub(super) fn term_weights(
    c: &Connection,
    table: &str,
    total: f64,
    query: &Query,
) -> rusqlite::Result<Vec<f64>> {
    weights_by(c, table, query, |n| {
        ((total - n + 0.5) / (n + 0.5)).ln().max(0.0)
    })
}

/// Like [`term_weights`], smoothed as Lucene's BM25 does, ln(1 + (N - n + 0.5) / (n +
/// 0.5)): never 0 for a term some row has, so a table of a few rows (a knowledge folder of one
/// short file, where every word is in half the rows) still weighs its words, while a term in
/// every row of a large table weighs almost nothing. And a term no row has weighs most (n =
/// 0): for documents, a word of the question that none of them has is a part of the question
/// they do not answer ("Who designed the club logo?" is not covered by a passage about the
/// club).
pub(super) fn smoothed_weights(
    c: &Connection,
    table: &str,
    total: f64,
    query: &Query,
) -> rusqlite::Result<Vec<f64>> {
    let idf = |n: f64| (1.0 + (total - n + 0.5) / (n + 0.5)).ln();
    let mut weights = weights_by(c, table, query, idf)?;
    for w in &mut weights {
        if *w == 0.0 {
            *w = idf(0.0);
        }
    }
    Ok(weights)
}

/// Each term's weight by `idf` of the number of rows that have it; a term no row has weighs 0.
fn weights_by(
    c: &Connection,
    table: &str,
    query: &Query,
    idf: impl Fn(f64) -> f64,
) -> rusqlite::Result<Vec<f64>> {
    let sql = format!("SELECT count(*) FROM {table} WHERE {table} MATCH ?1");
    let mut weights = Vec::with_capacity(query.weighed.len());
    for term in &query.weighed {
        let n: i64 = c
            .prepare_cached(&sql)?
            .query_row([term], |row| row.get(0))?;
        weights.push(if n == 0 { 0.0 } else { idf(n as f64) });
    }
    Ok(weights)
}

/// What row `rowid` of `table` matches of `query`'s terms (those of weight above 0).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Matched {
    /// The summed weight of the matched terms.
    pub(crate) weight: f64,
    /// How many terms matched.
    pub(crate) terms: usize,
    /// How many matched terms weigh at least the `distinct` weight asked for: words rare in
    /// the table, not the function words of a language the stop words do not cover.
    pub(crate) distinct: usize,
}

/// The terms of `query` that row `rowid` of `table` matches, with their summed weight and
/// how many of them weigh `distinct` or more.
pub(super) fn matched(
    c: &Connection,
    table: &str,
    rowid: i64,
    query: &Query,
    weights: &[f64],
    distinct: f64,
) -> rusqlite::Result<Matched> {
    let sql = format!("SELECT 1 FROM {table} WHERE {table} MATCH ?1 AND rowid = ?2");
    let mut out = Matched {
        weight: 0.0,
        terms: 0,
        distinct: 0,
    };
    for (term, weight) in query.terms.iter().zip(weights) {
        if *weight > 0.0
            && c.prepare_cached(&sql)?
                .query_row(params![term, rowid], |_| Ok(()))
                .optional()?
                .is_some()
        {
            out.weight += weight;
            out.terms += 1;
            if *weight >= distinct {
                out.distinct += 1;
            }
        }
    }
    Ok(out)
}

/// The share (0 to 1) of the words worth searching for in `text` — what column `column` of
/// row `rowid` of `table` holds — that one of `query`'s terms matches there (stemmed, as the
/// index matches): 1 when the query names everything the column says.
pub(super) fn column_share(
    c: &Connection,
    table: &str,
    column: &str,
    rowid: i64,
    query: &Query,
    text: &str,
) -> rusqlite::Result<f64> {
    let words = terms(text).len();
    if words == 0 {
        return Ok(0.0);
    }
    let sql = format!("SELECT 1 FROM {table} WHERE {table} MATCH ?1 AND rowid = ?2");
    let mut matched = 0;
    for term in &query.terms {
        if c.prepare_cached(&sql)?
            .query_row(params![format!("{column} : {term}"), rowid], |_| Ok(()))
            .optional()?
            .is_some()
        {
            matched += 1;
        }
    }
    Ok((matched as f64 / words as f64).min(1.0))
}

/// The FTS5 `MATCH` expression for `text`, or `None` when no word is worth searching for.
#[cfg(test)]
pub(super) fn match_expression(text: &str) -> Option<String> {
    Query::new(text).map(|q| q.expression)
}

/// Whether a lowercased word is worth searching for (the knowledge check's question words
/// too: a word common in one of meshai's languages says nothing of what a question is about).
pub(crate) fn is_term(word: &str) -> bool {
    word.chars().count() >= MIN_WORD
        && !STOP_WORDS.contains(&word)
        && !OTHER_STOP_WORDS.iter().any(|list| list.contains(&word))
}

fn terms(text: &str) -> Vec<String> {
    let mut terms: Vec<String> = Vec::new();
    for word in text.split(|c: char| !c.is_alphanumeric()) {
        let word = word.to_lowercase();
        if !is_term(&word) || terms.contains(&word) {
            continue;
        }
        terms.push(word);
        if terms.len() == MAX_TERMS {
            break;
        }
    }
    terms
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(input: &str, expect: Option<&str>) {
        assert_eq!(
            match_expression(input).as_deref(),
            expect,
            "input {input:?}"
        );
    }

    #[test]
    fn reduces_text_to_quoted_terms() {
        check("", None);
        check("hi ok yo", None);
        check("what is the", None);
        check("Where is my antenna?", Some("\"antenna\""));
        check("antenna ANTENNA Antenna", Some("\"antenna\""));
        check("solar panel", Some("\"solar\" OR \"panel\""));
        check(
            "\"quoted\" * - NEAR(a b) AND OR NOT col:val ^x",
            Some("\"quoted\" OR \"near\" OR \"col\" OR \"val\""),
        );
        check("don't-stop", Some("\"stop\""));
        check("Grüße aus München", Some("\"grüße\" OR \"münchen\""));
        // The function words of the other languages, too; an English content word stays.
        check("Wie heißt mein Hund?", Some("\"heißt\" OR \"hund\""));
        check("¿Cómo se llama mi perro?", Some("\"llama\" OR \"perro\""));
        check(
            "Comment s'appelle mon chien ?",
            Some("\"appelle\" OR \"chien\""),
        );
        check("Which car do I drive?", Some("\"car\" OR \"drive\""));
        // Their modal verbs and fillers, as English "can" and "should": each unmatched one
        // weighed as a part of the question no passage answers, and "Quanto tempo posso
        // tenermi…" matched too little of the loans' section to go in.
        check(
            "Quanto tempo posso tenermi",
            Some("\"tempo\" OR \"tenermi\""),
        );
        check("Pra quem eu peço", Some("\"peço\""));
        check(
            "Jak długo mogę trzymać coś",
            Some("\"długo\" OR \"trzymać\""),
        );
        check("433MHz 915", Some("\"433mhz\" OR \"915\""));
        check("a_b_c", None);
    }

    #[test]
    fn neighbours_are_searched_as_phrases_too() {
        let cases = [
            ("", None),
            ("club", Some("\"club\"")),
            (
                "When is club night?",
                Some("\"club\" OR \"night\" OR \"club\" + \"night\""),
            ),
            // Words with two small words between them make no phrase, with one they do;
            // punctuation does not part them (the index does not see it either).
            (
                "day of the week in club-night",
                Some(
                    "\"day\" OR \"week\" OR \"club\" OR \"night\" OR \"week\" + \"in\" + \"club\" \
                     OR \"club\" + \"night\"",
                ),
            ),
            (
                "Beacon beacon",
                Some("\"beacon\" OR \"beacon\" + \"beacon\""),
            ),
        ];
        for (text, want) in cases {
            let got = Query::with_phrases(text, Lang::En).map(|q| q.expression);
            assert_eq!(got.as_deref(), want, "{text:?}");
        }
        // In German each term is its light stem, searched as a prefix, in phrases too.
        let de =
            Query::with_phrases("Wann ist der nächste Clubabend?", Lang::De).map(|q| q.expression);
        assert_eq!(
            de.as_deref(),
            Some("\"nächst\"* OR \"clubabend\"* OR \"nächst\"* + \"clubabend\"*")
        );
        let es = Query::with_phrases("¿A qué hora es la noche del club?", Lang::Es)
            .map(|q| q.expression);
        assert_eq!(
            es.as_deref(),
            Some("\"hora\"* OR \"noch\"* OR \"club\"* OR \"noch\"* + \"del\" + \"club\"*")
        );
        let q =
            Query::with_phrases("beacon hill repeater", Lang::En).unwrap_or_else(|| unreachable!());
        assert_eq!(q.terms, ["\"beacon\"", "\"hill\"", "\"repeater\""]);
    }

    #[test]
    fn caps_the_number_of_terms() {
        let text: Vec<String> = (0..40).map(|i| format!("word{i}")).collect();
        let expr = match_expression(&text.join(" ")).unwrap_or_default();
        assert_eq!(expr.matches(" OR ").count(), MAX_TERMS - 1);
    }
}
