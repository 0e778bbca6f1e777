//! A person is their key. Firmware 2.8 gives a node a new number once, derived from its key
//! (PROTOCOL.md, "Firmware 2.7.14 – 2.8"); only the holder of the key's private half can send
//! a DM our node decrypts with it. So when a PKI DM from a number with no pinned key comes with
//! a key pinned to another number, that is the same person, and everything kept under the old
//! number moves to the new one ([`Store::renumber`], one transaction): messages, exchanges,
//! summary, facts, names and counters, the pinned key, the mail it left or is owed. The old
//! number keeps nothing — a forger using it finds an empty memory — and is remembered as an
//! alias of the new one (`node_aliases`), so it stays a PKI node (a DM without PKI claiming
//! it proves nothing) and the operator's commands accept either number.
//!
//! Moved, not aliased in place: every other query stays keyed by the one current number (no
//! query learns about aliases, none can mix two numbers' rows), and what a forger could
//! still reach under the old number is nothing at all. A new number that holds memory of
//! its own (messages, a summary or facts: someone who talked to us without PKI) is never
//! overwritten or merged: nothing moves ([`Moved::Occupied`]) until the operator decides
//! (issue 39: a move deleted a person's memory). Only the number the key implies is a
//! destination at all (`identity::rules`), so one key moves at most once.

use rusqlite::{Connection, OptionalExtension, TransactionBehavior, params};

use super::error::StoreError;
use super::handle::Store;
use crate::node::{NodeId, PublicKey};

/// What [`Store::renumber`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Moved {
    /// Everything kept under the old number is under the new one now.
    All,
    /// The key is no longer pinned for the old number, or the new one has a pinned key.
    OwnerChanged,
    /// The new number holds memory of its own: nothing moved, nothing deleted.
    Occupied,
}

/// A node's current number and the numbers it had before.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Numbers {
    /// The number its memory is kept under now.
    pub(crate) current: NodeId,
    /// Earlier numbers, oldest first.
    pub(crate) earlier: Vec<NodeId>,
}

impl Store {
    /// The number `key` is pinned for, if any.
    pub(crate) async fn key_owner(&self, key: PublicKey) -> Result<Option<NodeId>, StoreError> {
        self.call(move |c| {
            let node = c
                .query_row(
                    "SELECT node FROM node_keys WHERE public_key = ?1",
                    [key.0.as_slice()],
                    |row| row.get::<_, i64>(0),
                )
                .optional()?;
            Ok(node.and_then(|n| u32::try_from(n).ok()).map(NodeId))
        })
        .await
    }

    /// Moves everything kept under `from` to `to` — when `key` is still pinned for `from`,
    /// `to` has no pinned key and no memory of its own (checked in the same transaction).
    /// What `to` held besides (its name, its counters) is dropped.
    pub(crate) async fn renumber(
        &self,
        from: NodeId,
        to: NodeId,
        key: PublicKey,
        at: i64,
    ) -> Result<Moved, StoreError> {
        self.call(move |c| renumber(c, from, to, key, at)).await
    }

    /// Every old number whose node renumbered, with its current number, oldest first.
    pub(crate) async fn renumbered(&self) -> Result<Vec<(NodeId, NodeId)>, StoreError> {
        self.call(|c| Ok(renumbered(c)?)).await
    }

    /// `node`'s current number (itself, unless it moved) and its earlier numbers.
    pub(crate) async fn numbers(&self, node: NodeId) -> Result<Numbers, StoreError> {
        self.call(move |c| numbers(c, node)).await
    }
}

fn sql(node: NodeId) -> i64 {
    i64::from(node.0)
}

/// The tables keyed by node, whose rows move with their person.
const NODE_TABLES: [&str; 6] = [
    "exchanges",
    "messages",
    "summaries",
    "facts",
    "nodes",
    "node_keys",
];

