//! Data that expires (`[storage] retain_days`, `meshai forget --older-than`): the setting as
//! a type ([`Retention`]), the daemon's task that applies it at start and once a day
//! ([`daily`]), and the SQL, run on the database thread like every query. The time is a
//! parameter everywhere (`now`, the cutoff), never read here: tests pass their own clock.
//!
//! One cutoff time decides two things:
//!
//! - A node silent since before the cutoff (last heard and newest message both older) is
//!   forgotten entirely: [`conversations::reset`] (everything a `!reset` removes: messages,
//!   exchanges with their search entries, the summary and facts) and then its `nodes` row and
//!   its pinned key. Going through `reset` means whatever `reset` learns to delete later is
//!   expired too.
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

use std::num::NonZeroU32;
use std::time::Duration;

use rusqlite::{Connection, ToSql, TransactionBehavior, params};
use tokio_util::sync::CancellationToken;
use tracing::{debug, info, warn};

use super::conversations;
use super::error::StoreError;
use super::handle::Store;
use crate::node::NodeId;

/// Seconds in a day, the unit of `retain_days`.
pub(crate) const DAY_SECS: i64 = 86_400;

/// How often the daemon expires old data.
pub(super) const EVERY: Duration = Duration::from_secs(86_400);

/// How long messages are kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Retention {
    /// `retain_days = 0`: nothing is ever deleted by age.
    Forever,
    /// Messages older than this many days are deleted, and nodes silent for as long forgotten.
    Days(NonZeroU32),
}

impl Retention {
    /// `0` keeps everything.
    pub(crate) fn days(days: u32) -> Retention {
        NonZeroU32::new(days).map_or(Retention::Forever, Retention::Days)
    }

    /// The oldest unix time still kept at `now`; `None` keeps everything.
    pub(crate) fn cutoff(self, now: i64) -> Option<i64> {
        match self {
            Retention::Forever => None,
            Retention::Days(d) => Some(now.saturating_sub(i64::from(d.get()) * DAY_SECS)),
        }
    }
}

/// Expires old data now and then every day until `shutdown`; `now` gives the unix time of each
/// run. Failures are logged and retried the next day: an expiry that did not happen only
/// keeps data a day longer.
pub(crate) async fn daily(
    store: Store,
    retention: Retention,
    now: impl Fn() -> i64 + Send,
    shutdown: CancellationToken,
) {
    if retention == Retention::Forever {
        return;
    }
    let mut every = tokio::time::interval(EVERY);
    every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tokio::select! {
            _ = shutdown.cancelled() => return,
            _ = every.tick() => {}
        }
        let Some(cutoff) = retention.cutoff(now()) else {
            return;
        };
        let result = tokio::select! {
            _ = shutdown.cancelled() => return,
            r = store.expire(cutoff) => r,
        };
        match result {
            Ok(e) if e.is_empty() => debug!(cutoff, "nothing old enough to expire"),
            Ok(e) => info!(
                nodes = e.nodes,
                messages = e.messages,
                exchanges = e.exchanges,
                "expired old data"
            ),
            Err(e) => warn!(error = %e, "could not expire old data; trying again tomorrow"),
        }
    }
}

/// What one expiry removed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Expired {
    /// Nodes silent since before the cutoff, forgotten entirely.
    pub(crate) nodes: u64,
    /// Messages deleted, the forgotten nodes' included.
    pub(crate) messages: u64,
    /// Question/answer pairs deleted with their messages (and their search-index entries).
    pub(crate) exchanges: u64,
}

impl Expired {
    pub(crate) fn is_empty(&self) -> bool {
        *self == Expired::default()
    }
}

impl Store {
    /// Forgets nodes silent since before `cutoff` (unix seconds) and deletes the messages of
    /// other nodes that are older than `cutoff` and already in their summary; see the module
    /// comment for exactly what goes and what stays.
    pub(crate) async fn expire(&self, cutoff: i64) -> Result<Expired, StoreError> {
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
    conversations::reset(c, NodeId(id))?;
    c.execute("DELETE FROM nodes WHERE node = ?1", [node])?;
    // The pinned key goes too: with nothing left to protect, the node's next PKI DM pins
    // afresh.
    c.execute("DELETE FROM node_keys WHERE node = ?1", [node])?;
    c.execute(
        "DELETE FROM node_aliases WHERE new = ?1 OR old = ?1",
        [node],
    )?;
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
