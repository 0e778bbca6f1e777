//! The running daemon's status file: how its link to the node is, where `meshai check` and
//! `meshai init` can read it without touching the node.
//!
//! A node's TCP API serves one client, so a check that opened the node itself would take it
//! from the daemon. Instead the daemon writes this small JSON file beside its database
//! (`meshai.db` → `meshai.db.status`, in the state folder) on each link change and once a
//! minute, always whole (a temporary file renamed over the old one), and removes it on a clean
//! shutdown (`publish`). A reader trusts it only while the process that wrote it runs: the pid
//! and that process's start time from `/proc/<pid>/stat` must both match, so a file left by a
//! crash, or a pid used again by another program, is not mistaken for a running daemon.
//!
//! Nothing here decides what a reader does with it: `cli::check` reports it, `cli::init` keeps
//! off a node it names.

pub mod publish;
#[cfg(test)]
mod tests;

use std::io::{self, Read as _};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::radio::transport::Target;

/// What follows the database's file name.
pub(crate) const SUFFIX: &str = ".status";

/// A status file bigger than this is not ours.
const MAX_BYTES: u64 = 64 * 1024;

/// The comm name of a meshai process (`/proc/<pid>/comm`).
const COMM: &str = "meshai";

/// The status file of the daemon that uses `database`: beside it, named after it.
pub fn path_for(database: &Path) -> PathBuf {
    let mut name = database.file_name().unwrap_or_default().to_os_string();
    name.push(SUFFIX);
    database.with_file_name(name)
}

/// What the daemon says about itself and its link.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DaemonStatus {
    pub pid: u32,
    /// The process's start time in clock ticks after boot (`/proc/<pid>/stat`, field 22):
    /// with the pid it tells the writer from a later process that got the same pid. `None`
    /// where there is no `/proc`.
    #[serde(default)]
    pub(crate) pid_start: Option<u64>,
    /// When the daemon started, Unix seconds.
    pub(crate) started: i64,
    /// When this was written, Unix seconds.
    pub(crate) written: i64,
    /// The node it is configured for (`[radio] serial` or `tcp`).
    pub(crate) radio: Target,
    pub link: LinkWord,
    /// Our node's number and long name, from the last handshake.
    #[serde(default)]
    pub(crate) node: Option<u32>,
    #[serde(default)]
    pub(crate) name: Option<String>,
    /// When the current link became ready; `None` while it is not.
    #[serde(default)]
    pub(crate) connected_since: Option<i64>,
    /// The last frame from the node.
    #[serde(default)]
    pub(crate) last_packet: Option<i64>,
    /// Links made again after the first one.
    #[serde(default)]
    pub(crate) reconnects: u64,
    /// Why the link is down, as logged; `None` unless it is down.
    #[serde(default)]
    pub(crate) down_reason: Option<String>,
    /// When the link tries again, while it is down.
    #[serde(default)]
    pub(crate) retry_at: Option<i64>,
    /// The link is down because another client keeps taking the node, and waits long before
    /// taking it back.
    #[serde(default)]
    pub yielding: bool,
    /// How often another client took the node since the daemon started, and when last.
    #[serde(default)]
    pub(crate) takeovers: u64,
    #[serde(default)]
    pub(crate) last_takeover: Option<i64>,
    /// Our node is in licensed (ham) mode (from the last handshake): PKI is off.
    #[serde(default)]
    pub(crate) licensed: bool,
    /// How many nodes the daemon's mesh view holds; `None` before its first handshake (or
    /// from a daemon that does not say).
    #[serde(default)]
    pub(crate) mesh_nodes: Option<u64>,
}

/// The link's state as the file names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LinkWord {
    Connecting,
    Handshaking,
    Ready,
    Down,
    /// Shutting down.
    Closed,
}

/// Why a status file could not be read.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    /// Not ours to read (another user's state folder, 0750), or an I/O error.
    #[error("cannot read {}: {source}", path.display())]
    Unreadable {
        path: PathBuf,
        #[source]
        source: io::Error,
    },
    /// Not a status file this meshai understands.
    #[error("{} is not a status file this meshai understands: {error}", path.display())]
    Damaged { path: PathBuf, error: String },
}

/// Reads the status file at `path`; `Ok(None)` when there is none (no daemon, or it stopped
/// cleanly).
pub fn read(path: &Path) -> Result<Option<DaemonStatus>, ReadError> {
    let unreadable = |source| ReadError::Unreadable {
        path: path.to_path_buf(),
        source,
    };
    let file = match std::fs::File::open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(unreadable(e)),
    };
    let mut text = String::new();
    file.take(MAX_BYTES)
        .read_to_string(&mut text)
        .map_err(unreadable)?;
    serde_json::from_str(&text)
        .map(Some)
        .map_err(|e| ReadError::Damaged {
            path: path.to_path_buf(),
            error: e.to_string(),
        })
}

impl DaemonStatus {
    /// Whether the process that wrote this still runs, as `proc` (`/proc`) shows it: the same
    /// pid with the same start time; without a recorded start time, a process named meshai.
    pub(crate) fn is_running(&self, proc: &Path) -> bool {
        let Ok(stat) = std::fs::read_to_string(proc.join(self.pid.to_string()).join("stat")) else {
            return false;
        };
        match self.pid_start {
            Some(start) => start_time(&stat) == Some(start),
            None => comm(&stat) == Some(COMM),
        }
    }
}

/// The command name in the text of `/proc/<pid>/stat`: between the first `(` and the last
/// `)` (the name itself may hold either).
pub(crate) fn comm(stat: &str) -> Option<&str> {
    let open = stat.find('(')?;
    let close = stat.rfind(')')?;
    stat.get(open + 1..close)
}

/// The start time (field 22, clock ticks after boot) in the text of `/proc/<pid>/stat`.
pub(crate) fn start_time(stat: &str) -> Option<u64> {
    // Fields 3 and on follow the command name's closing parenthesis.
    let rest = stat.get(stat.rfind(')')? + 1..)?;
    rest.split_whitespace().nth(22 - 3)?.parse().ok()
}

/// This process's start time, for the file it writes.
pub fn own_start_time() -> Option<u64> {
    start_time(&std::fs::read_to_string("/proc/self/stat").ok()?)
}

/// The pids of the meshai processes `proc` (`/proc`) shows, except `me`: every user's,
/// unless `/proc` hides other users' processes.
pub(crate) fn meshai_processes(proc: &Path, me: u32) -> Vec<u32> {
    let Ok(entries) = std::fs::read_dir(proc) else {
        return Vec::new();
    };
    let mut pids: Vec<u32> = entries
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
        .filter(|&pid| pid != me)
        .filter(|pid| {
            std::fs::read_to_string(proc.join(pid.to_string()).join("stat"))
                .is_ok_and(|s| comm(&s) == Some(COMM))
        })
        .collect();
    pids.sort_unstable();
    pids
}
