//! The intake's identity screen (the decisions are `rules`'): it knows in memory which
//! nodes talk to us over PKI and refuses, before any worker sees them, the DMs without PKI
//! that only claim one of their ids — never stored, no command, at most the hourly warning
//! line. Everything else goes on with [`Who`] sent it: decided here, once, by the identity
//! rules (the verdict, and what the message may do), or, for a PKI DM, a key for the worker
//! to check (`trust`).
//!
//! The screen never waits on the store (the intake must not): it loads the PKI nodes once at
//! start and learns each new one from its first PKI DM. A node only ever joins that set
//! while the daemon runs, so the set can only be stricter than the store.

use std::collections::HashSet;

use tokio::time::Instant;
use tracing::{debug, warn};

use super::rules::{self, Ask, Heard, Line, REFUSAL_EVERY, Refusals, Rule, Who};
use crate::config::AccessConfig;
use crate::node::NodeId;
use crate::radio::TextMessage;
use crate::responder::reply::{DmDest, Seal};
use crate::store::Store;

/// What the intake does with a DM.
#[derive(Debug)]
pub(crate) enum Screened {
    /// On to the node's worker (through the rate limit), with who sent it.
    Pass { dest: DmDest, who: Who },
    /// Not run and never stored: `line` is the answer, sent through the node's worker in
    /// turn (through the rate limit, like any message).
    Refused { dest: DmDest, line: Line },
    /// A DM without PKI claiming a node that talks PKI: refused here, never stored; `line`
    /// is the warning to send, when one is due.
    Unproven {
        dest: DmDest,
        line: Option<&'static str>,
    },
    /// Not answered at all.
    Drop,
}

/// The intake's view of identities.
#[derive(Debug)]
pub(crate) struct Screen {
    /// Nodes that sent us a PKI DM.
    pki: HashSet<NodeId>,
    refusals: Refusals,
}

impl Screen {
    /// The nodes the store knows to use PKI. A store that cannot say is logged; the screen
    /// then starts empty and learns them again from their next PKI DM.
    pub(crate) async fn load(store: &Store) -> Screen {
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

    /// Decides what happens to `msg`, a DM asking for `ask`, at `now`.
    pub(crate) fn admit(
        &mut self,
        msg: &TextMessage,
        ask: Ask,
        access: &AccessConfig,
        now: Instant,
    ) -> Screened {
        let node = msg.from;
        if msg.public_key.is_some() {
            self.pki.insert(node);
        }
        let uses_pki = self.pki.contains(&node);
        // Whatever goes to a node that talks PKI goes PKI or not at all: a reply to a DM
        // claiming its id reaches the real owner.
        let seal = if msg.pki || uses_pki {
            Seal::Pki
        } else {
            Seal::Any
        };
        let Some(dest) = DmDest::of(msg, seal) else {
            return Screened::Drop;
        };
        if let Some(key) = msg.public_key {
            return Screened::Pass {
                dest,
                who: Who::Key(key),
            };
        }
        let heard = Heard::Plain {
            uses_pki,
            via_mqtt: msg.via_mqtt,
        };
        let verdict = rules::decide(heard, access).verdict;
        match rules::rule(verdict, ask) {
            Rule::Drop => {
                debug!(node = %node, "not answered: came through MQTT");
                Screened::Drop
            }
            Rule::Refuse(Line::Unproven) => Screened::Unproven {
                dest,
                line: self.unproven(node, now),
            },
            Rule::Refuse(line) => Screened::Refused { dest, line },
            Rule::Run(grant) => Screened::Pass {
                dest,
                who: Who::Decided { verdict, grant },
            },
        }
    }

    /// Counts a refused DM that only claims `node`'s id; the warning line when one is due.
    fn unproven(&mut self, node: NodeId, now: Instant) -> Option<&'static str> {
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
        line
    }
}
