//! `meshai check`'s radio line when a daemon may hold the node: the running meshai's status
//! file is asked before the node is.
//!
//! A TCP node serves one client, so a check that opened it would take it from the daemon
//! (over serial the daemon's exclusive lock refuses the check instead). So: when a running
//! daemon's status file names the same node, its state is the answer and the node is not
//! opened. The status files looked at are `meshai init`'s (`cli::daemons`): beside this
//! config's database, the service's and the user's default one, so a check with another
//! config (another database) still finds the service. When no daemon holds the node, it is
//! opened as before. When a status file cannot be read (run as another user: the service's
//! state folder is 0750) while a meshai process runs, a TCP node is not opened unless
//! `--connect` says so.
//!
//! `cli::daemons` reads the files and `/proc`, `find` picks what they say about this node;
//! `plan` decides and words the line, without I/O.

use std::path::Path;

use super::{Options, Outcome};
use crate::cli::daemons::{self, Daemons};
use crate::cli::{advice, format};
use crate::config::Config;
use crate::config::locate::Env;
use crate::node::NodeId;
use crate::radio::Transport;
use crate::status_file::{DaemonStatus, LinkWord, publish::REFRESH};

/// What the status files say about who holds the node.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Found {
    /// No running daemon uses this node: no file, one left by a process that is gone, or a
    /// daemon configured for another node.
    Nobody,
    /// A running daemon holds it.
    Daemon(DaemonStatus),
    /// A file cannot be read; why.
    Unknown(String),
}

/// What the check does about the radio.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Plan {
    /// The line is known without touching the node.
    Report(Outcome),
    /// Open the node and handshake, as with no daemon.
    Open,
}

/// The radio line: the state of the daemon that holds the node, else a handshake of our own.
/// `env` finds the user's default database (`$XDG_STATE_HOME`, `$HOME`).
pub async fn radio(config: &Config, options: Options, env: Env<'_>) -> Outcome {
    let databases = daemons::databases(&config.database, env);
    let daemons = Daemons::read(&databases, Path::new("/proc"));
    let found = find(&daemons, &config.radio.transport);
    let what = format!("radio {}", config.radio.transport);
    let now = crate::clock::unix_now();
    match plan(
        found,
        &config.radio.transport,
        options,
        daemons.others(),
        &what,
        now,
    ) {
        Plan::Report(outcome) => outcome,
        Plan::Open => super::radio(config).await,
    }
}

/// What the running `daemons` say about the node `transport` names: the one that holds it,
/// else why a status file could not be read, else nobody.
pub(super) fn find(daemons: &Daemons, transport: &Transport) -> Found {
    match (daemons.holder(transport), daemons.unreadable()) {
        (Some(s), _) => Found::Daemon(s.clone()),
        (None, Some(why)) => Found::Unknown(why.to_string()),
        (None, None) => Found::Nobody,
    }
}

/// Decides, for what `find` found, the node's transport, the options and the meshai
/// processes `others` besides this one, whether to open the node; `what` starts the line,
/// `now` is Unix seconds.
pub(super) fn plan(
    found: Found,
    transport: &Transport,
    options: Options,
    others: &[u32],
    what: &str,
    now: i64,
) -> Plan {
    let tcp = transport.new_client_takes_over();
    match found {
        Found::Daemon(s) => Plan::Report(held(what, &s, now)),
        Found::Nobody => Plan::Open,
        // Serial: the daemon's exclusive lock refuses a second opener, nothing is harmed.
        Found::Unknown(_) if !tcp || options.connect || others.is_empty() => Plan::Open,
        Found::Unknown(why) => {
            let pids: Vec<String> = others.iter().map(u32::to_string).collect();
            Plan::Report(Outcome::failed(
                format!(
                    "{what}: not opened: meshai runs (pid {}) but its state is not readable \
                     here ({why}); a TCP node serves one client, opening it would take it from \
                     the daemon",
                    pids.join(", ")
                ),
                Some(
                    "run the check as the service's user (`sudo -u meshai meshai check`), or \
                     pass --connect to open the node anyway"
                        .into(),
                ),
            ))
        }
    }
}