fn renumber(
    c: &mut Connection,
    from: NodeId,
    to: NodeId,
    key: PublicKey,
    at: i64,
) -> Result<Moved, StoreError> {
    if from == to {
        return Ok(Moved::OwnerChanged);
    }
    let tx = c.transaction_with_behavior(TransactionBehavior::Immediate)?;
    let pinned_from: bool = tx.query_row(
        "SELECT EXISTS(SELECT 1 FROM node_keys WHERE node = ?1 AND public_key = ?2)",
        params![sql(from), key.0.as_slice()],
        |row| row.get(0),
    )?;
    let pinned_to: bool = tx.query_row(
        "SELECT EXISTS(SELECT 1 FROM node_keys WHERE node = ?1)",
        [sql(to)],
        |row| row.get(0),
    )?;
    if !pinned_from || pinned_to {
        return Ok(Moved::OwnerChanged);
    }
    let occupied: bool = tx.query_row(
        "SELECT EXISTS(SELECT 1 FROM messages WHERE node = ?1)
             OR EXISTS(SELECT 1 FROM summaries WHERE node = ?1)
             OR EXISTS(SELECT 1 FROM facts WHERE node = ?1)",
        [sql(to)],
        |row| row.get(0),
    )?;
    if occupied {
        return Ok(Moved::Occupied);
    }
    // What else the new number has (its name, counters) was never proven: it goes
    // (exchanges first, their trigger clears the search index).
    for table in NODE_TABLES {
        tx.execute(&format!("DELETE FROM {table} WHERE node = ?1"), [sql(to)])?;
    }
    for table in NODE_TABLES {
        tx.execute(
            &format!("UPDATE {table} SET node = ?2 WHERE node = ?1"),
            params![sql(from), sql(to)],
        )?;
    }
    // Messages left by it or for it, and its watches and those on it, follow it.
    for (table, column) in [
        ("mail", "sender"),
        ("mail", "recipient"),
        ("watches", "owner"),
        ("watches", "target"),
        ("subscriptions", "node"),
    ] {
        // OR IGNORE: a subscription the new number has already stays one.
        tx.execute(
            &format!("UPDATE OR IGNORE {table} SET {column} = ?2 WHERE {column} = ?1"),
            params![sql(from), sql(to)],
        )?;
    }
    tx.execute("DELETE FROM subscriptions WHERE node = ?1", [sql(from)])?;
    // The new number is current now; whatever pointed at the old one points here.
    tx.execute("DELETE FROM node_aliases WHERE old = ?1", [sql(to)])?;
    tx.execute(
        "UPDATE node_aliases SET new = ?2 WHERE new = ?1",
        params![sql(from), sql(to)],
    )?;
    tx.execute(
        "INSERT INTO node_aliases(old, new, at) VALUES (?1, ?2, ?3)
         ON CONFLICT(old) DO UPDATE SET new = excluded.new, at = excluded.at",
        params![sql(from), sql(to), at],
    )?;
    tx.commit()?;
    Ok(Moved::All)
}

fn numbers(c: &Connection, node: NodeId) -> Result<Numbers, StoreError> {
    let current = c
        .query_row(
            "SELECT new FROM node_aliases WHERE old = ?1",
            [sql(node)],
            |row| row.get::<_, i64>(0),
        )
        .optional()?
        .and_then(|n| u32::try_from(n).ok())
        .map_or(node, NodeId);
    let mut stmt = c.prepare("SELECT old FROM node_aliases WHERE new = ?1 ORDER BY at, old")?;
    let earlier = super::sql::nodes(&mut stmt, [sql(current)])?;
    Ok(Numbers { current, earlier })
}

/// Every old number whose person moved, with the number it moved to (the old ones stay PKI
/// nodes: a DM without PKI claiming one proves nothing).
pub(super) fn renumbered(c: &Connection) -> rusqlite::Result<Vec<(NodeId, NodeId)>> {
    let mut stmt = c.prepare("SELECT old, new FROM node_aliases ORDER BY at, old")?;
    stmt.query_map([], |row| Ok((row.get::<_, i64>(0)?, row.get::<_, i64>(1)?)))?
        .filter_map(|r| match r {
            Ok((old, new)) => match (u32::try_from(old), u32::try_from(new)) {
                (Ok(old), Ok(new)) => Some(Ok((NodeId(old), NodeId(new)))),
                _ => None,
            },
            Err(e) => Some(Err(e)),
        })
        .collect()
}
