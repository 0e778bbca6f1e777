//! Expiry with a cutoff the test chooses: old messages, their search entries and silent nodes
//! go; recent messages, unsummarised ones and a talking node's summary stay. And the setting's
//! cutoffs and the daemon's daily task, on a clock the test sets.

use std::sync::Arc;
use std::sync::atomic::{AtomicI64, AtomicUsize, Ordering};

use rusqlite::Connection;
use tokio::sync::Notify;
use tokio_util::sync::CancellationToken;

use super::*;
use crate::store::retention::Expired;
use crate::store::retention::{DAY_SECS, EVERY, Retention, daily};

/// The cutoff every case is placed around.
const CUT: i64 = 1_000_000;

/// Exchange ids whose search entry matches `word`.
fn fts_hits(path: &std::path::Path, word: &str) -> Vec<i64> {
    let c = Connection::open(path).unwrap();
    let mut stmt = c
        .prepare("SELECT rowid FROM exchanges_fts WHERE exchanges_fts MATCH ?1 ORDER BY rowid")
        .unwrap();
    stmt.query_map([word], |r| r.get(0))
        .unwrap()
        .collect::<rusqlite::Result<Vec<i64>>>()
        .unwrap()
}

#[tokio::test]
async fn old_messages_and_silent_nodes_go_summaries_of_talking_nodes_stay() {
    let (_dir, path) = temp();
    let store = Store::open(&path).unwrap();
    let silent = NodeId(0x51);
    let unsummarised = NodeId(0x52);

    // A talks today; its first two exchanges are old and in its summary, the third is old but
    // not summarised yet, the fourth is recent.
    store
        .touch_node(A, Some("Alpha".into()), None, CUT + 100)
        .await
        .unwrap();
    let (a1, _) = exchange(&store, A, "apple question", "apple answer", CUT - 1000).await;
    let (_, a2) = exchange(&store, A, "banana question", "banana answer", CUT - 500).await;
    let (a3, _) = exchange(&store, A, "cherry question", "cherry answer", CUT - 100).await;
    let (a4, _) = exchange(&store, A, "damson question", "damson answer", CUT + 100).await;
    assert!(
        store
            .save_summary(A, save("fruit talk", a2, None))
            .await
            .unwrap()
    );

    // B was last heard long ago: everything of it goes.
    store
        .touch_node(silent, Some("Bravo".into()), None, CUT - 2000)
        .await
        .unwrap();
    let (_, b) = exchange(&store, silent, "elder question", "elder answer", CUT - 2000).await;
    assert!(
        store
            .save_summary(silent, save("elder talk", b, None))
            .await
            .unwrap()
    );

    // C talks and has old messages, but no summary yet: nothing of it goes.
    let (c1, _) = exchange(
        &store,
        unsummarised,
        "fig question",
        "fig answer",
        CUT - 900,
    )
    .await;
    exchange(&store, unsummarised, "grape question", "grape answer", CUT).await;

    assert_eq!(fts_hits(&path, "apple").len(), 1);
    assert_eq!(fts_hits(&path, "elder").len(), 1);

    let expired = store.expire(CUT).await.unwrap();
    assert_eq!(
        expired,
        Expired {
            nodes: 1,
            messages: 4 + 2,
            exchanges: 2 + 1
        }
    );

    let kept = ids(&store.history(A, 100).await.unwrap());
    assert_eq!(kept.first(), Some(&a3), "unsummarised old messages stay");
    assert_eq!(kept.len(), 4, "{kept:?}");
    assert!(kept.contains(&a4));
    assert!(!kept.contains(&a1) && !kept.contains(&a2));
    let summary = store
        .summary(A)
        .await
        .unwrap()
        .expect("the talking node's summary stays");
    assert_eq!(summary.text, "fruit talk");

    assert!(store.history(silent, 100).await.unwrap().is_empty());
    assert_eq!(store.summary(silent).await.unwrap(), None);
    let stats = store.stats().await.unwrap();
    assert!(stats.iter().all(|s| s.node != silent), "{stats:?}");
    assert!(
        stats
            .iter()
            .any(|s| s.node == A && s.long_name.as_deref() == Some("Alpha"))
    );

    let c = ids(&store.history(unsummarised, 100).await.unwrap());
    assert_eq!(
        c.first(),
        Some(&c1),
        "a message exactly at the cutoff or newer stays"
    );
    assert_eq!(c.len(), 4);

    for gone in ["apple", "banana", "elder"] {
        assert!(
            fts_hits(&path, gone).is_empty(),
            "{gone} still in the index"
        );
    }
    for kept in ["cherry", "damson", "fig", "grape"] {
        assert_eq!(fts_hits(&path, kept).len(), 1, "{kept} lost from the index");
    }
    // Retrieval still works on what is left.
    let ctx = store.context(A, i64::MAX, 0, "cherry", 2).await.unwrap();
    assert_eq!(ctx.retrieved.len(), 1);
    assert_eq!(store.integrity_check().await.unwrap(), "ok");

    assert!(
        store.expire(CUT).await.unwrap().is_empty(),
        "a second run finds nothing"
    );
    store.close().await.unwrap();
}

#[tokio::test]
async fn a_summary_after_expiry_still_saves() {
    // Expiry may delete the message the summary cursor names; the next summary must still be
    // accepted (its own cursor is a newer message that exists).
    let (_dir, store) = open_temp();
    store.touch_node(A, None, None, CUT).await.unwrap();
    let (_, a1) = exchange(&store, A, "one", "two", CUT - 10).await;
    assert!(store.save_summary(A, save("s1", a1, None)).await.unwrap());
    let (_, a2) = exchange(&store, A, "three", "four", CUT + 10).await;
    assert_eq!(store.expire(CUT).await.unwrap().messages, 2);
    assert!(
        store
            .save_summary(A, save("s2", a2, Some(a1)))
            .await
            .unwrap()
    );
    assert_eq!(store.summary(A).await.unwrap().unwrap().text, "s2");
    store.close().await.unwrap();
}

#[tokio::test]
async fn a_new_database_is_private() {
    use std::os::unix::fs::PermissionsExt as _;
    let (_dir, path) = temp();
    let store = Store::open(&path).unwrap();
    exchange(&store, B, "q", "a", 1).await;
    let mode = |p: &std::path::Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&path), 0o600);
    let wal = path.with_file_name("meshai.db-wal");
    assert_eq!(mode(&wal), 0o600, "the WAL takes the database's mode");
    store.close().await.unwrap();
}

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
    let (_dir, store) = open_temp();
    let t0 = 1_000 * DAY_SECS;
    // Heard 40 days and 25 days before t0: the node stays (it is not silent), and only a
    // summarised message can go.
    let old = store
        .append_user(A, "old".into(), t0 - 40 * DAY_SECS)
        .await
        .unwrap();
    let newer = store
        .append_user(A, "newer".into(), t0 - 25 * DAY_SECS)
        .await
        .unwrap();
    store
        .touch_node(A, None, None, t0 - 25 * DAY_SECS)
        .await
        .unwrap();
    assert!(
        store
            .save_summary(A, save("both", newer, None))
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
        .history(A, 10)
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
    let history = store.history(A, 10).await.unwrap();
    // Silent for 35 days by then: the node is forgotten, summary and all.
    assert!(history.is_empty(), "{history:?}");
    assert_eq!(store.summary(A).await.unwrap(), None);

    shutdown.cancel();
    task.await.unwrap();
    store.close().await.unwrap();
}

#[tokio::test]
async fn forever_returns_at_once() {
    let (_dir, store) = open_temp();
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
