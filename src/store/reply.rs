//! A streamed reply's row as it grows: the responder stores a reply with its first parts
//! (`conversations::append_reply`), then rewrites it here as more parts go to the outbox, so what went
//! on air is stored even if the daemon dies mid-answer; a reply the outbox took back whole
//! (nothing went on air) is deleted. They run on the database thread only.

use rusqlite::{Connection, OptionalExtension, TransactionBehavior, params};

use super::damage::{Entry, Indexing, index_exchange, without_entry_if_rolled_back};
use super::error::StoreError;
use super::handle::Store;
use super::sql::{counter_sql, node_sql};
use super::types::Said;
use crate::llm::Usage;
use crate::node::NodeId;

impl Store {
    /// Replaces the text of reply `id` (a streamed reply, grown by more parts or rewritten by
    /// a retry) and its search entry, and adds `usage`'s tokens to the node's counters (the
    /// call was counted when the reply was first stored). Fails with `NoSuchReply` if the
    /// reply is gone (reset meanwhile).
    pub(crate) async fn update_reply(
        &self,
        node: NodeId,
        id: i64,
        said: Said,
        usage: Option<Usage>,
    ) -> Result<(), StoreError> {
        let unindexed = self
            .call(move |c| update(c, node, id, &said, usage))
            .await?;
        self.note_skipped(unindexed);
        Ok(())
    }

    /// Deletes reply `id` with its exchange and search entry: a streamed reply whose parts the
    /// outbox took back (none went on air) and that no retry replaced.
    pub(crate) async fn delete_reply(&self, node: NodeId, id: i64) -> Result<(), StoreError> {
        self.call(move |c| delete(c, node, id)).await
    }
}

/// Sets reply `id`'s text (and what the model wrote, `said.prompt`) and its search entry, and adds `usage`'s tokens to the node's
/// counters without counting another call; the damage that kept the new entry out of a
/// damaged search index comes back beside `Ok`.
pub(super) fn update(
    c: &mut Connection,
    node: NodeId,
    id: i64,
    said: &Said,
    usage: Option<Usage>,
) -> Result<Option<StoreError>, StoreError> {
    let ((), unindexed) =
        without_entry_if_rolled_back(c, |c, index| rewrite(c, node, id, said, usage, index))?;
    Ok(unindexed)
}

/// [`update`]'s transaction; `index`: with the exchange's search entry or without.
fn rewrite(
    c: &mut Connection,
    node: NodeId,
    id: i64,
    said: &Said,
    usage: Option<Usage>,
    index: Indexing,
) -> Result<((), Option<StoreError>), StoreError> {
    let text = said.text.as_str();
    let mut tx = c.transaction_with_behavior(TransactionBehavior::Immediate)?;
    let exchange: Option<(i64, String)> = tx
        .prepare_cached(
            "SELECT e.id, u.text FROM exchanges e JOIN messages u ON u.id = e.user_id
             WHERE e.assistant_id = ?1 AND e.node = ?2",
        )?
        .query_row(params![id, node_sql(node)], |row| {
            Ok((row.get(0)?, row.get(1)?))
        })
        .optional()?;
    let Some((exchange_id, user_text)) = exchange else {
        return Err(StoreError::NoSuchReply { node, id });
    };
    tx.prepare_cached("UPDATE messages SET text = ?1, prompt = ?2 WHERE id = ?3")?
        .execute(params![text, said.prompt(), id])?;
    let unindexed = match index {
        Indexing::WithEntry => {
            index_exchange(&mut tx, exchange_id, (&user_text, text), Entry::Replacing)?
        }
        Indexing::WithoutEntry => None,
    };
    if let Some(u) = usage {
        tx.prepare_cached(
            "UPDATE nodes SET prompt_tokens = prompt_tokens + ?2,
                 completion_tokens = completion_tokens + ?3
             WHERE node = ?1",
        )?
        .execute(params![
            node_sql(node),
            counter_sql(u.prompt_tokens),
            counter_sql(u.completion_tokens)
        ])?;
    }
    tx.commit()?;
    Ok(((), unindexed))
}

/// Deletes reply `id`; its exchange goes with it (a foreign-key cascade), and the exchange's
/// search entry with that (a trigger).
pub(super) fn delete(c: &Connection, node: NodeId, id: i64) -> Result<(), StoreError> {
    let n = c
        .prepare_cached("DELETE FROM messages WHERE id = ?1 AND node = ?2 AND role = 'assistant'")?
        .execute(params![id, node_sql(node)])?;
    if n == 0 {
        return Err(StoreError::NoSuchReply { node, id });
    }
    Ok(())
}
