//! The synchronous queries behind each `Store` call; they run on the database thread only.
//!
//! Writes use immediate transactions: in WAL mode a deferred transaction that later wants to
//! write can fail with `SQLITE_BUSY` without waiting, while an immediate one waits for the
//! write lock under `busy_timeout` like any other statement.

use rusqlite::{Connection, OptionalExtension, Row, TransactionBehavior, params};

use super::damage::{index_exchange, without_entry_if_rolled_back};
use super::fts::{self, Query};
use super::{
    Context, Exchange, FoldRule, NodeStats, Role, Said, StoreError, StoredMessage, Summary,
    SummaryJob, SummarySave,
};
use crate::clock::unix_now;
use crate::llm::Usage;
use crate::memory::facts;
use crate::memory::text;
use crate::node::NodeId;

/// A node number as stored: SQLite integers are i64, a u32 always fits.
pub(super) fn node_sql(node: NodeId) -> i64 {
    i64::from(node.0)
}

/// A count from the API as a SQL `LIMIT`; anything beyond i64 means "no limit" anyway.
fn limit(n: usize) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

/// A counter as stored; a count too large for i64 saturates rather than wrapping.
pub(super) fn counter_sql(n: u64) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

/// A stored counter read back; a negative value can only come from outside tampering.
pub(super) fn counter(n: i64) -> u64 {
    u64::try_from(n).unwrap_or(0)
}

/// Maps `SELECT id, role, text, at, prompt`.
fn message(row: &Row<'_>) -> rusqlite::Result<StoredMessage> {
    Ok(StoredMessage {
        id: row.get(0)?,
        role: row.get(1)?,
        text: row.get(2)?,
        at: row.get(3)?,
        prompt: row.get(4)?,
    })
}

/// Maps `SELECT text, through_id, updated_at`.
fn summary_row(row: &Row<'_>) -> rusqlite::Result<Summary> {
    Ok(Summary {
        text: row.get(0)?,
        through_id: row.get(1)?,
        updated_at: row.get(2)?,
    })
}

pub(super) fn append_message(
    c: &Connection,
    node: NodeId,
    role: Role,
    said: &Said,
    at: i64,
) -> Result<i64, StoreError> {
    c.prepare_cached(
        "INSERT INTO messages(node, role, text, at, prompt) VALUES (?1, ?2, ?3, ?4, ?5)",
    )?
    .execute(params![node_sql(node), role, said.text, at, said.prompt()])?;
    Ok(c.last_insert_rowid())
}

/// A user message and the node's names and last-heard time, in one transaction (one sync).
pub(super) fn append_heard(
    c: &mut Connection,
    node: NodeId,
    names: (Option<&str>, Option<&str>),
    said: &Said,
    at: i64,
) -> Result<i64, StoreError> {
    let tx = c.transaction_with_behavior(TransactionBehavior::Immediate)?;
    touch_node(&tx, node, names.0, names.1, at)?;
    let id = append_message(&tx, node, Role::User, said, at)?;
    tx.commit()?;
    Ok(id)
}

/// The reply to `user_id` with its exchange, its search entry and the LLM call counted; the
/// reply's id, and the damage that kept the pair out of a damaged search index (the reply is
/// stored all the same).
pub(super) fn append_reply(
    c: &mut Connection,
    node: NodeId,
    user_id: i64,
    said: &Said,
    at: i64,
    usage: Option<Usage>,
) -> Result<(i64, Option<StoreError>), StoreError> {
    without_entry_if_rolled_back(c, |c, index| {
        write_reply(c, node, user_id, said, at, usage, index)
    })
}

