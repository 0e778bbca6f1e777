//! The LLM gate: at most `concurrency` LLM calls at once, replies before summaries.
//!
//! A summary never delays a reply for long: it only starts when no reply is waiting, and a
//! reply that finds no free slot cancels the running summaries (they are retried at the node's
//! next turn; a cancelled summary changes nothing in the store).

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
    waiting_replies: AtomicUsize,
    /// Signalled when the last waiting reply got its slot.
    replies_idle: Notify,
    /// Cancel tokens of the summaries holding a slot, by slot number.
    summaries: Mutex<Vec<(u64, CancellationToken)>>,
    next_slot: AtomicU64,
}

/// A slot for a summary call; `cancelled()` fires when a reply needs the slot.
#[derive(Debug)]
pub struct SummarySlot {
    _permit: OwnedSemaphorePermit,
    id: u64,
    token: CancellationToken,
    gate: LlmGate,
}

impl SummarySlot {
    pub fn token(&self) -> &CancellationToken {
        &self.token
    }
}

impl Drop for SummarySlot {
    fn drop(&mut self) {
        if let Ok(mut list) = self.gate.inner.summaries.lock() {
            list.retain(|(id, _)| *id != self.id);
        }
    }
}

impl LlmGate {
    pub fn new(concurrency: usize) -> Self {
        LlmGate {
            inner: Arc::new(Inner {
                slots: Arc::new(Semaphore::new(concurrency.max(1))),
                waiting_replies: AtomicUsize::new(0),
                replies_idle: Notify::new(),
                summaries: Mutex::new(Vec::new()),
                next_slot: AtomicU64::new(0),
            }),
        }
    }

    /// Waits for a slot for a reply, cancelling running summaries if none is free.
    pub async fn reply(&self) -> OwnedSemaphorePermit {
        let i = &self.inner;
        if let Ok(p) = i.slots.clone().try_acquire_owned() {
            return p;
        }
        i.waiting_replies.fetch_add(1, Ordering::SeqCst);
        if let Ok(list) = i.summaries.lock() {
            for (_, t) in list.iter() {
                t.cancel();
            }
        }
        let permit = i.slots.clone().acquire_owned().await;
        if i.waiting_replies.fetch_sub(1, Ordering::SeqCst) == 1 {
            i.replies_idle.notify_waiters();
        }
        // The semaphore is never closed, so acquiring cannot fail.
        match permit {
            Ok(p) => p,
            Err(_) => unreachable!("the LLM gate semaphore is never closed"),
        }
    }

    /// Waits until no reply is waiting and a slot is free.
    pub async fn summary(&self) -> SummarySlot {
        let i = &self.inner;
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
            let token = CancellationToken::new();
            let id = i.next_slot.fetch_add(1, Ordering::Relaxed);
            if let Ok(mut list) = i.summaries.lock() {
                list.push((id, token.clone()));
            }
            return SummarySlot {
                _permit: permit,
                id,
                token,
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
        let gate = LlmGate::new(1);
        let slot = gate.summary().await;
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
        let gate = LlmGate::new(1);
        let first = gate.reply().await;
        let g = gate.clone();
        let second = tokio::spawn(async move { g.reply().await });
        tokio::task::yield_now().await;
        let g = gate.clone();
        let summary = tokio::spawn(async move { g.summary().await });
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
}
