//! Who really sent a direct message, and what it may do: sans-IO, every input an argument.
//!
//! Only a PKI-encrypted DM proves its `from` (the node decrypted it with that node's key and
//! hands us the key); anything else carries a `from` that anyone with the channel key can
//! write (PROTOCOL.md, "Who really sent it"). So:
//!
//! - A PKI DM with the key pinned for its node (or its first one, which pins it: trust on
//!   first use) is the node's own: memory read and written, every command.
//! - A PKI DM from a number with no key pinned, carrying a key pinned for another number, is
//!   that key's owner under a new number (firmware 2.8 renumbers every node once, onto the
//!   number its key implies: `PublicKey::node`): the node's own, its memory moved to the new
//!   number — only when the new number is the key's. On any other number the key's holder
//!   is answered without memory and nothing moves ([`Why::Renumbered`]): one key cannot
//!   walk its memory through numbers of its choosing (issue 39: 20 numbers, 20 moves), and
//!   so it moves at most once.
//! - A PKI DM with another key is a new identity: answered without the node's memory, its
//!   key kept as pending until the operator accepts it (`meshai trust`).
//! - A non-PKI DM with the id of a node that talked to us over PKI is [`Verdict::Unproven`]:
//!   never stored, never answered, no command at all (not even `!help`: whoever sent it
//!   learns nothing, not even that the bot runs); it gets one warning line per node per hour
//!   at most ([`Refusals`]), which reaches the real owner's node.
//! - While our own node is in licensed (ham) mode, PKI is off: a non-PKI DM from a node that
//!   used PKI cannot be anything else, and proves nothing. It is answered without memory,
//!   not stored, and runs no command but `!help` ([`Why::Licensed`]).
//! - A non-PKI DM that our node found XEdDSA-signed (firmware 2.8: a licensed node signs its
//!   plaintext DMs; `TextMessage::signed`) from a node that never used PKI proves its
//!   sender — the holder of the key our node keeps for that number — as a PKI DM does: the
//!   node's own, whatever `require_pki` and `[access] mqtt = "no_memory"` say. From then on
//!   the node is a signer: a DM without a signature claiming it is answered without memory
//!   and not stored ([`Why::Unsigned`]). A PKI node's signed DM proves nothing of its key and
//!   stays [`Verdict::Unproven`].
//! - A non-PKI DM from a node that never used PKI (firmware before 2.5) is the node's own,
//!   as before — unless `require_pki = "all"` (answered without memory), or it came through
//!   MQTT (`[access] mqtt`).
//!
//! [`decide`] turns what was heard into a [`Decision`] (the verdict and what the store must
//! remember of the key); [`rule`] says what the verdict allows for a text or a command. The
//! intake's screen (`screen`) decides a DM without a key to check, once; the worker
//! (`trust`) checks a PKI DM's key, then rules, once.

use std::collections::HashMap;
use std::time::Duration;

use tokio::time::Instant;

use crate::config::{AccessConfig, MqttPolicy, RequirePki};
use crate::lang::{Lang, Say, say};
use crate::node::{NodeId, PublicKey};

/// How a DM arrived, and what is known of its sender.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Heard {
    /// PKI-encrypted, with the key the node decrypted it with; `pinned`: the key pinned for
    /// the node (`None`: its first PKI DM); `elsewhere`: with no key pinned for this node,
    /// the other number `key` is pinned for (the same person, renumbered: firmware 2.8);
    /// `keys_number`: the DM's number is the one `key` implies (`PublicKey::node`).
    Pki {
        key: PublicKey,
        pinned: Option<PublicKey>,
        elsewhere: Option<NodeId>,
        keys_number: bool,
    },
    /// Not PKI-encrypted (or without a usable key). `uses_pki`: the node has talked to us
    /// over PKI before; `via_mqtt`: it came through an MQTT gateway; `signed`: our node found
    /// it XEdDSA-signed; `signer`: the node sent us a signed DM before.
    Plain {
        uses_pki: bool,
        via_mqtt: bool,
        signed: bool,
        signer: bool,
    },
    /// Not PKI-encrypted, and which nodes use PKI cannot be read (the key table is damaged):
    /// it may be a forgery of a PKI node's id.
    PlainUnknown { via_mqtt: bool },
    /// Not PKI-encrypted, from a node that used PKI, while our own node is in licensed (ham)
    /// mode: PKI is off on our side, so it could not have come any other way, and nothing
    /// proves it.
    PlainLicensed { via_mqtt: bool },
}

/// What a DM may do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Verdict {
    /// The node's own message: its memory read and written, every command.
    Own,
    /// Answered without memory and not stored; memory commands refused with a line saying
    /// why.
    NoMemory(Why),
    /// A non-PKI DM with the id of a node known to use PKI: not answered, not stored, no
    /// command; at most the warning line.
    Unproven,
    /// Not answered at all (`[access] mqtt = "ignore"`).
    Ignored,
}

