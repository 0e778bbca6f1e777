//! A node's conversation: its messages (a user's as heard, with the node's names; a reply
//! with its exchange, its search entry and the LLM call counted), the memory a reply is built
//! from (`context`: the summary and facts, the messages no summary covers, older exchanges
//! found by `retrieval`), the node's history, and the reset that forgets it all.

use rusqlite::{Connection, OptionalExtension, TransactionBehavior, params};

use super::damage::{Entry, Indexing, index_exchange, without_entry_if_rolled_back};
use super::error::{Damage, StoreError};
use super::fts::{self, Query};
use super::handle::Store;
use super::nodes::{record_usage, touch_node};
use super::retrieval::retrieve_exchanges;
use super::sql::{limit, message, node_sql};
use super::summaries::{facts, retired_facts, summary};
use super::types::{Context, Role, Said, StoredMessage, Window};
use crate::llm::Usage;
use crate::node::NodeId;

impl Store {
    /// Stores a message from `node` and returns its id. Called before the LLM is asked, so a
    /// crash mid-reply still remembers what the person said.
    pub async fn append_user(
        &self,
        node: NodeId,
        text: String,
        at: i64,
    ) -> Result<i64, StoreError> {
        self.call(move |c| append_message(c, node, Role::User, &Said::plain(text), at))
            .await
    }

    /// Stores a message from `node` together with what was heard of the node (its names, if
    /// known — `None` keeps the stored ones — and the time): like [`Store::touch_node`] and
    /// [`Store::append_user`], in one transaction, so one sync to disk per incoming message.
    pub(crate) async fn append_heard(
        &self,
        node: NodeId,
        names: (Option<String>, Option<String>),
        said: Said,
        at: i64,
    ) -> Result<i64, StoreError> {
        self.call(move |c| {
            let names = (names.0.as_deref(), names.1.as_deref());
            append_heard(c, node, names, &said, at)
        })
        .await
    }

    /// Stores the reply to message `user_id`, indexes the pair for retrieval and counts the
    /// LLM call with its token usage (tokens only if known), in one transaction; returns the
    /// reply's id. Fails with `NoSuchUserMessage` if `user_id` is gone (reset meanwhile). A
    /// damaged search index leaves the pair out of it (noted); the reply is stored.
    pub async fn append_reply(
        &self,
        node: NodeId,
        user_id: i64,
        said: Said,
        at: i64,
        usage: Option<Usage>,
    ) -> Result<i64, StoreError> {
        let (id, unindexed) = self
            .call(move |c| append_reply(c, node, user_id, &said, at, usage))
            .await?;
        self.note_skipped(unindexed);
        Ok(id)
    }

    /// The memory for answering message `before_id`: the summary and kept facts, every
    /// message of the node after the summary's cursor and before `before_id` (at most
    /// `max_messages`, the newest), and up to `retrieve` exchanges of that node entirely older
    /// than those, ranked by FTS5 bm25 (stemmed, the user's words weighted double) against
    /// `query`, weak matches left out. The query is reduced to safe terms (see `fts`), so user
    /// text never causes a syntax error; no terms, no retrieval.
    pub(crate) async fn context(
        &self,
        node: NodeId,
        before_id: i64,
        window: impl Into<Window>,
        query: &str,
        retrieve: usize,
    ) -> Result<Context, StoreError> {
        let query = fts::Query::new(query);
        let window = window.into();
        let (ctx, retrieval) = self
            .call(move |c| context(c, node, before_id, window, query.as_ref(), retrieve))
            .await?;
        if let Some(e) = retrieval {
            // Retrieval is best-effort: the turn goes on with the rest of the memory.
            let e = self.noted(e);
            if e.damage().is_none() {
                tracing::warn!(error = %e, "retrieval failed; answering without older exchanges");
            }
        }
        Ok(ctx)
    }

    /// `node`'s newest message, if it has any.
    pub(crate) async fn last_message(
        &self,
        node: NodeId,
    ) -> Result<Option<StoredMessage>, StoreError> {
        self.call(move |c| last_message(c, node)).await
    }

