//! A node's standing, earned and never claimed by one packet; pure (the time is an argument).
//!
//! - **Proven**: a PKI DM whose key was pinned *before*: the operator pinned it (`meshai
//!   trust`), or the node completed an exchange over PKI with it (its own ACK came back for a
//!   reply to it) at least [`PROVEN_AFTER`] ago. A key made a minute ago, however many PKI DMs
//!   it signs, ranks like any other new id; a PKI DM with another key than the seasoned one is
//!   another person ("where a person has a key, the key is who they are"): new.
//! - **Known**: completed exchanges at least [`KNOWN_AFTER`] apart — the node's own ACK came
//!   back for one of our replies, and again half a day or more after the first, now or before
//!   a restart (the store keeps when, `nodes.exchanged_at` and `nodes.known_at`). A reply's
//!   packet id and destination go out in the clear, so anyone can forge its ACK: one ACK, or
//!   a burst of them, makes no id known — a fresh id must come back and be answered again
//!   half a day later, and a crowd of fresh ids ranks as new meanwhile. Being answered, or
//!   only stored, makes no node known.
//! - **New**: everyone else.
//!
//! [`Standings`] is the daemon's memory of both, in RAM and bounded ([`KNOWN_MAX`] nodes
//! each), loaded from the store at start and told of each completed exchange.

use std::collections::{HashMap, HashSet};

use crate::node::{NodeId, PublicKey, Standing};

/// How long after its first completed exchange over PKI a pinned key proves its node.
pub(crate) const PROVEN_AFTER: i64 = 6 * 3600;

/// How long after its first completed exchange a node's next one makes it known: what an
/// attacker with forged ACKs must wait, per id, and a person who talks to the bot on two
/// occasions does anyway.
pub(crate) const KNOWN_AFTER: i64 = 12 * 3600;

/// Nodes remembered as known (and keys as seasoned) at most; beyond it, newly heard nodes stay
/// `New` (they still get answers, within the new node's budget).
pub(crate) const KNOWN_MAX: usize = 100_000;

/// What a message proves of its sender, as far as standing goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Proof {
    /// A PKI DM with a key pinned before (see the module docs).
    Pki,
    /// A PKI DM with a key that is not the node's seasoned one: someone else's.
    OtherKey,
    /// Nothing: the `from` is as claimed.
    Claim,
}

/// Whether a node completed an exchange with us.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Past {
    /// Its own ACK came back for our replies at least [`KNOWN_AFTER`] apart (now, or as the
    /// store remembers).
    Talked,
    /// Never, as far as we know.
    Unheard,
}

/// A node's standing for one message. The one place this is decided.
pub(crate) fn standing(proof: Proof, past: Past) -> Standing {
    match (proof, past) {
        (Proof::Pki, _) => Standing::Proven,
        (Proof::OtherKey, _) => Standing::New,
        (Proof::Claim, Past::Talked) => Standing::Known,
        (Proof::Claim, Past::Unheard) => Standing::New,
    }
}

/// When a pinned key starts to prove its node.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Seasoned {
    /// The operator pinned it: at once.
    Vouched,
    /// Its first exchange over PKI completed at these Unix seconds: [`PROVEN_AFTER`] later.
    Exchanged(i64),
}

impl Seasoned {
    fn from(self) -> i64 {
        match self {
            Seasoned::Vouched => i64::MIN,
            Seasoned::Exchanged(at) => at.saturating_add(PROVEN_AFTER),
        }
    }
}

/// Which nodes completed an exchange, and whose pinned keys prove them (from when).
#[derive(Debug, Default)]
pub(crate) struct Standings {
    known: HashSet<NodeId>,
    keys: HashMap<NodeId, (PublicKey, Seasoned)>,
}

impl Standings {
    /// Remembers `node` as one that completed an exchange; `false` when the memory is full.
    pub(crate) fn know(&mut self, node: NodeId) -> bool {
        if self.known.len() >= KNOWN_MAX && !self.known.contains(&node) {
            return false;
        }
        self.known.insert(node);
        true
    }

