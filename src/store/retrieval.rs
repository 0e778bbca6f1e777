//! Retrieval: the older exchanges of a node that match a new message, for the prompt's
//! per-turn block. Ranked by FTS5's bm25 over the exchanges' index (stemmed, what the user
//! said weighted double), weak and common-word matches left out, and none whose question the
//! kept facts already hold word for word.

use rusqlite::{Connection, params};

use super::error::StoreError;
use super::fts::{self, Query};
use super::sql::{limit, node_sql};
use super::types::Exchange;
use crate::facts;
use crate::node::NodeId;
use crate::text;

/// How far below zero an exchange's bm25 score must be to be retrieved. FTS5's bm25 is
/// negative, better matches lower; a term found in most indexed exchanges adds almost nothing
/// (its IDF is near zero), a rare one about its IDF (~1-3). So one rare shared word is enough,
/// while an exchange that shares only common words ("antenna" on a radio bot) stays out.
const RELEVANCE_FLOOR: f64 = -0.5;

/// Column weights for bm25: what the user said counts twice what the assistant said, so a
/// question about the user ("my dog") finds the exchange where the user said it.
const BM25_WEIGHTS: &str = "bm25(exchanges_fts, 2.0, 1.0)";

/// A retrieved exchange must match at least this share (in percent) of the query's weight:
/// each query term weighs its inverse document frequency in the index, terms no exchange has
/// weigh nothing. So "On which day does our radio club meet?" does not bring back an exchange
/// that shares only "radio", while "Which car do I drive?" finds "I drive a Land Rover" when
/// no exchange mentions a car.
const COVERAGE_PERCENT: f64 = 50.0;

/// A shared term counts toward the two a longer question must share with an exchange only
/// when it weighs this much: ln 3, a word in at most about a quarter of the node's exchanges.
/// So the function words of any language count for nothing there (in a German conversation
/// "ist" and "ein" are in most of them), whatever the English stop words catch.
const DISTINCT_WEIGHT: f64 = 1.0986;

/// Up to `retrieve` exchanges of `node` older than `boundary` that match `query`: ranked by
/// bm25, above the relevance floor, covering enough of the query's weight; none whose
/// question is a kept fact.
pub(super) fn retrieve_exchanges(
    tx: &Connection,
    node: NodeId,
    boundary: i64,
    query: &Query,
    retrieve: usize,
    kept_facts: &[String],
) -> Result<Vec<Exchange>, StoreError> {
    // More candidates than wanted: weak and repeated ones are left out below.
    let candidates = candidates(tx, node, boundary, query, retrieve * 4)?;
    if candidates.is_empty() {
        return Ok(Vec::new());
    }
    let total: f64 = tx
        .prepare_cached("SELECT count(*) FROM exchanges")?
        .query_row([], |row| row.get::<_, i64>(0))? as f64;
    let weights = fts::term_weights(tx, "exchanges_fts", total, query)?;
    let whole: f64 = weights.iter().sum();
    if whole <= 0.0 {
        return Ok(Vec::new());
    }
    let kept: Vec<String> = kept_facts.iter().map(|f| text::key(f)).collect();
    let mut out = Vec::new();
    for (id, exchange) in candidates {
        if out.len() == retrieve {
            break;
        }
        let matched = fts::matched(tx, "exchanges_fts", id, query, &weights, DISTINCT_WEIGHT)?;
        // A question of three words or more must share two distinct ones: one shared word
        // ("node") between two radio questions brings back an exchange that does not help, and
        // costs the server the block now and that turn's exchange again the turn after; nor do
        // two words of every other message ("ist", "ein" where the stop words are English).
        let enough_terms = if query.terms.len() >= 3 {
            matched.distinct >= 2
        } else {
            matched.terms >= 1
        };
        // A statement the facts keep word for word is in the memory block already: brought
        // back beside the question it only costs tokens (and the server's cache of the next
        // turn), and a small model answers with it whatever was asked.
        if enough_terms
            && matched.weight * 100.0 >= whole * COVERAGE_PERCENT
            && !said_in_facts(&exchange.user, &kept)
        {
            out.push(exchange);
        }
    }
    Ok(out)
}

/// Up to `n` exchanges of `node` older than `boundary` that match `query` above the relevance
/// floor, best first, each with its id in the index.
fn candidates(
    tx: &Connection,
    node: NodeId,
    boundary: i64,
    query: &Query,
    n: usize,
) -> Result<Vec<(i64, Exchange)>, StoreError> {
    let sql = format!(
        "SELECT e.id, u.text, a.text, e.at
         FROM exchanges_fts
         JOIN exchanges e ON e.id = exchanges_fts.rowid
         JOIN messages u ON u.id = e.user_id
         JOIN messages a ON a.id = e.assistant_id
         WHERE exchanges_fts MATCH ?1 AND e.node = ?2
           AND e.user_id < ?3 AND e.assistant_id < ?3
           AND {BM25_WEIGHTS} < ?5
         ORDER BY {BM25_WEIGHTS} LIMIT ?4"
    );
    let found = tx
        .prepare_cached(&sql)?
        .query_map(
            params![
                query.expression,
                node_sql(node),
                boundary,
                limit(n),
                RELEVANCE_FLOOR
            ],
            |row| {
                Ok((
                    row.get::<_, i64>(0)?,
                    Exchange {
                        user: row.get(1)?,
                        assistant: row.get(2)?,
                        at: row.get(3)?,
                    },
                ))
            },
        )?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    Ok(found)
}

/// Whether everything the user said in `text` is a statement the facts already keep word for
/// word.
fn said_in_facts(text: &str, kept: &[String]) -> bool {
    let statements = facts::statements(text);
    let all = text.split_whitespace().count();
    let covered: usize = statements
        .iter()
        .map(|s| s.split_whitespace().count())
        .sum();
    !statements.is_empty()
        && covered == all
        && statements
            .iter()
            .all(|s| kept.iter().any(|k| *k == text::key(s)))
}