/// Why a DM is answered without memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Why {
    /// A PKI DM whose key is not the one pinned for its node.
    KeyChanged,
    /// The pinned key could not be read (the store failed): nothing proves the sender.
    Unchecked,
    /// A DM without PKI while the key table cannot be read: it may be a forgery of a PKI
    /// node's id. No command either.
    KeysUnreadable,
    /// Our node is in licensed mode: a node that used PKI cannot prove itself now.
    Licensed,
    /// `require_pki = "all"` and the DM is not PKI-encrypted.
    PkiRequired,
    /// Came through MQTT without PKI (`[access] mqtt = "no_memory"`).
    Mqtt,
    /// Without a signature from a node that signs its DMs (firmware 2.8, licensed).
    Unsigned,
    /// A key pinned for another number, on a number its memory may not move to: not the
    /// number the key implies, or one holding another person's memory (`store::renumber`).
    Renumbered,
}

/// What the store must remember after a PKI DM.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum KeyUpdate {
    /// The node's first PKI DM: pin its key.
    Pin(PublicKey),
    /// A key other than the pinned one: keep it as pending.
    Pending(PublicKey),
    /// The key's owner came back under this number: move everything kept under `from` here.
    Move { from: NodeId },
}

/// The verdict on one DM and what to remember of its key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Decision {
    pub(crate) verdict: Verdict,
    pub(crate) update: Option<KeyUpdate>,
}

/// Decides what a DM heard like `heard` may do under `access`.
pub(crate) fn decide(heard: Heard, access: &AccessConfig) -> Decision {
    let (verdict, update) = match heard {
        // A person is their key: only its holder can send a DM our node decrypts with it.
        Heard::Pki {
            pinned: None,
            elsewhere: Some(from),
            keys_number: true,
            ..
        } => (Verdict::Own, Some(KeyUpdate::Move { from })),
        Heard::Pki {
            pinned: None,
            elsewhere: Some(_),
            ..
        } => (Verdict::NoMemory(Why::Renumbered), None),
        Heard::Pki {
            key, pinned: None, ..
        } => (Verdict::Own, Some(KeyUpdate::Pin(key))),
        Heard::Pki {
            key,
            pinned: Some(pinned),
            ..
        } if key == pinned => (Verdict::Own, None),
        Heard::Pki { key, .. } => (
            Verdict::NoMemory(Why::KeyChanged),
            Some(KeyUpdate::Pending(key)),
        ),
        Heard::Plain { via_mqtt: true, .. } if access.mqtt == MqttPolicy::Ignore => {
            (Verdict::Ignored, None)
        }
        Heard::Plain { uses_pki: true, .. } => (Verdict::Unproven, None),
        // Proven by our node's check of its signature: the key it holds for the number.
        Heard::Plain { signed: true, .. } => (Verdict::Own, None),
        Heard::Plain { signer: true, .. } => (Verdict::NoMemory(Why::Unsigned), None),
        Heard::PlainUnknown { via_mqtt: true } if access.mqtt == MqttPolicy::Ignore => {
            (Verdict::Ignored, None)
        }
        // Fails closed, whatever `require_pki` and `mqtt` would allow.
        Heard::PlainUnknown { .. } => (Verdict::NoMemory(Why::KeysUnreadable), None),
        Heard::PlainLicensed { via_mqtt: true } if access.mqtt == MqttPolicy::Ignore => {
            (Verdict::Ignored, None)
        }
        Heard::PlainLicensed { .. } => (Verdict::NoMemory(Why::Licensed), None),
        Heard::Plain { .. } if access.require_pki == RequirePki::All => {
            (Verdict::NoMemory(Why::PkiRequired), None)
        }
        Heard::Plain { via_mqtt: true, .. } if access.mqtt == MqttPolicy::NoMemory => {
            (Verdict::NoMemory(Why::Mqtt), None)
        }
        Heard::Plain { .. } => (Verdict::Own, None),
    };
    Decision { verdict, update }
}

/// What a message reaches, as far as identity goes: each command states its own
/// (`commands::Command::scope`), and [`rule`] says what that may do under a verdict.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Scope {
    /// A question for the model (or `!more`: the rest of an answer is as much the node's
    /// memory as the answer): answered with the memory, or without it.
    Text,
    /// Nothing of the node, nothing of the bot: `!help`, or an unknown `!word`, which is
    /// answered with the help.
    Help,
    /// The bot's state (`!status`): runs without memory for a PKI DM the memory is closed to,
    /// but like any command needs a DM the policy trusts (`require_pki`, `[access] mqtt`).
    Status,
    /// The node's memory, read or changed (`!reset`, `!summary`): only the node's own.
    Memory,
}

/// Who a DM is from, as the intake hands it to the node's worker: decided at the intake's
/// screen (no key to check: the verdict, and what [`rule`] let the message do), or a PKI DM
/// whose key the worker checks against the one pinned for its node.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Who {
    Decided {
        verdict: Verdict,
        grant: Grant,
    },
    /// The key the node decrypted the DM with (`TextMessage::public_key`).
    Key(PublicKey),
}

/// What a message may do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Rule {
    Run(Grant),
    /// Not run: this line is the answer.
    Refuse(Line),
    /// Nothing at all.
    Drop,
}

