//! Why a store call failed: [`StoreError`]; for a damaged file, which part SQLite found
//! damaged ([`Damage`], read from its error codes by [`damage_of`]), and the damage the store
//! met so far, logged once per kind with what to do (`Seen`).
//!
//! Kept apart from the handle (`handle`) and from what the store does about damage (`damage`):
//! every file of the store returns these, the opening code (`schema`) too, while the handle
//! opens the file through `schema` and `damage` adds `Store` calls of its own. Here they need
//! nothing from either, so no two files of the store import each other in a circle.

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

use rusqlite::{ErrorCode, ffi};
use tracing::{debug, error, warn};

use crate::node::NodeId;

/// Why a store call failed.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The directory that should hold the database file does not exist.
    #[error("cannot open database {}: directory {} does not exist", path.display(), dir.display())]
    MissingDirectory { path: PathBuf, dir: PathBuf },
    /// SQLite refused to open or set up the file (permissions, not a database, locked, ...).
    #[error("cannot open database {}: {source}", path.display())]
    Open {
        path: PathBuf,
        source: rusqlite::Error,
    },
    /// The file has a schema version this build does not know, most likely written by a newer
    /// meshai; refusing to guess at its schema.
    #[error(
        "cannot open database {}: unknown schema version {found} (this meshai knows 0 to {supported})",
        path.display()
    )]
    UnknownVersion {
        path: PathBuf,
        found: i64,
        supported: i64,
    },
    /// A schema migration failed; its transaction was rolled back.
    #[error("cannot open database {}: migration to schema version {version} failed: {source}", path.display())]
    Migration {
        path: PathBuf,
        version: i64,
        source: rusqlite::Error,
    },
    /// The database thread could not be started.
    #[error("cannot start the database thread: {0}")]
    Thread(std::io::Error),
    /// `append_reply` named a message that is not a user message of that node, typically because
    /// the node's memory was reset while the LLM was answering. Nothing was written.
    #[error("message {id} is not a user message of node {node}")]
    NoSuchUserMessage { node: NodeId, id: i64 },
    /// `update_reply` or `delete_reply` named a message that is not a stored reply of that
    /// node (reset meanwhile). Nothing was written.
    #[error("message {id} is not a stored reply of node {node}")]
    NoSuchReply { node: NodeId, id: i64 },
    /// SQLite found the file damaged (SQLITE_CORRUPT, SQLITE_NOTADB; SQLITE_NOMEM, which a
    /// damaged search index can give: see `damage_of`): `part` says whether only the
    /// search index or the file. The store keeps trying later calls.
    #[error("database is damaged ({part}): {source}")]
    Damaged {
        part: Damage,
        source: rusqlite::Error,
    },
    /// A query failed.
    #[error("database error: {0}")]
    Sql(#[from] rusqlite::Error),
    /// The store was closed (or its thread died); the job did not run.
    #[error("database is closed")]
    Closed,
}

impl StoreError {
    /// The damage behind this error, if SQLite found the file damaged (also when opening).
    pub(crate) fn damage(&self) -> Option<Damage> {
        match self {
            StoreError::Damaged { part, .. } => Some(*part),
            StoreError::Open { source, .. }
            | StoreError::Migration { source, .. }
            | StoreError::Sql(source) => damage_of(source),
            _ => None,
        }
    }
}

/// Which part of the database file is damaged.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Damage {
    /// The full-text search index (SQLITE_CORRUPT_VTAB from FTS5, or SQLITE_NOMEM: see
    /// [`damage_of`]): retrieval fails, the rest works; it is rebuilt from the messages (at
    /// start, or by a reset that needs it).
    Index,
    /// The file itself: its pages (SQLITE_CORRUPT) or its header (SQLITE_NOTADB).
    File,
}

impl fmt::Display for Damage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Damage::Index => "its search index is damaged",
            Damage::File => "the file is damaged",
        })
    }
}

