//! Identity at work in the worker (the decisions are `rules`'): [`check_key`] checks a PKI
//! DM's key against the pinned one and keeps the store's record of keys up to date;
//! [`keep_unanswered`] stores a message that will not be answered, when it is the node's
//! own. The intake's side, which decides every DM without a key to check and refuses the DMs
//! that only claim a PKI node's id before any worker sees them, is `screen`.

use tracing::{debug, info, warn};

use super::keys::KeyTable;
use super::rules::{self, Decision, Heard, KeyUpdate, Verdict, Who, Why};
use crate::clock::unix_now;
use crate::config::AccessConfig;
use crate::node::{NodeId, PublicKey};
use crate::radio::TextMessage;
use crate::store::{Moved, Store};

/// The verdict on a PKI DM from `node` that came with `key`: checked against the key pinned
/// for the node (pinning it on first use, keeping a different one as pending). While the key
/// table cannot be read (`keys`), nothing is checked or pinned: answered without memory.
pub(crate) async fn check_key(
    store: &Store,
    keys: &KeyTable,
    access: &AccessConfig,
    node: NodeId,
    key: PublicKey,
) -> Verdict {
    if !keys.readable() {
        debug!("the key table cannot be read: answering without the node's memory");
        return Verdict::NoMemory(Why::Unchecked);
    }
    let pinned = match store.node_key(node).await {
        Ok(known) => known.map(|k| k.pinned),
        Err(e) => {
            if e.damage().is_some() {
                keys.fail_closed(&e);
            }
            warn!(error = %e, "cannot read the node's pinned key: answering without its memory");
            return Verdict::NoMemory(Why::Unchecked);
        }
    };
    let elsewhere = match pinned {
        Some(_) => None,
        None => match store.key_owner(key).await {
            Ok(owner) => owner.filter(|o| *o != node),
            Err(e) => {
                if e.damage().is_some() {
                    keys.fail_closed(&e);
                }
                warn!(error = %e, "cannot read whose key this is: answering without memory");
                return Verdict::NoMemory(Why::Unchecked);
            }
        },
    };
    let heard = Heard::Pki {
        key,
        pinned,
        elsewhere,
        keys_number: key.node() == node,
    };
    let Decision { verdict, update } = rules::decide(heard, access);
    if let (Some(old), Verdict::NoMemory(Why::Renumbered)) = (elsewhere, verdict) {
        warn!(
            old = %old,
            key = %key.short(),
            "a PKI DM with the key pinned for {old} came from {node}, which is not the number \
             that key gives a node ({}): answered without memory, nothing moved (`meshai \
             forget {old}` unpins the key there, dropping that memory, so it pins on {node})",
            key.node()
        );
    }
    match update {
        Some(update) => apply(store, keys, node, key, pinned, update)
            .await
            .unwrap_or(verdict),
        None => verdict,
    }
}

/// Performs the key table's `update` for a PKI DM from `node` with `key` (`pinned` before);
/// the verdict instead of the rules' when the DM must then be answered without memory (a
/// move that did not happen).
async fn apply(
    store: &Store,
    keys: &KeyTable,
    node: NodeId,
    key: PublicKey,
    pinned: Option<PublicKey>,
    update: KeyUpdate,
) -> Option<Verdict> {
    let now = unix_now();
    match update {
        KeyUpdate::Pin(key) => match store.pin_key(node, key, now).await {
            Ok(_) => info!(key = %key.short(), "first PKI DM from this node: its key is pinned"),
            Err(e) => {
                if e.damage().is_some() {
                    keys.fail_closed(&e);
                }
                warn!(error = %e, "could not pin the node's key");
            }
        },
        KeyUpdate::Pending(key) => match store.note_pending_key(node, key, now).await {
            Ok(true) => warn!(
                pinned = %pinned.map(|k| k.short()).unwrap_or_default(),
                new = %key.short(),
                "a PKI DM came with another key than the one pinned for this node: it is \
                 answered without the node's memory until the operator accepts the new key \
                 with `meshai trust {node}` (keeps the memory) or `meshai forget {node}` \
                 (drops it)"
            ),
            Ok(false) => debug!(new = %key.short(), "the node's new key again: no memory"),
            Err(e) => warn!(error = %e, "could not keep the node's new key"),
        },
        KeyUpdate::Move { from } => match store.renumber(from, node, key, now).await {
            Ok(Moved::All) => info!(
                old = %from,
                key = %key.short(),
                "node {from} is now {node} (same key): its memory, standing and pinned key \
                 moved to the new number; the old number keeps nothing"
            ),
            Ok(Moved::OwnerChanged) => {
                warn!(old = %from, "the key's owner changed meanwhile: answering without memory");
                return Some(Verdict::NoMemory(Why::Unchecked));
            }
            Ok(Moved::Occupied) => {
                warn!(
                    old = %from,
                    key = %key.short(),
                    "node {from} is now {node} (same key), but {node} holds a conversation of \
                     its own (DMs without PKI): nothing moved, nothing deleted, answered without \
                     memory; `meshai history {node}` shows it, `meshai forget {node}` drops it \
                     and the next DM moves {from}'s memory there"
                );
                return Some(Verdict::NoMemory(Why::Renumbered));
            }
            Err(e) => {
                warn!(error = %e, old = %from, "could not move the node's memory to its new number");
                return Some(Verdict::NoMemory(Why::Unchecked));
            }
        },
    }
    None
}

/// Stores `msg`, a text that will not be answered (rate limited, its node's queue full, no
/// turn, shutting down), when it is the node's own ([`may_store`]).
pub(crate) async fn keep_unanswered(store: &Store, keys: &KeyTable, msg: &TextMessage, who: Who) {
    if may_store(store, keys, msg.from, who).await {
        store_unanswered(store, msg).await;
    }
}

/// Stores `msg`, the node's own text, unanswered.
pub(crate) async fn store_unanswered(store: &Store, msg: &TextMessage) {
    if let Err(e) = store
        .append_user(msg.from, msg.text.clone(), unix_now())
        .await
    {
        warn!(node = %msg.from, error = %e, "could not store a message");
    }
}

/// Whether a message that will not be answered is still stored: only the node's own, never
/// one the identity rules keep out of its memory, and no PKI DM while the key table cannot be
/// read.
async fn may_store(store: &Store, keys: &KeyTable, node: NodeId, who: Who) -> bool {
    match who {
        Who::Decided { verdict, .. } => verdict == Verdict::Own,
        Who::Key(_) if !keys.readable() => false,
        // The first PKI DM, or the pinned key: the node's own. Not pinned here: that is
        // the answered path's job.
        // A key pinned for another number is that person's, renumbered: not stored here,
        // where the move (on its next answered DM) would drop it as the number's own.
        Who::Key(key) => match store.node_key(node).await {
            Ok(Some(known)) => known.pinned == key,
            Ok(None) => matches!(store.key_owner(key).await, Ok(None)),
            Err(_) => false,
        },
    }
}
