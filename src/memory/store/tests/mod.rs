//! Store tests against real SQLite files in temporary directories, one file per concern.

mod airtime;
mod conversation;
mod damage;
mod keys;
mod knowledge;
mod lifecycle;
mod prompts;
mod retention;
mod summaries;

use std::path::PathBuf;

use super::{Store, StoredMessage, SummarySave};
use crate::node::NodeId;

pub(super) const A: NodeId = NodeId(0xa1b2c3d4);
pub(super) const B: NodeId = NodeId(0x00000042);

pub(super) fn temp() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("meshai.db");
    (dir, path)
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