/// [`append_reply`]'s transaction; `index`: with the exchange's search entry.
fn write_reply(
    c: &mut Connection,
    node: NodeId,
    user_id: i64,
    said: &Said,
    at: i64,
    usage: Option<Usage>,
    index: bool,
) -> Result<(i64, Option<StoreError>), StoreError> {
    let text = said.text.as_str();
    let mut tx = c.transaction_with_behavior(TransactionBehavior::Immediate)?;
    let user_text: Option<String> = tx
        .prepare_cached("SELECT text FROM messages WHERE id = ?1 AND node = ?2 AND role = 'user'")?
        .query_row(params![user_id, node_sql(node)], |row| row.get(0))
        .optional()?;
    let Some(user_text) = user_text else {
        return Err(StoreError::NoSuchUserMessage { node, id: user_id });
    };
    tx.prepare_cached(
        "INSERT INTO messages(node, role, text, at, prompt) VALUES (?1, 'assistant', ?2, ?3, ?4)",
    )?
    .execute(params![node_sql(node), text, at, said.prompt()])?;
    let assistant_id = tx.last_insert_rowid();
    tx.prepare_cached(
        "INSERT INTO exchanges(node, user_id, assistant_id, at) VALUES (?1, ?2, ?3, ?4)",
    )?
    .execute(params![node_sql(node), user_id, assistant_id, at])?;
    let exchange_id = tx.last_insert_rowid();
    let unindexed = match index {
        true => index_exchange(&mut tx, exchange_id, (&user_text, text), false)?,
        false => None,
    };
    // Every stored reply was one LLM call; its tokens only count when the server said them
    // (a streamed answer dropped at the reply budget never gets its last event with `usage`).
    let (prompt, completion) = usage.map_or((0, 0), |u| (u.prompt_tokens, u.completion_tokens));
    record_usage(&tx, node, prompt, completion)?;
    tx.commit()?;
    Ok((assistant_id, unindexed))
}

pub(super) fn summary(c: &Connection, node: NodeId) -> Result<Option<Summary>, StoreError> {
    let s = c
        .prepare_cached("SELECT text, through_id, updated_at FROM summaries WHERE node = ?1")?
        .query_row([node_sql(node)], summary_row)
        .optional()?;
    Ok(s)
}

/// The last `n` messages of `node` with id < `before_id`, oldest first.
fn last_messages(
    c: &Connection,
    node: NodeId,
    before_id: i64,
    n: usize,
) -> Result<Vec<StoredMessage>, StoreError> {
    let mut stmt = c.prepare_cached(
        "SELECT id, role, text, at, prompt FROM messages
         WHERE node = ?1 AND id < ?2 ORDER BY id DESC LIMIT ?3",
    )?;
    let mut msgs = stmt
        .query_map(params![node_sql(node), before_id, limit(n)], message)?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    msgs.reverse();
    Ok(msgs)
}

/// How far below zero an exchange's bm25 score must be to be retrieved. FTS5's bm25 is
/// negative, better matches lower; a term found in most indexed exchanges adds almost nothing
/// (its IDF is near zero), a rare one about its IDF (~1-3). So one rare shared word is enough,
/// while an exchange that shares only common words ("antenna" on a radio bot) stays out.
const RELEVANCE_FLOOR: f64 = -0.5;

/// Column weights for bm25: what the user said counts twice what the assistant said, so a
/// question about the user ("my dog") finds the exchange where the user said it.
const BM25_WEIGHTS: &str = "bm25(exchanges_fts, 2.0, 1.0)";

