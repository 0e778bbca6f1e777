//! The LLM gate: at most `concurrency` replies at once, granted by the fair schedule
//! (`turns`: standing, then round-robin across nodes, within a bound), replies before
//! summaries, and summaries that finish.
//!
//! A reply's turn is admitted at intake ([`LlmGate::admit`]) and asks for a slot when its
//! worker is ready ([`LlmGate::reply`]). Slots are handed over, not raced for: whenever a slot
//! may be free (a turn arrives, a reply or summary gives its slot back) the gate takes free
//! permits and gives each to the turn the schedule names. A turn displaced by a message of
//! higher standing, or one that waited past `[limits] max_turn_wait_secs`, gets no slot.
//!
//! Two ways to run summaries, chosen by the server's slots (see `slots`):
//! - **Own lane** (llama.cpp with two or more slots, one kept for summaries): a summary takes
//!   the summary lane, one at a time, beside the replies; neither waits for the other here,
//!   and a summary is never cancelled.
//! - **Shared lane** (one slot, or a server we know nothing about): a summary only starts when
//!   no reply is waiting, and a reply that finds no free slot cancels a running summary —
//!   once. A summary that was cancelled before asks for a `protected` slot, which replies do
//!   not cancel: they wait for it. So on a CPU where a summary takes longer than the user's
//!   pause, the summary still finishes within two turns (before, every summary was cancelled
//!   by the next reply and none was ever saved), and at most one reply per fold waits.

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use tokio::sync::{Notify, OwnedSemaphorePermit, Semaphore, oneshot};
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use super::standing::Seasoned;
use super::turns::{
    Admission, Bounds, Displaced, Joining, QueueStatus, Refusal, Schedule, TurnId, Unanswered,
};
use crate::node::{NodeId, PublicKey, Standing};

/// Where summaries run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SummaryLane {
    /// A lane of their own (llama.cpp with a slot kept for them).
    Own,
    /// The replies' slots.
    Shared,
}

/// Whether a summary on a shared slot gives it to a reply that finds none free.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Protection {
    /// A reply cancels it (the fold then runs again, protected).
    Yields,
    /// It yielded once already: replies wait for it.
    Protected,
}

/// What a turn waiting at the gate is woken with.
#[derive(Debug)]
enum Grant {
    Slot(OwnedSemaphorePermit),
    /// A message of higher standing took its place.
    Displaced,
}

/// The schedule of turns, woken through oneshot senders.
type Turns = Schedule<oneshot::Sender<Grant>>;

/// Shared between all node workers.
#[derive(Debug, Clone)]
pub(crate) struct LlmGate {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    slots: Arc<Semaphore>,
    /// The summaries' own lane, when the server has a slot for them.
    summary_lane: Option<Arc<Semaphore>>,
    /// Every turn and its order; replies get slots only through it.
    schedule: Mutex<Turns>,
    /// Turns waiting at the gate (kept equal to the schedule's count, for summaries to read).
    waiting_replies: AtomicUsize,
    /// Signalled when the last waiting reply got its slot (or gave up).
    replies_idle: Notify,
    /// Cancel tokens of the cancellable summaries holding a shared slot, by slot number.
    summaries: Mutex<Vec<(u64, CancellationToken)>>,
    /// Protected summaries holding a shared slot (replies wait for them).
    protected: AtomicUsize,
    next_slot: AtomicU64,
}

/// An admitted turn: a text message to answer with the LLM. Dropping it ends the turn in the
/// schedule.
#[derive(Debug)]
pub(crate) struct Turn {
    id: TurnId,
    pub(crate) standing: Standing,
    gate: LlmGate,
}

impl Drop for Turn {
    fn drop(&mut self) {
        self.gate.schedule().finish(self.id);
        self.gate.pump();
    }
}

/// What admitting a message came to.
#[derive(Debug)]
pub(crate) enum Admitted {
    /// A turn of its own; the node of a new turn it displaced.
    Turn {
        turn: Turn,
        displaced: Option<NodeId>,
    },
    /// It joined its node's waiting turn, which answers it too.
    Joined,
}

/// A slot for a summary call; `cancelled()` fires when a reply needs the slot (never for a
/// protected summary or one on its own lane).
#[derive(Debug)]
pub(crate) struct SummarySlot {
    permit: Option<OwnedSemaphorePermit>,
    id: u64,
    token: CancellationToken,
    protected: bool,
    /// On the summary lane: its permit is not the replies' to take.
    own_lane: bool,
    gate: LlmGate,
}

impl SummarySlot {
    pub(crate) fn token(&self) -> &CancellationToken {
        &self.token
    }
}

