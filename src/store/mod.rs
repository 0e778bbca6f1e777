//! The SQLite store: the only module that runs SQL.
//!
//! One dedicated `std::thread` owns the `rusqlite::Connection` (an actor). Async callers send a
//! job over a bounded channel and await its `oneshot` reply, so no tokio worker ever blocks on
//! the SD card. The database runs in WAL mode with `synchronous=FULL`: a message the store has
//! acknowledged survives a power cut, and the admin CLI can read and write the same file from
//! another process while the daemon runs (`busy_timeout` absorbs short lock waits).
//!
//! This file is the async handle (open, close, the job queue, `StoreError`); each other
//! file owns one part of the database, its `Store` calls and their synchronous SQL, which runs
//! on the database thread only:
//!
//! - `conversations`: a node's messages, the memory a reply is built from (`context`), its
//!   history and `reset`; `retrieval` the older exchanges that match a new message; `reply` a
//!   streamed reply's row as it grows;
//! - `summaries`: the rolling summary, the facts kept beside it, the fold that is due;
//! - `nodes`: each node's names, last-heard time and usage counters, `meshai stats`;
//! - `keys`: the public key pinned for each node that talks to us over PKI;
//! - `renumber`: a person is their key — a renumbered node's rows moved to its new number,
//!   the old numbers as aliases;
//! - `replay`: the PKI DMs and commands already taken (sender, packet id), which count once;
//! - `knowledge`: the operator's documents as passages with their own full-text index (its
//!   child `vectors`: their embeddings, with `[knowledge.embeddings]`);
//! - `airtime`: the channel's last reading for `meshai stats`;
//! - `mail`: the messages left with `!tell` until their recipient is heard;
//! - `watches`: the watches set with `!watch`, and whether each held at the last look;
//! - `bulletins`: the drop folder's topics people subscribed to, and the bulletins sent;
//! - `mesh`: the mesh view kept across restarts, saved once a minute and at shutdown;
//! - `retention`: `[storage] retain_days`, the daily expiry task and what expiry deletes;
//! - `damage`: what a damaged file means, the start check, the indexes rebuilt;
//! - `schema` the versioned migrations, `fts` user text as a safe FTS5 query, `sql` how values
//!   are stored, `types` the values the calls take and return.
//!
//! Writes use immediate transactions: in WAL mode a deferred transaction that later wants to
//! write can fail with `SQLITE_BUSY` without waiting, while an immediate one waits for the
//! write lock under `busy_timeout` like any other statement.
//!
//! A damaged file (SQLITE_CORRUPT, SQLITE_NOTADB) does not stop the store: every call is still
//! tried, one that fails returns [`StoreError::Damaged`], and the damage is logged once per
//! kind (see `damage`). Retrieval is best-effort: when the search index fails, the context
//! comes without retrieved exchanges, and a reply is stored without its index entry.
//!
//! A database file the store creates is 0600: it holds every node's conversation.

mod airtime;
mod bulletins;
mod conversations;
mod damage;
mod fts;
mod keys;
mod knowledge;
mod mail;
pub mod mesh;
mod nodes;
mod renumber;
mod replay;
mod reply;
pub(crate) mod retention;
mod retrieval;
mod schema;
mod sql;
mod standings;
mod summaries;
#[cfg(test)]
mod tests;
mod types;
mod watches;

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

use rusqlite::{Connection, OpenFlags};
use tokio::sync::{mpsc, oneshot};

use crate::node::NodeId;

