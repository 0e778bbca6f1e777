//! Store tests against real SQLite files in temporary directories, one file per concern.

mod airtime;
mod bulletins;
mod conversations;
mod damage;
mod keys;
mod knowledge;
mod lifecycle;
mod mail;
mod mesh;
mod nodes;
mod prompts;
mod renumber;
mod retention;
mod standings;
mod summaries;
mod watches;

use std::path::PathBuf;

use super::handle::Store;
use super::types::{StoredMessage, SummarySave};
use crate::node::NodeId;

pub(super) const A: NodeId = NodeId(0xa1b2c3d4);
pub(super) const B: NodeId = NodeId(0x00000042);

pub(super) fn temp() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("meshai.db");
    (dir, path)
}

/// Overwrites the rows of full-text index `table`'s data (its segments; `id > 10` leaves its
/// structure and averages records) that `only` selects (all when empty) with bytes drawn from
/// `seed`: the same damage on every run and machine (SQLite's `randomblob` made a test that
/// passed 15 runs in 16).
pub(super) fn damage_fts(path: &std::path::Path, table: &str, only: &str, seed: u64) {
    let raw = rusqlite::Connection::open(path).unwrap();
    let filter = if only.is_empty() {
        String::new()
    } else {
        format!(" WHERE {only}")
    };
    let rows: Vec<(i64, usize)> = raw
        .prepare(&format!(
            "SELECT id, length(block) FROM {table}_data{filter}"
        ))
        .unwrap()
        .query_map([], |row| Ok((row.get(0)?, row.get(1)?)))
        .unwrap()
        .collect::<rusqlite::Result<_>>()
        .unwrap();
    assert!(!rows.is_empty());
    // xorshift64*: a fixed stream of bytes per seed.
    let mut state = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let mut byte = move || {
        state ^= state >> 12;
        state ^= state << 25;
        state ^= state >> 27;
        (state.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 56) as u8
    };
    for (id, len) in rows {
        let junk: Vec<u8> = (0..len).map(|_| byte()).collect();
        raw.execute(
            &format!("UPDATE {table}_data SET block = ?1 WHERE id = ?2"),
            rusqlite::params![junk, id],
        )
        .unwrap();
    }
}

/// A database file at schema `version`, as an older release left it, opened raw.
pub(super) fn at_version(path: &std::path::Path, version: usize) -> rusqlite::Connection {
    let raw = rusqlite::Connection::open(path).unwrap();
    for sql in &super::schema::MIGRATIONS[..version] {
        raw.execute_batch(sql).unwrap();
    }
    raw.pragma_update(None, "user_version", version as i64)
        .unwrap();
    raw
}

/// A database file at schema `version` holding one message of node `A` ("kept", a user's),
/// closed: what an older release left behind.
pub(super) fn old_database(path: &std::path::Path, version: usize) {
    let raw = at_version(path, version);
    raw.execute(
        "INSERT INTO messages(node, role, text, at) VALUES (?1, 'user', 'kept', 5)",
        [i64::from(A.0)],
    )
    .unwrap();
}

/// The schema version of the file at `path`.
pub(super) fn user_version(path: &std::path::Path) -> i64 {
    rusqlite::Connection::open(path)
        .unwrap()
        .pragma_query_value(None, "user_version", |r| r.get(0))
        .unwrap()
}

pub(super) fn open_temp() -> (tempfile::TempDir, Store) {
    let (dir, path) = temp();
    let store = Store::open(&path).unwrap();
    (dir, store)
}

/// Appends a user message and its reply; returns (user id, assistant id).
pub(super) async fn exchange(
    store: &Store,
    node: NodeId,
    user: &str,
    reply: &str,
    at: i64,
) -> (i64, i64) {
    let u = store.append_user(node, user.into(), at).await.unwrap();
    let a = store
        .append_reply(node, u, reply.into(), at + 1, None)
        .await
        .unwrap();
    (u, a)
}

pub(super) fn ids(msgs: &[StoredMessage]) -> Vec<i64> {
    msgs.iter().map(|m| m.id).collect()
}

/// A summary save without facts.
pub(super) fn save(text: &str, through_id: i64, expected_previous: Option<i64>) -> SummarySave {
    SummarySave::without_facts(text, through_id, expected_previous)
}
