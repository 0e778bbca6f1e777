//! Which nodes talk to us over PKI, and the public key pinned for each: one row per node in
//! `node_keys`. A row exists once a node sent a PKI DM; its key is pinned then (trust on
//! first use) and changes only when the operator accepts the latest different key seen
//! (`pending_key`, with `meshai trust` or `meshai forget`). `!reset` keeps the row: forgetting
//! a conversation does not make a node forgeable. Expiry removes it with the rest of a silent
//! node (`retention.rs`).
//!
//! The store only keeps these facts; what a DM may do with them is decided in
//! `responder::identity`. A key the operator pinned (`meshai trust`: a pending key accepted,
//! or the pinned one named with `--key`) is *vouched*: it proves its node at once (see
//! `standings.rs`).

use rusqlite::types::Type;
use rusqlite::{Connection, OptionalExtension, TransactionBehavior, params};

use super::error::StoreError;
use super::handle::Store;
use crate::node::{NodeId, PublicKey};

/// What is kept about a node that talks to us over PKI.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NodeKey {
    /// The key its first PKI DM came with (or the one the operator accepted since).
    pub pinned: PublicKey,
    /// Unix seconds it was pinned.
    pub(crate) pinned_at: i64,
    /// The latest different key a PKI DM came with, and when.
    pub pending: Option<(PublicKey, i64)>,
}

/// The nodes that talk to us over PKI, as the intake's screen loads them at start.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PkiNodes {
    /// Each node with a pinned key, and the key.
    pub(crate) pinned: Vec<(NodeId, PublicKey)>,
    /// The numbers people had before their node renumbered, each with its current number
    /// (`renumber.rs`).
    pub(crate) renumbered: Vec<(NodeId, NodeId)>,
    /// The nodes that sent us an XEdDSA-signed DM (`nodes.signed_at`).
    pub(crate) signers: Vec<NodeId>,
}

impl PkiNodes {
    /// Every number that talks PKI, current or old.
    pub(crate) fn nodes(&self) -> impl Iterator<Item = NodeId> + '_ {
        self.pinned
            .iter()
            .map(|(n, _)| *n)
            .chain(self.renumbered.iter().map(|(old, _)| *old))
    }
}

/// What accepting a node's pending key did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KeyAccepted {
    /// The pending key is pinned now, instead of `old`.
    Pinned { old: PublicKey, new: PublicKey },
    /// No different key was seen: the pinned one stays.
    NothingPending { pinned: PublicKey },
    /// The node never sent a PKI DM.
    NotPki,
    /// The key the operator named is not the pending one (another key arrived, or none):
    /// nothing changed.
    Mismatch {
        given: PublicKey,
        pending: Option<PublicKey>,
        pinned: PublicKey,
    },
    /// The pending key is pinned for `other` already: one key is one person, so it is not
    /// pinned for a second number (its owner's next renumbering would carry this node's
    /// memory to them, issue 39). Nothing changed.
    PinnedElsewhere { key: PublicKey, other: NodeId },
}

impl Store {
    /// The node's pinned key and pending key, if it ever sent a PKI DM.
    pub async fn node_key(&self, node: NodeId) -> Result<Option<NodeKey>, StoreError> {
        self.call(move |c| load(c, node)).await
    }

    /// Pins `key` for `node` unless a key is pinned already (trust on first use); returns
    /// whether it pinned.
    pub async fn pin_key(&self, node: NodeId, key: PublicKey, at: i64) -> Result<bool, StoreError> {
        self.call(move |c| {
            let n = c.execute(
                "INSERT INTO node_keys(node, public_key, pinned_at) VALUES (?1, ?2, ?3)
                 ON CONFLICT(node) DO NOTHING",
                params![node_sql(node), key.0.as_slice(), at],
            )?;
            Ok(n == 1)
        })
        .await
    }

    /// Records `key`, different from the pinned one, as the node's pending key; returns
    /// whether it is new (not the pending key already), so the caller logs a new key once.
    pub async fn note_pending_key(
        &self,
        node: NodeId,
        key: PublicKey,
        at: i64,
    ) -> Result<bool, StoreError> {
        self.call(move |c| {
            let n = c.execute(
                "UPDATE node_keys SET pending_key = ?2, pending_at = ?3
                 WHERE node = ?1 AND public_key != ?2
                   AND (pending_key IS NULL OR pending_key != ?2)",
                params![node_sql(node), key.0.as_slice(), at],
            )?;
            Ok(n == 1)
        })
        .await
    }

    /// Pins the node's pending key in place of the pinned one; its memory stays.
    pub(crate) async fn accept_pending_key(&self, node: NodeId) -> Result<KeyAccepted, StoreError> {
        self.call(move |c| accept(c, node, None)).await
    }

    /// Pins `key` in place of the pinned one if it is the node's pending key (checked in the
    /// same transaction, so a key that arrives meanwhile is not pinned instead); else
    /// [`KeyAccepted::Mismatch`] and nothing changes.
    pub async fn accept_key(
        &self,
        node: NodeId,
        key: PublicKey,
    ) -> Result<KeyAccepted, StoreError> {
        self.call(move |c| accept(c, node, Some(key))).await
    }

