//! The running meshai daemons a command must not take a TCP node from, and where to look for
//! them: the status files beside this config's database, the service's database and the
//! invoking user's default one, and the meshai processes that run.
//!
//! A TCP node serves one client, so a second client takes it from the first. `meshai check`
//! reports the daemon that holds its node instead of opening it (`check/held.rs`), and
//! `meshai init` never probes a TCP node one of them may hold (`init/node.rs`). Both look in
//! the same places, so a `--config` naming another database still finds the service.

use std::path::{Path, PathBuf};

use crate::config::locate::{Env, xdg_dir};
use crate::radio::Transport;
use crate::status_file::{self, DaemonStatus};

/// The database path of the service (and of root, who sets the service up).
pub(crate) const SERVICE_DATABASE: &str = "/var/lib/meshai/meshai.db";

/// A user's own database unless `--database` says: in the XDG state folder
/// (`~/.local/state/meshai/meshai.db`).
pub(crate) fn user_database(env: Env<'_>) -> Option<PathBuf> {
    xdg_dir(env, "XDG_STATE_HOME", ".local/state").map(|d| d.join("meshai").join("meshai.db"))
}

/// The databases whose daemons may hold a node: `own` (this config's), the service's and the
/// user's default one, each once.
pub(crate) fn databases(own: &Path, env: Env<'_>) -> Vec<PathBuf> {
    let mut all = vec![own.to_path_buf()];
    for db in [Some(PathBuf::from(SERVICE_DATABASE)), user_database(env)]
        .into_iter()
        .flatten()
    {
        if !all.contains(&db) {
            all.push(db);
        }
    }
    all
}

/// What the running meshai daemons say about the nodes they hold, from their status files.
#[derive(Debug, Clone, Default)]
pub(crate) struct Daemons {
    /// The running daemons' status.
    pub(super) running: Vec<DaemonStatus>,
    /// Why a status file could not be read, when one could not.
    pub(super) unknown: Vec<String>,
    /// The meshai processes besides this one.
    pub(super) others: Vec<u32>,
}

impl Daemons {
    /// Reads the status files of the daemons using `databases`; `proc` is `/proc`. A file
    /// is believed only while its writer runs (`DaemonStatus::is_running`).
    pub(crate) fn read(databases: &[PathBuf], proc: &Path) -> Daemons {
        let mut d = Daemons {
            others: status_file::meshai_processes(proc, std::process::id()),
            ..Daemons::default()
        };
        for db in databases {
            match status_file::read(&status_file::path_for(db)) {
                Ok(Some(s)) if s.is_running(proc) => d.running.push(s),
                Ok(_) => {}
                Err(e) => d.unknown.push(e.to_string()),
            }
        }
        d
    }

    /// The running daemon configured for the node `t` names, if one is.
    pub(crate) fn holder(&self, t: &Transport) -> Option<&DaemonStatus> {
        self.running.iter().find(|s| s.radio.is(t))
    }

    /// Why a status file could not be read, when one could not (the first such file).
    pub(crate) fn unreadable(&self) -> Option<&str> {
        self.unknown.first().map(String::as_str)
    }

    /// The meshai processes besides this one.
    pub(crate) fn others(&self) -> &[u32] {
        &self.others
    }

    /// Why TCP node `t` may be a running meshai's, if it may: a running daemon's status file
    /// names it, or a file cannot be read while a meshai process runs.
    pub(crate) fn holding(&self, t: &Transport) -> Option<String> {
        if let Some(s) = self.holder(t) {
            return Some(format!("held by the running meshai (pid {})", s.pid));
        }
        let why = self.unreadable().filter(|_| !self.others.is_empty())?;
        let pids: Vec<String> = self.others.iter().map(u32::to_string).collect();
        Some(format!(
            "a running meshai (pid {}) may use it: {why}",
            pids.join(", ")
        ))
    }
}

/// The effective uid from the text of `/proc/self/status` (`Uid: real effective saved fs`).
pub(crate) fn euid_from_status(status: &str) -> Option<u32> {
    status
        .lines()
        .find_map(|l| l.strip_prefix("Uid:"))?
        .split_whitespace()
        .nth(1)?
        .parse()
        .ok()
}

/// This process's effective uid, from `/proc/self/status`; `None` where that cannot be read.
pub(crate) fn my_euid() -> Option<u32> {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| euid_from_status(&s))
}

#[cfg(test)]
mod tests {
    use std::ffi::OsString;

    use super::*;
    use crate::radio::LinkState;
    use crate::status_file::publish::Snapshot;

    #[test]
    fn the_databases_looked_at() {
        let home = |name: &str| (name == "HOME").then(|| OsString::from("/home/pi"));
        let p = |s: &str| PathBuf::from(s);
        assert_eq!(
            databases(Path::new("/tmp/other.db"), &home),
            [
                p("/tmp/other.db"),
                p(SERVICE_DATABASE),
                p("/home/pi/.local/state/meshai/meshai.db"),
            ]
        );
        assert_eq!(
            databases(Path::new(SERVICE_DATABASE), &|_| None),
            [p(SERVICE_DATABASE)],
            "each once; no $HOME, no user database"
        );
    }

    /// `holding`'s words are tested with `init::node::in_use`, which says them.
    #[test]
    fn the_holder_is_the_running_daemon_of_that_node() {
        let tcp = |host: &str| Transport::tcp(host, 4403);
        let running = Snapshot::new(4242, None, 0, &tcp("192.168.1.50"))
            .update(&LinkState::Connecting, Default::default(), 0)
            .clone();
        let d = Daemons {
            running: vec![running.clone()],
            unknown: vec!["denied".into()],
            others: vec![77],
        };
        assert_eq!(d.holder(&tcp("192.168.1.50")), Some(&running));
        assert_eq!(d.holder(&tcp("192.168.1.51")), None, "another node");
        assert_eq!(d.unreadable(), Some("denied"));
        assert_eq!(d.others(), [77]);
        assert_eq!(Daemons::default().unreadable(), None);
    }
}
