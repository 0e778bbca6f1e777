//! The folder into the index, incrementally: walk it (metadata only), plan against what the
//! index holds (`plan`), read and split only the new and changed files, and hand the
//! changes to the store in batches. Files are walked and read on tokio's blocking pool; the
//! SQL runs on the store's thread. A sync may be dropped at any await: its walk then stops. A file that cannot be indexed (binary, not UTF-8, too
//! large, unreadable, an unsupported format) is recorded as skipped with the reason and never
//! stops the rest; only a folder that cannot be read at all fails, and then the index keeps
//! what it had (an unmounted stick must not empty it).

use std::path::{Path, PathBuf};
use std::time::Duration;

use tokio_util::sync::CancellationToken;

use super::folder::{self, Found, Skip};
use super::plan;
use super::split;
use crate::clock::unix_now;
use crate::store::{KnowledgeChange, KnowledgeFile, Store, StoreError};

/// A batch is written once it holds this many passages (or [`BATCH_FILES`] files): one
/// transaction, one sync to disk, per batch.
const BATCH_PASSAGES: usize = 500;
const BATCH_FILES: usize = 64;

/// What one reindex did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Report {
    /// Files the folder holds (indexed or skipped).
    pub files: usize,
    /// Files indexed for the first time, indexed again (their text changed), only touched
    /// (size or time changed, the text did not), removed, left as they were.
    pub(crate) added: usize,
    pub changed: usize,
    pub(crate) touched: usize,
    pub(crate) removed: usize,
    pub unchanged: usize,
    /// Files skipped by this reindex (new or changed since), with the reason; files skipped
    /// before and unchanged since are not repeated.
    pub(crate) skipped: Vec<(String, Skip)>,
    /// Passages written by this reindex.
    pub passages: usize,
    /// The folder had more than [`folder::MAX_FILES`] files; the rest were not looked at.
    pub(crate) truncated: bool,
    pub(crate) took: Duration,
}

impl Report {
    /// Whether the index changed.
    #[cfg(test)]
    pub(crate) fn changed_anything(&self) -> bool {
        self.added + self.changed + self.touched + self.removed + self.skipped.len() > 0
    }
}

/// Why a reindex did not run.
#[derive(Debug, thiserror::Error)]
pub enum SyncError {
    /// The folder is missing or cannot be read; the index was left as it was.
    #[error("cannot read the knowledge folder {}: {source}", dir.display())]
    Folder {
        dir: PathBuf,
        source: std::io::Error,
    },
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The blocking task reading the folder failed (the runtime is shutting down).
    #[error("the folder could not be read: {0}")]
    Task(String),
}

/// Brings the index in step with `dir`.
pub async fn sync(store: &Store, dir: &Path) -> Result<Report, SyncError> {
    let started = tokio::time::Instant::now();
    let stored = store.knowledge_files().await?;
    let walk_dir = dir.to_path_buf();
    // A sync given up on (the daemon stops) gives up its walk too: dropping this future
    // cancels the token the walk checks at every entry.
    let abandon = CancellationToken::new();
    let _abandon_when_dropped = abandon.clone().drop_guard();
    let (found, truncated) = blocking(move || folder::walk(&walk_dir, &abandon))
        .await?
        .map_err(|source| SyncError::Folder {
            dir: dir.to_path_buf(),
            source,
        })?;
    let index = store.knowledge_index().await?;
    let resplit = index.splitter.is_some_and(|v| v != split::VERSION);
    let plan = plan::plan(&stored, &found, resplit);
    let mut report = Report {
        files: found.len(),
        unchanged: plan.unchanged,
        truncated,
        ..Report::default()
    };
    let mut batch = Batch::default();
    for (f, skip) in &plan.skip {
        batch.push(skipped(f, skip), 0);
        report.skipped.push((f.path.clone(), (*skip).clone()));
        batch.flush_if_full(store).await?;
    }
    for (f, indexed_hash) in &plan.read {
        let (read_dir, rel) = (dir.to_path_buf(), f.path.clone());
        let format = f.format.clone().unwrap_or(split::Format::Text);
        let text = blocking(move || {
            folder::read(&read_dir, &rel).map(|t| {
                let split = split::split(&t.text, format);
                (t.hash, split)
            })
        })
        .await?;
        let is_new = !stored.iter().any(|s| s.path == f.path);
        let (change, passages) = read_change(f, *indexed_hash, text, is_new, &mut report);
        batch.push(change, passages);
        batch.flush_if_full(store).await?;
    }
    for path in &plan.remove {
        report.removed += 1;
        batch.push(KnowledgeChange::Remove { path: path.clone() }, 0);
        batch.flush_if_full(store).await?;
    }
    batch.flush(store).await?;
    store
        .knowledge_indexed(dir.display().to_string(), unix_now(), split::VERSION)
        .await?;
    report.took = started.elapsed();
    Ok(report)
}

