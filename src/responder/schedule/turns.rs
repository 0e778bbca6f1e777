//! The fair scheduler of LLM turns, pure: no I/O, no clock (`now` is an argument). The LLM
//! gate (`gate`) holds it behind a lock and does the waiting.
//!
//! A *turn* is what a node's waiting messages get: one LLM answer, from its admission at
//! intake until its worker is done with it; its reply then sits in the outbox, which the
//! caller passes in (the nodes it holds replies for, by standing), so replies handed over
//! still count. Every node has a [`Standing`] (`standing`: proven, known, new — earned, never
//! claimed by one packet).
//!
//! - **One waiting turn per node.** A message of a node whose turn still waits, not yet taken
//!   by its worker, *joins* that turn ([`Admission::Joined`]): the worker answers them
//!   together, in one call. So a node holds at most one waiting turn (two while its worker
//!   takes one), whatever its standing, and a new node's second message is answered, not
//!   refused.
//! - **The bound, in places per standing.** A node holds a *place* while it has a turn or a
//!   reply in the outbox. A node of standing S that holds no place gets one only while fewer
//!   than `max_waiting` nodes of standing ≥ S hold places: a crowd of new ids, with keys or
//!   without, fills the bound only for other new ids, and known and proven people keep their
//!   room. When the places are then more than `max_waiting`, the newest waiting (not yet
//!   running) `New` turn is displaced: its messages stay stored, unanswered. So new ids hold
//!   at most `max_waiting` places, and all standings together at most three times that.
//! - **Round-robin.** A free LLM slot goes to the waiting turn of the highest standing; among
//!   equals, to the node that has waited longest since its last grant (or since its turn was
//!   admitted), not to the oldest message.
//! - **The wait bound.** A turn not granted within `max_wait` of its admission (plus the time
//!   its reply was held for airtime) is given up (`Unanswered::Expired`).
//!
//! `W` is what wakes a turn waiting at the gate (the gate uses a oneshot sender; tests use
//! numbers).

use std::cmp::Reverse;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::time::{Duration, Instant};

use super::standing::{Seasoned, Standings};
use crate::node::{NodeId, PublicKey, Standing};

/// Names a turn.
pub(crate) type TurnId = u64;

/// The schedule's limits (`[limits]`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Bounds {
    /// Places at most per standing (see the module docs for who gets one when full).
    pub(crate) max_waiting: usize,
    /// How long a turn may wait for its LLM slot.
    pub(crate) max_wait: Duration,
}

/// Why a message got no turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Refusal {
    /// `max_waiting` nodes of this standing or higher hold places, and this one holds none.
    Full,
}

/// Why an admitted turn ended without the LLM.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Unanswered {
    /// A message of higher standing took its place (only `New` turns are displaced).
    Displaced,
    /// It waited longer than `max_wait`.
    Expired,
}

/// A turn displaced by an admission.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Displaced<W> {
    pub(crate) turn: TurnId,
    pub(crate) node: NodeId,
    pub(crate) standing: Standing,
    /// Its waker when it was waiting at the gate; `None` while it was still queued (its
    /// worker learns it from [`Schedule::check`]).
    pub(crate) waker: Option<W>,
}

/// Whether a message may join its node's waiting turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Joining {
    /// A text: it joins the node's waiting turn, if one is still open.
    Join,
    /// `!more`, or a text whose turn is gone: a turn of its own.
    Alone,
}

/// An admitted message.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Admission<W> {
    /// A turn of its own (and maybe the new turn it displaced).
    Turn {
        turn: TurnId,
        displaced: Option<Displaced<W>>,
    },
    /// It joins its node's waiting turn: answered with it, in the same call.
    Joined(TurnId),
}

/// What `!status` shows of the schedule.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct QueueStatus {
    /// Turns waiting (queued or at the gate), by standing ([`Standing::index`]).
    pub(crate) waiting: [usize; 3],
    /// Turns holding an LLM slot.
    pub(crate) running: usize,
    /// How long the oldest waiting turn has waited.
    pub(crate) oldest: Option<Duration>,
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
    /// Later messages of its node may still join it: its worker has not taken it yet.
    open: bool,
}

impl<W> Turn<W> {
    fn waiting(&self) -> bool {
        !matches!(self.state, State::Running)
    }
}

/// The turns of all nodes, their order and their bound.
#[derive(Debug)]
pub(crate) struct Schedule<W> {
    bounds: Bounds,
    /// By id, which is admission order.
    turns: BTreeMap<TurnId, Turn<W>>,
    next_id: TurnId,
    tick: u64,
    /// When each node with turns was last granted a slot (a round-robin tick).
    granted: HashMap<NodeId, u64>,
    /// Turns displaced while still queued, until their worker asks.
    displaced: HashSet<TurnId>,
    standings: Standings,
}

