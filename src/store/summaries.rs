//! A node's rolling summary and the facts kept verbatim beside it: the fold that is due
//! (`pending_fold`, by a `FoldRule`), how much no summary covers yet, and the save — summary,
//! cursor and new facts in one transaction, compare-and-swap on the cursor. A new fact that
//! corrects a kept one retires it there: out of the prompt, kept for the record (at most
//! `facts_max` retired ones per node), and the saved summary loses its sentences that say the
//! old value. Which sentences are facts, which go first over the bound and which one a new
//! statement replaces is `crate::facts`'s.

use rusqlite::{Connection, OptionalExtension, Row, TransactionBehavior, params};

use super::sql::{message, node_sql};
use super::{FoldRule, RetiredFact, Role, Store, StoreError, Summary, SummaryJob, SummarySave};
use crate::clock::unix_now;
use crate::facts;
use crate::node::NodeId;
use crate::text;

impl Store {
    /// A fold, when one is due: the node has more than `keep + threshold` messages before
    /// `before_id` that no summary covers. The job holds the oldest of them, all but the
    /// newest `keep` (one more if the first kept one would be a reply), at most `max_batch`.
    pub async fn pending_fold(
        &self,
        node: NodeId,
        before_id: i64,
        rule: FoldRule,
    ) -> Result<Option<SummaryJob>, StoreError> {
        self.call(move |c| pending_fold(c, node, before_id, rule))
            .await
    }

    /// How many messages of `node` before `before_id` no saved summary covers yet.
    pub async fn unsummarized(&self, node: NodeId, before_id: i64) -> Result<usize, StoreError> {
        self.call(move |c| unsummarized(c, node, before_id)).await
    }

    /// Saves the summary, its cursor and the new facts in one transaction, only if the stored
    /// cursor still equals `save.expected_previous` and message `save.through_id` still
    /// exists for the node. Otherwise changes nothing and returns false: a reset or another
    /// save happened while the LLM was summarising.
    pub async fn save_summary(&self, node: NodeId, save: SummarySave) -> Result<bool, StoreError> {
        self.call(move |c| save_summary(c, node, &save)).await
    }

    /// The node's kept facts, oldest first (not those a newer one replaced).
    pub async fn facts(&self, node: NodeId) -> Result<Vec<String>, StoreError> {
        self.call(move |c| facts(c, node)).await
    }

    /// The node's facts that newer ones replaced, oldest first.
    pub async fn retired_facts(&self, node: NodeId) -> Result<Vec<RetiredFact>, StoreError> {
        self.call(move |c| retired_facts(c, node)).await
    }

    /// The node's rolling summary, if it has one.
    pub async fn summary(&self, node: NodeId) -> Result<Option<Summary>, StoreError> {
        self.call(move |c| summary(c, node)).await
    }
}

/// Maps `SELECT text, through_id, updated_at`.
fn summary_row(row: &Row<'_>) -> rusqlite::Result<Summary> {
    Ok(Summary {
        text: row.get(0)?,
        through_id: row.get(1)?,
        updated_at: row.get(2)?,
    })
}

pub(super) fn summary(c: &Connection, node: NodeId) -> Result<Option<Summary>, StoreError> {
    let s = c
        .prepare_cached("SELECT text, through_id, updated_at FROM summaries WHERE node = ?1")?
        .query_row([node_sql(node)], summary_row)
        .optional()?;
    Ok(s)
}

/// The node's kept facts, oldest first.
pub(super) fn facts(c: &Connection, node: NodeId) -> Result<Vec<String>, StoreError> {
    let facts = c
        .prepare_cached(
            "SELECT text FROM facts WHERE node = ?1 AND retired_at IS NULL ORDER BY id",
        )?
        .query_map([node_sql(node)], |row| row.get(0))?
        .collect::<rusqlite::Result<Vec<String>>>()?;
    Ok(facts)
}