/// The line for a node the running daemon `s` holds.
fn held(what: &str, s: &DaemonStatus, now: i64) -> Outcome {
    let daemon = format!("the running meshai (pid {})", s.pid);
    let age = now.saturating_sub(s.written);
    let stale = i64::try_from(3 * REFRESH.as_secs()).unwrap_or(i64::MAX);
    if age > stale {
        return Outcome::failed(
            format!(
                "{what}: held by {daemon}, but its status was last written {}",
                format::ago(now, s.written)
            ),
            Some("is it hung? its log says more: `journalctl -u meshai -e`".into()),
        );
    }
    let taken = takeovers(s, now);
    match s.link {
        LinkWord::Ready => {
            let since = s.connected_since.map_or(String::new(), |t| {
                format!(", connected since {}", format::utc_time(t))
            });
            let node = match (s.node, &s.name) {
                (Some(n), Some(name)) => {
                    format!(": node {} \"{}\"", NodeId(n), format::printable(name))
                }
                (Some(n), None) => format!(": node {}", NodeId(n)),
                _ => String::new(),
            };
            let last = s.last_packet.map_or(String::new(), |t| {
                format!(", last packet {}", format::ago(now, t))
            });
            let reconnects = match s.reconnects {
                0 => String::new(),
                1 => ", 1 reconnect".into(),
                n => format!(", {n} reconnects"),
            };
            let licensed = if s.licensed {
                ", licensed (ham) mode"
            } else {
                ""
            };
            let mesh = s.mesh_nodes.map_or(String::new(), |n| {
                format!(
                    ", {} in its mesh view",
                    crate::text::count(n, "node", "nodes")
                )
            });
            Outcome {
                ok: true,
                line: format!(
                    "{what}: held by {daemon}{since}{node}{licensed}{last}{reconnects}{mesh}{taken}"
                ),
                advice: s.licensed.then(advice::licensed),
            }
        }
        LinkWord::Down if s.yielding => Outcome::failed(
            format!(
                "{what}: {daemon} is yielding the node to another client (taken {}); it tries \
                 again {}",
                times(s, now),
                retry(s.retry_at, now)
            ),
            Some(advice::shared_node()),
        ),
        LinkWord::Down => Outcome::failed(
            format!(
                "{what}: {daemon} lost the node: {}; it tries again {}",
                s.down_reason
                    .as_deref()
                    .map_or("no reason given".into(), format::printable),
                retry(s.retry_at, now)
            ),
            Some("its log says more: `journalctl -u meshai -e`".into()),
        ),
        LinkWord::Connecting | LinkWord::Handshaking => Outcome::failed(
            format!("{what}: {daemon} is connecting to the node{taken}"),
            None,
        ),
        LinkWord::Closed => Outcome::failed(format!("{what}: {daemon} is shutting down"), None),
    }
}

/// `; another client took the node 3 times, last 5 min ago`, or nothing.
fn takeovers(s: &DaemonStatus, now: i64) -> String {
    match s.takeovers {
        0 => String::new(),
        _ => format!("; another client took the node {}", times(s, now)),
    }
}

/// `once, last 5 min ago`, `3 times, last 5 min ago`.
fn times(s: &DaemonStatus, now: i64) -> String {
    let last = s
        .last_takeover
        .map_or(String::new(), |t| format!(", last {}", format::ago(now, t)));
    match s.takeovers {
        1 => format!("once{last}"),
        n => format!("{n} times{last}"),
    }
}

/// `in 45 s`, `in 3 min`, `now`.
fn retry(at: Option<i64>, now: i64) -> String {
    match at.map(|t| t.saturating_sub(now)) {
        Some(secs @ 1..=119) => format!("in {secs} s"),
        Some(secs) if secs > 0 => format!("in {} min", secs / 60),
        _ => "now".into(),
    }
}

#[cfg(test)]
mod tests;
