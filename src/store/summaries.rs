//! A node's rolling summary and the facts kept verbatim beside it: the fold that is due
//! (`pending_fold`, by a `FoldRule`), how much no summary covers yet, and the save — summary,
//! cursor and new facts in one transaction, compare-and-swap on the cursor. A new fact that
//! corrects a kept one retires it there: out of the prompt, kept for the record (at most
//! `facts_max` retired ones per node), and the saved summary loses its sentences that say the
//! old value.
//!
//! Which sentences are facts, which go first over the bound and which one a new statement
//! replaces is `crate::facts`'s, decided outside the transaction: the save reads the node's
//! fact rows, `facts::saving::plan` makes the plan on the caller's task, and the transaction
//! writes it only while those rows are still the node's. They change only in a save, a
//! reset, a renumbering or expiry, and a node's saves run one at a time (its worker's
//! summary lock, `responder::fold`); but the admin CLI's process writes the same file, so the
//! check stays: rows that changed are read and planned again, and a save never loses or
//! doubles a fact.

use rusqlite::{Connection, OptionalExtension, Row, TransactionBehavior, params};

use super::error::StoreError;
use super::handle::Store;
use super::sql::{message, node_sql};
use super::types::{FoldRule, RetiredFact, Role, Summary, SummaryJob, SummarySave};
use crate::clock::unix_now;
use crate::facts::saving::{self, Fact, Plan, Row as FactRow};
use crate::node::NodeId;

/// A save whose fact rows changed between its read and its write is planned again this many
/// times at most, then discarded like one whose cursor moved.
const SAVE_TRIES: usize = 3;

/// What a summary's write did.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Written {
    Saved,
    /// The cursor moved or its message is gone: nothing written.
    Refused,
    /// The node's fact rows are not those the plan was made from: nothing written.
    FactsChanged,
}

impl Store {
    /// A fold, when one is due: the node has more than `keep + threshold` messages before
    /// `before_id` that no summary covers. The job holds the oldest of them, all but the
    /// newest `keep` (one more if the first kept one would be a reply), at most `max_batch`.
    pub(crate) async fn pending_fold(
        &self,
        node: NodeId,
        before_id: i64,
        rule: FoldRule,
    ) -> Result<Option<SummaryJob>, StoreError> {
        self.call(move |c| pending_fold(c, node, before_id, rule))
            .await
    }

    /// How many messages of `node` before `before_id` no saved summary covers yet.
    pub(crate) async fn unsummarized(
        &self,
        node: NodeId,
        before_id: i64,
    ) -> Result<usize, StoreError> {
        self.call(move |c| unsummarized(c, node, before_id)).await
    }

    /// Saves the summary, its cursor and the new facts in one transaction, only if the stored
    /// cursor still equals `save.expected_previous` and message `save.through_id` still
    /// exists for the node. Otherwise changes nothing and returns false: a reset or another
    /// save happened while the LLM was summarising. What the new facts do to the kept ones
    /// is planned here, on the caller's task, from the rows read just before (see the module
    /// comment).
    pub(crate) async fn save_summary(
        &self,
        node: NodeId,
        save: SummarySave,
    ) -> Result<bool, StoreError> {
        let (through, expected) = (save.through_id, save.expected_previous);
        for _ in 0..SAVE_TRIES {
            let rows = self.call(move |c| fact_rows(c, node)).await?;
            let plan = saving::plan(&rows, &save.facts, &save.text, save.facts_max);
            let written = self
                .call(move |c| write_summary(c, node, (through, expected), &rows, &plan))
                .await?;
            match written {
                Written::Saved => return Ok(true),
                Written::Refused => return Ok(false),
                Written::FactsChanged => continue,
            }
        }
        Ok(false)
    }

    /// The node's kept facts, oldest first (not those a newer one replaced).
    #[cfg(test)]
    pub(crate) async fn facts(&self, node: NodeId) -> Result<Vec<String>, StoreError> {
        self.call(move |c| facts(c, node)).await
    }

