//! A damaged file: the search index (best-effort retrieval and indexing, the rebuild, a
//! reset that needs it), damaged pages and a damaged header (every call tried, each failure
//! `Damaged`), the start check; and a streamed reply's row as it grows.

use std::io::{Seek, SeekFrom, Write};
use std::path::Path;

use rusqlite::Connection;

use super::*;
use crate::llm::Usage;
use crate::store::damage::Health;
use crate::store::error::{Damage, StoreError};
use crate::store::types::Context;

/// Overwrites the search index's segment rows with bytes drawn from `seed` (`all`: its
/// structure and averages records too), as a bad sector under them would.
fn damage_index(path: &Path, all: bool, seed: u64) {
    let only = if all { "" } else { "id > 10" };
    damage_fts(path, "exchanges_fts", only, seed);
}

/// Writes bytes over `pages` 4 KiB pages of the file from page index `first`.
fn damage_pages(path: &Path, first: u64, pages: u64) {
    let mut f = std::fs::OpenOptions::new().write(true).open(path).unwrap();
    f.seek(SeekFrom::Start(first * 4096)).unwrap();
    let junk: Vec<u8> = (0..pages * 4096).map(|i| (i * 7919 % 251) as u8).collect();
    f.write_all(&junk).unwrap();
}

/// A closed store with two nodes' exchanges about antennas (checkpointed into the file).
async fn filled() -> (tempfile::TempDir, std::path::PathBuf) {
    let (dir, path) = temp();
    let store = Store::open(&path).unwrap();
    for i in 0..30 {
        let at = 10 + 4 * i;
        exchange(
            &store,
            A,
            &format!("my antenna {i} is a yagi{i}"),
            "nice",
            at,
        )
        .await;
        exchange(&store, B, &format!("bob's mast {i}"), "ok", at + 2).await;
    }
    store.close().await.unwrap();
    (dir, path)
}

/// A's question about the yagi7, stored at `at`, and the memory for answering it.
async fn ask_yagi(store: &Store, at: i64) -> (i64, Context) {
    let question = "which yagi7 antenna?";
    let new = store.append_user(A, question.into(), at).await.unwrap();
    let ctx = store.context(A, new, 4, question, 3).await.unwrap();
    (new, ctx)
}

#[tokio::test]
async fn a_damaged_index_costs_retrieval_only_and_a_reset_rebuilds_it() {
    let (_dir, path) = filled().await;
    damage_index(&path, false, 1);
    let store = Store::open(&path).unwrap();
    let health = store.check().await.unwrap();
    assert!(matches!(health, Health::IndexDamaged(_)), "{health:?}");
    assert_eq!(store.damage(), None, "the check only reports");

    // A message with searchable words: the window and the rest, without retrieval.
    let (new, ctx) = ask_yagi(&store, 500).await;
    assert_eq!(ctx.window.len(), 4);
    assert!(ctx.retrieved.is_empty());
    assert_eq!(store.damage(), Some(Damage::Index));

    // A reply is stored whether or not its words reach the index.
    store
        .append_reply(A, new, "the 7".into(), 501, None)
        .await
        .unwrap();
    assert_eq!(store.history(A, 1).await.unwrap()[0].text, "the 7");

    // Reset needs the index (its entries go with the exchanges): rebuilt, then done.
    store.reset(B).await.unwrap();
    assert!(store.history(B, 10).await.unwrap().is_empty());
    assert_eq!(store.check().await.unwrap(), Health::Ok);
    let (_, ctx) = ask_yagi(&store, 600).await;
    assert_eq!(
        ctx.retrieved.first().map(|e| e.user.as_str()),
        Some("my antenna 7 is a yagi7")
    );
    store.close().await.unwrap();
}

#[tokio::test]
async fn a_wholly_damaged_index_still_stores_replies_and_rebuilds() {
    // Seed 10's bytes make FTS5 fail as "out of memory", and SQLite rolls back the whole
    // transaction on that: the reply is written again without its entry. Seed 1's make it
    // report the index malformed, and only the entry is left out.
    for (seed, problem) in [(1, "malformed"), (10, "out of memory")] {
        let (_dir, path) = filled().await;
        damage_index(&path, true, seed);
        let store = Store::open(&path).unwrap();
        match store.check().await.unwrap() {
            Health::IndexDamaged(p) => assert!(p.contains(problem), "seed {seed}: {p}"),
            health => panic!("seed {seed}: {health:?}"),
        }
        let new = store
            .append_user(A, "my antenna?".into(), 500)
            .await
            .unwrap();
        let id = store
            .append_reply(A, new, "a yagi".into(), 501, None)
            .await
            .unwrap();
        assert_eq!(store.damage(), Some(Damage::Index), "seed {seed}");
        store
            .update_reply(A, id, "a yagi, 7 elements".into(), None)
            .await
            .unwrap();
        assert_eq!(
            store.history(A, 1).await.unwrap()[0].text,
            "a yagi, 7 elements"
        );
        assert_eq!(
            store.history(A, 100).await.unwrap().len(),
            62,
            "seed {seed}"
        );
        assert_eq!(store.rebuild_index().await.unwrap(), 61);
        assert_eq!(store.check().await.unwrap(), Health::Ok);
        assert_eq!(store.integrity_check().await.unwrap(), "ok");
        store.close().await.unwrap();
    }
}