impl Drop for SummarySlot {
    fn drop(&mut self) {
        let i = &self.gate.inner;
        if self.protected {
            i.protected.fetch_sub(1, Ordering::SeqCst);
        } else if let Ok(mut list) = i.summaries.lock() {
            list.retain(|(id, _)| *id != self.id);
        }
        drop(self.permit.take());
        if !self.own_lane {
            self.gate.pump();
        }
    }
}

/// A reply's permit; `waited_for_summary` says whether it had to wait for a protected summary.
/// Dropping it hands the slot to the next turn.
#[derive(Debug)]
pub(crate) struct ReplyPermit {
    permit: Option<OwnedSemaphorePermit>,
    pub(crate) waited_for_summary: bool,
    gate: LlmGate,
}

impl Drop for ReplyPermit {
    fn drop(&mut self) {
        drop(self.permit.take());
        self.gate.pump();
    }
}

impl LlmGate {
    /// `concurrency` replies at once, summaries on `lane`, turns within `bounds` (see
    /// `turns`).
    pub fn new(concurrency: usize, lane: SummaryLane, bounds: Bounds) -> Self {
        LlmGate {
            inner: Arc::new(Inner {
                slots: Arc::new(Semaphore::new(concurrency.max(1))),
                summary_lane: (lane == SummaryLane::Own).then(|| Arc::new(Semaphore::new(1))),
                schedule: Mutex::new(Schedule::new(bounds)),
                waiting_replies: AtomicUsize::new(0),
                replies_idle: Notify::new(),
                summaries: Mutex::new(Vec::new()),
                protected: AtomicUsize::new(0),
                next_slot: AtomicU64::new(0),
            }),
        }
    }

    /// Whether summaries run on a lane of their own.
    pub(crate) fn has_summary_lane(&self) -> bool {
        self.inner.summary_lane.is_some()
    }

    fn schedule(&self) -> MutexGuard<'_, Turns> {
        // The schedule stays consistent between calls: a panic elsewhere cannot break it.
        self.inner
            .schedule
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Remembers nodes that completed an exchange: the store's at start, and each node whose
    /// own ACK came back for a reply. Returns how many it took (its memory is bounded).
    pub(crate) fn know(&self, nodes: impl IntoIterator<Item = NodeId>) -> usize {
        let mut s = self.schedule();
        nodes.into_iter().filter(|n| s.know(*n)).count()
    }

    /// Remembers pinned keys and when they prove their nodes (the store's at start, and each
    /// completed exchange over PKI). Returns how many it took.
    pub(crate) fn season(
        &self,
        keys: impl IntoIterator<Item = (NodeId, PublicKey, Seasoned)>,
    ) -> usize {
        let mut s = self.schedule();
        keys.into_iter()
            .filter(|(n, k, seasoned)| s.season(*n, *k, *seasoned))
            .count()
    }

    /// The pinned key the gate remembers for `node`.
    pub(crate) fn key(&self, node: NodeId) -> Option<PublicKey> {
        self.schedule().key(node)
    }

    /// The standing of `node` for a message carrying `key` (a PKI DM's), now.
    pub(crate) fn standing(&self, node: NodeId, key: Option<PublicKey>) -> Standing {
        self.schedule()
            .standing(node, key, crate::clock::unix_now())
    }

    /// Admits a text message of `node` for an LLM turn, or says why not; `outbox`: the nodes
    /// the outbox holds replies for, by standing. A message of a node whose turn still waits
    /// joins it, when `joining` allows. The node of a (new) turn it displaced comes back for the log; that turn is
    /// woken if it waits at the gate, and gets no slot.
    pub(crate) fn admit(
        &self,
        node: NodeId,
        standing: Standing,
        outbox: &[(NodeId, Standing)],
        joining: Joining,
    ) -> Result<Admitted, Refusal> {
        let now = Instant::now().into_std();
        let admitted = {
            let mut s = self.schedule();
            let admitted = s.admit(node, standing, now, outbox, joining)?;
            self.update_waiting(&s);
            admitted
        };
        let (id, displaced) = match admitted {
            Admission::Joined(_) => return Ok(Admitted::Joined),
            Admission::Turn { turn, displaced } => (turn, displaced),
        };
        let displaced = displaced.map(|Displaced { node, waker, .. }| {
            if let Some(waker) = waker {
                // A waiter that is gone needs no word.
                let _ = waker.send(Grant::Displaced);
            }
            node
        });
        let turn = Turn {
            id,
            standing,
            gate: self.clone(),
        };
        Ok(Admitted::Turn { turn, displaced })
    }

    /// Its worker took `turn`: later messages of its node get a turn of their own.
    pub(crate) fn seal(&self, turn: &Turn) {
        self.schedule().seal(turn.id);
    }

    /// Whether `turn` may still go on (before its message is stored and it asks for a slot).
    pub(crate) fn check(&self, turn: &Turn) -> Result<(), Unanswered> {
        self.schedule().check(turn.id, Instant::now().into_std())
    }