    /// Every node that ever sent a PKI DM (still kept), with its pinned key, and the old
    /// numbers of those that moved. Each row is read whole, its key checked: an error means
    /// the table cannot be trusted (what `meshai check` and the start check ask).
    pub(crate) async fn pki_nodes(&self) -> Result<PkiNodes, StoreError> {
        self.call(|c| {
            // `pinned_at` is in no index: the rows are read from the table itself, not from
            // `node_keys_key`, which covers the other two.
            let mut stmt = c.prepare("SELECT node, public_key, pinned_at FROM node_keys")?;
            let pinned = stmt
                .query_map([], |row| Ok((row.get::<_, i64>(0)?, key(row.get(1)?, 1)?)))?
                .filter_map(|n| match n {
                    Ok((n, key)) => u32::try_from(n).ok().map(|n| Ok((NodeId(n), key))),
                    Err(e) => Some(Err(e)),
                })
                .collect::<rusqlite::Result<Vec<_>>>()?;
            let renumbered = super::renumber::renumbered(c)?;
            let mut stmt = c.prepare("SELECT node FROM nodes WHERE signed_at IS NOT NULL")?;
            let signers = super::sql::nodes(&mut stmt, [])?;
            Ok(PkiNodes {
                pinned,
                renumbered,
                signers,
            })
        })
        .await
    }

    /// Forgets that `node` signs its DMs (`meshai forget`: a node whose firmware stopped
    /// signing is its number's again); whether it did.
    pub(crate) async fn forget_signer(&self, node: NodeId) -> Result<bool, StoreError> {
        self.call(move |c| {
            let n = c.execute(
                "UPDATE nodes SET signed_at = NULL WHERE node = ?1 AND signed_at IS NOT NULL",
                [node_sql(node)],
            )?;
            Ok(n > 0)
        })
        .await
    }

    /// Notes that `node` sent us a DM our node found XEdDSA-signed, at `at` (the first time
    /// stays).
    pub(crate) async fn note_signer(&self, node: NodeId, at: i64) -> Result<(), StoreError> {
        self.call(move |c| {
            c.execute(
                "INSERT INTO nodes(node, first_seen, last_seen, signed_at) VALUES (?1, ?2, ?2, ?2)
                 ON CONFLICT(node) DO UPDATE SET signed_at = COALESCE(signed_at, ?2)",
                params![node_sql(node), at],
            )?;
            Ok(())
        })
        .await
    }
}

fn node_sql(node: NodeId) -> i64 {
    i64::from(node.0)
}

/// A stored key: 32 bytes (the table's CHECK says so; anything else was written by hand).
fn key(bytes: Vec<u8>, column: usize) -> rusqlite::Result<PublicKey> {
    PublicKey::from_slice(&bytes).ok_or_else(|| {
        rusqlite::Error::FromSqlConversionFailure(
            column,
            Type::Blob,
            format!("a public key of {} bytes", bytes.len()).into(),
        )
    })
}

fn load(c: &Connection, node: NodeId) -> Result<Option<NodeKey>, StoreError> {
    let row = c
        .query_row(
            "SELECT public_key, pinned_at, pending_key, pending_at FROM node_keys WHERE node = ?1",
            [node_sql(node)],
            |row| {
                let pending = match (row.get::<_, Option<Vec<u8>>>(2)?, row.get(3)?) {
                    (Some(bytes), Some(at)) => Some((key(bytes, 2)?, at)),
                    _ => None,
                };
                Ok(NodeKey {
                    pinned: key(row.get(0)?, 0)?,
                    pinned_at: row.get(1)?,
                    pending,
                })
            },
        )
        .optional()?;
    Ok(row)
}

/// Pins the node's pending key — only if it is `given`, when that is named.
fn accept(
    c: &mut Connection,
    node: NodeId,
    given: Option<PublicKey>,
) -> Result<KeyAccepted, StoreError> {
    let tx = c.transaction_with_behavior(TransactionBehavior::Immediate)?;
    let Some(known) = load(&tx, node)? else {
        return Ok(KeyAccepted::NotPki);
    };
    let pending = known.pending.map(|(k, _)| k);
    match given {
        Some(given) if pending.is_none() && given == known.pinned => {
            // The operator compared the pinned key itself: it proves its node from now on.
            tx.execute(
                "UPDATE node_keys SET vouched = 1 WHERE node = ?1",
                [node_sql(node)],
            )?;
            tx.commit()?;
            return Ok(KeyAccepted::NothingPending {
                pinned: known.pinned,
            });
        }
        Some(given) if pending != Some(given) => {
            return Ok(KeyAccepted::Mismatch {
                given,
                pending,
                pinned: known.pinned,
            });
        }
        _ => {}
    }
    let Some((new, at)) = known.pending else {
        return Ok(KeyAccepted::NothingPending {
            pinned: known.pinned,
        });
    };
    let other = tx
        .query_row(
            "SELECT node FROM node_keys WHERE public_key = ?1 AND node != ?2",
            params![new.0.as_slice(), node_sql(node)],
            |row| row.get::<_, i64>(0),
        )
        .optional()?;
    if let Some(other) = other.and_then(|n| u32::try_from(n).ok()) {
        return Ok(KeyAccepted::PinnedElsewhere {
            key: new,
            other: NodeId(other),
        });
    }
    tx.execute(
        "UPDATE node_keys SET public_key = ?2, pinned_at = ?3, pending_key = NULL,
             pending_at = NULL, vouched = 1, exchanged_at = NULL
         WHERE node = ?1",
        params![node_sql(node), new.0.as_slice(), at],
    )?;
    tx.commit()?;
    Ok(KeyAccepted::Pinned {
        old: known.pinned,
        new,
    })
}
