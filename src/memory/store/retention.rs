//! Expiring old data (`[storage] retain_days`, `meshai forget --older-than`): the SQL, run on
//! the database thread like every query. One cutoff time decides two things:
//!
//! - A node silent since before the cutoff (last heard and newest message both older) is
//!   forgotten entirely: [`ops::reset`] (everything a `!reset` removes: messages, exchanges
//!   with their search entries, the summary) and then its `nodes` row and its pinned key. Going through `reset`
//!   means whatever `reset` learns to delete later is expired too.
//! - A node still talking keeps its summary, and loses only the messages that are older than
//!   the cutoff **and** already folded into that summary (id ≤ the summary's `through_id`).
//!   Messages after the cursor are in no summary yet: deleting them would lose what was said,
//!   so they stay however old they are. A node without a summary keeps all its messages.
//!   Exchanges go with either of their messages (`ON DELETE CASCADE`), and their search-index
//!   entries with them (the `exchanges_fts_delete` trigger).
//!
//! Every node is its own short transaction, so the daemon and the admin CLI never wait long on
//! each other, and a crash half-way leaves a state the next run finishes. No index serves the
//! `at` column: this is a full scan, once a day.

use rusqlite::{Connection, ToSql, TransactionBehavior, params};

use super::{Store, StoreError, ops};
use crate::node::NodeId;

/// What one expiry removed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Expired {
    /// Nodes silent since before the cutoff, forgotten entirely.
    pub nodes: u64,
    /// Messages deleted, the forgotten nodes' included.
    pub messages: u64,
    /// Question/answer pairs deleted with their messages (and their search-index entries).
    pub exchanges: u64,
}

impl Expired {
    pub fn is_empty(&self) -> bool {
        *self == Expired::default()
    }
}

impl Store {
    /// Forgets nodes silent since before `cutoff` (unix seconds) and deletes the messages of
    /// other nodes that are older than `cutoff` and already in their summary; see the module
    /// comment of `store/retention.rs` for exactly what goes and what stays.
    pub async fn expire(&self, cutoff: i64) -> Result<Expired, StoreError> {
        self.call(move |c| expire(c, cutoff)).await
    }
}

/// One node as expiry sees it.
struct NodeAge {
    node: i64,
    /// The later of its `nodes.last_seen` and its newest message; `None` when neither exists.
    last_active: Option<i64>,
    /// The summary's cursor, when it has a summary.
    through_id: Option<i64>,
}

fn expire(c: &mut Connection, cutoff: i64) -> Result<Expired, StoreError> {
    let nodes = c
        .prepare(
            "WITH ids(node) AS (
                 SELECT node FROM nodes UNION SELECT node FROM messages UNION SELECT node FROM summaries
                 UNION SELECT node FROM facts
             )
             SELECT ids.node,
                    (SELECT last_seen FROM nodes n WHERE n.node = ids.node),
                    (SELECT max(at) FROM messages m WHERE m.node = ids.node),
                    (SELECT through_id FROM summaries s WHERE s.node = ids.node)
             FROM ids",
        )?
        .query_map([], |row| {
            let seen: Option<i64> = row.get(1)?;
            let wrote: Option<i64> = row.get(2)?;
            Ok(NodeAge {
                node: row.get(0)?,
                last_active: seen.max(wrote),
                through_id: row.get(3)?,
            })
        })?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    let mut done = Expired::default();
    for n in nodes {
        // Nothing dates a node with no time at all (a bare counters row): it holds nothing
        // worth keeping either.
        let silent = n.last_active.is_none_or(|t| t < cutoff);
        let removed = if silent {
            forget_node(c, n.node)?
        } else if let Some(cursor) = n.through_id {
            trim_node(c, n.node, cutoff, cursor)?
        } else {
            continue;
        };
        done.nodes += removed.nodes;
        done.messages += removed.messages;
        done.exchanges += removed.exchanges;
    }
    Ok(done)
}

/// Counts the messages `m` and the exchanges of node `?1` that match `filter`, a condition
/// on `m` with the further `params`.
fn count(c: &Connection, filter: &str, params: &[&dyn ToSql]) -> rusqlite::Result<(u64, u64)> {
    let messages: i64 = c.query_row(
        &format!("SELECT count(*) FROM messages m WHERE m.node = ?1 AND {filter}"),
        params,
        |row| row.get(0),
    )?;
    let exchanges: i64 = c.query_row(
        &format!(
            "SELECT count(*) FROM exchanges e WHERE e.node = ?1 AND EXISTS (
                 SELECT 1 FROM messages m WHERE m.id IN (e.user_id, e.assistant_id) AND {filter}
             )"
        ),
        params,
        |row| row.get(0),
    )?;
    Ok((
        u64::try_from(messages).unwrap_or(0),
        u64::try_from(exchanges).unwrap_or(0),
    ))
}

/// Everything of a silent node, through `reset`, then its stats row.
fn forget_node(c: &mut Connection, node: i64) -> Result<Expired, StoreError> {
    let (messages, exchanges) = count(c, "1", &[&node])?;
    let id = u32::try_from(node).map_err(|_| rusqlite::Error::IntegralValueOutOfRange(0, node))?;
    ops::reset(c, NodeId(id))?;
    c.execute("DELETE FROM nodes WHERE node = ?1", [node])?;
    // The pinned key goes too: with nothing left to protect, the node's next PKI DM pins
    // afresh.
    c.execute("DELETE FROM node_keys WHERE node = ?1", [node])?;
    Ok(Expired {
        nodes: 1,
        messages,
        exchanges,
    })
}

/// The talking node's messages older than `cutoff` that its summary covers.
fn trim_node(
    c: &mut Connection,
    node: i64,
    cutoff: i64,
    cursor: i64,
) -> Result<Expired, StoreError> {
    const OLD_AND_SUMMARISED: &str = "m.at < ?2 AND m.id <= ?3";
    let tx = c.transaction_with_behavior(TransactionBehavior::Immediate)?;
    let (_, exchanges) = count(&tx, OLD_AND_SUMMARISED, &[&node, &cutoff, &cursor])?;
    let messages = tx.execute(
        &format!("DELETE FROM messages AS m WHERE m.node = ?1 AND {OLD_AND_SUMMARISED}"),
        params![node, cutoff, cursor],
    )?;
    tx.commit()?;
    Ok(Expired {
        nodes: 0,
        messages: u64::try_from(messages).unwrap_or(0),
        exchanges,
    })
}
