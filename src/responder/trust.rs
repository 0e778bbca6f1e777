//! Identity at work (the decisions are `identity`'s): the intake's [`Screen`], which knows
//! in memory which nodes talk to us over PKI and refuses the DMs that only claim to be
//! theirs, and the worker's [`verdict`], which checks a PKI DM's key against the pinned one
//! and keeps the store's record of keys up to date.
//!
//! The screen never waits on the store (the intake must not): it loads the PKI nodes once at
//! start and learns each new one from its first PKI DM. A node only ever joins that set
//! while the daemon runs, so the set can only be stricter than the store.

use std::collections::HashSet;
use std::sync::Arc;

use tokio::time::Instant;
use tracing::{debug, info, warn};

use super::commands::{self, Command, Parsed};
use super::dest::DmDest;
use super::identity::{
    self, Ask, Decision, Heard, KeyUpdate, Line, REFUSAL_EVERY, Refusals, Rule, Verdict, Why,
};
use super::{Shared, unix_now};
use crate::config::AccessConfig;
use crate::memory::store::Store;
use crate::node::NodeId;
use crate::radio::TextMessage;

/// What the intake does with a DM.
#[derive(Debug)]
pub(super) enum Admit {
    /// To the node's worker, with what it may do.
    Job { dest: DmDest, grant: Grant },
    /// Refused here, never stored; `line` is the warning to send, when one is due.
    Refuse {
        dest: DmDest,
        line: Option<&'static str>,
    },
    /// Not answered at all.
    Drop,
}

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
        Parsed::Text => Ask::Text,
    }
}

/// The intake's view of identities.
#[derive(Debug)]
pub(super) struct Screen {
    /// Nodes that sent us a PKI DM.
    pki: HashSet<NodeId>,
    refusals: Refusals,
}

impl Screen {
    /// The nodes the store knows to use PKI. A store that cannot say is logged; the screen
    /// then starts empty and learns them again from their next PKI DM.
    pub(super) async fn load(store: &Store) -> Screen {
        let pki = match store.pki_nodes().await {
            Ok(nodes) => nodes.into_iter().collect(),
            Err(e) => {
                warn!(error = %e, "cannot read which nodes use PKI; learning them from their next PKI DM");
                HashSet::new()
            }
        };
        Screen {
            pki,
            refusals: Refusals::new(REFUSAL_EVERY),
        }
    }

    /// Whether `node` sent us a PKI DM before (the store knew it at start, or one came since).
    pub(super) fn uses_pki(&self, node: NodeId) -> bool {
        self.pki.contains(&node)
    }

    /// Decides what happens to `msg`, a DM, at `now`.
    pub(super) fn admit(
        &mut self,
        msg: &TextMessage,
        access: &AccessConfig,
        now: Instant,
    ) -> Admit {
        let node = msg.from;
        if msg.public_key.is_some() {
            self.pki.insert(node);
        }
        let uses_pki = self.pki.contains(&node);
        // Whatever goes to a node that talks PKI goes PKI or not at all: a reply to a DM
        // claiming its id reaches the real owner.
        let Some(dest) = DmDest::of(msg, msg.pki || uses_pki) else {
            return Admit::Drop;
        };
        if msg.public_key.is_some() {
            return Admit::Job {
                dest,
                grant: Grant::CheckKey,
            };
        }
        let heard = Heard::Plain {
            uses_pki,
            via_mqtt: msg.via_mqtt,
        };
        let verdict = identity::decide(heard, access).verdict;
        match identity::rule(verdict, ask(&msg.text), access.require_pki) {
            Rule::Drop => {
                debug!(node = %node, "not answered: came through MQTT");
                Admit::Drop
            }
            Rule::Refuse(Line::Unproven) => {
                let line = self.refusals.refuse(node, now).map(|refused| {
                    warn!(
                        node = %node,
                        refused,
                        "a DM without PKI claims a node that talks to us over PKI: refused (not \
                         stored, no memory, no command), one warning to the node per hour; \
                         `refused` counts them since the last such line"
                    );
                    Line::Unproven.text()
                });
                if line.is_none() {
                    debug!(node = %node, "a DM without PKI refused again");
                }
                Admit::Refuse { dest, line }
            }
            _ => Admit::Job {
                dest,
                grant: Grant::Decided(verdict),
            },
        }
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

/// Whether a message that will not be answered (rate limited, its node's queue full,
/// shutting down) is still stored: only the node's own, never one the identity rules keep
/// out of its memory.
pub(super) async fn may_store(shared: &Shared, msg: &TextMessage, grant: Grant) -> bool {
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