    /// Forgets the node: its messages, exchanges (and their search entries), summary and facts.
    /// The node's stats row (names, usage counters) stays.
    ///
    /// A damaged search index (its entries go with the exchanges) is rebuilt from the
    /// messages first, then the reset is tried again.
    pub(crate) async fn reset(&self, node: NodeId) -> Result<(), StoreError> {
        match self.call(move |c| reset(c, node)).await {
            Err(StoreError::Damaged {
                part: Damage::Index,
                ..
            }) => {
                let n = self.rebuild_index().await?;
                tracing::info!(
                    exchanges = n,
                    "search index rebuilt from the stored messages"
                );
                self.call(move |c| reset(c, node)).await
            }
            result => result,
        }
    }

    /// The node's last `limit` messages, oldest first.
    pub async fn history(
        &self,
        node: NodeId,
        limit: usize,
    ) -> Result<Vec<StoredMessage>, StoreError> {
        self.call(move |c| history(c, node, limit)).await
    }
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

/// [`append_reply`]'s transaction; `index`: with the exchange's search entry or without.
fn write_reply(
    c: &mut Connection,
    node: NodeId,
    user_id: i64,
    said: &Said,
    at: i64,
    usage: Option<Usage>,
    index: Indexing,
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
        Indexing::WithEntry => {
            index_exchange(&mut tx, exchange_id, (&user_text, text), Entry::New)?
        }
        Indexing::WithoutEntry => None,
    };
    // Every stored reply was one LLM call; its tokens only count when the server said them
    // (a streamed answer dropped at the reply budget never gets its last event with `usage`).
    let (prompt, completion) = usage.map_or((0, 0), |u| (u.prompt_tokens, u.completion_tokens));
    record_usage(&tx, node, prompt, completion)?;
    tx.commit()?;
    Ok((assistant_id, unindexed))
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

pub(super) fn context(
    c: &mut Connection,
    node: NodeId,
    before_id: i64,
    bound: Window,
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
    // Every message after the summary's cursor, unless summaries have failed for so long (or
    // a flood was stored) that there are more than the bound: then only the newest that fit
    // (the rest stays in the database, retrievable, and is folded once a summary succeeds).
    let window = {
        let mut stmt = tx.prepare_cached(
            "SELECT id, role, text, at, prompt FROM messages
             WHERE node = ?1 AND id > ?2 AND id < ?3 ORDER BY id DESC LIMIT ?4",
        )?;
        let mut msgs = stmt
            .query_map(
                params![node_sql(node), cursor, before_id, limit(bound.messages)],
                message,
            )?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        msgs.reverse();
        let fit = bound.fits(&msgs);
        msgs.split_off(msgs.len() - fit)
    };
    // Retrieval only looks at exchanges wholly older than what the prompt carries verbatim.
    let boundary = window.first().map_or(before_id, |m| m.id);
    // Best-effort: a failed retrieval (a damaged search index) leaves the rest of the
    // memory in the context, and comes back beside it for the caller to report.
    let (retrieved, failed) = match query {
        Some(query) if retrieve > 0 => {
            // A retired fact's exchange is not brought back either: it says the old value.
            let said = retired_facts(&tx, node)?
                .into_iter()
                .map(|r| r.text)
                .chain(facts.iter().cloned())
                .collect::<Vec<_>>();
            match retrieve_exchanges(&tx, node, boundary, query, retrieve, &said) {
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

pub(super) fn last_message(
    c: &Connection,
    node: NodeId,
) -> Result<Option<StoredMessage>, StoreError> {
    Ok(last_messages(c, node, i64::MAX, 1)?.pop())
}

pub(super) fn reset(c: &mut Connection, node: NodeId) -> Result<(), StoreError> {
    let tx = c.transaction_with_behavior(TransactionBehavior::Immediate)?;
    // Exchanges first: they reference the messages, and their trigger clears the search index.
    tx.execute("DELETE FROM exchanges WHERE node = ?1", [node_sql(node)])?;
    tx.execute("DELETE FROM messages WHERE node = ?1", [node_sql(node)])?;
    tx.execute("DELETE FROM summaries WHERE node = ?1", [node_sql(node)])?;
    tx.execute("DELETE FROM facts WHERE node = ?1", [node_sql(node)])?;
    // What it left for others with `!tell` is its words too; its watches and subscriptions go with it.
    tx.execute("DELETE FROM mail WHERE sender = ?1", [node_sql(node)])?;
    tx.execute("DELETE FROM watches WHERE owner = ?1", [node_sql(node)])?;
    tx.execute(
        "DELETE FROM subscriptions WHERE node = ?1",
        [node_sql(node)],
    )?;
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
