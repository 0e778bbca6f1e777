//! The watches set with `!watch` (`commands::watch`, kept in the store's `watches`), looked at
//! whenever the mesh view changes and once a minute: a condition that became true tells its
//! owner once, in the owner's language ("Watch: Hilltop Relay reports battery 12 % (< 20).");
//! not again until it has been false. What held is kept in the store, so a restart neither
//! tells again nor misses a change. Hidden nodes (`[mesh] hidden`) are never looked at.

use std::sync::Arc;

use tracing::{debug, info};

use super::{CourierCtx, tell};
use crate::lang::{Say, fill, say};
use crate::mesh::lens::Lens;
use crate::mesh::watch::{Condition, look};
use crate::radio::MeshView;

/// One look at every watch.
pub(super) async fn round(ctx: &Arc<CourierCtx>, view: &MeshView, now: i64) {
    let mesh = &ctx.mesh_config;
    if !mesh.enabled {
        return;
    }
    let watches = match ctx.store.watches().await {
        Ok(w) => w,
        Err(e) => {
            debug!(error = %e, "could not read the watches");
            return;
        }
    };
    let lens = Lens::new(mesh, view);
    for w in watches {
        let Some(condition) = Condition::parse(&w.condition) else {
            debug!(watch = w.id, condition = %w.condition, "a watch this build cannot read: skipped");
            continue;
        };
        let seen = lens.node(w.target);
        let node = seen.map(|s| s.node);
        let l = look(w.held, condition.holds(node, now, mesh.units));
        if l.held != w.held
            && let Err(e) = ctx.store.watch_held(w.id, l.held, now).await
        {
            debug!(watch = w.id, error = %e, "could not keep what a watch saw");
            // Telling without keeping it would tell again at the next look.
            continue;
        }
        let (true, Some(node)) = (l.tell, node) else {
            continue;
        };
        let text = match condition {
            Condition::Back => fill(say(w.lang, Say::WatchBack), &[("name", &w.target_name)]),
            Condition::Quiet(_) => fill(
                say(w.lang, Say::WatchQuiet),
                &[
                    ("name", &w.target_name),
                    ("word", &condition.seen(node, now, mesh.units)),
                ],
            ),
            Condition::Below(..) | Condition::Above(..) => fill(
                say(w.lang, Say::WatchReading),
                &[
                    ("name", &w.target_name),
                    ("word", &condition.seen(node, now, mesh.units)),
                ],
            ),
        };
        info!(owner = %w.owner, node = %w.target, watch = w.id, %condition, "a watch fired");
        tell(ctx, view, w.owner, &text).await;
    }
}