#[tokio::test]
async fn damaged_pages_fail_each_call_as_damaged_and_the_check_says_so() {
    let (_dir, path) = filled().await;
    // Past the schema: the tables' and indexes' pages.
    damage_pages(&path, 2, 4);
    let store = Store::open(&path).unwrap();
    assert!(matches!(store.check().await.unwrap(), Health::Damaged(_)));
    let mut damaged = 0;
    for _ in 0..3 {
        let reset = store.reset(A).await;
        let stats = store.stats().await;
        for r in [reset.err(), stats.err()].into_iter().flatten() {
            assert_eq!(r.damage(), Some(Damage::File), "{r:?}");
            assert!(matches!(r, StoreError::Damaged { .. }), "{r:?}");
            damaged += 1;
        }
    }
    assert!(damaged > 0);
    assert_eq!(store.damage(), Some(Damage::File));
    let _ = store.close().await;
}

#[tokio::test]
async fn a_damaged_header_does_not_open_but_opens_as_damaged() {
    let (_dir, path) = filled().await;
    damage_pages(&path, 0, 1);
    let err = Store::open(&path).unwrap_err();
    assert_eq!(err.damage(), Some(Damage::File), "{err:?}");
    let store = Store::open_damaged(&path, &err).unwrap();
    assert_eq!(store.damage(), Some(Damage::File));
    let e = store.append_user(A, "hi".into(), 1).await.unwrap_err();
    assert_eq!(e.damage(), Some(Damage::File), "{e:?}");
    assert!(matches!(store.check().await.unwrap(), Health::Damaged(_)));
    let _ = store.close().await;

    // A file that is fine is not damaged.
    let (_dir, path) = filled().await;
    let store = Store::open(&path).unwrap();
    assert_eq!(store.check().await.unwrap(), Health::Ok);
    store.close().await.unwrap();
}

#[tokio::test]
async fn a_streamed_reply_grows_in_one_row_and_can_be_taken_back() {
    let (_dir, path) = temp();
    let store = Store::open(&path).unwrap();
    let u = store.append_user(A, "tell me".into(), 1).await.unwrap();
    let usage = |p, c| Usage {
        prompt_tokens: p,
        completion_tokens: c,
    };
    let id = store
        .append_reply(A, u, "part one".into(), 2, None)
        .await
        .unwrap();
    store
        .update_reply(A, id, "part one part two zeppelin".into(), None)
        .await
        .unwrap();
    store
        .update_reply(
            A,
            id,
            "part one part two zeppelin".into(),
            Some(usage(30, 7)),
        )
        .await
        .unwrap();
    let history = store.history(A, 10).await.unwrap();
    assert_eq!(ids(&history), [u, id]);
    assert_eq!(history[1].text, "part one part two zeppelin");
    // The search entry follows the text; the call is counted once, the tokens at the end.
    let raw = Connection::open(&path).unwrap();
    let hits: i64 = raw
        .query_row(
            "SELECT count(*) FROM exchanges_fts WHERE exchanges_fts MATCH 'zeppelin'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(hits, 1);
    let stats = store.stats().await.unwrap();
    assert_eq!(
        (
            stats[0].llm_calls,
            stats[0].prompt_tokens,
            stats[0].completion_tokens
        ),
        (1, 30, 7)
    );

    store.delete_reply(A, id).await.unwrap();
    assert_eq!(ids(&store.history(A, 10).await.unwrap()), [u]);
    let exchanges: i64 = raw
        .query_row("SELECT count(*) FROM exchanges", [], |r| r.get(0))
        .unwrap();
    assert_eq!(exchanges, 0);
    for gone in [
        store.update_reply(A, id, "x".into(), None).await,
        store.delete_reply(A, id).await,
        store.delete_reply(B, u).await,
    ] {
        assert!(
            matches!(gone, Err(StoreError::NoSuchReply { .. })),
            "{gone:?}"
        );
    }
    assert_eq!(store.integrity_check().await.unwrap(), "ok");
    store.close().await.unwrap();
}
