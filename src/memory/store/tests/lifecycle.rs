//! Opening, migrating, sharing with a second process, stats and closing.

use rusqlite::Connection;

use super::*;
use crate::llm::Usage;
use crate::memory::store::*;

#[tokio::test]
async fn migrates_from_empty_and_reopens_idempotently() {
    let (_dir, path) = temp();
    let store = Store::open(&path).unwrap();
    let (u, _) = exchange(&store, A, "remember the antenna", "noted", 10).await;
    store.close().await.unwrap();

    let raw = Connection::open(&path).unwrap();
    let version: i64 = raw
        .pragma_query_value(None, "user_version", |r| r.get(0))
        .unwrap();
    assert_eq!(version, schema::VERSION);
    let mode: String = raw
        .pragma_query_value(None, "journal_mode", |r| r.get(0))
        .unwrap();
    assert_eq!(mode, "wal");
    drop(raw);

    let store = Store::open(&path).unwrap();
    let history = store.history(A, 10).await.unwrap();
    assert_eq!(history.first().map(|m| m.id), Some(u));
    assert_eq!(history.len(), 2);
    assert_eq!(store.integrity_check().await.unwrap(), "ok");
    store.close().await.unwrap();
}

/// A database written by the previous release (schema 1: the full-text index without
/// stemming, no facts) opens with every message, summary and exchange kept, and its index
/// rebuilt so that stemmed retrieval finds the old exchanges.
#[tokio::test]
async fn migrates_a_schema_1_database_with_nothing_lost() {
    let (_dir, path) = temp();
    let raw = Connection::open(&path).unwrap();
    raw.execute_batch(schema::MIGRATIONS[0]).unwrap();
    raw.pragma_update(None, "user_version", 1).unwrap();
    let node = i64::from(A.0);
    let mut exchanges = Vec::new();
    let mut add = |user: &str, reply: &str, at: i64| {
        raw.execute(
            "INSERT INTO messages(node, role, text, at) VALUES (?1, 'user', ?2, ?3)",
            rusqlite::params![node, user, at],
        )
        .unwrap();
        let u = raw.last_insert_rowid();
        raw.execute(
            "INSERT INTO messages(node, role, text, at) VALUES (?1, 'assistant', ?2, ?3)",
            rusqlite::params![node, reply, at + 1],
        )
        .unwrap();
        let a = raw.last_insert_rowid();
        raw.execute(
            "INSERT INTO exchanges(node, user_id, assistant_id, at) VALUES (?1, ?2, ?3, ?4)",
            rusqlite::params![node, u, a, at + 1],
        )
        .unwrap();
        let e = raw.last_insert_rowid();
        raw.execute(
            "INSERT INTO exchanges_fts(rowid, user, assistant) VALUES (?1, ?2, ?3)",
            rusqlite::params![e, user, reply],
        )
        .unwrap();
        exchanges.push((u, a));
    };
    add("our swap meets are every second Saturday", "Noted.", 1);
    for (i, topic) in ["lora", "antennas", "solar", "batteries", "hops", "weather"]
        .iter()
        .enumerate()
    {
        add(
            &format!("tell me about {topic}"),
            "Sure.",
            10 + 2 * i as i64,
        );
    }
    let through = exchanges[2].1;
    raw.execute(
        "INSERT INTO summaries(node, text, through_id, updated_at) VALUES (?1, 'Ann.', ?2, 5)",
        rusqlite::params![node, through],
    )
    .unwrap();
    // The old index does not stem: "meet" does not find "meets".
    let old_hits: i64 = raw
        .query_row(
            "SELECT count(*) FROM exchanges_fts WHERE exchanges_fts MATCH 'meet'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(old_hits, 0);
    drop(raw);

    let store = Store::open(&path).unwrap();
    assert_eq!(store.history(A, 100).await.unwrap().len(), 14);
    let summary = store.summary(A).await.unwrap().unwrap();
    assert_eq!(
        (summary.text.as_str(), summary.through_id),
        ("Ann.", through)
    );
    assert!(store.facts(A).await.unwrap().is_empty());
    let new = store
        .append_user(A, "When is the swap meet?".into(), 99)
        .await
        .unwrap();
    let ctx = store
        .context(A, new, 0, "When is the swap meet?", 2)
        .await
        .unwrap();
    let users: Vec<&str> = ctx.retrieved.iter().map(|e| e.user.as_str()).collect();
    assert_eq!(users, ["our swap meets are every second Saturday"]);
    assert_eq!(store.integrity_check().await.unwrap(), "ok");
    store.close().await.unwrap();
    let raw = Connection::open(&path).unwrap();
    let version: i64 = raw
        .pragma_query_value(None, "user_version", |r| r.get(0))
        .unwrap();
    assert_eq!(version, schema::VERSION);
    let indexed: i64 = raw
        .query_row(
            "SELECT count(*) FROM exchanges_fts WHERE exchanges_fts MATCH 'sure'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(indexed, 6, "every old exchange is in the new index");
}

#[tokio::test]
async fn open_errors_say_what_is_wrong() {
    let (dir, path) = temp();

    let missing = dir.path().join("nope").join("x.db");
    let err = Store::open(&missing).unwrap_err();
    assert!(
        matches!(err, StoreError::MissingDirectory { .. }),
        "{err:?}"
    );
    let text = err.to_string();
    assert!(
        text.starts_with(&format!("cannot open database {}", missing.display())),
        "{text}"
    );
    assert!(text.contains("does not exist"), "{text}");

    std::fs::write(
        &path,
        b"this is not a database, just some text that is long enough",
    )
    .unwrap();
    let err = Store::open(&path).unwrap_err();
    assert!(matches!(err, StoreError::Open { .. }), "{err:?}");
    assert!(
        err.to_string().starts_with("cannot open database "),
        "{err}"
    );

    let newer = dir.path().join("newer.db");
    let raw = Connection::open(&newer).unwrap();
    raw.pragma_update(None, "user_version", 99).unwrap();
    drop(raw);
    let err = Store::open(&newer).unwrap_err();
    assert!(
        matches!(err, StoreError::UnknownVersion { found: 99, .. }),
        "{err:?}"
    );
}

#[tokio::test]
async fn a_second_process_can_read_and_write_meanwhile() {
    let (_dir, path) = temp();
    let daemon = Store::open(&path).unwrap();
    let (u, _) = exchange(&daemon, A, "from the daemon", "ok", 1).await;

    // The admin CLI opens the same file while the daemon keeps it open.
    let admin = Store::open(&path).unwrap();
    assert_eq!(
        admin.history(A, 10).await.unwrap().first().map(|m| m.id),
        Some(u)
    );
    exchange(&admin, B, "from the admin", "ok", 2).await;
    admin.reset(A).await.unwrap();
    admin.close().await.unwrap();

    assert!(daemon.history(A, 10).await.unwrap().is_empty());
    assert_eq!(daemon.history(B, 10).await.unwrap().len(), 2);
    exchange(&daemon, A, "again", "ok", 3).await;
    daemon.close().await.unwrap();
}

#[tokio::test]
async fn a_heard_message_and_its_reply_each_land_whole() {
    let (_dir, path) = temp();
    let store = Store::open(&path).unwrap();
    let names = (Some("Alpha".to_string()), Some("ALP".to_string()));
    let u = store
        .append_heard(A, names, "hello".into(), 10)
        .await
        .unwrap();
    // Unknown names keep the known ones; the time moves on.
    let u2 = store
        .append_heard(A, (None, None), "again".into(), 20)
        .await
        .unwrap();
    let usage = Some(Usage {
        prompt_tokens: 30,
        completion_tokens: 7,
    });
    store
        .append_reply(A, u, "hi".into(), 11, usage)
        .await
        .unwrap();
    // A reply that cannot be stored counts no usage either: one transaction.
    let err = store
        .append_reply(A, 9999, "lost".into(), 12, usage)
        .await
        .unwrap_err();
    assert!(
        matches!(err, StoreError::NoSuchUserMessage { .. }),
        "{err:?}"
    );
    store
        .append_reply(A, u2, "hi again".into(), 21, None)
        .await
        .unwrap();

    let stats = store.stats().await.unwrap();
    let a = stats.first().unwrap();
    assert_eq!(
        (
            a.long_name.as_deref(),
            a.last_seen,
            a.messages,
            a.llm_calls,
            a.prompt_tokens,
            a.completion_tokens
        ),
        // The reply without usage (a streamed answer cut at the budget) is a call too.
        (Some("Alpha"), Some(20), 4, 2, 30, 7)
    );
}

#[tokio::test]
async fn stats_numbers() {
    let (_dir, path) = temp();
    let store = Store::open(&path).unwrap();
    let c = NodeId(7);
    store
        .touch_node(A, Some("Alpha Long".into()), Some("ALP".into()), 100)
        .await
        .unwrap();
    store.touch_node(A, None, None, 300).await.unwrap();
    store
        .touch_node(A, None, Some("AL".into()), 200)
        .await
        .unwrap();
    store
        .touch_node(B, Some("Bravo".into()), None, 150)
        .await
        .unwrap();
    store.record_usage(A, 100, 20).await.unwrap();
    store.record_usage(A, 50, 5).await.unwrap();
    // A node that only ever recorded usage, and one that only has messages.
    store.record_usage(NodeId(9), 1, 1).await.unwrap();
    let (_, a) = exchange(&store, A, "q", "r", 1).await;
    exchange(&store, c, "q", "r", 1).await;
    assert!(
        store
            .save_summary(A, save("Ünïcode summary", a, None))
            .await
            .unwrap()
    );

    let stats = store.stats().await.unwrap();
    let nodes: Vec<NodeId> = stats.iter().map(|s| s.node).collect();
    assert_eq!(
        nodes,
        [A, B, c, NodeId(9)],
        "most recently seen first, unseen by node"
    );
    let a = stats.first().unwrap();
    assert_eq!(
        a,
        &NodeStats {
            node: A,
            long_name: Some("Alpha Long".into()),
            messages: 2,
            last_seen: Some(300),
            summary_chars: 15,
            // Two recorded calls and the stored reply (whose usage was not known).
            llm_calls: 3,
            prompt_tokens: 150,
            completion_tokens: 25,
        }
    );
    let b = stats.get(1).unwrap();
    assert_eq!(
        (b.messages, b.llm_calls, b.summary_chars, b.last_seen),
        (0, 0, 0, Some(150))
    );
    let cs = stats.get(2).unwrap();
    assert_eq!(
        (cs.messages, cs.long_name.as_deref(), cs.last_seen),
        (2, None, None)
    );
    let n9 = stats.get(3).unwrap();
    assert_eq!((n9.messages, n9.llm_calls, n9.prompt_tokens), (0, 1, 1));

    let raw = Connection::open(&path).unwrap();
    let (first, short): (i64, String) = raw
        .query_row(
            "SELECT first_seen, short_name FROM nodes WHERE node = ?1",
            [i64::from(A.0)],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    assert_eq!((first, short.as_str()), (100, "AL"));
}

#[tokio::test]
async fn close_finishes_queued_jobs_and_refuses_later_ones() {
    let (_dir, path) = temp();
    let store = Store::open(&path).unwrap();
    let other = store.clone();
    // `join!` polls in order, so both writes are queued before the close request.
    let (w1, w2, closed) = tokio::join!(
        other.append_user(A, "m1".into(), 1),
        other.append_user(A, "m2".into(), 2),
        store.close(),
    );
    assert!(
        w1.is_ok() && w2.is_ok() && closed.is_ok(),
        "{w1:?} {w2:?} {closed:?}"
    );
    let err = other.history(A, 1).await.unwrap_err();
    assert!(matches!(err, StoreError::Closed), "{err:?}");
    assert!(matches!(other.close().await, Err(StoreError::Closed)));

    // Everything acknowledged is on disk, and the WAL was checkpointed away.
    let wal = path.with_extension("db-wal");
    assert!(
        std::fs::metadata(&wal).map_or(true, |m| m.len() == 0),
        "wal left behind"
    );
    let reopened = Store::open(&path).unwrap();
    assert_eq!(reopened.history(A, 100).await.unwrap().len(), 2);
    reopened.close().await.unwrap();
}
