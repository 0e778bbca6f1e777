//! The daemon's side of the index: the folder is indexed at start and again each time a
//! reindex is asked for ([`Reindex`]: `main.rs` asks on SIGHUP, which `systemctl reload
//! meshai` sends), one reindex at a time; requests that come while one runs make one more.
//! Each reindex logs one line of what it did and one per file it skipped; a failure is
//! logged and the index keeps serving what it had. With `[knowledge.embeddings]`, each
//! reindex then embeds the passages without a vector (`embed`), and tries again later
//! while the embedding server fails. After each reindex the indexer says whether the index
//! holds any passage ([`Indexed`]): until it does, turns are as without a folder.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::{Notify, watch};
use tokio_util::sync::CancellationToken;
use tracing::{info, warn};

use super::embed::Embedder;
use super::sync::{Report, sync};
use crate::store::Store;

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

/// Whether the knowledge index holds any passage, as the indexer last found it. While it
/// holds none (an empty folder, as `meshai init` makes it, or every file skipped) the turns
/// are exactly as without a folder: no hint in the system prompt, no search, no note. Cheap
/// to clone.
#[derive(Debug, Clone)]
pub struct Indexed(watch::Receiver<bool>);

impl Indexed {
    /// A watch starting at `holds`, and the sender the indexer keeps it up to date with.
    pub fn new(holds: bool) -> (watch::Sender<bool>, Indexed) {
        let (tx, rx) = watch::channel(holds);
        (tx, Indexed(rx))
    }

    /// A value that never changes (no indexer runs: `meshai chat`, or no folder).
    pub(crate) fn fixed(holds: bool) -> Indexed {
        Indexed::new(holds).1
    }

    /// Whether the index holds passages now.
    pub(crate) fn holds_passages(&self) -> bool {
        *self.0.borrow()
    }
}

/// What the daemon's indexer knows.
#[derive(Debug, Clone)]
pub(crate) struct Watch {
    pub(crate) dir: PathBuf,
    /// Someone may get private passages (`private_to` or `[access] allow` lists nodes): if
    /// not, private files are indexed for nobody, and that is worth a warning.
    pub(crate) private_readers: bool,
    /// `[knowledge.embeddings]`: each reindex then embeds the passages that have no vector.
    pub(crate) embedder: Option<Embedder>,
}

/// After a round of embedding failed (the server is down, or does not serve embeddings),
/// the next is tried this much later; a reindex asked meanwhile tries at once.
pub(crate) const EMBED_RETRY: Duration = Duration::from_secs(300);

/// Indexes `watch.dir` now and on every request, until `stop`; with an embedder, embeds
/// what the reindex added (again every [`EMBED_RETRY`] while that fails). A reindex counts as
/// finished ([`Reindex::finished`]) once its embedding has run too. `stop` ends it at once,
/// whatever it is doing: a walk or an embedding under way is given up (the next start
/// indexes again). After each reindex `indexed` says whether the index holds passages.
pub(crate) async fn serve(
    store: Store,
    watch: Watch,
    reindex: Reindex,
    indexed: watch::Sender<bool>,
    stop: CancellationToken,
) {
    let mut warned_private = false;
    let mut first = true;
    loop {
        let Some(mut embedded) = stop
            .run_until_cancelled(reindex_once(&store, &watch, &indexed, first, &stop))
            .await
        else {
            return;
        };
        if !watch.private_readers && !warned_private {
            let private = stop.run_until_cancelled(store.knowledge_index()).await;
            let private = match private {
                Some(index) => index.map_or(0, |i| i.private_passages),
                None => return,
            };
            if private > 0 {
                warned_private = true;
                warn!(
                    passages = private,
                    "knowledge: private documents are indexed but no node may get them: list \
                     nodes in [knowledge] private_to (or [access] allow)"
                );
            }
        }
        first = false;
        reindex.0.done.send_modify(|n| *n += 1);
        loop {
            tokio::select! {
                _ = stop.cancelled() => return,
                () = reindex.0.asked.notified() => break,
                () = tokio::time::sleep(EMBED_RETRY), if !embedded => {
                    if let Some(embedder) = &watch.embedder {
                        match stop.run_until_cancelled(embed(&store, embedder, &stop)).await {
                            Some(done) => embedded = done,
                            None => return,
                        }
                    }
                }
            }
        }
    }
}

/// One reindex, logged, what the index holds published (`first`: the daemon's first), then
/// its embedding; whether every passage has its vector now.
async fn reindex_once(
    store: &Store,
    watch: &Watch,
    indexed: &watch::Sender<bool>,
    first: bool,
    stop: &CancellationToken,
) -> bool {
    match sync(store, &watch.dir).await {
        Ok(report) => log(watch, &report),
        Err(e) => warn!(
            error = %e,
            "knowledge: not indexed; answers use the passages indexed before"
        ),
    }
    publish(store, indexed, first).await;
    match &watch.embedder {
        Some(embedder) => embed(store, embedder, stop).await,
        None => true,
    }
}

/// Tells the turns whether the index holds passages, and logs it when that changed (the
/// system prompt then gains or loses the notes hint: one rebuild of the server's cache), or
/// at the `first` reindex when it holds none. An index that cannot be read leaves the value
/// as it was.
async fn publish(store: &Store, indexed: &watch::Sender<bool>, first: bool) {
    let Ok(index) = store.knowledge_index().await else {
        return;
    };
    let holds = index.passages > 0;
    if indexed.send_replace(holds) != holds || (first && !holds) {
        if holds {
            info!(
                passages = index.passages,
                "knowledge: documents indexed; answers now use them"
            );
        } else {
            info!(
                "knowledge: no document indexed yet; answers are as without a folder until one is"
            );
        }
    }
}

/// One round of embedding, logged; whether every passage has its vector now.
async fn embed(store: &Store, embedder: &Embedder, stop: &CancellationToken) -> bool {
    let started = tokio::time::Instant::now();
    match embedder.catch_up(store, stop).await {
        Ok(done) => {
            if done.embedded + done.pruned > 0 {
                info!(
                    model = embedder.model(),
                    embedded = done.embedded,
                    pruned = done.pruned,
                    ms = started.elapsed().as_millis() as u64,
                    "knowledge embedded"
                );
            }
            true
        }
        Err(e) => {
            warn!(
                error = %e,
                model = embedder.model(),
                retry_secs = EMBED_RETRY.as_secs(),
                "knowledge: passages not all embedded; they are found by words meanwhile"
            );
            false
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
