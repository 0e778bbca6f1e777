//! The daemon's side of the index: the folder is indexed at start and again each time a
//! reindex is asked for ([`Reindex`]: `main.rs` asks on SIGHUP, which `systemctl reload
//! meshai` sends), one reindex at a time; requests that come while one runs make one more.
//! Each reindex logs one line of what it did and one per file it skipped; a failure is
//! logged and the index keeps serving what it had.

use std::path::PathBuf;
use std::sync::Arc;

use tokio::sync::{Notify, watch};
use tokio_util::sync::CancellationToken;
use tracing::{info, warn};

use super::sync::{Report, sync};
use crate::memory::store::Store;

/// Asks the running daemon to reindex its knowledge folder. Cheap to clone.
#[derive(Debug, Clone)]
pub struct Reindex(Arc<Inner>);

#[derive(Debug)]
struct Inner {
    asked: Notify,
    /// How many reindexes have finished (run or failed), for whoever waits for one.
    done: watch::Sender<u64>,
}

impl Default for Reindex {
    fn default() -> Self {
        Reindex(Arc::new(Inner {
            asked: Notify::new(),
            done: watch::Sender::new(0),
        }))
    }
}

impl Reindex {
    /// Asks for a reindex; several asks before it starts make one.
    pub fn request(&self) {
        self.0.asked.notify_one();
    }

    /// Counts the reindexes that finished since start.
    pub fn finished(&self) -> watch::Receiver<u64> {
        self.0.done.subscribe()
    }
}

/// What the daemon's indexer knows.
#[derive(Debug, Clone)]
pub struct Watch {
    pub dir: PathBuf,
    /// Someone may get private passages (`private_to` or `[access] allow` lists nodes): if
    /// not, private files are indexed for nobody, and that is worth a warning.
    pub private_readers: bool,
}

/// Indexes `watch.dir` now and on every request, until `stop`.
pub async fn serve(store: Store, watch: Watch, reindex: Reindex, stop: CancellationToken) {
    let mut warned_private = false;
    loop {
        match sync(&store, &watch.dir).await {
            Ok(report) => log(&watch, &report),
            Err(e) => warn!(
                error = %e,
                "knowledge: not indexed; answers use the passages indexed before"
            ),
        }
        if !watch.private_readers && !warned_private {
            let private = store
                .knowledge_index()
                .await
                .map_or(0, |i| i.private_passages);
            if private > 0 {
                warned_private = true;
                warn!(
                    passages = private,
                    "knowledge: private documents are indexed but no node may get them: list \
                     nodes in [knowledge] private_to (or [access] allow)"
                );
            }
        }
        reindex.0.done.send_modify(|n| *n += 1);
        tokio::select! {
            _ = stop.cancelled() => return,
            () = reindex.0.asked.notified() => {}
        }
    }
}

fn log(watch: &Watch, r: &Report) {
    for (path, why) in &r.skipped {
        warn!(file = %path, "knowledge: skipped: {why}");
    }
    if r.truncated {
        warn!(
            limit = super::folder::MAX_FILES,
            "knowledge: the folder has more files than meshai looks at; the rest are left out"
        );
    }
    info!(
        folder = %watch.dir.display(),
        files = r.files,
        added = r.added,
        changed = r.changed,
        removed = r.removed,
        skipped = r.skipped.len(),
        passages = r.passages,
        ms = r.took.as_millis() as u64,
        "knowledge indexed"
    );
}