    /// The node's facts that newer ones replaced, oldest first.
    pub(crate) async fn retired_facts(&self, node: NodeId) -> Result<Vec<RetiredFact>, StoreError> {
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

/// All the node's fact rows, by id: what a save's plan is made from.
pub(super) fn fact_rows(c: &Connection, node: NodeId) -> Result<Vec<FactRow>, StoreError> {
    let rows = c
        .prepare_cached(
            "SELECT id, text, retired_at IS NOT NULL, replaced_by FROM facts
             WHERE node = ?1 ORDER BY id",
        )?
        .query_map([node_sql(node)], |row| {
            Ok(FactRow {
                id: row.get(0)?,
                text: row.get(1)?,
                retired: row.get(2)?,
                replaced_by: row.get(3)?,
            })
        })?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    Ok(rows)
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

/// Writes the summary through `cursor` (its newest message, the cursor it was computed
/// from) and `plan`, made from `rows`: see [`Written`].
pub(super) fn write_summary(
    c: &mut Connection,
    node: NodeId,
    (through_id, expected_previous): (i64, Option<i64>),
    rows: &[FactRow],
    plan: &Plan,
) -> Result<Written, StoreError> {
    let tx = c.transaction_with_behavior(TransactionBehavior::Immediate)?;
    let current = summary(&tx, node)?.map(|s| s.through_id);
    if current != expected_previous || expected_previous.is_some_and(|prev| through_id <= prev) {
        return Ok(Written::Refused);
    }
    // The cursor must name a message that still exists: after a reset, a summary computed
    // from the old messages would bring forgotten memory back.
    let exists = tx
        .prepare_cached("SELECT 1 FROM messages WHERE id = ?1 AND node = ?2")?
        .query_row(params![through_id, node_sql(node)], |_| Ok(()))
        .optional()?
        .is_some();
    if !exists {
        return Ok(Written::Refused);
    }
    if fact_rows(&tx, node)? != rows {
        return Ok(Written::FactsChanged);
    }
    let now = unix_now();
    write_facts(&tx, node, plan, now)?;
    tx.prepare_cached(
        "INSERT INTO summaries(node, text, through_id, updated_at) VALUES (?1, ?2, ?3, ?4)
         ON CONFLICT(node) DO UPDATE SET
             text = excluded.text,
             through_id = excluded.through_id,
             updated_at = excluded.updated_at",
    )?
    .execute(params![node_sql(node), plan.text, through_id, now])?;
    tx.commit()?;
    Ok(Written::Saved)
}

/// Writes `plan`'s facts at `now`: the new ones, then the retirements, the moved
/// replacements and the deletions.
fn write_facts(tx: &Connection, node: NodeId, plan: &Plan, now: i64) -> Result<(), StoreError> {
    let mut added = Vec::with_capacity(plan.add.len());
    for (text, source) in &plan.add {
        tx.prepare_cached("INSERT INTO facts(node, text, source_id, at) VALUES (?1, ?2, ?3, ?4)")?
            .execute(params![node_sql(node), text, source, now])?;
        added.push(tx.last_insert_rowid());
    }
    // A plan names only the node's rows and its own new facts.
    let id = |fact: Fact| match fact {
        Fact::Row(id) => Some(id),
        Fact::New(i) => added.get(i).copied(),
    };
    for (fact, by) in &plan.retire {
        if let (Some(fact), Some(by)) = (id(*fact), id(*by)) {
            tx.prepare_cached("UPDATE facts SET retired_at = ?1, replaced_by = ?2 WHERE id = ?3")?
                .execute([now, by, fact])?;
        }
    }
    for (fact, by) in &plan.repoint {
        if let (Some(fact), Some(by)) = (id(*fact), id(*by)) {
            tx.prepare_cached("UPDATE facts SET replaced_by = ?1 WHERE id = ?2")?
                .execute([by, fact])?;
        }
    }
    for fact in plan.delete.iter().filter_map(|f| id(*f)) {
        tx.prepare_cached("DELETE FROM facts WHERE id = ?1")?
            .execute([fact])?;
    }
    Ok(())
}
