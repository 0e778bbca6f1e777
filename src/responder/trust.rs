//! Identity at work in the worker (the decisions are `identity`'s): [`verdict`] checks a PKI
//! DM's key against the pinned one and keeps the store's record of keys up to date;
//! [`keep_unanswered`] stores a message that will not be answered, when it is the node's own. The
//! intake's side, which refuses the DMs that only claim a PKI node's id before any worker
//! sees them, is `screen`; the [`Grant`] it hands over, with what a message asks for
//! ([`ask`]), is defined here.

use std::sync::Arc;

use tracing::{debug, info, warn};

use super::commands::{self, Command, Parsed};
use super::identity::{self, Ask, Decision, Heard, KeyUpdate, Verdict, Why};
use crate::clock::unix_now;
use crate::radio::TextMessage;
use crate::responder::shared::Shared;

/// What a DM may do, as far as the intake knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Grant {
    Decided(Verdict),
    /// A PKI DM: the worker compares its key (`TextMessage::public_key`) with the pinned one.
    CheckKey,
}

/// What a message asks for, as far as identity goes.
pub(super) fn ask(text: &str) -> Ask {
    match commands::parse(text) {
        Parsed::Command(Command::Help) | Parsed::Unknown(_) => Ask::Help,
        Parsed::Command(Command::Reset) => Ask::Reset,
        Parsed::Command(Command::Summary) => Ask::Summary,
        Parsed::Command(Command::Status) => Ask::Status,
        // The rest of an answer is as much the node's memory as the answer.
        Parsed::Text | Parsed::More => Ask::Text,
    }
}

/// The verdict on `msg`, a DM the intake let through: for a PKI DM, its key checked against
/// the one pinned for its node (pinning it on first use, keeping a different one as pending).
pub(super) async fn verdict(shared: &Arc<Shared>, msg: &TextMessage, grant: Grant) -> Verdict {
    let node = msg.from;
    let key = match (grant, msg.public_key) {
        (Grant::Decided(verdict), _) => return verdict,
        (Grant::CheckKey, Some(key)) => key,
        // The intake only asks for a check with a key; without one nothing is proven.
        (Grant::CheckKey, None) => return Verdict::NoMemory(Why::Unchecked),
    };
    let pinned = match shared.store.node_key(node).await {
        Ok(known) => known.map(|k| k.pinned),
        Err(e) => {
            warn!(error = %e, "cannot read the node's pinned key: answering without its memory");
            return Verdict::NoMemory(Why::Unchecked);
        }
    };
    let Decision { verdict, update } =
        identity::decide(Heard::Pki { key, pinned }, &shared.settings.access);
    let now = unix_now();
    match update {
        None => {}
        Some(KeyUpdate::Pin(key)) => match shared.store.pin_key(node, key, now).await {
            Ok(_) => info!(key = %key.short(), "first PKI DM from this node: its key is pinned"),
            Err(e) => warn!(error = %e, "could not pin the node's key"),
        },
        Some(KeyUpdate::Pending(key)) => {
            match shared.store.note_pending_key(node, key, now).await {
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
            }
        }
    }
    verdict
}

/// Stores a message that will not be answered (rate limited, its node's queue full, no turn,
/// shutting down) when it is a text and the node's own ([`may_store`]).
pub(super) async fn keep_unanswered(shared: &Shared, msg: &TextMessage, grant: Grant) {
    if commands::parse(&msg.text) != Parsed::Text || !may_store(shared, msg, grant).await {
        return;
    }
    if let Err(e) = shared
        .store
        .append_user(msg.from, msg.text.clone(), unix_now())
        .await
    {
        warn!(node = %msg.from, error = %e, "could not store a message");
    }
}

/// Whether a message that will not be answered is still stored: only the node's own, never
/// one the identity rules keep out of its memory.
async fn may_store(shared: &Shared, msg: &TextMessage, grant: Grant) -> bool {
    match (grant, msg.public_key) {
        (Grant::Decided(verdict), _) => verdict == Verdict::Own,
        // The first PKI DM, or the pinned key: the node's own. Not pinned here: that is
        // the answered path's job.
        (Grant::CheckKey, Some(key)) => match shared.store.node_key(msg.from).await {
            Ok(known) => known.is_none_or(|k| k.pinned == key),
            Err(_) => false,
        },
        (Grant::CheckKey, None) => false,
    }
}
