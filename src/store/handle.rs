//! The store's async handle: [`Store`] opens the file, starts the one database thread that
//! owns the connection, queues jobs for it and closes it. Each other file of the store adds its
//! own `Store` calls, which reach the thread through `Store::call`.

use std::path::Path;
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

use rusqlite::Connection;
use tokio::sync::{mpsc, oneshot};

use super::error::{Damage, Seen, StoreError, damage_of};
use super::schema::{self, BUSY_TIMEOUT, open_flags};

/// How many jobs may wait for the database thread before callers wait to enqueue.
const QUEUE: usize = 64;

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
    pub(super) path: Arc<Path>,
    /// The damage met so far (logged once per kind; `!status` shows it).
    pub(super) seen: Arc<Seen>,
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
    pub(super) async fn call<T, F>(&self, f: F) -> Result<T, StoreError>
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
    pub(super) fn noted(&self, e: StoreError) -> StoreError {
        let e = match e {
            StoreError::Sql(source) => match damage_of(&source) {
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
    pub(super) fn note_skipped(&self, unindexed: Option<StoreError>) {
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