pub(super) fn context(
    c: &mut Connection,
    node: NodeId,
    before_id: i64,
    max_messages: usize,
    query: Option<&Query>,
    retrieve: usize,
) -> Result<(Context, Option<StoreError>), StoreError> {
    // One read transaction, so summary, backlog and retrieval come from the same snapshot.
    let tx = c.transaction()?;
    let summary = summary(&tx, node)?;
    let cursor = summary.as_ref().map_or(0, |s| s.through_id);
    let facts = facts(&tx, node)?;
    let unsummarized: i64 = tx
        .prepare_cached("SELECT count(*) FROM messages WHERE node = ?1 AND id > ?2 AND id < ?3")?
        .query_row(params![node_sql(node), cursor, before_id], |row| row.get(0))?;
    let unsummarized = usize::try_from(unsummarized).unwrap_or(usize::MAX);
    // Every message after the summary's cursor, unless summaries have failed for so long that
    // there are more than `max_messages`: then only the newest (the rest stays in the
    // database, retrievable, and is folded once a summary succeeds).
    let window = {
        let mut stmt = tx.prepare_cached(
            "SELECT id, role, text, at, prompt FROM messages
             WHERE node = ?1 AND id > ?2 AND id < ?3 ORDER BY id DESC LIMIT ?4",
        )?;
        let mut msgs = stmt
            .query_map(
                params![node_sql(node), cursor, before_id, limit(max_messages)],
                message,
            )?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        msgs.reverse();
        msgs
    };
    // Retrieval only looks at exchanges wholly older than what the prompt carries verbatim.
    let boundary = window.first().map_or(before_id, |m| m.id);
    // Best-effort: a failed retrieval (a damaged search index) leaves the rest of the
    // memory in the context, and comes back beside it for the caller to report.
    let (retrieved, failed) = match query {
        Some(query) if retrieve > 0 => {
            match retrieve_exchanges(&tx, node, boundary, query, retrieve, &facts) {
                Ok(found) => (found, None),
                Err(e) => (Vec::new(), Some(e)),
            }
        }
        _ => (Vec::new(), None),
    };
    drop(tx);
    let ctx = Context {
        summary,
        facts,
        window,
        unsummarized,
        retrieved,
        kept: 0,
    };
    Ok((ctx, failed))
}

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
fn retrieve_exchanges(
    tx: &Connection,
    node: NodeId,
    boundary: i64,
    query: &Query,
    retrieve: usize,
    kept_facts: &[String],
) -> Result<Vec<Exchange>, StoreError> {
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
    // More candidates than wanted: weak and repeated ones are left out below.
    let candidates = tx
        .prepare_cached(&sql)?
        .query_map(
            params![
                query.expression,
                node_sql(node),
                boundary,
                limit(retrieve * 4),
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

/// The node's kept facts, oldest first.
pub(super) fn facts(c: &Connection, node: NodeId) -> Result<Vec<String>, StoreError> {
    let facts = c
        .prepare_cached("SELECT text FROM facts WHERE node = ?1 ORDER BY id")?
        .query_map([node_sql(node)], |row| row.get(0))?
        .collect::<rusqlite::Result<Vec<String>>>()?;
    Ok(facts)
}

/// How many messages of `node` with id < `before_id` no saved summary covers yet.
pub(super) fn unsummarized(
    c: &Connection,
    node: NodeId,
    before_id: i64,
) -> Result<usize, StoreError> {
    let cursor = summary(c, node)?.map_or(0, |s| s.through_id);
    let n: i64 = c
        .prepare_cached("SELECT count(*) FROM messages WHERE node = ?1 AND id > ?2 AND id < ?3")?
        .query_row(params![node_sql(node), cursor, before_id], |row| row.get(0))?;
    Ok(usize::try_from(n).unwrap_or(usize::MAX))
}

pub(super) fn pending_fold(
    c: &mut Connection,
    node: NodeId,
    before_id: i64,
    rule: FoldRule,
) -> Result<Option<SummaryJob>, StoreError> {
    let tx = c.transaction()?;
    let previous = summary(&tx, node)?;
    let cursor = previous.as_ref().map_or(0, |s| s.through_id);
    let backlog = {
        let mut stmt = tx.prepare_cached(
            "SELECT id, role, text, at, prompt FROM messages
             WHERE node = ?1 AND id > ?2 AND id < ?3 ORDER BY id",
        )?;
        stmt.query_map(params![node_sql(node), cursor, before_id], message)?
            .collect::<rusqlite::Result<Vec<_>>>()?
    };
    let facts = facts(&tx, node)?;
    drop(tx);
    let due = if rule.now {
        backlog.len() > rule.keep
    } else {
        backlog.len() > rule.keep.saturating_add(rule.threshold)
    };
    if !due {
        return Ok(None);
    }
    // Fold all but the newest `keep`; one more when the first kept message would be a reply,
    // so what stays verbatim starts with a question, not an answer to a folded one.
    let mut fold = backlog.len() - rule.keep;
    if backlog.get(fold).is_some_and(|m| m.role == Role::Assistant) {
        fold += 1;
    }
    let fold = fold.min(rule.max_batch.max(1)).min(backlog.len());
    let mut evicted = backlog;
    let kept = evicted.split_off(fold);
    Ok(Some(SummaryJob {
        previous,
        facts,
        evicted,
        kept,
    }))
}

pub(super) fn last_message(
    c: &Connection,
    node: NodeId,
) -> Result<Option<StoredMessage>, StoreError> {
    Ok(last_messages(c, node, i64::MAX, 1)?.pop())
}

pub(super) fn save_summary(
    c: &mut Connection,
    node: NodeId,
    save: &SummarySave,
) -> Result<bool, StoreError> {
    let tx = c.transaction_with_behavior(TransactionBehavior::Immediate)?;
    let current = summary(&tx, node)?.map(|s| s.through_id);
    if current != save.expected_previous {
        return Ok(false);
    }
    if save
        .expected_previous
        .is_some_and(|prev| save.through_id <= prev)
    {
        return Ok(false);
    }
    // The cursor must name a message that still exists: after a reset, a summary computed
    // from the old messages would bring forgotten memory back.
    let exists = tx
        .prepare_cached("SELECT 1 FROM messages WHERE id = ?1 AND node = ?2")?
        .query_row(params![save.through_id, node_sql(node)], |_| Ok(()))
        .optional()?
        .is_some();
    if !exists {
        return Ok(false);
    }
    let now = unix_now();
    tx.prepare_cached(
        "INSERT INTO summaries(node, text, through_id, updated_at) VALUES (?1, ?2, ?3, ?4)
         ON CONFLICT(node) DO UPDATE SET
             text = excluded.text,
             through_id = excluded.through_id,
             updated_at = excluded.updated_at",
    )?
    .execute(params![node_sql(node), save.text, save.through_id, now])?;
    // A restated fact moves to the end (newest) instead of being kept twice.
    let mut old: Vec<(i64, String)> = tx
        .prepare_cached("SELECT id, text FROM facts WHERE node = ?1")?
        .query_map([node_sql(node)], |row| {
            Ok((row.get(0)?, text::key(&row.get::<_, String>(1)?)))
        })?
        .collect::<rusqlite::Result<_>>()?;
    for (text, source) in &save.facts {
        let k = text::key(text);
        for (id, _) in old.iter().filter(|(_, key)| *key == k) {
            tx.prepare_cached("DELETE FROM facts WHERE id = ?1")?
                .execute([id])?;
        }
        tx.prepare_cached("INSERT INTO facts(node, text, source_id, at) VALUES (?1, ?2, ?3, ?4)")?
            .execute(params![node_sql(node), text, source, now])?;
        old.push((tx.last_insert_rowid(), k));
    }
    // Over the bound, a statement that names nothing goes before one that does, the oldest
    // first: a small-talk sentence never pushes a callsign out.
    let kept: Vec<(i64, String)> = tx
        .prepare_cached("SELECT id, text FROM facts WHERE node = ?1 ORDER BY id")?
        .query_map([node_sql(node)], |row| Ok((row.get(0)?, row.get(1)?)))?
        .collect::<rusqlite::Result<_>>()?;
    for id in facts::evicted(&kept, save.facts_max) {
        tx.prepare_cached("DELETE FROM facts WHERE id = ?1")?
            .execute([id])?;
    }
    tx.commit()?;
    Ok(true)
}

pub(super) fn reset(c: &mut Connection, node: NodeId) -> Result<(), StoreError> {
    let tx = c.transaction_with_behavior(TransactionBehavior::Immediate)?;
    // Exchanges first: they reference the messages, and their trigger clears the search index.
    tx.execute("DELETE FROM exchanges WHERE node = ?1", [node_sql(node)])?;
    tx.execute("DELETE FROM messages WHERE node = ?1", [node_sql(node)])?;
    tx.execute("DELETE FROM summaries WHERE node = ?1", [node_sql(node)])?;
    tx.execute("DELETE FROM facts WHERE node = ?1", [node_sql(node)])?;
    tx.commit()?;
    Ok(())
}

pub(super) fn history(
    c: &Connection,
    node: NodeId,
    n: usize,
) -> Result<Vec<StoredMessage>, StoreError> {
    last_messages(c, node, i64::MAX, n)
}

pub(super) fn touch_node(
    c: &Connection,
    node: NodeId,
    long_name: Option<&str>,
    short_name: Option<&str>,
    at: i64,
) -> Result<(), StoreError> {
    c.prepare_cached(
        "INSERT INTO nodes(node, long_name, short_name, first_seen, last_seen)
         VALUES (?1, ?2, ?3, ?4, ?4)
         ON CONFLICT(node) DO UPDATE SET
             long_name = coalesce(excluded.long_name, long_name),
             short_name = coalesce(excluded.short_name, short_name),
             first_seen = min(coalesce(first_seen, excluded.first_seen), excluded.first_seen),
             last_seen = max(coalesce(last_seen, excluded.last_seen), excluded.last_seen)",
    )?
    .execute(params![node_sql(node), long_name, short_name, at])?;
    Ok(())
}

pub(super) fn record_usage(
    c: &Connection,
    node: NodeId,
    prompt_tokens: u64,
    completion_tokens: u64,
) -> Result<(), StoreError> {
    c.prepare_cached(
        "INSERT INTO nodes(node, llm_calls, prompt_tokens, completion_tokens)
         VALUES (?1, 1, ?2, ?3)
         ON CONFLICT(node) DO UPDATE SET
             llm_calls = llm_calls + 1,
             prompt_tokens = prompt_tokens + excluded.prompt_tokens,
             completion_tokens = completion_tokens + excluded.completion_tokens",
    )?
    .execute(params![
        node_sql(node),
        counter_sql(prompt_tokens),
        counter_sql(completion_tokens)
    ])?;
    Ok(())
}

pub(super) fn stats(c: &Connection) -> Result<Vec<NodeStats>, StoreError> {
    let mut stmt = c.prepare(
        "WITH ids(node) AS (
             SELECT node FROM nodes UNION SELECT node FROM messages UNION SELECT node FROM summaries
         )
         SELECT ids.node, n.long_name,
                (SELECT count(*) FROM messages m WHERE m.node = ids.node),
                n.last_seen,
                coalesce(length(s.text), 0),
                coalesce(n.llm_calls, 0), coalesce(n.prompt_tokens, 0),
                coalesce(n.completion_tokens, 0)
         FROM ids
         LEFT JOIN nodes n ON n.node = ids.node
         LEFT JOIN summaries s ON s.node = ids.node
         ORDER BY n.last_seen IS NULL, n.last_seen DESC, ids.node",
    )?;
    let rows = stmt.query_map([], |row| {
        let node: i64 = row.get(0)?;
        let node =
            u32::try_from(node).map_err(|_| rusqlite::Error::IntegralValueOutOfRange(0, node))?;
        Ok(NodeStats {
            node: NodeId(node),
            long_name: row.get(1)?,
            messages: counter(row.get(2)?),
            last_seen: row.get(3)?,
            summary_chars: usize::try_from(row.get::<_, i64>(4)?).unwrap_or(0),
            llm_calls: counter(row.get(5)?),
            prompt_tokens: counter(row.get(6)?),
            completion_tokens: counter(row.get(7)?),
        })
    })?;
    Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?)
}

pub(super) fn integrity_check(c: &Connection) -> Result<String, StoreError> {
    let mut problems: Vec<String> = c
        .prepare("PRAGMA integrity_check")?
        .query_map([], |row| row.get::<_, String>(0))?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    problems.retain(|p| p != "ok");
    for table in ["exchanges_fts", "knowledge_fts"] {
        let check = format!("INSERT INTO {table}({table}) VALUES ('integrity-check')");
        if let Err(e) = c.execute(&check, []) {
            problems.push(format!("full-text index {table}: {e}"));
        }
    }
    if problems.is_empty() {
        Ok("ok".to_string())
    } else {
        Ok(problems.join("\n"))
    }
}
