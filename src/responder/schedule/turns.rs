//! The fair scheduler of LLM turns, pure: no I/O, no clock (`now` is an argument). The LLM
//! gate (`gate`) holds it behind a lock and does the waiting.
//!
//! A *turn* is a text message admitted for an LLM answer, from its admission at intake until
//! its worker is done with it; its reply then sits in the outbox, whose count the caller
//! passes in, so replies handed over still count. Every node has a [`Standing`], decided by
//! [`standing`]: `Proven` (the DM arrived PKI-encrypted), `Known` (it talked before: its
//! conversation was in the store at start, or its own ACK came back for one of our replies
//! since — a forged id never ACKs, so a flood cannot make its ids known by being answered),
//! `New`.
//!
//! - **The bound.** A message of standing S gets a turn only while fewer than `max_waiting`
//!   turns and outbox replies of standing ≥ S exist: a crowd of new ids can fill the bound
//!   only for other new ids. When the total is then above `max_waiting`, the newest waiting
//!   (not yet running) `New` turn is displaced: its message stays stored, unanswered. So new
//!   ids hold at most `max_waiting` turns and replies, and all standings together at most
//!   twice that.
//! - **The new node's budget.** A `New` node has at most `new_node_turns` turns at once (one
//!   by default): its further messages are stored, unanswered.
//! - **Round-robin.** A free LLM slot goes to the waiting turn of the highest standing; among
//!   equals, to the node that has waited longest since its last grant (or since its turn was
//!   admitted), not to the oldest message: a node with many messages queued takes turns with
//!   the others.
//! - **The wait bound.** A turn not granted within `max_wait` of its admission (plus the time
//!   its reply was held for airtime) is given up (`Unanswered::Expired`).
//!
//! `W` is what wakes a turn waiting at the gate (the gate uses a oneshot sender; tests use
//! numbers).

use std::cmp::Reverse;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::time::{Duration, Instant};

use crate::node::{NodeId, Standing};

/// Names a turn.
pub type TurnId = u64;

/// Nodes remembered as known at most; beyond it, newly heard nodes stay `New` (they still get
/// answers, within the new node's budget).
pub const KNOWN_MAX: usize = 100_000;

/// What a message proves of its sender, as far as standing goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Proof {
    /// A PKI DM from a node that talked to us over PKI before (a first PKI DM is a new key to
    /// pin, which anyone can make).
    Pki,
    /// Nothing: the `from` is as claimed.
    Claim,
}

/// Whether a node talked with us before.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Past {
    /// Its conversation was in the store at start, or its own ACK came back since.
    Talked,
    /// Never, as far as we know.
    Unheard,
}

/// A node's standing for one message. The one place this is decided.
pub fn standing(proof: Proof, past: Past) -> Standing {
    match (proof, past) {
        (Proof::Pki, _) => Standing::Proven,
        (Proof::Claim, Past::Talked) => Standing::Known,
        (Proof::Claim, Past::Unheard) => Standing::New,
    }
}

/// The schedule's limits (`[limits]`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Bounds {
    /// Turns and outbox replies at most (see the module docs for who gets one when full).
    pub max_waiting: usize,
    /// How long a turn may wait for its LLM slot.
    pub max_wait: Duration,
    /// Turns a `New` node may have at once.
    pub new_node_turns: usize,
}

/// Why a message got no turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    /// `max_waiting` turns and replies of this standing or higher exist.
    Full,
    /// A `New` node whose earlier messages still wait for their turns.
    NodeBusy,
}

/// Why an admitted turn ended without the LLM.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unanswered {
    /// A message of higher standing took its place (only `New` turns are displaced).
    Displaced,
    /// It waited longer than `max_wait`.
    Expired,
}

/// A turn displaced by an admission.
#[derive(Debug, PartialEq, Eq)]
pub struct Displaced<W> {
    pub turn: TurnId,
    pub node: NodeId,
    pub standing: Standing,
    /// Its waker when it was waiting at the gate; `None` while it was still queued (its
    /// worker learns it from [`Schedule::check`]).
    pub waker: Option<W>,
}

/// An admitted message.
#[derive(Debug, PartialEq, Eq)]
pub struct Admitted<W> {
    pub turn: TurnId,
    pub displaced: Option<Displaced<W>>,
}

