//! The intake's identity screen (the decisions are `identity`'s): it knows in memory which
//! nodes talk to us over PKI and refuses, before any worker sees them, the DMs without PKI
//! that only claim one of their ids — never stored, no command, at most the hourly warning
//! line. Everything else goes to the node's worker with a [`Grant`]: decided here, or, for a
//! PKI DM, a key for the worker to check (`trust`).
//!
//! The screen never waits on the store (the intake must not): it loads the PKI nodes once at
//! start and learns each new one from its first PKI DM. A node only ever joins that set
//! while the daemon runs, so the set can only be stricter than the store.

use std::collections::HashSet;

use tokio::time::Instant;
use tracing::{debug, warn};

use super::dest::DmDest;
use super::identity::{self, Heard, Line, REFUSAL_EVERY, Refusals, Rule};
use super::trust::{Grant, ask};
use crate::config::AccessConfig;
use crate::node::NodeId;
use crate::radio::TextMessage;
use crate::store::Store;

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
        match identity::rule(verdict, ask(&msg.text)) {
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
