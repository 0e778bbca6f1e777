//! The daemon's side of the status file: a task that writes it on each link change and once
//! a minute, and removes it on a clean shutdown.
//!
//! [`Snapshot`] turns the link's state and counters into the file's content without I/O
//! (table-tested); [`Publisher`] only watches, writes and removes. A write that fails is
//! logged once as a warning (until one succeeds again) and never stops the daemon: the file
//! is for the operator's commands, not for answering DMs.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::watch;
use tokio::task::JoinHandle;
use tokio::time::MissedTickBehavior;
use tokio_util::sync::CancellationToken;

use super::{DaemonStatus, LinkWord};
use crate::clock;
use crate::radio::{ActivitySnapshot, DownReason, LinkActivity, LinkState, Transport};

/// How often the file is written while nothing changes, so `last_packet` stays fresh and a
/// reader can tell a hung daemon by an old `written`.
pub(crate) const REFRESH: Duration = Duration::from_secs(60);

/// The file's content as the link changes.
#[derive(Debug, Clone)]
pub struct Snapshot {
    status: DaemonStatus,
    /// The state the last update saw, so a refresh keeps the time a wait ends.
    last: Option<LinkState>,
}

impl Snapshot {
    /// Before the first link state: who writes, since when, for which node.
    pub fn new(pid: u32, pid_start: Option<u64>, started: i64, radio: &Transport) -> Self {
        Snapshot {
            status: DaemonStatus {
                pid,
                pid_start,
                started,
                written: started,
                radio: radio.target(),
                link: LinkWord::Connecting,
                node: None,
                name: None,
                connected_since: None,
                last_packet: None,
                reconnects: 0,
                down_reason: None,
                retry_at: None,
                yielding: false,
                takeovers: 0,
                last_takeover: None,
                licensed: false,
                mesh_nodes: None,
            },
            last: None,
        }
    }

    /// The content for `state` and the link's counters at `now` (Unix seconds).
    pub fn update(&mut self, state: &LinkState, act: ActivitySnapshot, now: i64) -> &DaemonStatus {
        let changed = self.last.as_ref() != Some(state);
        let s = &mut self.status;
        s.written = now;
        s.last_packet = act.last_frame;
        s.takeovers = act.takeovers;
        s.mesh_nodes = (act.mesh_nodes > 0).then_some(act.mesh_nodes);
        s.last_takeover = act.last_takeover;
        s.connected_since = None;
        s.yielding = false;
        if !matches!(state, LinkState::Down { .. }) {
            s.down_reason = None;
            s.retry_at = None;
        }
        s.link = match state {
            LinkState::Connecting => LinkWord::Connecting,
            LinkState::Handshaking => LinkWord::Handshaking,
            LinkState::Ready { generation, local } => {
                s.node = Some(local.num.0);
                s.name = Some(local.names.long_name.clone());
                s.licensed = local.licensed;
                s.reconnects = generation.saturating_sub(1);
                s.connected_since = Some(act.ready_since.unwrap_or(now));
                LinkWord::Ready
            }
            LinkState::Down { reason, retry_in } => {
                s.down_reason = Some(reason.to_string());
                s.yielding = *reason == DownReason::TakenOver;
                if changed || s.retry_at.is_none() {
                    let secs = i64::try_from(retry_in.as_secs()).unwrap_or(i64::MAX);
                    s.retry_at = Some(now.saturating_add(secs));
                }
                LinkWord::Down
            }
            LinkState::Closed => LinkWord::Closed,
        };
        self.last = Some(state.clone());
        &self.status
    }
}

/// The running writer.
#[derive(Debug)]
pub(crate) struct Publisher {
    path: PathBuf,
    cancel: CancellationToken,
    task: JoinHandle<()>,
}

/// Starts writing the status file at `path` for a daemon using `radio`, from the link's state
/// and counters.
pub(crate) fn spawn(
    path: PathBuf,
    radio: &Transport,
    link: watch::Receiver<LinkState>,
    activity: Arc<LinkActivity>,
) -> Publisher {
    let snapshot = Snapshot::new(
        std::process::id(),
        super::own_start_time(),
        clock::unix_now(),
        radio,
    );
    let cancel = CancellationToken::new();
    let task = tokio::spawn(run(path.clone(), snapshot, link, activity, cancel.clone()));
    Publisher { path, cancel, task }
}

impl Publisher {
    /// Stops writing and removes the file: the daemon no longer holds the node.
    pub(crate) async fn stop(self) {
        self.cancel.cancel();
        if let Err(e) = self.task.await {
            tracing::error!(error = %e, "status file task failed");
        }
        match tokio::fs::remove_file(&self.path).await {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => {
                tracing::warn!(path = %self.path.display(), error = %e, "cannot remove the status file")
            }
        }
    }
}

async fn run(
    path: PathBuf,
    mut snapshot: Snapshot,
    mut link: watch::Receiver<LinkState>,
    activity: Arc<LinkActivity>,
    cancel: CancellationToken,
) {
    let mut refresh = tokio::time::interval_at(tokio::time::Instant::now() + REFRESH, REFRESH);
    refresh.set_missed_tick_behavior(MissedTickBehavior::Delay);
    let mut failing = false;
    loop {
        let state = link.borrow_and_update().clone();
        let status = snapshot.update(&state, activity.snapshot(), clock::unix_now());
        match serde_json::to_vec_pretty(status) {
            Ok(bytes) => write(&path, bytes, &mut failing).await,
            Err(e) => tracing::error!(error = %e, "cannot encode the status file"),
        }
        tokio::select! {
            _ = cancel.cancelled() => break,
            changed = link.changed() => if changed.is_err() { break },
            _ = refresh.tick() => {}
        }
    }
}

/// Writes the file whole (a temporary file renamed over it) on a blocking thread; warns once
/// while writes fail.
async fn write(path: &Path, bytes: Vec<u8>, failing: &mut bool) {
    let target = path.to_path_buf();
    let result = tokio::task::spawn_blocking(move || write_whole(&target, &bytes))
        .await
        .unwrap_or_else(|e| Err(std::io::Error::other(e.to_string())));
    match result {
        Ok(()) => *failing = false,
        Err(e) if !*failing => {
            *failing = true;
            tracing::warn!(
                path = %path.display(),
                error = %e,
                "cannot write the status file; `meshai check` will not see this daemon"
            );
        }
        Err(e) => tracing::debug!(error = %e, "status file still not written"),
    }
}

/// A temporary file beside `path`, then renamed over it: a reader sees the old file or the
/// new one, never half of one.
pub(crate) fn write_whole(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(".tmp");
    let tmp = path.with_file_name(name);
    std::fs::write(&tmp, bytes)?;
    std::fs::rename(&tmp, path).inspect_err(|_| {
        let _ = std::fs::remove_file(&tmp);
    })
}