/// The damage `error` reports, if it reports one.
///
/// SQLITE_NOMEM counts as a damaged index: FTS5 reading a damaged segment can take a
/// nonsense length for a real one, and the allocation it asks for fails as "out of memory"
/// (about one in sixteen random overwrites of the index's records does this; the store's
/// damage tests hold such overwrites). A real shortage is not told apart, and need not be:
/// the daemon's own allocations abort the process first, and what the store does for a
/// damaged index (answers without retrieval, a rebuild at the next start or reset) costs
/// nothing on an undamaged one; were the file's pages damaged instead, the rebuild meets
/// SQLITE_CORRUPT and says so.
pub(crate) fn damage_of(error: &rusqlite::Error) -> Option<Damage> {
    let rusqlite::Error::SqliteFailure(e, _) = error else {
        return None;
    };
    match e.code {
        ErrorCode::DatabaseCorrupt if e.extended_code == ffi::SQLITE_CORRUPT_VTAB => {
            Some(Damage::Index)
        }
        ErrorCode::OutOfMemory => Some(Damage::Index),
        ErrorCode::DatabaseCorrupt | ErrorCode::NotADatabase => Some(Damage::File),
        _ => None,
    }
}

/// What damage the store met since it opened; each kind is logged once (an error with what to
/// do, or a warning for the index), later ones at debug, so a damaged file does not flood the
/// journal with one line per message.
#[derive(Debug, Default)]
pub(super) struct Seen {
    index: AtomicBool,
    file: AtomicBool,
}

impl Seen {
    /// Records `damage` of the database at `path`, with what SQLite said.
    pub(super) fn note(&self, damage: Damage, path: &Path, detail: &dyn fmt::Display) {
        let flag = match damage {
            Damage::Index => &self.index,
            Damage::File => &self.file,
        };
        if flag.swap(true, Ordering::Relaxed) {
            debug!(%damage, problem = %detail, "database damage met again");
            return;
        }
        let database = path.display();
        match damage {
            Damage::File => error!(
                %database,
                problem = %detail,
                "the database file is damaged: meshai answers without memory until it is \
                 repaired. Stop meshai, copy the file with its -wal and -shm files as a backup, \
                 then recover it or delete it (docs/raspberry-pi.md, \"A damaged database\"); \
                 `meshai check` reports the damage"
            ),
            Damage::Index => warn!(
                %database,
                problem = %detail,
                "the database's search index is damaged: answers go on without older \
                 exchanges and notes; restart meshai to rebuild the index from the stored \
                 messages and passages"
            ),
        }
    }

    /// The worst damage met so far.
    pub(super) fn worst(&self) -> Option<Damage> {
        if self.file.load(Ordering::Relaxed) {
            Some(Damage::File)
        } else if self.index.load(Ordering::Relaxed) {
            Some(Damage::Index)
        } else {
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn failure(code: i32) -> rusqlite::Error {
        rusqlite::Error::SqliteFailure(ffi::Error::new(code), None)
    }

    #[test]
    fn damage_is_read_from_the_error_code() {
        let cases = [
            (failure(ffi::SQLITE_CORRUPT), Some(Damage::File)),
            (failure(ffi::SQLITE_CORRUPT_VTAB), Some(Damage::Index)),
            (failure(ffi::SQLITE_NOTADB), Some(Damage::File)),
            (failure(ffi::SQLITE_NOMEM), Some(Damage::Index)),
            (failure(ffi::SQLITE_BUSY), None),
            (failure(ffi::SQLITE_FULL), None),
            (rusqlite::Error::QueryReturnedNoRows, None),
        ];
        for (error, want) in cases {
            assert_eq!(damage_of(&error), want, "{error:?}");
        }
    }

    #[test]
    fn the_worst_damage_met_is_kept() {
        let seen = Seen::default();
        let path = Path::new("x.db");
        assert_eq!(seen.worst(), None);
        seen.note(Damage::Index, path, &"malformed");
        assert_eq!(seen.worst(), Some(Damage::Index));
        seen.note(Damage::File, path, &"malformed");
        seen.note(Damage::Index, path, &"again");
        assert_eq!(seen.worst(), Some(Damage::File));
    }
}