/// What `!status` shows of the schedule.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct QueueStatus {
    /// Turns waiting (queued or at the gate), by standing ([`Standing::index`]).
    pub waiting: [usize; 3],
    /// Turns holding an LLM slot.
    pub running: usize,
    /// How long the oldest waiting turn has waited.
    pub oldest: Option<Duration>,
}

#[derive(Debug)]
enum State<W> {
    /// Admitted; in its node's queue or its worker, not yet at the gate.
    Queued,
    /// Waiting at the gate for an LLM slot.
    AtGate(W),
    /// Holds an LLM slot.
    Running,
}

#[derive(Debug)]
struct Turn<W> {
    node: NodeId,
    standing: Standing,
    since: Instant,
    deadline: Instant,
    /// The round-robin tick of its admission.
    tick: u64,
    state: State<W>,
}

impl<W> Turn<W> {
    fn waiting(&self) -> bool {
        !matches!(self.state, State::Running)
    }
}

/// The turns of all nodes, their order and their bound.
#[derive(Debug)]
pub struct Schedule<W> {
    bounds: Bounds,
    /// By id, which is admission order.
    turns: BTreeMap<TurnId, Turn<W>>,
    next_id: TurnId,
    tick: u64,
    /// When each node with turns was last granted a slot (a round-robin tick).
    granted: HashMap<NodeId, u64>,
    /// Turns displaced while still queued, until their worker asks.
    displaced: HashSet<TurnId>,
    known: HashSet<NodeId>,
}

impl<W> Schedule<W> {
    /// An empty schedule within `bounds`.
    pub fn new(bounds: Bounds) -> Self {
        Schedule {
            bounds: Bounds {
                max_waiting: bounds.max_waiting.max(1),
                new_node_turns: bounds.new_node_turns.max(1),
                ..bounds
            },
            turns: BTreeMap::new(),
            next_id: 1,
            tick: 0,
            granted: HashMap::new(),
            displaced: HashSet::new(),
            known: HashSet::new(),
        }
    }

    /// Remembers `node` as one that talked before; `false` when the memory is full.
    pub fn know(&mut self, node: NodeId) -> bool {
        if self.known.len() >= KNOWN_MAX && !self.known.contains(&node) {
            return false;
        }
        self.known.insert(node);
        true
    }

    /// The standing of `node` for a message with `proof`.
    pub fn standing(&self, node: NodeId, proof: Proof) -> Standing {
        let past = if self.known.contains(&node) {
            Past::Talked
        } else {
            Past::Unheard
        };
        standing(proof, past)
    }

    /// Admits a message of `node` at `now`, or says why not. `outbox`: the replies the outbox
    /// holds, by standing.
    pub fn admit(
        &mut self,
        node: NodeId,
        standing: Standing,
        now: Instant,
        outbox: [usize; 3],
    ) -> Result<Admitted<W>, Refusal> {
        if standing == Standing::New
            && self.turns.values().filter(|t| t.node == node).count() >= self.bounds.new_node_turns
        {
            return Err(Refusal::NodeBusy);
        }
        let mine = self
            .turns
            .values()
            .filter(|t| t.standing >= standing)
            .count()
            + outbox[standing.index()..].iter().sum::<usize>();
        if mine >= self.bounds.max_waiting {
            return Err(Refusal::Full);
        }
        let turn = self.next_id;
        self.next_id += 1;
        self.tick += 1;
        self.turns.insert(
            turn,
            Turn {
                node,
                standing,
                since: now,
                deadline: now + self.bounds.max_wait,
                tick: self.tick,
                state: State::Queued,
            },
        );
        let total = self.turns.len() + outbox.iter().sum::<usize>();
        let displaced = if total > self.bounds.max_waiting && standing > Standing::New {
            self.displace_new()
        } else {
            None
        };
        Ok(Admitted { turn, displaced })
    }