pub(crate) use airtime::AirtimeRecord;
pub(crate) use bulletins::{News, Subscribed};
pub(crate) use damage::{Damage, Health};
pub(crate) use fts::content_words;
pub use keys::{KeyAccepted, NodeKey, PkiNodes};
pub use knowledge::{
    Embedded, KnowledgeChange, KnowledgeFile, KnowledgeHit, KnowledgeIndex, NewPassage, Passages,
    Unembedded, embed_input, fnv1a, unit,
};
pub use mail::{Mail, MailQuota, NewMail, Posted};
pub(crate) use renumber::{Moved, Numbers};
pub(crate) use replay::Sender;
pub(crate) use retention::Expired;
pub use standings::{Earned, Noted, Over, PinnedKey};
pub use types::{
    Context, Exchange, FoldRule, NodeStats, RetiredFact, Role, Said, StoredMessage, Summary,
    SummaryJob, SummarySave, Window,
};
pub(crate) use watches::{Added, NewWatch, Watch};

/// How many jobs may wait for the database thread before callers wait to enqueue.
const QUEUE: usize = 64;

/// How long a statement waits for a lock held by another connection (the admin CLI).
const BUSY_TIMEOUT: Duration = Duration::from_secs(5);

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
    /// damaged search index can give: see `damage::damage_of`): `part` says whether only the
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
            | StoreError::Sql(source) => damage::damage_of(source),
            _ => None,
        }
    }
}

/// A unit of work for the database thread.
type Job = Box<dyn FnOnce(&mut Connection) + Send>;

enum Msg {
    Run(Job),
    /// Stop after the jobs queued before this one, checkpoint, close, then reply.
    Close(oneshot::Sender<Result<(), StoreError>>),
}

/// Handle to the database. Cheap to clone; every clone talks to the same thread.
#[derive(Clone)]
pub struct Store {
    tx: mpsc::Sender<Msg>,
    /// Taken by `close` to join the thread; shared so any clone can close.
    thread: Arc<Mutex<Option<JoinHandle<()>>>>,
    /// The file, for the damage log line.
    path: Arc<Path>,
    /// The damage met so far (logged once per kind; `!status` shows it).
    seen: Arc<damage::Seen>,
}

impl std::fmt::Debug for Store {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Store").finish_non_exhaustive()
    }
}

impl Store {
    /// Opens (creating if needed) the database at `path`, applies pending migrations and starts
    /// the database thread. Blocking: call it at startup, not from a hot async path.
    pub fn open(path: &Path) -> Result<Store, StoreError> {
        create_private(path);
        let conn = schema::open(path)?;
        Store::serve_on(conn, path)
    }

    /// Opens `path` as it is, for a daemon whose file did not open because it is damaged
    /// (`error`, whose [`StoreError::damage`] is set): no settings, no migration, the damage
    /// noted (logged once). Every call is still tried, so the daemon answers without memory
    /// where the file fails and with it where it works.
    pub(crate) fn open_damaged(path: &Path, error: &StoreError) -> Result<Store, StoreError> {
        let conn =
            Connection::open_with_flags(path, open_flags()).map_err(|source| StoreError::Open {
                path: path.to_path_buf(),
                source,
            })?;
        // Only to wait for the admin CLI's locks; the rest of the settings may fail here.
        let _ = conn.busy_timeout(BUSY_TIMEOUT);
        let store = Store::serve_on(conn, path)?;
        store.note_damage(Damage::File, error);
        Ok(store)
    }

    /// Starts the database thread on `conn`.
    fn serve_on(conn: Connection, path: &Path) -> Result<Store, StoreError> {
        let (tx, rx) = mpsc::channel(QUEUE);
        let handle = std::thread::Builder::new()
            .name("meshai-db".into())
            .spawn(move || serve(conn, rx))
            .map_err(StoreError::Thread)?;
        Ok(Store {
            tx,
            thread: Arc::new(Mutex::new(Some(handle))),
            path: Arc::from(path),
            seen: Arc::default(),
        })
    }

