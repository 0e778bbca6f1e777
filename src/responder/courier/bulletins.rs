//! Bulletins from the drop folder (`[bulletins] dir`): a text file any local script writes —
//! a weather poller, a SAME decoder, a club notice — is a topic (`weather.txt`: `weather`),
//! its text one bulletin. Looked at every [`POLL`]; a file whose size or time changed is read,
//! and a text that is news for its topic (not its last bulletin, within `per_day`:
//! `store::bulletins`; past the cap it is read again at each look until the day allows) goes
//! as a DM "[weather] …" to each subscriber (`!subscribe weather`),
//! sealed as its replies are. Broadcast only where the operator chose it for the topic
//! (`[bulletins] channel` and `broadcast`). While the airtime policy holds replies the
//! folder is not read: the bulletin goes when the channel calms down. A script should write a
//! file under a name starting with `.` or ending `.tmp` and rename it into place, so a
//! half-written file is never read.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use tracing::{debug, info, warn};

use super::{CourierCtx, tell};
use crate::config::topic_of;
use crate::radio::MeshView;
use crate::responder::reply::Destination;
use crate::store::News;
use crate::text::{cap, one_line};

/// How often the folder is looked at.
pub(super) const POLL: Duration = Duration::from_secs(5);
/// The most bytes of a file read; a longer one is cut.
const FILE_MAX: u64 = 4096;
/// The most characters of a bulletin (three packets).
pub(crate) const TEXT_MAX: usize = 400;
use crate::config::BULLETIN_FILES_MAX as FILES_MAX;

/// What was last seen of each file (its length and time), so an unchanged one is not read.
pub(super) type Seen = HashMap<PathBuf, (u64, Option<SystemTime>)>;

/// The files that changed since `seen` (which it updates), as (path, topic, text); a file gone
/// is forgotten. Blocking: runs on a blocking thread.
fn changed(dir: &Path, seen: &mut Seen) -> Vec<(PathBuf, String, String)> {
    let entries = match std::fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) => {
            debug!(dir = %dir.display(), error = %e, "cannot read the bulletins folder");
            return Vec::new();
        }
    };
    let mut now_there = Seen::new();
    let mut out = Vec::new();
    for e in entries.flatten().take(FILES_MAX) {
        let Some(topic) = topic_of(&e.file_name().to_string_lossy()) else {
            continue;
        };
        let Ok(meta) = e.metadata() else { continue };
        if !meta.is_file() {
            continue;
        }
        let stamp = (meta.len(), meta.modified().ok());
        let path = e.path();
        now_there.insert(path.clone(), stamp);
        if seen.get(&path) == Some(&stamp) {
            continue;
        }
        let bytes = match read_head(&path) {
            Ok(b) => b,
            Err(e) => {
                debug!(file = %path.display(), error = %e, "cannot read a bulletin");
                continue;
            }
        };
        let text = cap(&one_line(&String::from_utf8_lossy(&bytes)), TEXT_MAX);
        if !text.is_empty() {
            out.push((path, topic, text));
        }
    }
    *seen = now_there;
    out
}

fn read_head(path: &Path) -> std::io::Result<Vec<u8>> {
    use std::io::Read as _;
    let mut bytes = Vec::new();
    std::fs::File::open(path)?
        .take(FILE_MAX)
        .read_to_end(&mut bytes)?;
    Ok(bytes)
}

/// One look at the folder: each changed file that is news goes to its topic's subscribers.
pub(super) async fn round(ctx: &Arc<CourierCtx>, view: &MeshView, seen: &mut Seen, now: i64) {
    let cfg = &ctx.bulletins;
    let Some(dir) = cfg.dir.clone() else { return };
    let mut taken = std::mem::take(seen);
    let (found, taken) = match tokio::task::spawn_blocking(move || {
        let found = changed(&dir, &mut taken);
        (found, taken)
    })
    .await
    {
        Ok(r) => r,
        Err(e) => {
            warn!(error = %e, "the bulletins folder's reader failed");
            return;
        }
    };
    *seen = taken;
    for (path, topic, text) in found {
        let hash = crate::store::fnv1a(text.as_bytes());
        let news = ctx
            .store
            .bulletin_news(topic.clone(), hash, text.clone(), now, cfg.per_day)
            .await;
        match news {
            Ok(News::New) => {}
            Ok(News::Seen) => continue,
            Ok(News::OverCap) => {
                debug!(%topic, per_day = cfg.per_day, "bulletin held: its topic sent its daily cap");
                // Read again at the next look: it goes once the last 24 hours allow.
                seen.remove(&path);
                continue;
            }
            Err(e) => {
                warn!(%topic, error = %e, "could not keep a bulletin");
                continue;
            }
        }
        let subscribers = match ctx.store.subscribers(topic.clone()).await {
            Ok(s) => s,
            Err(e) => {
                warn!(%topic, error = %e, "could not read a topic's subscribers");
                continue;
            }
        };
        info!(%topic, subscribers = subscribers.len(), "bulletin sent to its subscribers");
        let message = format!("[{topic}] {text}");
        for s in subscribers {
            tell(ctx, view, s.node, &message).await;
        }
        if let Some(channel) = cfg.channel_for(&topic) {
            // The operator's choice: everyone on the channel, at our node's own hop limit
            // (what the firmware gives a packet it originates), after every DM's reply.
            info!(%topic, channel, "bulletin broadcast");
            ctx.out
                .send(Destination::channel(channel), None, &message, ctx.chunk)
                .await;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_is_read_again_only_when_it_changed() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("weather.txt");
        std::fs::write(&path, "Storm warning\nfor tonight").unwrap();
        std::fs::write(dir.path().join(".next.tmp"), "half").unwrap();
        let mut seen = Seen::new();
        assert_eq!(
            changed(dir.path(), &mut seen),
            [(
                path.clone(),
                "weather".to_string(),
                "Storm warning for tonight".to_string()
            )]
        );
        assert!(changed(dir.path(), &mut seen).is_empty(), "unchanged");
        std::fs::write(&path, "Storm warning lifted, a longer text").unwrap();
        assert_eq!(changed(dir.path(), &mut seen).len(), 1);
        std::fs::write(&path, "x".repeat(10_000)).unwrap();
        let long = changed(dir.path(), &mut seen);
        assert_eq!(long[0].2.chars().count(), TEXT_MAX);
    }
}
