//! Standing earned, as the store keeps it across restarts: when each node first completed an
//! exchange with us (`nodes.exchanged_at`: its own ACK came back for one of our replies), when
//! a later one came at least the caller's `known_after` after it (`nodes.known_at`: the node
//! is known from then on; one ACK can be forged, two half a day apart cost an attacker the
//! wait per id), and
//! for a PKI node when it first did so over PKI with its pinned key (`node_keys.exchanged_at`)
//! or whether the operator pinned that key (`node_keys.vouched`, set by `meshai trust`). A
//! node that is only stored (a flood's unanswered messages) or only answered has neither.
//!
//! The store keeps the facts; the standing they give is `responder::schedule::standing`'s.

use rusqlite::{Connection, params};

use super::error::StoreError;
use super::handle::Store;
use super::sql::node_sql;
use crate::node::{NodeId, PublicKey};

/// A pinned key as standing sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PinnedKey {
    pub(crate) node: NodeId,
    pub(crate) key: PublicKey,
    /// When the node first completed an exchange over PKI with this key (Unix seconds).
    pub(crate) exchanged_at: Option<i64>,
    /// The operator pinned it.
    pub(crate) vouched: bool,
}

/// What one completed exchange earned, as the store has it now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Noted {
    /// The node is known: this exchange, or one before, came `known_after` or more after its
    /// first.
    pub known: bool,
    /// The node's pinned key as it stands now, when the exchange was over PKI and one is
    /// pinned.
    pub(crate) key: Option<PinnedKey>,
}

/// Everything standing is earned from.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Earned {
    /// The known nodes (see [`Noted::known`]).
    pub(crate) known: Vec<NodeId>,
    /// The pinned keys that completed an exchange over PKI, or that the operator pinned.
    pub(crate) keys: Vec<PinnedKey>,
}

/// How a completed exchange went: over PKI (the node's pinned key starts to season) or not.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Over {
    Pki,
    Channel,
}

impl Store {
    /// Records that `node` completed an exchange at `at` (its own ACK came back), `over` PKI
    /// or not: the first time counts, and one `known_after` seconds or more after it makes the
    /// node known. Returns what the node has earned now.
    pub async fn note_exchange(
        &self,
        node: NodeId,
        over: Over,
        at: i64,
        known_after: i64,
    ) -> Result<Noted, StoreError> {
        self.call(move |c| note_exchange(c, node, over, at, known_after))
            .await
    }

    /// What standing is earned from, for the daemon's start.
    pub(crate) async fn earned(&self) -> Result<Earned, StoreError> {
        self.call(|c| earned(c)).await
    }
}

fn note_exchange(
    c: &mut Connection,
    node: NodeId,
    over: Over,
    at: i64,
    known_after: i64,
) -> Result<Noted, StoreError> {
    let tx = c.transaction()?;
    tx.execute(
        "INSERT INTO nodes(node, first_seen, last_seen, exchanged_at) VALUES (?1, ?2, ?2, ?2)
         ON CONFLICT(node) DO UPDATE SET exchanged_at = COALESCE(exchanged_at, ?2)",
        params![node_sql(node), at],
    )?;
    tx.execute(
        "UPDATE nodes SET known_at = ?2
         WHERE node = ?1 AND known_at IS NULL AND exchanged_at <= ?2 - ?3",
        params![node_sql(node), at, known_after],
    )?;
    let known = tx.query_row(
        "SELECT known_at IS NOT NULL FROM nodes WHERE node = ?1",
        [node_sql(node)],
        |row| row.get::<_, bool>(0),
    )?;
    let key = if over == Over::Pki {
        tx.execute(
            "UPDATE node_keys SET exchanged_at = COALESCE(exchanged_at, ?2) WHERE node = ?1",
            params![node_sql(node), at],
        )?;
        let mut stmt = tx.prepare(
            "SELECT node, public_key, exchanged_at, vouched FROM node_keys WHERE node = ?1",
        )?;
        let mut rows = stmt.query_map([node_sql(node)], pinned)?;
        rows.next().transpose()?.flatten()
    } else {
        None
    };
    tx.commit()?;
    Ok(Noted { known, key })
}

fn earned(c: &Connection) -> Result<Earned, StoreError> {
    let mut stmt = c.prepare("SELECT node FROM nodes WHERE known_at IS NOT NULL")?;
    let known = super::sql::nodes(&mut stmt, [])?;
    let mut stmt = c.prepare(
        "SELECT node, public_key, exchanged_at, vouched FROM node_keys
         WHERE exchanged_at IS NOT NULL OR vouched != 0",
    )?;
    let keys = stmt
        .query_map([], pinned)?
        .filter_map(|k| k.transpose())
        .collect::<rusqlite::Result<Vec<_>>>()?;
    Ok(Earned { known, keys })
}

/// A `node_keys` row as a [`PinnedKey`]; `None` for a row that names no node of ours.
fn pinned(row: &rusqlite::Row<'_>) -> rusqlite::Result<Option<PinnedKey>> {
    let Ok(node) = u32::try_from(row.get::<_, i64>(0)?) else {
        return Ok(None);
    };
    let bytes: Vec<u8> = row.get(1)?;
    let Some(key) = PublicKey::from_slice(&bytes) else {
        return Ok(None);
    };
    Ok(Some(PinnedKey {
        node: NodeId(node),
        key,
        exchanged_at: row.get(2)?,
        vouched: row.get::<_, i64>(3)? != 0,
    }))
}
