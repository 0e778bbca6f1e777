//! The SQLite store: the only module that runs SQL.
//!
//! One dedicated `std::thread` owns the `rusqlite::Connection` (an actor). Async callers send a
//! job over a bounded channel and await its `oneshot` reply, so no tokio worker ever blocks on
//! the SD card. The database runs in WAL mode with `synchronous=FULL`: a message the store has
//! acknowledged survives a power cut, and the admin CLI can read and write the same file from
//! another process while the daemon runs (`busy_timeout` absorbs short lock waits).
//!
//! Layout: `schema` holds the versioned migrations, `ops` the synchronous queries (one function
//! per API call), `reply` a streamed reply's row as it grows, `fts` turns user text into a
//! safe FTS5 query, `damage` what a damaged file means (the start check, the index rebuilt
//! from the messages), `retention` expires old data (with its own `Store::expire`), `airtime`
//! keeps the channel's last reading for `meshai stats`, `keys` the public key pinned for each
//! node that talks to us over PKI, `knowledge` the operator's documents as passages with their
//! own full-text index (with its own `Store` calls; its child `vectors` their embeddings when
//! `[knowledge.embeddings]` is set). `types` the values the calls take and return. This file is the async handle.
//!
//! A damaged file (SQLITE_CORRUPT, SQLITE_NOTADB) does not stop the store: every call is still
//! tried, one that fails returns [`StoreError::Damaged`], and the damage is logged once per
//! kind (see `damage`). Retrieval is best-effort: when the search index fails, the context
//! comes without retrieved exchanges, and a reply is stored without its index entry.
//!
//! A database file the store creates is 0600: it holds every node's conversation.

mod airtime;
mod damage;
mod fts;
mod keys;
mod knowledge;
mod ops;
mod reply;
mod retention;
mod schema;
#[cfg(test)]
mod tests;
mod types;

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

use rusqlite::{Connection, OpenFlags};
use tokio::sync::{mpsc, oneshot};

use crate::llm::Usage;
use crate::node::NodeId;

