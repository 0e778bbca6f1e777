//! Data that expires: `[storage] retain_days` as a type, and the daemon's task that applies it
//! at start and once a day. What is deleted, and what is kept on purpose, is decided by the
//! store (`store/retention.rs`); this module only says when and up to which time.
//!
//! The time is a parameter everywhere (`now`), never read inside: tests pass their own clock.

use std::num::NonZeroU32;
use std::time::Duration;

use tokio_util::sync::CancellationToken;
use tracing::{debug, info, warn};

use super::store::Store;

/// Seconds in a day, the unit of `retain_days`.
pub const DAY_SECS: i64 = 86_400;

/// How often the daemon expires old data.
const EVERY: Duration = Duration::from_secs(86_400);

/// How long messages are kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Retention {
    /// `retain_days = 0`: nothing is ever deleted by age.
    Forever,
    /// Messages older than this many days are deleted, and nodes silent for as long forgotten.
    Days(NonZeroU32),
}

impl Retention {
    /// `0` keeps everything.
    pub fn days(days: u32) -> Retention {
        NonZeroU32::new(days).map_or(Retention::Forever, Retention::Days)
    }

    /// The oldest unix time still kept at `now`; `None` keeps everything.
    pub fn cutoff(self, now: i64) -> Option<i64> {
        match self {
            Retention::Forever => None,
            Retention::Days(d) => Some(now.saturating_sub(i64::from(d.get()) * DAY_SECS)),
        }
    }
}

/// Expires old data now and then every day until `shutdown`; `now` gives the unix time of each
/// run. Failures are logged and retried the next day: an expiry that did not happen only
/// keeps data a day longer.
pub async fn daily(
    store: Store,
    retention: Retention,
    now: impl Fn() -> i64 + Send,
    shutdown: CancellationToken,
) {
    if retention == Retention::Forever {
        return;
    }
    let mut every = tokio::time::interval(EVERY);
    every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tokio::select! {
            _ = shutdown.cancelled() => return,
            _ = every.tick() => {}
        }
        let Some(cutoff) = retention.cutoff(now()) else {
            return;
        };
        let result = tokio::select! {
            _ = shutdown.cancelled() => return,
            r = store.expire(cutoff) => r,
        };
        match result {
            Ok(e) if e.is_empty() => debug!(cutoff, "nothing old enough to expire"),
            Ok(e) => info!(
                nodes = e.nodes,
                messages = e.messages,
                exchanges = e.exchanges,
                "expired old data"
            ),
            Err(e) => warn!(error = %e, "could not expire old data; trying again tomorrow"),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicI64, AtomicUsize, Ordering};

    use tokio::sync::Notify;

    use super::*;
    use crate::node::NodeId;

    #[test]
    fn cutoffs() {
        let now = 100 * DAY_SECS;
        assert_eq!(Retention::days(0), Retention::Forever);
        assert_eq!(Retention::days(0).cutoff(now), None);
        assert_eq!(Retention::days(30).cutoff(now), Some(70 * DAY_SECS));
        assert_eq!(Retention::days(1).cutoff(now), Some(99 * DAY_SECS));
        assert_eq!(
            Retention::days(u32::MAX).cutoff(i64::MIN + 1),
            Some(i64::MIN),
            "saturates instead of overflowing"
        );
    }

    /// A clock the test sets, which says when the task read it.
    struct TestClock {
        unix: AtomicI64,
        reads: AtomicUsize,
        read: Notify,
    }

    impl TestClock {
        /// Waits until the task has read the clock more than `seen` times. On this
        /// current-thread runtime the task queues its store job in the same poll as the
        /// read, so a store call made after this returns runs after that job.
        async fn wait_reads(&self, seen: usize) {
            loop {
                let notified = self.read.notified();
                if self.reads.load(Ordering::SeqCst) > seen {
                    return;
                }
                notified.await;
            }
        }
    }

    #[tokio::test(start_paused = true)]
    async fn expires_at_start_and_again_a_day_later() {
        const NODE: NodeId = NodeId(7);
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("m.db")).unwrap();
        let t0 = 1_000 * DAY_SECS;
        // Heard 40 days and 25 days before t0: the node stays (it is not silent), and only a
        // summarised message can go.
        let old = store
            .append_user(NODE, "old".into(), t0 - 40 * DAY_SECS)
            .await
            .unwrap();
        let newer = store
            .append_user(NODE, "newer".into(), t0 - 25 * DAY_SECS)
            .await
            .unwrap();
        store
            .touch_node(NODE, None, None, t0 - 25 * DAY_SECS)
            .await
            .unwrap();
        assert!(
            store
                .save_summary(
                    NODE,
                    crate::memory::SummarySave::without_facts("both", newer, None)
                )
                .await
                .unwrap()
        );

        let clock = Arc::new(TestClock {
            unix: AtomicI64::new(t0),
            reads: AtomicUsize::new(0),
            read: Notify::new(),
        });
        let shutdown = CancellationToken::new();
        let task_clock = clock.clone();
        let task = tokio::spawn(daily(
            store.clone(),
            Retention::days(30),
            move || {
                let now = task_clock.unix.load(Ordering::SeqCst);
                task_clock.reads.fetch_add(1, Ordering::SeqCst);
                task_clock.read.notify_waiters();
                now
            },
            shutdown.clone(),
        ));

        clock.wait_reads(0).await;
        let ids: Vec<i64> = store
            .history(NODE, 10)
            .await
            .unwrap()
            .iter()
            .map(|m| m.id)
            .collect();
        assert_eq!(ids, vec![newer], "the 40-day-old message went at start");
        assert!(old < newer);

        // Ten days later the other message is 35 days old; the task runs once a day.
        let reads = clock.reads.load(Ordering::SeqCst);
        clock.unix.store(t0 + 10 * DAY_SECS, Ordering::SeqCst);
        tokio::time::advance(EVERY).await;
        clock.wait_reads(reads).await;
        let history = store.history(NODE, 10).await.unwrap();
        // Silent for 35 days by then: the node is forgotten, summary and all.
        assert!(history.is_empty(), "{history:?}");
        assert_eq!(store.summary(NODE).await.unwrap(), None);

        shutdown.cancel();
        task.await.unwrap();
        store.close().await.unwrap();
    }

    #[tokio::test]
    async fn forever_returns_at_once() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("m.db")).unwrap();
        let never = || -> i64 { panic!("the clock is not read when nothing expires") };
        daily(
            store.clone(),
            Retention::Forever,
            never,
            CancellationToken::new(),
        )
        .await;
        store.close().await.unwrap();
    }
}