/// The change a file read anew makes to the index, and its passages, counted in `report`:
/// a touch when its text is what was indexed (`indexed`), its passages when new or changed,
/// or the reason it is skipped.
fn read_change(
    f: &Found,
    indexed: Option<u64>,
    read: Result<(u64, split::Split), Skip>,
    is_new: bool,
    report: &mut Report,
) -> (KnowledgeChange, usize) {
    match read {
        Ok((hash, _)) if Some(hash) == indexed => {
            report.touched += 1;
            let touch = KnowledgeChange::Touch {
                path: f.path.clone(),
                size: f.size,
                mtime_ns: f.mtime_ns,
            };
            (touch, 0)
        }
        Ok((hash, split)) => {
            if is_new {
                report.added += 1;
            } else {
                report.changed += 1;
            }
            let n = split.passages.len();
            report.passages += n;
            let file = KnowledgeFile {
                path: f.path.clone(),
                size: f.size,
                mtime_ns: f.mtime_ns,
                hash: Some(hash),
                private: f.private || split.private,
                passages: n,
                skipped: None,
                indexed_at: 0,
            };
            let passages = split.passages;
            (KnowledgeChange::Put { file, passages }, n)
        }
        Err(skip) => {
            let change = skipped(f, &skip);
            report.skipped.push((f.path.clone(), skip));
            (change, 0)
        }
    }
}

/// The row of a file that is not indexed, and why.
fn skipped(f: &Found, skip: &Skip) -> KnowledgeChange {
    KnowledgeChange::Put {
        file: KnowledgeFile {
            path: f.path.clone(),
            size: f.size,
            mtime_ns: f.mtime_ns,
            hash: None,
            private: f.private,
            passages: 0,
            skipped: Some(skip.to_string()),
            indexed_at: 0,
        },
        passages: Vec::new(),
    }
}

/// Changes waiting to be written together.
#[derive(Default)]
struct Batch {
    changes: Vec<KnowledgeChange>,
    passages: usize,
}

impl Batch {
    fn push(&mut self, change: KnowledgeChange, passages: usize) {
        self.changes.push(change);
        self.passages += passages;
    }

    async fn flush_if_full(&mut self, store: &Store) -> Result<(), StoreError> {
        if self.passages >= BATCH_PASSAGES || self.changes.len() >= BATCH_FILES {
            self.flush(store).await?;
        }
        Ok(())
    }

    async fn flush(&mut self, store: &Store) -> Result<(), StoreError> {
        if self.changes.is_empty() {
            return Ok(());
        }
        let changes = std::mem::take(&mut self.changes);
        self.passages = 0;
        store.knowledge_apply(changes, unix_now()).await
    }
}

/// Runs `f` on the blocking pool.
async fn blocking<T: Send + 'static>(
    f: impl FnOnce() -> T + Send + 'static,
) -> Result<T, SyncError> {
    tokio::task::spawn_blocking(f)
        .await
        .map_err(|e| SyncError::Task(e.to_string()))
}

#[cfg(test)]
mod tests;
