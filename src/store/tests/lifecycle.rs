//! Opening, migrating, sharing with a second process and closing.

use rusqlite::Connection;

use super::*;
use crate::store::error::StoreError;
use crate::store::schema;

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

/// A schema 7 database's facts stay kept (none retired) after migration 8, and a correction
/// saved afterwards retires one of them.
#[tokio::test]
async fn migrates_a_schema_7_database_with_its_facts_kept() {
    let (_dir, path) = temp();
    let raw = super::at_version(&path, 7);
    let node = i64::from(A.0);
    raw.execute(
        "INSERT INTO messages(node, role, text, at) VALUES (?1, 'user', 'My radio is a Heltec V3.', 1)",
        [node],
    )
    .unwrap();
    let source = raw.last_insert_rowid();
    raw.execute(
        "INSERT INTO facts(node, text, source_id, at) VALUES (?1, 'My radio is a Heltec V3.', ?2, 1)",
        rusqlite::params![node, source],
    )
    .unwrap();
    drop(raw);
    let store = Store::open(&path).unwrap();
    assert_eq!(super::user_version(&path), schema::VERSION);
    assert_eq!(store.facts(A).await.unwrap(), ["My radio is a Heltec V3."]);
    assert!(store.retired_facts(A).await.unwrap().is_empty());
    let (u, a) = exchange(
        &store,
        A,
        "I have a new radio now, a RAK WisBlock.",
        "Ok",
        5,
    )
    .await;
    let s = SummarySave {
        facts: vec![("I have a new radio now, a RAK WisBlock.".into(), u)],
        facts_max: 12,
        ..SummarySave::without_facts("s", a, None)
    };
    assert!(store.save_summary(A, s).await.unwrap());
    assert_eq!(
        store.facts(A).await.unwrap(),
        ["I have a new radio now, a RAK WisBlock."]
    );
    assert_eq!(store.retired_facts(A).await.unwrap().len(), 1);
    store.close().await.unwrap();
}