    /// Displaces the newest `New` turn that still waits.
    fn displace_new(&mut self) -> Option<Displaced<W>> {
        let victim = self
            .turns
            .iter()
            .rev()
            .find(|(_, t)| t.standing == Standing::New && t.waiting())
            .map(|(id, _)| *id)?;
        let t = self.remove(victim)?;
        let waker = match t.state {
            State::AtGate(w) => Some(w),
            State::Queued => {
                self.displaced.insert(victim);
                None
            }
            State::Running => None,
        };
        Some(Displaced {
            turn: victim,
            node: t.node,
            standing: t.standing,
            waker,
        })
    }

    /// Whether `turn` may still go on to the gate at `now`. A turn found displaced or expired
    /// is over (the caller still drops it with [`Schedule::finish`]).
    pub fn check(&mut self, turn: TurnId, now: Instant) -> Result<(), Unanswered> {
        if self.displaced.remove(&turn) {
            return Err(Unanswered::Displaced);
        }
        match self.turns.get(&turn) {
            None => Err(Unanswered::Displaced),
            Some(t) if now >= t.deadline => {
                self.remove(turn);
                Err(Unanswered::Expired)
            }
            Some(_) => Ok(()),
        }
    }

    /// Moves the deadline of `turn` later by `by` (its reply was held for airtime meanwhile).
    pub fn extend(&mut self, turn: TurnId, by: Duration) {
        if let Some(t) = self.turns.get_mut(&turn) {
            t.deadline += by;
        }
    }

    /// `turn` waits at the gate now, woken through `waker`; returns its deadline.
    pub fn arrive(&mut self, turn: TurnId, waker: W, now: Instant) -> Result<Instant, Unanswered> {
        self.check(turn, now)?;
        let t = self.turns.get_mut(&turn).ok_or(Unanswered::Displaced)?;
        t.state = State::AtGate(waker);
        Ok(t.deadline)
    }

    /// Gives a free slot to the best turn waiting at the gate: it runs from now.
    pub fn grant(&mut self) -> Option<(TurnId, W)> {
        let best = self
            .turns
            .iter()
            .filter(|(_, t)| matches!(t.state, State::AtGate(_)))
            .max_by_key(|(id, t)| {
                let since = self.granted.get(&t.node).map_or(t.tick, |&g| g.max(t.tick));
                (t.standing, Reverse(since), Reverse(**id))
            })
            .map(|(id, _)| *id)?;
        self.tick += 1;
        let tick = self.tick;
        let t = self.turns.get_mut(&best)?;
        let State::AtGate(waker) = std::mem::replace(&mut t.state, State::Running) else {
            return None;
        };
        self.granted.insert(t.node, tick);
        Some((best, waker))
    }

    /// `turn` stops waiting at the gate (its wait ran out): `true` if it was still waiting
    /// (it is over now), `false` if a slot was granted to it meanwhile.
    pub fn leave(&mut self, turn: TurnId) -> bool {
        match self.turns.get(&turn).map(|t| &t.state) {
            Some(State::AtGate(_)) => {
                self.remove(turn);
                true
            }
            Some(State::Running) => false,
            Some(State::Queued) | None => true,
        }
    }

    /// `turn` is over, whatever became of it.
    pub fn finish(&mut self, turn: TurnId) {
        self.displaced.remove(&turn);
        self.remove(turn);
    }

    fn remove(&mut self, turn: TurnId) -> Option<Turn<W>> {
        let t = self.turns.remove(&turn)?;
        if !self.turns.values().any(|o| o.node == t.node) {
            self.granted.remove(&t.node);
        }
        Some(t)
    }

    /// How many turns wait at the gate.
    pub fn at_gate(&self) -> usize {
        self.turns
            .values()
            .filter(|t| matches!(t.state, State::AtGate(_)))
            .count()
    }

    /// The standing of an admitted turn that is not over.
    pub fn standing_of(&self, turn: TurnId) -> Option<Standing> {
        self.turns.get(&turn).map(|t| t.standing)
    }

    /// What `!status` shows.
    pub fn status(&self, now: Instant) -> QueueStatus {
        let mut s = QueueStatus::default();
        for t in self.turns.values() {
            if t.waiting() {
                s.waiting[t.standing.index()] += 1;
                let waited = now.saturating_duration_since(t.since);
                s.oldest = Some(s.oldest.map_or(waited, |o| o.max(waited)));
            } else {
                s.running += 1;
            }
        }
        s
    }
}

#[cfg(test)]
mod tests;
