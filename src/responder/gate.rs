//! The LLM gate: at most `concurrency` replies at once, replies before summaries, and
//! summaries that finish.
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

use std::sync::Arc;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

use tokio::sync::{Notify, OwnedSemaphorePermit, Semaphore};
use tokio_util::sync::CancellationToken;

/// Shared between all node workers.
#[derive(Debug, Clone)]
pub struct LlmGate {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    slots: Arc<Semaphore>,
    /// The summaries' own lane, when the server has a slot for them.
    summary_lane: Option<Arc<Semaphore>>,
    waiting_replies: AtomicUsize,
    /// Signalled when the last waiting reply got its slot.
    replies_idle: Notify,
    /// Cancel tokens of the cancellable summaries holding a shared slot, by slot number.
    summaries: Mutex<Vec<(u64, CancellationToken)>>,
    /// Protected summaries holding a shared slot (replies wait for them).
    protected: AtomicUsize,
    next_slot: AtomicU64,
}

/// A slot for a summary call; `cancelled()` fires when a reply needs the slot (never for a
/// protected summary or one on its own lane).
#[derive(Debug)]
pub struct SummarySlot {
    _permit: OwnedSemaphorePermit,
    id: u64,
    token: CancellationToken,
    protected: bool,
    gate: LlmGate,
}

impl SummarySlot {
    pub fn token(&self) -> &CancellationToken {
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
    }
}

/// A reply's permit; `waited_for_summary` says whether it had to wait for a protected summary.
#[derive(Debug)]
pub struct ReplyPermit {
    _permit: OwnedSemaphorePermit,
    pub waited_for_summary: bool,
}

impl LlmGate {
    /// `concurrency` replies at once; `summary_lane`: summaries run on a lane of their own.
    pub fn new(concurrency: usize, summary_lane: bool) -> Self {
        LlmGate {
            inner: Arc::new(Inner {
                slots: Arc::new(Semaphore::new(concurrency.max(1))),
                summary_lane: summary_lane.then(|| Arc::new(Semaphore::new(1))),
                waiting_replies: AtomicUsize::new(0),
                replies_idle: Notify::new(),
                summaries: Mutex::new(Vec::new()),
                protected: AtomicUsize::new(0),
                next_slot: AtomicU64::new(0),
            }),
        }
    }

    /// Whether summaries run on a lane of their own.
    pub fn has_summary_lane(&self) -> bool {
        self.inner.summary_lane.is_some()
    }

    /// Waits for a slot for a reply, cancelling running (unprotected) summaries if none is
    /// free.
    pub async fn reply(&self) -> ReplyPermit {
        let i = &self.inner;
        if let Ok(p) = i.slots.clone().try_acquire_owned() {
            return ReplyPermit {
                _permit: p,
                waited_for_summary: false,
            };
        }
        i.waiting_replies.fetch_add(1, Ordering::SeqCst);
        if let Ok(list) = i.summaries.lock() {
            for (_, t) in list.iter() {
                t.cancel();
            }
        }
        let waited_for_summary = i.protected.load(Ordering::SeqCst) > 0;
        let permit = i.slots.clone().acquire_owned().await;
        if i.waiting_replies.fetch_sub(1, Ordering::SeqCst) == 1 {
            i.replies_idle.notify_waiters();
        }
        // The semaphore is never closed, so acquiring cannot fail.
        match permit {
            Ok(p) => ReplyPermit {
                _permit: p,
                waited_for_summary,
            },
            Err(_) => unreachable!("the LLM gate semaphore is never closed"),
        }
    }

    /// Waits for a summary slot: on the summary lane if there is one, otherwise a shared slot
    /// once no reply is waiting. A `protected` shared slot is not cancelled by replies.
    pub async fn summary(&self, protected: bool) -> SummarySlot {
        let i = &self.inner;
        let id = i.next_slot.fetch_add(1, Ordering::Relaxed);
        let token = CancellationToken::new();
        if let Some(lane) = &i.summary_lane {
            let Ok(permit) = lane.clone().acquire_owned().await else {
                unreachable!("the summary lane semaphore is never closed");
            };
            return SummarySlot {
                _permit: permit,
                id,
                token,
                // Nothing to cancel and nothing to count: it holds no shared slot.
                protected: false,
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
                continue;
            }
            if protected {
                i.protected.fetch_add(1, Ordering::SeqCst);
            } else if let Ok(mut list) = i.summaries.lock() {
                list.push((id, token.clone()));
            }
            return SummarySlot {
                _permit: permit,
                id,
                token,
                protected,
                gate: self.clone(),
            };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[tokio::test(start_paused = true)]
    async fn a_reply_cancels_a_running_summary() {
        let gate = LlmGate::new(1, false);
        let slot = gate.summary(false).await;
        let token = slot.token().clone();
        let g = gate.clone();
        let reply = tokio::spawn(async move { g.reply().await });
        token.cancelled().await;
        drop(slot);
        let permit = tokio::time::timeout(Duration::from_secs(1), reply).await;
        assert!(
            permit.is_ok(),
            "the reply got the slot once the summary gave it up"
        );
    }

    #[tokio::test(start_paused = true)]
    async fn a_summary_waits_for_replies() {
        let gate = LlmGate::new(1, false);
        let first = gate.reply().await;
        let g = gate.clone();
        let second = tokio::spawn(async move { g.reply().await });
        tokio::task::yield_now().await;
        let g = gate.clone();
        let summary = tokio::spawn(async move { g.summary(false).await });
        tokio::time::sleep(Duration::from_millis(10)).await;
        assert!(!summary.is_finished());
        drop(first);
        let second = second.await.unwrap();
        tokio::time::sleep(Duration::from_millis(10)).await;
        assert!(!summary.is_finished(), "still a reply holding the slot");
        drop(second);
        let slot = tokio::time::timeout(Duration::from_secs(1), summary).await;
        assert!(slot.is_ok());
    }

    #[tokio::test(start_paused = true)]
    async fn a_protected_summary_is_not_cancelled_and_the_reply_waits() {
        let gate = LlmGate::new(1, false);
        let slot = gate.summary(true).await;
        let g = gate.clone();
        let reply = tokio::spawn(async move { g.reply().await });
        tokio::time::sleep(Duration::from_secs(5)).await;
        assert!(!slot.token().is_cancelled());
        assert!(
            !reply.is_finished(),
            "the reply waits for the protected summary"
        );
        drop(slot);
        let permit = tokio::time::timeout(Duration::from_secs(1), reply).await;
        let permit = permit.expect("reply got the slot").expect("join");
        assert!(permit.waited_for_summary);
    }

    #[tokio::test(start_paused = true)]
    async fn on_its_own_lane_a_summary_never_blocks_a_reply() {
        let gate = LlmGate::new(1, true);
        assert!(gate.has_summary_lane());
        let slot = gate.summary(false).await;
        let reply = tokio::time::timeout(Duration::from_millis(1), gate.reply()).await;
        let reply = reply.expect("the reply does not wait for the summary lane");
        assert!(!reply.waited_for_summary);
        assert!(!slot.token().is_cancelled());
        // A second summary waits for the lane, even while replies are idle.
        let g = gate.clone();
        let second = tokio::spawn(async move { g.summary(false).await });
        tokio::time::sleep(Duration::from_millis(10)).await;
        assert!(!second.is_finished());
        drop(slot);
        assert!(
            tokio::time::timeout(Duration::from_secs(1), second)
                .await
                .is_ok()
        );
    }
}