/// How a message that runs may run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Grant {
    /// Reads and writes the node's memory (a text is stored and answered with it).
    pub(crate) memory: bool,
    /// `!status` may show its admin part (when the node is an admin).
    pub(crate) admin: bool,
}

const OWN: Grant = Grant {
    memory: true,
    admin: true,
};
const NO_MEMORY: Grant = Grant {
    memory: false,
    admin: false,
};

/// What a message of `scope` may do under `verdict` (`require_pki` has had its say in the
/// verdict, [`decide`]).
pub(crate) fn rule(verdict: Verdict, scope: Scope) -> Rule {
    match (verdict, scope) {
        (Verdict::Ignored, _) => Rule::Drop,
        (Verdict::Own, _) => Rule::Run(OWN),
        // Whatever it asks: a forger learns nothing, the owner gets the warning.
        (Verdict::Unproven, _) => Rule::Refuse(Line::Unproven),
        // Possibly forged: answered from the message alone, no command at all.
        (Verdict::NoMemory(Why::KeysUnreadable), Scope::Text) => Rule::Run(NO_MEMORY),
        (Verdict::NoMemory(Why::KeysUnreadable), _) => Rule::Refuse(Line::KeysUnreadable),
        (Verdict::NoMemory(_), Scope::Text | Scope::Help) => Rule::Run(NO_MEMORY),
        (Verdict::NoMemory(Why::KeyChanged | Why::Unchecked | Why::Renumbered), Scope::Status) => {
            Rule::Run(NO_MEMORY)
        }
        (Verdict::NoMemory(why), _) => Rule::Refuse(Line::from(why)),
    }
}

/// The one-packet answers to what is refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Line {
    /// To the node whose id a non-PKI DM carried: the real owner reads it.
    Unproven,
    KeyChanged,
    Unchecked,
    KeysUnreadable,
    Licensed,
    PkiRequired,
    Mqtt,
    Renumbered,
    Unsigned,
}

impl From<Why> for Line {
    fn from(why: Why) -> Line {
        match why {
            Why::KeyChanged => Line::KeyChanged,
            Why::Unchecked => Line::Unchecked,
            Why::KeysUnreadable => Line::KeysUnreadable,
            Why::Licensed => Line::Licensed,
            Why::PkiRequired => Line::PkiRequired,
            Why::Mqtt => Line::Mqtt,
            Why::Renumbered => Line::Renumbered,
            Why::Unsigned => Line::Unsigned,
        }
    }
}

impl Line {
    /// The line, as the bot says it (`lang::say`, in the language given there).
    pub fn say(self) -> Say {
        match self {
            Line::Unproven => Say::Unproven,
            Line::KeyChanged => Say::KeyChanged,
            Line::Unchecked => Say::Unchecked,
            Line::KeysUnreadable => Say::KeysUnreadable,
            Line::Licensed => Say::Licensed,
            Line::PkiRequired => Say::PkiRequired,
            Line::Mqtt => Say::Mqtt,
            Line::Renumbered => Say::Renumbered,
            Line::Unsigned => Say::Unsigned,
        }
    }

    /// The line in English.
    pub fn text(self) -> &'static str {
        say(Lang::En, self.say())
    }
}

/// How often a node gets the [`Line::Unproven`] warning, and the log line about it.
pub(crate) const REFUSAL_EVERY: Duration = Duration::from_secs(3600);

/// More tracked nodes than this triggers a sweep of the quiet ones.
const SWEEP_AT: usize = 4096;

/// Refused DMs per node since the last report.
#[derive(Debug, Clone, Copy)]
struct Tally {
    /// When the last report (log line and warning) was due.
    reported: Instant,
    /// Refused since then, not yet reported.
    refused: u32,
}

/// Refusals of [`Verdict::Unproven`] DMs: one report per node per `every` (the log line and
/// the warning line), with how many were refused since the previous one.
#[derive(Debug)]
pub(crate) struct Refusals {
    every: Duration,
    nodes: HashMap<NodeId, Tally>,
}

impl Refusals {
    pub fn new(every: Duration) -> Refusals {
        Refusals {
            every,
            nodes: HashMap::new(),
        }
    }

    /// Counts one refusal of `node` at `now`; returns the count to report (this one
    /// included) when a report is due, `None` while the last one is recent.
    pub(crate) fn refuse(&mut self, node: NodeId, now: Instant) -> Option<u32> {
        if self.nodes.len() >= SWEEP_AT {
            let every = self.every;
            // A quiet node's unreported count goes with it: it was refused all the same.
            self.nodes
                .retain(|_, t| now.saturating_duration_since(t.reported) < every);
        }
        let every = self.every;
        let due = |t: &Tally| now.saturating_duration_since(t.reported) >= every;
        match self.nodes.get_mut(&node) {
            Some(t) if !due(t) => {
                t.refused = t.refused.saturating_add(1);
                None
            }
            Some(t) => {
                let n = t.refused.saturating_add(1);
                *t = Tally {
                    reported: now,
                    refused: 0,
                };
                Some(n)
            }
            None => {
                self.nodes.insert(
                    node,
                    Tally {
                        reported: now,
                        refused: 0,
                    },
                );
                Some(1)
            }
        }
    }
}

#[cfg(test)]
mod tests;