pub use airtime::AirtimeRecord;
pub use damage::{Damage, Health};
pub use fts::content_words;
pub use keys::{KeyAccepted, NodeKey};
pub use knowledge::{
    Embedded, KnowledgeChange, KnowledgeFile, KnowledgeHit, KnowledgeIndex, NewPassage, Unembedded,
    embed_input, fnv1a, unit,
};
pub use retention::Expired;
pub use types::{
    Context, Exchange, FoldRule, NodeStats, Role, Said, StoredMessage, Summary, SummaryJob,
    SummarySave,
};

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
    pub fn damage(&self) -> Option<Damage> {
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
    pub fn open_damaged(path: &Path, error: &StoreError) -> Result<Store, StoreError> {
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

    /// Stores a message from `node` and returns its id. Called before the LLM is asked, so a
    /// crash mid-reply still remembers what the person said.
    pub async fn append_user(
        &self,
        node: NodeId,
        text: String,
        at: i64,
    ) -> Result<i64, StoreError> {
        self.call(move |c| ops::append_message(c, node, Role::User, &Said::plain(text), at))
            .await
    }

    /// Stores a message from `node` together with what was heard of the node (its names, if
    /// known — `None` keeps the stored ones — and the time): like [`Store::touch_node`] and
    /// [`Store::append_user`], in one transaction, so one sync to disk per incoming message.
    pub async fn append_heard(
        &self,
        node: NodeId,
        names: (Option<String>, Option<String>),
        said: Said,
        at: i64,
    ) -> Result<i64, StoreError> {
        self.call(move |c| {
            let names = (names.0.as_deref(), names.1.as_deref());
            ops::append_heard(c, node, names, &said, at)
        })
        .await
    }

    /// Stores the reply to message `user_id`, indexes the pair for retrieval and counts the
    /// LLM call with its token usage (tokens only if known), in one transaction; returns the
    /// reply's id. Fails with `NoSuchUserMessage` if `user_id` is gone (reset meanwhile). A
    /// damaged search index leaves the pair out of it (noted); the reply is stored.
    pub async fn append_reply(
        &self,
        node: NodeId,
        user_id: i64,
        said: Said,
        at: i64,
        usage: Option<Usage>,
    ) -> Result<i64, StoreError> {
        let (id, unindexed) = self
            .call(move |c| ops::append_reply(c, node, user_id, &said, at, usage))
            .await?;
        self.note_skipped(unindexed);
        Ok(id)
    }

    /// Replaces the text of reply `id` (a streamed reply, grown by more parts or rewritten by
    /// a retry) and its search entry, and adds `usage`'s tokens to the node's counters (the
    /// call was counted when the reply was first stored). Fails with `NoSuchReply` if the
    /// reply is gone (reset meanwhile).
    pub async fn update_reply(
        &self,
        node: NodeId,
        id: i64,
        said: Said,
        usage: Option<Usage>,
    ) -> Result<(), StoreError> {
        let unindexed = self
            .call(move |c| reply::update(c, node, id, &said, usage))
            .await?;
        self.note_skipped(unindexed);
        Ok(())
    }

    /// Deletes reply `id` with its exchange and search entry: a streamed reply whose parts the
    /// outbox took back (none went on air) and that no retry replaced.
    pub async fn delete_reply(&self, node: NodeId, id: i64) -> Result<(), StoreError> {
        self.call(move |c| reply::delete(c, node, id)).await
    }

    /// The memory for answering message `before_id`: the summary and kept facts, every
    /// message of the node after the summary's cursor and before `before_id` (at most
    /// `max_messages`, the newest), and up to `retrieve` exchanges of that node entirely older
    /// than those, ranked by FTS5 bm25 (stemmed, the user's words weighted double) against
    /// `query`, weak matches left out. The query is reduced to safe terms (see `fts`), so user
    /// text never causes a syntax error; no terms, no retrieval.
    pub async fn context(
        &self,
        node: NodeId,
        before_id: i64,
        max_messages: usize,
        query: &str,
        retrieve: usize,
    ) -> Result<Context, StoreError> {
        let query = fts::Query::new(query);
        let (ctx, retrieval) = self
            .call(move |c| ops::context(c, node, before_id, max_messages, query.as_ref(), retrieve))
            .await?;
        if let Some(e) = retrieval {
            // Retrieval is best-effort: the turn goes on with the rest of the memory.
            let e = self.noted(e);
            if e.damage().is_none() {
                tracing::warn!(error = %e, "retrieval failed; answering without older exchanges");
            }
        }
        Ok(ctx)
    }

    /// A fold, when one is due: the node has more than `keep + threshold` messages before
    /// `before_id` that no summary covers. The job holds the oldest of them, all but the
    /// newest `keep` (one more if the first kept one would be a reply), at most `max_batch`.
    pub async fn pending_fold(
        &self,
        node: NodeId,
        before_id: i64,
        rule: FoldRule,
    ) -> Result<Option<SummaryJob>, StoreError> {
        self.call(move |c| ops::pending_fold(c, node, before_id, rule))
            .await
    }

    /// `node`'s newest message, if it has any.
    pub async fn last_message(&self, node: NodeId) -> Result<Option<StoredMessage>, StoreError> {
        self.call(move |c| ops::last_message(c, node)).await
    }

    /// How many messages of `node` before `before_id` no saved summary covers yet.
    pub async fn unsummarized(&self, node: NodeId, before_id: i64) -> Result<usize, StoreError> {
        self.call(move |c| ops::unsummarized(c, node, before_id))
            .await
    }

    /// Saves the summary, its cursor and the new facts in one transaction, only if the stored
    /// cursor still equals `save.expected_previous` and message `save.through_id` still
    /// exists for the node. Otherwise changes nothing and returns false: a reset or another
    /// save happened while the LLM was summarising.
    pub async fn save_summary(&self, node: NodeId, save: SummarySave) -> Result<bool, StoreError> {
        self.call(move |c| ops::save_summary(c, node, &save)).await
    }

    /// The node's kept facts, oldest first.
    pub async fn facts(&self, node: NodeId) -> Result<Vec<String>, StoreError> {
        self.call(move |c| ops::facts(c, node)).await
    }

    /// The node's rolling summary, if it has one.
    pub async fn summary(&self, node: NodeId) -> Result<Option<Summary>, StoreError> {
        self.call(move |c| ops::summary(c, node)).await
    }

    /// Forgets the node: its messages, exchanges (and their search entries), summary and facts.
    /// The node's stats row (names, usage counters) stays.
    ///
    /// A damaged search index (its entries go with the exchanges) is rebuilt from the
    /// messages first, then the reset is tried again.
    pub async fn reset(&self, node: NodeId) -> Result<(), StoreError> {
        match self.call(move |c| ops::reset(c, node)).await {
            Err(StoreError::Damaged {
                part: Damage::Index,
                ..
            }) => {
                let n = self.rebuild_index().await?;
                tracing::info!(
                    exchanges = n,
                    "search index rebuilt from the stored messages"
                );
                self.call(move |c| ops::reset(c, node)).await
            }
            result => result,
        }
    }

    /// The node's last `limit` messages, oldest first.
    pub async fn history(
        &self,
        node: NodeId,
        limit: usize,
    ) -> Result<Vec<StoredMessage>, StoreError> {
        self.call(move |c| ops::history(c, node, limit)).await
    }

    /// Records that `node` was heard at `at`; names given as `None` keep their stored value.
    pub async fn touch_node(
        &self,
        node: NodeId,
        long_name: Option<String>,
        short_name: Option<String>,
        at: i64,
    ) -> Result<(), StoreError> {
        self.call(move |c| {
            ops::touch_node(c, node, long_name.as_deref(), short_name.as_deref(), at)
        })
        .await
    }

    /// Counts one LLM call made for `node` and its token usage, on its own. The daemon counts
    /// usage with the reply it belongs to ([`Store::append_reply`]); tests seed numbers with it.
    #[cfg(test)]
    pub(crate) async fn record_usage(
        &self,
        node: NodeId,
        prompt_tokens: u64,
        completion_tokens: u64,
    ) -> Result<(), StoreError> {
        self.call(move |c| ops::record_usage(c, node, prompt_tokens, completion_tokens))
            .await
    }

    /// Numbers for every node that has a stats row, messages or a summary, most recently
    /// seen first.
    pub async fn stats(&self) -> Result<Vec<NodeStats>, StoreError> {
        self.call(|c| ops::stats(c)).await
    }

    /// Runs SQLite's and FTS5's integrity checks; returns `"ok"` when both pass, otherwise
    /// the problems, one per line.
    pub async fn integrity_check(&self) -> Result<String, StoreError> {
        self.call(|c| ops::integrity_check(c)).await
    }

    /// Checks the file with `PRAGMA quick_check` (the search index's own check included).
    /// Reports only; [`Store::note_damage`] and [`Store::rebuild_index`] act on what it found.
    pub async fn check(&self) -> Result<Health, StoreError> {
        self.call(|c| damage::quick_check(c)).await
    }

    /// Empties the search index and fills it again from the stored exchanges (nothing is
    /// lost: it holds only their words); returns how many it holds.
    pub async fn rebuild_index(&self) -> Result<usize, StoreError> {
        self.call(damage::rebuild_index).await
    }

    /// Records damage found outside a call (the start check): logged once per kind, shown by
    /// [`Store::damage`].
    pub fn note_damage(&self, damage: Damage, detail: &dyn std::fmt::Display) {
        self.seen.note(damage, &self.path, detail);
    }

    /// The worst damage met since the store opened, for `!status`.
    pub fn damage(&self) -> Option<Damage> {
        self.seen.worst()
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
