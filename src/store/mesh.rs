//! The mesh view kept across restarts (`mesh_nodes`): what the radio heard of each node —
//! names, last heard, hops, SNR, position, device and environment readings, each with its
//! time — so that after a restart, and on firmware 2.8 whose handshake hands over thin node
//! infos, a node's last reading is still told with its age.
//!
//! Written in batches, never per packet: [`keep`] saves the view once a minute when it
//! changed, and once more at shutdown. Bounded: at most [`MAX_KEPT`] rows (the newest heard
//! stay), and a node last heard before the retention cutoff (`[storage] retain_days`) goes at
//! the next save and is never loaded. A row is one node's `NodeView` as JSON: a row a later
//! build cannot read is skipped, never an error. Only broadcasts are in the view (a DM never
//! is), so nothing anyone said is kept here.

use std::sync::Arc;
use std::time::Duration;

use rusqlite::{Connection, TransactionBehavior, params};
use tokio::sync::watch;
use tokio_util::sync::CancellationToken;
use tracing::{debug, warn};

use super::error::StoreError;
use super::handle::Store;
use super::retention::Retention;
use super::sql::{limit, node_sql};
use crate::node::NodeId;
use crate::radio::view::{MAX_NODES, MeshView, NodeView};

/// The most nodes kept: as many as the view holds.
pub(crate) const MAX_KEPT: usize = MAX_NODES;

/// How often a changed view is saved.
pub(crate) const EVERY: Duration = Duration::from_secs(60);

impl Store {
    /// Saves every node of `view`, then drops the rows last heard before `cutoff` and all but
    /// the [`MAX_KEPT`] newest; one transaction. Returns how many rows are kept.
    pub(crate) async fn save_mesh(
        &self,
        view: Arc<MeshView>,
        cutoff: Option<i64>,
    ) -> Result<usize, StoreError> {
        self.call(move |c| save(c, &view, cutoff)).await
    }

    /// The kept view: the nodes last heard at or after `cutoff`, the newest [`MAX_KEPT`].
    pub(crate) async fn load_mesh(&self, cutoff: Option<i64>) -> Result<MeshView, StoreError> {
        self.call(move |c| load(c, cutoff)).await
    }
}

fn save(c: &mut Connection, view: &MeshView, cutoff: Option<i64>) -> Result<usize, StoreError> {
    let tx = c.transaction_with_behavior(TransactionBehavior::Immediate)?;
    {
        let mut upsert = tx.prepare_cached(
            "INSERT INTO mesh_nodes(node, last_heard, view) VALUES (?1, ?2, ?3)
             ON CONFLICT(node) DO UPDATE SET
                 last_heard = excluded.last_heard, view = excluded.view",
        )?;
        for (num, node) in view.nodes() {
            let Ok(json) = serde_json::to_string(node) else {
                continue;
            };
            upsert.execute(params![node_sql(num), node.last_heard, json])?;
        }
    }
    if let Some(cutoff) = cutoff {
        tx.execute(
            "DELETE FROM mesh_nodes WHERE COALESCE(last_heard, 0) < ?1",
            [cutoff],
        )?;
    }
    tx.execute(
        "DELETE FROM mesh_nodes WHERE node NOT IN (
             SELECT node FROM mesh_nodes ORDER BY COALESCE(last_heard, 0) DESC, node LIMIT ?1)",
        [limit(MAX_KEPT)],
    )?;
    let kept: i64 = tx.query_row("SELECT COUNT(*) FROM mesh_nodes", [], |r| r.get(0))?;
    tx.commit()?;
    Ok(usize::try_from(kept).unwrap_or(0))
}

fn load(c: &Connection, cutoff: Option<i64>) -> Result<MeshView, StoreError> {
    let mut stmt = c.prepare(
        "SELECT node, view FROM (
             SELECT node, view, last_heard FROM mesh_nodes
             WHERE COALESCE(last_heard, 0) >= ?1
             ORDER BY COALESCE(last_heard, 0) DESC, node LIMIT ?2)
         ORDER BY COALESCE(last_heard, 0), node",
    )?;
    let rows = stmt.query_map(params![cutoff.unwrap_or(i64::MIN), limit(MAX_KEPT)], |r| {
        Ok((r.get::<_, i64>(0)?, r.get::<_, String>(1)?))
    })?;
    let mut view = MeshView::new();
    for row in rows {
        let (node, json) = row?;
        let Ok(num) = u32::try_from(node) else {
            continue;
        };
        match serde_json::from_str::<NodeView>(&json) {
            Ok(kept) => view.restore(NodeId(num), kept),
            Err(e) => debug!(node = %NodeId(num), error = %e, "a kept mesh node skipped"),
        }
    }
    Ok(view)
}

/// Saves the radio's `mesh` view every [`EVERY`] when it changed, and once more when
/// `shutdown` is cancelled (after the radio closed: its last view); `now` gives the unix
/// time for the retention cutoff. A failed save is logged and tried again at the next.
pub(crate) async fn keep(
    store: Store,
    mut mesh: watch::Receiver<Arc<MeshView>>,
    retention: Retention,
    now: impl Fn() -> i64 + Send,
    shutdown: CancellationToken,
) {
    let mut every = tokio::time::interval_at(tokio::time::Instant::now() + EVERY, EVERY);
    every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        let last = tokio::select! {
            _ = shutdown.cancelled() => true,
            _ = every.tick() => false,
        };
        // A closed radio's view is its last: still saved.
        if mesh.has_changed().unwrap_or(true) {
            let view = mesh.borrow_and_update().clone();
            match store.save_mesh(view, retention.cutoff(now())).await {
                Ok(kept) => debug!(kept, "mesh view saved"),
                Err(e) => warn!(error = %e, "the mesh view could not be saved; trying again later"),
            }
        }
        if last {
            return;
        }
    }
}