/// The node's retired facts, oldest first, each with what replaced it.
pub(super) fn retired_facts(c: &Connection, node: NodeId) -> Result<Vec<RetiredFact>, StoreError> {
    let retired = c
        .prepare_cached(
            "SELECT f.text, f.at, f.retired_at, r.text FROM facts f
             LEFT JOIN facts r ON r.id = f.replaced_by
             WHERE f.node = ?1 AND f.retired_at IS NOT NULL ORDER BY f.id",
        )?
        .query_map([node_sql(node)], |row| {
            Ok(RetiredFact {
                text: row.get(0)?,
                at: row.get(1)?,
                retired_at: row.get(2)?,
                replaced_by: row.get(3)?,
            })
        })?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    Ok(retired)
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
        let beyond = backlog.len().saturating_sub(rule.keep);
        let chars: usize = backlog[..beyond]
            .iter()
            .map(|m| m.prompt_text().chars().count())
            .sum();
        beyond > 0 && chars >= rule.min_now_chars
            || backlog.len() > rule.keep.saturating_add(rule.threshold)
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
    // No more than `max_chars` of them (the first always): the oldest first.
    let mut chars = 0usize;
    let fold = backlog[..fold]
        .iter()
        .take_while(|m| {
            chars = chars.saturating_add(m.prompt_text().chars().count());
            chars <= rule.max_chars
        })
        .count()
        .max(1);
    let mut evicted = backlog;
    let kept = evicted.split_off(fold);
    Ok(Some(SummaryJob {
        previous,
        facts,
        evicted,
        kept,
    }))
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
    add_facts(&tx, node, save, now)?;
    // What the model wrote may still say a corrected value (this fold's correction, or an
    // older one it took from the conversation): the sentences that do go.
    let replaced: Vec<(String, String)> = retired_facts(&tx, node)?
        .into_iter()
        .map(|r| (r.text, r.replaced_by.unwrap_or_default()))
        .collect();
    let text = facts::replace::without_stale(&save.text, &replaced, &facts(&tx, node)?);
    tx.prepare_cached(
        "INSERT INTO summaries(node, text, through_id, updated_at) VALUES (?1, ?2, ?3, ?4)
         ON CONFLICT(node) DO UPDATE SET
             text = excluded.text,
             through_id = excluded.through_id,
             updated_at = excluded.updated_at",
    )?
    .execute(params![node_sql(node), text, save.through_id, now])?;
    tx.commit()?;
    Ok(true)
}

/// Adds `save`'s facts to the node's at `now`, a restated one moved to the end, each kept
/// one that a new one replaces retired; then keeps at most `save.facts_max` current ones and
/// as many retired ones.
fn add_facts(
    tx: &Connection,
    node: NodeId,
    save: &SummarySave,
    now: i64,
) -> Result<(), StoreError> {
    let mut current: Vec<(i64, String)> = tx
        .prepare_cached(
            "SELECT id, text FROM facts WHERE node = ?1 AND retired_at IS NULL ORDER BY id",
        )?
        .query_map([node_sql(node)], |row| Ok((row.get(0)?, row.get(1)?)))?
        .collect::<rusqlite::Result<_>>()?;
    for (text, source) in &save.facts {
        tx.prepare_cached("INSERT INTO facts(node, text, source_id, at) VALUES (?1, ?2, ?3, ?4)")?
            .execute(params![node_sql(node), text, source, now])?;
        let id = tx.last_insert_rowid();
        // A restated fact moves to the end (newest) instead of being kept twice; what it
        // replaced before, the new row replaced.
        let k = text::key(text);
        for (old, _) in current.iter().filter(|(_, t)| text::key(t) == k) {
            tx.prepare_cached("UPDATE facts SET replaced_by = ?1 WHERE replaced_by = ?2")?
                .execute([id, *old])?;
            tx.prepare_cached("DELETE FROM facts WHERE id = ?1")?
                .execute([old])?;
        }
        current.retain(|(_, t)| text::key(t) != k);
        for old in facts::replace::replaced(&current, text) {
            tx.prepare_cached("UPDATE facts SET retired_at = ?1, replaced_by = ?2 WHERE id = ?3")?
                .execute([now, id, old])?;
            current.retain(|(i, _)| *i != old);
        }
        current.push((id, text.clone()));
    }
    // Over the bound, a statement that names nothing goes before one that does, the oldest
    // first: a small-talk sentence never pushes a callsign out.
    for id in facts::evicted(&current, save.facts_max) {
        tx.prepare_cached("DELETE FROM facts WHERE id = ?1")?
            .execute([id])?;
    }
    // The record of corrections is bounded too: the oldest retired facts go first.
    let keep = i64::try_from(save.facts_max).unwrap_or(i64::MAX);
    tx.prepare_cached(
        "DELETE FROM facts WHERE id IN (
             SELECT id FROM facts WHERE node = ?1 AND retired_at IS NOT NULL
             ORDER BY id DESC LIMIT -1 OFFSET ?2)",
    )?
    .execute(params![node_sql(node), keep])?;
    Ok(())
}