impl<W> Schedule<W> {
    /// An empty schedule within `bounds`.
    pub fn new(bounds: Bounds) -> Self {
        Schedule {
            bounds: Bounds {
                max_waiting: bounds.max_waiting.max(1),
                ..bounds
            },
            turns: BTreeMap::new(),
            next_id: 1,
            tick: 0,
            granted: HashMap::new(),
            displaced: HashSet::new(),
            standings: Standings::default(),
        }
    }

    /// Remembers `node` as one that completed an exchange; `false` when the memory is full.
    pub(crate) fn know(&mut self, node: NodeId) -> bool {
        self.standings.know(node)
    }

    /// Remembers `node`'s pinned `key`, proving it as `seasoned` says.
    pub(crate) fn season(&mut self, node: NodeId, key: PublicKey, seasoned: Seasoned) -> bool {
        self.standings.season(node, key, seasoned)
    }

    /// `node`'s pinned key, when remembered.
    pub(crate) fn key(&self, node: NodeId) -> Option<PublicKey> {
        self.standings.key(node)
    }

    /// The standing of `node` for a message carrying `key` (a PKI DM's) at `now` (Unix
    /// seconds).
    pub(crate) fn standing(&self, node: NodeId, key: Option<PublicKey>, now: i64) -> Standing {
        self.standings.standing(node, key, now)
    }

    /// The nodes holding places of standing ≥ `standing`: turns, and `outbox`'s replies.
    fn places(&self, standing: Standing, outbox: &[(NodeId, Standing)]) -> HashSet<NodeId> {
        let turns = self.turns.values().filter(|t| t.standing >= standing);
        let replies = outbox.iter().filter(|(_, s)| *s >= standing);
        turns
            .map(|t| t.node)
            .chain(replies.map(|(n, _)| *n))
            .collect()
    }

    /// Admits a message of `node` at `now`, or says why not. `outbox`: the nodes the outbox
    /// holds replies for, with the highest standing of each one's replies; `joining`: whether
    /// it may join its node's open turn.
    pub(crate) fn admit(
        &mut self,
        node: NodeId,
        standing: Standing,
        now: Instant,
        outbox: &[(NodeId, Standing)],
        joining: Joining,
    ) -> Result<Admission<W>, Refusal> {
        let open = self
            .turns
            .iter()
            .find(|(_, t)| t.node == node && t.open && matches!(t.state, State::Queued));
        if let (Some((id, _)), Joining::Join) = (open, joining) {
            return Ok(Admission::Joined(*id));
        }
        let mine = self.places(standing, outbox);
        if !mine.contains(&node) && mine.len() >= self.bounds.max_waiting {
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
                open: true,
            },
        );
        let total = self.places(Standing::New, outbox).len();
        let displaced = if total > self.bounds.max_waiting && standing > Standing::New {
            self.displace_new()
        } else {
            None
        };
        Ok(Admission::Turn { turn, displaced })
    }

    /// Its worker took `turn`: later messages of its node no longer join it.
    pub(crate) fn seal(&mut self, turn: TurnId) {
        if let Some(t) = self.turns.get_mut(&turn) {
            t.open = false;
        }
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
    pub(crate) fn check(&mut self, turn: TurnId, now: Instant) -> Result<(), Unanswered> {
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
    pub(crate) fn extend(&mut self, turn: TurnId, by: Duration) {
        if let Some(t) = self.turns.get_mut(&turn) {
            t.deadline += by;
        }
    }

    /// `turn` waits at the gate now, woken through `waker`; returns its deadline.
    pub(crate) fn arrive(
        &mut self,
        turn: TurnId,
        waker: W,
        now: Instant,
    ) -> Result<Instant, Unanswered> {
        self.check(turn, now)?;
        let t = self.turns.get_mut(&turn).ok_or(Unanswered::Displaced)?;
        t.state = State::AtGate(waker);
        t.open = false;
        Ok(t.deadline)
    }

    /// Gives a free slot to the best turn waiting at the gate: it runs from now.
    pub(crate) fn grant(&mut self) -> Option<(TurnId, W)> {
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
    pub(crate) fn leave(&mut self, turn: TurnId) -> bool {
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
    pub(crate) fn finish(&mut self, turn: TurnId) {
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
    pub(crate) fn at_gate(&self) -> usize {
        self.turns
            .values()
            .filter(|t| matches!(t.state, State::AtGate(_)))
            .count()
    }

    /// What `!status` shows.
    pub(crate) fn status(&self, now: Instant) -> QueueStatus {
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