    /// Remembers `key` as `node`'s pinned key, seasoned as `seasoned`. A vouched key stays
    /// vouched; another key than the one remembered replaces it (the operator accepted it).
    pub(crate) fn season(&mut self, node: NodeId, key: PublicKey, seasoned: Seasoned) -> bool {
        let full = self.keys.len() >= KNOWN_MAX;
        match self.keys.get_mut(&node) {
            Some((k, s)) if *k == key => {
                if seasoned.from() < s.from() {
                    *s = seasoned;
                }
                true
            }
            Some(entry) => {
                *entry = (key, seasoned);
                true
            }
            None if full => false,
            None => {
                self.keys.insert(node, (key, seasoned));
                true
            }
        }
    }

    /// `node`'s pinned key, when remembered (a completed exchange over PKI, or vouched).
    pub(crate) fn key(&self, node: NodeId) -> Option<PublicKey> {
        self.keys.get(&node).map(|(k, _)| *k)
    }

    /// What a message of `node` carrying `key` (a PKI DM's) proves at `now` (Unix seconds).
    pub(crate) fn proof(&self, node: NodeId, key: Option<PublicKey>, now: i64) -> Proof {
        let Some(key) = key else {
            return Proof::Claim;
        };
        match self.keys.get(&node) {
            Some((pinned, seasoned)) if *pinned == key && seasoned.from() <= now => Proof::Pki,
            Some((pinned, _)) if *pinned != key => Proof::OtherKey,
            _ => Proof::Claim,
        }
    }

    /// The standing of `node` for a message carrying `key` (a PKI DM's), at `now`.
    pub(crate) fn standing(&self, node: NodeId, key: Option<PublicKey>, now: i64) -> Standing {
        let past = if self.known.contains(&node) {
            Past::Talked
        } else {
            Past::Unheard
        };
        standing(self.proof(node, key, now), past)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use Standing::{Known, New, Proven};

    #[test]
    fn standing_is_proven_by_a_seasoned_key_then_known_then_new() {
        let cases = [
            (Proof::Pki, Past::Talked, Proven),
            (Proof::Pki, Past::Unheard, Proven),
            (Proof::OtherKey, Past::Talked, New),
            (Proof::Claim, Past::Talked, Known),
            (Proof::Claim, Past::Unheard, New),
        ];
        for (proof, past, want) in cases {
            assert_eq!(standing(proof, past), want, "{proof:?} {past:?}");
        }
    }

    #[test]
    fn a_key_proves_only_once_seasoned_and_only_itself() {
        let (k, other) = (PublicKey([1; 32]), PublicKey([2; 32]));
        let (a, b, c) = (NodeId(1), NodeId(2), NodeId(3));
        let mut s = Standings::default();
        let t = 1_000_000;
        // A key never seen in a completed exchange proves nothing, however often it signs.
        assert_eq!(s.standing(a, Some(k), t), New);
        assert!(s.season(a, k, Seasoned::Exchanged(t)));
        assert!(s.know(a));
        // Known at once (the exchange completed), proven only hours later.
        assert_eq!(s.standing(a, Some(k), t + 60), Known);
        assert_eq!(s.standing(a, Some(k), t + PROVEN_AFTER - 1), Known);
        assert_eq!(s.standing(a, Some(k), t + PROVEN_AFTER), Proven);
        // Another key for that id is someone else: new, known id or not.
        assert_eq!(s.standing(a, Some(other), t + PROVEN_AFTER), New);
        // The same id without PKI is known by its past only.
        assert_eq!(s.standing(a, None, t + PROVEN_AFTER), Known);
        // The operator's pin proves at once.
        assert!(s.season(b, k, Seasoned::Vouched));
        assert_eq!(s.standing(b, Some(k), 0), Proven);
        // A later exchange does not undo a vouched key.
        assert!(s.season(b, k, Seasoned::Exchanged(t)));
        assert_eq!(s.standing(b, Some(k), 0), Proven);
        // A node never heard stays new.
        assert_eq!(s.standing(c, None, t), New);
    }

    #[test]
    fn the_memory_is_bounded() {
        let mut s = Standings::default();
        for n in 0..KNOWN_MAX as u32 {
            assert!(s.know(NodeId(n)));
        }
        assert!(s.know(NodeId(0)), "already known");
        assert!(!s.know(NodeId(u32::MAX)));
        assert_eq!(s.standing(NodeId(u32::MAX), None, 0), New);
    }
}