    /// Finishes the jobs queued before this call, checkpoints the WAL, closes the connection
    /// and joins the thread. Jobs sent later (from other clones) fail with `Closed`.
    pub async fn close(self) -> Result<(), StoreError> {
        let (reply, rx) = oneshot::channel();
        self.tx
            .send(Msg::Close(reply))
            .await
            .map_err(|_| StoreError::Closed)?;
        let result = rx.await.map_err(|_| StoreError::Closed)?;
        let handle = self.thread.lock().ok().and_then(|mut h| h.take());
        if let Some(handle) = handle {
            // The thread has replied and only returns now, so this join is short; still keep
            // it off the tokio worker.
            let _ = tokio::task::spawn_blocking(move || handle.join()).await;
        }
        result
    }

    /// Runs `f` on the database thread and returns its result.
    async fn call<T, F>(&self, f: F) -> Result<T, StoreError>
    where
        T: Send + 'static,
        F: FnOnce(&mut Connection) -> Result<T, StoreError> + Send + 'static,
    {
        let (reply, rx) = oneshot::channel();
        let job: Job = Box::new(move |c| {
            // The caller may have given up (cancelled); then nobody wants the answer.
            let _ = reply.send(f(c));
        });
        self.tx
            .send(Msg::Run(job))
            .await
            .map_err(|_| StoreError::Closed)?;
        rx.await
            .map_err(|_| StoreError::Closed)?
            .map_err(|e| self.noted(e))
    }

    /// `e` with SQLite's damage codes as [`StoreError::Damaged`], the damage noted.
    fn noted(&self, e: StoreError) -> StoreError {
        let e = match e {
            StoreError::Sql(source) => match damage::damage_of(&source) {
                Some(part) => StoreError::Damaged { part, source },
                None => StoreError::Sql(source),
            },
            e => e,
        };
        if let StoreError::Damaged { part, source } = &e {
            self.seen.note(*part, &self.path, source);
        }
        e
    }

    /// Notes the damage that kept an exchange out of the search index.
    fn note_skipped(&self, unindexed: Option<StoreError>) {
        if let Some(e) = unindexed {
            self.noted(e);
        }
    }
}

/// The database thread: runs jobs in order until told to close or every handle is dropped.
fn serve(mut conn: Connection, mut rx: mpsc::Receiver<Msg>) {
    while let Some(msg) = rx.blocking_recv() {
        match msg {
            Msg::Run(job) => job(&mut conn),
            Msg::Close(reply) => {
                // Refuse further jobs now, so ones queued behind `Close` fail fast.
                rx.close();
                let _ = reply.send(shutdown(conn));
                return;
            }
        }
    }
    // Every handle was dropped without `close`: dropping the connection still closes it
    // cleanly (and SQLite checkpoints the WAL when the last connection closes).
}

/// Checkpoints the WAL into the main file and closes the connection.
fn shutdown(conn: Connection) -> Result<(), StoreError> {
    let checkpoint = conn.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |row| {
        row.get::<_, i64>(0)
    });
    match checkpoint {
        Ok(0) => {}
        Ok(_) => tracing::debug!("wal checkpoint incomplete: another connection is reading"),
        Err(e) => tracing::warn!(error = %e, "wal checkpoint failed"),
    }
    conn.close().map_err(|(_, e)| StoreError::Sql(e))
}

/// Creates a missing database file readable by its owner only (0600), before SQLite creates
/// it with its default 0644: the file holds conversations. SQLite gives the `-wal` and `-shm`
/// files the mode of the database file. An existing file is left as it is, and any failure
/// here is left for the open that follows to report.
fn create_private(path: &Path) {
    use std::os::unix::fs::OpenOptionsExt as _;
    let in_existing_dir = path
        .parent()
        .is_none_or(|d| d.as_os_str().is_empty() || d.is_dir());
    if in_existing_dir {
        let _ = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(path);
    }
}

/// The open flags: read-write, create, no URI interpretation of the path.
fn open_flags() -> OpenFlags {
    OpenFlags::SQLITE_OPEN_READ_WRITE
        | OpenFlags::SQLITE_OPEN_CREATE
        | OpenFlags::SQLITE_OPEN_NO_MUTEX
}