    /// `turn`'s reply was held for airtime for `held`: that wait does not count against it.
    pub(crate) fn extend(&self, turn: &Turn, held: Duration) {
        self.schedule().extend(turn.id, held);
    }

    /// What `!status` shows of the turns.
    pub(crate) fn status(&self) -> QueueStatus {
        self.schedule().status(Instant::now().into_std())
    }

    /// Waits for a slot for `turn`'s reply, in the schedule's order, cancelling running
    /// (unprotected) summaries if none is free. `Err` when the turn was displaced or waited
    /// too long.
    pub(crate) async fn reply(&self, turn: &Turn) -> Result<ReplyPermit, Unanswered> {
        let i = &self.inner;
        let (tx, mut rx) = oneshot::channel();
        let deadline = {
            let mut s = self.schedule();
            let deadline = s.arrive(turn.id, tx, Instant::now().into_std());
            self.update_waiting(&s);
            deadline?
        };
        if i.slots.available_permits() == 0 {
            if let Ok(list) = i.summaries.lock() {
                for (_, t) in list.iter() {
                    t.cancel();
                }
            }
        }
        let waited_for_summary = i.protected.load(Ordering::SeqCst) > 0;
        self.pump();
        let grant = match tokio::time::timeout_at(Instant::from_std(deadline), &mut rx).await {
            Ok(grant) => grant.ok(),
            Err(_) => {
                let mut s = self.schedule();
                let over = s.leave(turn.id);
                self.update_waiting(&s);
                drop(s);
                if over {
                    return Err(Unanswered::Expired);
                }
                // Granted just as its wait ran out: the slot is on its way.
                rx.try_recv().ok()
            }
        };
        match grant {
            Some(Grant::Slot(permit)) => Ok(ReplyPermit {
                permit: Some(permit),
                waited_for_summary,
                gate: self.clone(),
            }),
            Some(Grant::Displaced) | None => Err(Unanswered::Displaced),
        }
    }

    /// Hands every free slot to the turn the schedule names, while turns wait.
    fn pump(&self) {
        let i = &self.inner;
        loop {
            let mut s = self.schedule();
            if s.at_gate() == 0 {
                self.update_waiting(&s);
                break;
            }
            let Ok(permit) = i.slots.clone().try_acquire_owned() else {
                break;
            };
            let Some((_, waker)) = s.grant() else {
                break;
            };
            self.update_waiting(&s);
            drop(s);
            // A waiter that is gone (its worker stopped) returns the slot, and the loop goes on.
            if let Err(Grant::Slot(permit)) = waker.send(Grant::Slot(permit)) {
                drop(permit);
            }
        }
    }

    /// Publishes how many turns wait at the gate, for summaries; wakes them when none does.
    fn update_waiting(&self, s: &Turns) {
        let n = s.at_gate();
        if self.inner.waiting_replies.swap(n, Ordering::SeqCst) > 0 && n == 0 {
            self.inner.replies_idle.notify_waiters();
        }
    }

    /// Waits for a summary slot: on the summary lane if there is one, otherwise a shared slot
    /// once no reply is waiting. A [`Protection::Protected`] shared slot is not cancelled by
    /// replies.
    pub async fn summary(&self, protection: Protection) -> SummarySlot {
        let protected = protection == Protection::Protected;
        let i = &self.inner;
        let id = i.next_slot.fetch_add(1, Ordering::Relaxed);
        let token = CancellationToken::new();
        if let Some(lane) = &i.summary_lane {
            let Ok(permit) = lane.clone().acquire_owned().await else {
                unreachable!("the summary lane semaphore is never closed");
            };
            return SummarySlot {
                permit: Some(permit),
                id,
                token,
                // Nothing to cancel and nothing to count: it holds no shared slot.
                protected: false,
                own_lane: true,
                gate: self.clone(),
            };
        }
        loop {
            let idle = i.replies_idle.notified();
            if i.waiting_replies.load(Ordering::SeqCst) > 0 {
                idle.await;
                continue;
            }
            let Ok(permit) = i.slots.clone().acquire_owned().await else {
                unreachable!("the LLM gate semaphore is never closed");
            };
            if i.waiting_replies.load(Ordering::SeqCst) > 0 {
                drop(permit);
                self.pump();
                continue;
            }
            if protected {
                i.protected.fetch_add(1, Ordering::SeqCst);
            } else if let Ok(mut list) = i.summaries.lock() {
                list.push((id, token.clone()));
            }
            return SummarySlot {
                permit: Some(permit),
                id,
                token,
                protected,
                own_lane: false,
                gate: self.clone(),
            };
        }
    }
}

#[cfg(test)]
mod tests;
