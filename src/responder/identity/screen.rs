//! The intake's identity screen (the decisions are `rules`'): it knows in memory which
//! nodes talk to us over PKI and refuses, before any worker sees them, the DMs without PKI
//! that only claim one of their ids — never stored, no command, at most the hourly warning
//! line. Everything else goes on with [`Who`] sent it: decided here, once, by the identity
//! rules (the verdict, and what the message may do), or, for a PKI DM, a key for the worker
//! to check (`trust`).
//!
//! The screen never waits on the store (the intake must not): it loads the PKI nodes once at
//! start and learns each new one from its first PKI DM. A node only ever joins that set
//! while the daemon runs, so the set can only be stricter than the store. When the store
//! cannot say which nodes use PKI (`keys`: the key table is damaged), no DM without PKI is
//! taken for its node's own: each is answered without memory, runs no command and is stored
//! nowhere.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use tokio::time::Instant;
use tracing::{debug, info, warn};

use super::keys::KeyTable;
use super::rules::{self, Heard, Line, REFUSAL_EVERY, Refusals, Rule, Scope, Who};
use crate::config::AccessConfig;
use crate::node::{NodeId, PublicKey};
use crate::radio::TextMessage;
use crate::responder::reply::{DmDest, Seal};
use crate::store::Store;

/// Whether our own node may use PKI, as its last handshake said.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum NodeMode {
    /// PKI on: a PKI DM proves its sender, replies to PKI nodes go PKI-only.
    Pki,
    /// Licensed (ham) mode: PKI off, nothing can be proven or sent encrypted.
    Licensed,
}

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
    /// Nodes that sent us a PKI DM (old numbers of renumbered nodes included).
    pki: HashSet<NodeId>,
    /// The number each pinned key's owner uses (as far as the intake has seen).
    owners: HashMap<PublicKey, NodeId>,
    /// Numbers whose owner came back under another one (firmware 2.8): nobody is there.
    renumbered: HashSet<NodeId>,
    /// Nodes that sent us an XEdDSA-signed DM (firmware 2.8, licensed): a DM without a
    /// signature claiming one gets no memory.
    signers: HashSet<NodeId>,
    /// Where a new signer is written down (without waiting: the screen never waits on it).
    store: Store,
    /// Whether `pki` is all of them (the key table could be read).
    keys: Arc<KeyTable>,
    refusals: Refusals,
}

impl Screen {
    /// The nodes the store knows to use PKI. A store that cannot say fails `keys` closed
    /// (logged there): the screen then takes no DM without PKI for its node's own.
    pub(crate) async fn load(store: &Store, keys: Arc<KeyTable>) -> Screen {
        let nodes = match store.pki_nodes().await {
            Ok(nodes) => nodes,
            Err(e) => {
                keys.fail_closed(&e);
                Default::default()
            }
        };
        Screen {
            pki: nodes.nodes().collect(),
            owners: nodes
                .pinned
                .iter()
                .map(|&(node, key)| (key, node))
                .collect(),
            renumbered: nodes.renumbered.iter().map(|&(old, _)| old).collect(),
            signers: nodes.signers.iter().copied().collect(),
            store: store.clone(),
            keys,
            refusals: Refusals::new(REFUSAL_EVERY),
        }
    }

    /// The number `key` was pinned for, when the screen knows it: a PKI DM from another
    /// number with that key is the same person, renumbered, and earns what its old number did.
    pub(crate) fn owner(&self, key: &PublicKey) -> Option<NodeId> {
        self.owners.get(key).copied()
    }

    /// Learns from a PKI DM from `node` with `key`: the node talks PKI, and a key pinned for
    /// another number while this one has none is its owner's, renumbered.
    fn learn(&mut self, node: NodeId, key: PublicKey) {
        if !self.pki.contains(&node) {
            match self.owners.insert(key, node) {
                Some(old) if old != node => {
                    self.renumbered.insert(old);
                }
                _ => {}
            }
        }
        self.renumbered.remove(&node);
        self.pki.insert(node);
    }

    /// Decides what happens to `msg`, a DM asking for `ask`, at `now`, with our own node in
    /// `mode`.
    pub(crate) fn admit(
        &mut self,
        msg: &TextMessage,
        scope: Scope,
        access: &AccessConfig,
        now: Instant,
        mode: NodeMode,
    ) -> Screened {
        let licensed = mode == NodeMode::Licensed;
        let node = msg.from;
        if let Some(key) = msg.public_key {
            self.learn(node, key);
        } else if self.renumbered.contains(&node) && self.keys.readable() {
            // Its owner renumbered: whoever uses the number now has nothing of theirs, and
            // nobody is there to warn.
            info!(node = %node, "a DM without PKI for a number whose node renumbered: not answered");
            return Screened::Drop;
        }
        let uses_pki = self.pki.contains(&node);
        // Whatever goes to a node that talks PKI goes PKI or not at all: a reply to a DM
        // claiming its id reaches the real owner.
        // A licensed node sends nothing PKI-encrypted: a PKI-only reply would only be NAKed.
        let seal = if licensed {
            Seal::Any
        } else if msg.pki || uses_pki {
            Seal::Pki
        } else {
            Seal::Any
        };
        let Some(dest) = DmDest::of(msg, seal) else {
            return Screened::Drop;
        };
        // A key proves its person only where the reply can go back sealed: a licensed node
        // sends nothing encrypted, so there a PKI DM is answered like a plain one from a node
        // that used PKI, without memory (issue 39: her memory went out in the clear).
        if let Some(key) = msg.public_key
            && !licensed
        {
            return Screened::Pass {
                dest,
                who: Who::Key(key),
            };
        }
        let heard = if !self.keys.readable() {
            Heard::PlainUnknown {
                via_mqtt: msg.via_mqtt,
            }
        } else if licensed && uses_pki {
            Heard::PlainLicensed {
                via_mqtt: msg.via_mqtt,
            }
        } else {
            Heard::Plain {
                uses_pki,
                via_mqtt: msg.via_mqtt,
                signed: msg.signed,
                signer: self.signers.contains(&node),
            }
        };
        let verdict = rules::decide(heard, access).verdict;
        if msg.signed && verdict == rules::Verdict::Own {
            self.learn_signer(node);
        }
        match rules::rule(verdict, scope) {
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

    /// Learns that `node` signs its DMs; the first time, written down in the background (a
    /// store that fails leaves it learned for this run, and logged).
    fn learn_signer(&mut self, node: NodeId) {
        if !self.signers.insert(node) {
            return;
        }
        info!(
            node = %node,
            "a DM signed with the node's key (firmware 2.8, licensed): proven; a DM without a \
             signature claiming this node gets no memory from now on"
        );
        let store = self.store.clone();
        tokio::spawn(async move {
            if let Err(e) = store.note_signer(node, crate::clock::unix_now()).await {
                warn!(node = %node, error = %e, "could not note that the node signs its DMs");
            }
        });
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
