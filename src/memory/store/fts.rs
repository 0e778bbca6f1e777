//! Turning a user's message into a safe FTS5 query.
//!
//! User text is never passed to `MATCH` as written: FTS5 gives `"`, `*`, `-`, `:`, `^`, `(`,
//! `NEAR`, `AND`, `OR` and `NOT` meaning, and a stray one is a syntax error. Instead the text is
//! split into words of letters and digits, short words and stop-words are dropped, and each
//! remaining word is quoted as a string literal (so even `NEAR` is just a word) and OR-ed.

/// Words shorter than this (in characters) carry too little meaning to search for.
const MIN_WORD: usize = 3;

/// At most this many terms are searched, so a long message cannot make a slow query.
const MAX_TERMS: usize = 16;

/// Common English words that would match nearly every exchange.
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

/// A search for one message: the `MATCH` expression of the distinct terms worth looking for.
/// The index's porter tokenizer stems both sides, so "meets" finds "meet".
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Query {
    pub expression: String,
    /// Each distinct term as its own quoted `MATCH` expression, to weigh them one by one.
    pub terms: Vec<String>,
}

impl Query {
    /// `None` when no word of `text` is worth searching for.
    pub fn new(text: &str) -> Option<Query> {
        let terms = terms(text);
        let expression = expression(&terms)?;
        let terms = terms.iter().map(|t| format!("\"{t}\"")).collect();
        Some(Query { expression, terms })
    }
}

/// The FTS5 `MATCH` expression for `text`, or `None` when no word is worth searching for.
#[cfg(test)]
pub(super) fn match_expression(text: &str) -> Option<String> {
    expression(&terms(text))
}

fn terms(text: &str) -> Vec<String> {
    let mut terms: Vec<String> = Vec::new();
    for word in text.split(|c: char| !c.is_alphanumeric()) {
        let word = word.to_lowercase();
        if word.chars().count() < MIN_WORD
            || STOP_WORDS.contains(&word.as_str())
            || terms.contains(&word)
        {
            continue;
        }
        terms.push(word);
        if terms.len() == MAX_TERMS {
            break;
        }
    }
    terms
}

fn expression(terms: &[String]) -> Option<String> {
    if terms.is_empty() {
        return None;
    }
    // A term holds only letters and digits, so wrapping it in quotes cannot be escaped.
    let quoted: Vec<String> = terms.iter().map(|t| format!("\"{t}\"")).collect();
    Some(quoted.join(" OR "))
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
        check(
            "Grüße aus München",
            Some("\"grüße\" OR \"aus\" OR \"münchen\""),
        );
        check("433MHz 915", Some("\"433mhz\" OR \"915\""));
        check("a_b_c", None);
    }

    #[test]
    fn caps_the_number_of_terms() {
        let text: Vec<String> = (0..40).map(|i| format!("word{i}")).collect();
        let expr = match_expression(&text.join(" ")).unwrap_or_default();
        assert_eq!(expr.matches(" OR ").count(), MAX_TERMS - 1);
    }
}
