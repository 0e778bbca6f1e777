//! Finding the node for `meshai init`: the serial devices and TCP ports to try, whether another
//! program holds them, and a short handshake that confirms a Meshtastic node answers.
//!
//! "In use" is decided before anything is written to a port, because a second client harms
//! the first: on TCP the node drops its current client for the new one, on serial two readers
//! steal each other's frames. A serial device is in use when a process has it open (read from
//! `/proc/*/fd`: every process's when run as root, only the user's own otherwise) or when a
//! UUCP lock file (`/run/lock/LCK..ttyUSB0`) names a live process; a holder that set the
//! port exclusive (TIOCEXCL, as meshai's own daemon does) also makes our open fail with
//! "busy". A TCP node on this machine is in use when a connection to its port is established
//! (`/proc/net/tcp`, `/proc/net/tcp6`); a node elsewhere cannot be asked, and is only tried
//! when named with `--tcp`. Any TCP node, here or elsewhere, is in use when a running meshai's
//! status file names it, or when a meshai process runs whose status file cannot be read here
//! (the service's state folder, as another user): it might be that node's client.
//!
//! A virtual node (a multi-client proxy such as MeshMonitor's, on 127.0.0.1:4404) serves many
//! clients, so it is never in use: connecting to it harms nobody.

use std::path::{Path, PathBuf};
use std::time::Duration;

use super::super::check::{Link, handshake};
use super::super::daemons::Daemons;
use super::super::format;
use crate::node::NodeId;
use crate::radio::transport::serial::BAUD;
use crate::radio::{LinkState, RadioConfig, Transport};

/// Where a node may be.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Candidate {
    /// A serial device path, preferably a stable `/dev/serial/by-id/` name.
    Serial(PathBuf),
    Tcp {
        host: String,
        port: u16,
    },
    /// A multi-client proxy's virtual node (MeshMonitor's on port 4404): one node's API
    /// shared by several clients.
    VirtualNode {
        host: String,
        port: u16,
    },
}

impl Candidate {
    pub(crate) fn transport(&self) -> Transport {
        match self {
            Candidate::Serial(path) => Transport::serial(path.display().to_string(), BAUD),
            Candidate::Tcp { host, port } | Candidate::VirtualNode { host, port } => {
                Transport::tcp(host.clone(), *port)
            }
        }
    }

    /// `serial /dev/...`, `tcp 127.0.0.1:4403` or `tcp 127.0.0.1:4404 (virtual node)`.
    pub(crate) fn describe(&self) -> String {
        match self {
            Candidate::VirtualNode { .. } => {
                format!("{} (virtual node)", self.transport())
            }
            _ => self.transport().to_string(),
        }
    }
}

/// What trying a candidate found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Probe {
    /// A Meshtastic node answered the handshake.
    Node(NodeFacts),
    /// Another program holds it; nothing was written to it.
    Busy(String),
    /// No node there (or none that answered).
    Failed(String),
}

impl Probe {
    /// What the probe found, in the words `init` prints and writes into the config's header.
    pub fn summary(&self) -> String {
        match self {
            Probe::Node(facts) => facts.summary.clone(),
            Probe::Busy(why) | Probe::Failed(why) => format!("not confirmed: {why}"),
        }
    }
}

/// What the handshake told about the node.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct NodeFacts {
    /// The node's number: the same node may answer in two places.
    pub(crate) num: NodeId,
    /// `!a1b2c3d4 "Long Name", firmware 2.7.26`.
    pub(crate) summary: String,
}

/// The serial devices to try under `dev` (`/dev`): the stable names in `serial/by-id/`, or
/// `ttyUSB*` and `ttyACM*` when that folder does not exist (no udev, or nothing plugged in).
pub(crate) fn serial_devices(dev: &Path) -> Vec<PathBuf> {
    let by_id = dev.join("serial").join("by-id");
    let mut found: Vec<PathBuf> = match std::fs::read_dir(&by_id) {
        Ok(entries) => entries.flatten().map(|e| e.path()).collect(),
        Err(_) => std::fs::read_dir(dev)
            .map(|entries| {
                entries
                    .flatten()
                    .map(|e| e.path())
                    .filter(|p| {
                        p.file_name()
                            .and_then(|n| n.to_str())
                            .is_some_and(|n| n.starts_with("ttyUSB") || n.starts_with("ttyACM"))
                    })
                    .collect()
            })
            .unwrap_or_default(),
    };
    found.sort();
    found
}

/// Who holds `device` open, as `pid 1234 (name)`, read from `proc` (`/proc`); the process
/// `me` is left out.
pub(crate) fn serial_holders(device: &Path, proc: &Path, me: u32) -> Vec<String> {
    let Ok(target) = std::fs::canonicalize(device) else {
        return Vec::new();
    };
    let mut holders = Vec::new();
    let Ok(procs) = std::fs::read_dir(proc) else {
        return holders;
    };
    for p in procs.flatten() {
        let Some(pid) = p.file_name().to_str().and_then(|n| n.parse::<u32>().ok()) else {
            continue;
        };
        if pid == me {
            continue;
        }
        // Unreadable for other users' processes unless root: those are not seen.
        let Ok(fds) = std::fs::read_dir(p.path().join("fd")) else {
            continue;
        };
        let holds = fds
            .flatten()
            .any(|fd| std::fs::read_link(fd.path()).is_ok_and(|l| l == target));
        if holds {
            let name = std::fs::read_to_string(p.path().join("comm")).unwrap_or_default();
            holders.push(format!("pid {pid} ({})", name.trim()));
        }
    }
    holders.sort();
    holders
}

/// The pid a UUCP lock file holds: ASCII digits, maybe padded (or a 4-byte binary pid from
/// old tools, which is not read).
pub(crate) fn lock_file_pid(content: &[u8]) -> Option<u32> {
    std::str::from_utf8(content).ok()?.trim().parse().ok()
}

/// The process a UUCP lock file for `device` names, when it is still running.
fn lock_holder(device: &Path, proc: &Path) -> Option<String> {
    let real = std::fs::canonicalize(device).ok()?;
    let name = real.file_name()?.to_str()?;
    ["/run/lock", "/var/lock"].iter().find_map(|dir| {
        let content = std::fs::read(Path::new(dir).join(format!("LCK..{name}"))).ok()?;
        let pid = lock_file_pid(&content)?;
        proc.join(pid.to_string())
            .exists()
            .then(|| format!("pid {pid} (lock file {dir}/LCK..{name})"))
    })
}

/// How many connections to local TCP `port` are established, from the text of
/// `/proc/net/tcp` or `/proc/net/tcp6`: rows whose local port is `port` in state `01`.
pub(crate) fn established_on(port: u16, table: &str) -> usize {
    table
        .lines()
        .skip(1)
        .filter(|row| {
            let cols: Vec<&str> = row.split_whitespace().collect();
            let local_port = cols
                .get(1)
                .and_then(|a| a.rsplit_once(':'))
                .and_then(|(_, p)| u16::from_str_radix(p, 16).ok());
            local_port == Some(port) && cols.get(3) == Some(&"01")
        })
        .count()
}

/// Whether the host is this machine (only then can `/proc/net` tell whether a client is on).
fn is_local(host: &str) -> bool {
    host == "localhost"
        || host
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback())
}

/// Why the candidate must not be touched, if something else uses it.
pub(crate) fn in_use(c: &Candidate, daemons: &Daemons) -> Option<String> {
    let proc = Path::new("/proc");
    if let Candidate::Tcp { .. } = c
        && let Some(why) = daemons.holding(&c.transport())
    {
        return Some(why);
    }
    match c {
        Candidate::Serial(path) => {
            let holders = serial_holders(path, proc, std::process::id());
            if !holders.is_empty() {
                return Some(format!("in use by {}", holders.join(", ")));
            }
            lock_holder(path, proc).map(|h| format!("in use by {h}"))
        }
        Candidate::Tcp { host, port } if is_local(host) => {
            let clients: usize = ["/proc/net/tcp", "/proc/net/tcp6"]
                .iter()
                .filter_map(|t| std::fs::read_to_string(t).ok())
                .map(|t| established_on(*port, &t))
                .sum();
            (clients > 0).then(|| {
                format!("in use: {clients} client(s) connected, and the node serves only one")
            })
        }
        Candidate::Tcp { .. } | Candidate::VirtualNode { .. } => None,
    }
}

/// Tries the candidate: refuses it when in use (by another program, or by one of `daemons`),
/// otherwise a handshake of at most `timeout`.
pub(crate) async fn probe(c: &Candidate, timeout: Duration, daemons: &Daemons) -> Probe {
    if let Some(why) = in_use(c, daemons) {
        return Probe::Busy(why);
    }
    let mut config = RadioConfig::new(c.transport());
    config.handshake_timeout = timeout;
    match handshake(&config).await {
        Link::Ready(local) => Probe::Node(NodeFacts {
            num: local.num,
            summary: format!(
                "node {} \"{}\", firmware {}",
                local.num,
                format::printable(&local.names.long_name),
                format::printable(&local.firmware_version)
            ),
        }),
        Link::Down(reason) => Probe::Failed(reason.to_string()),
        Link::Ended(why) => Probe::Failed(why.to_string()),
        Link::Stuck(LinkState::Handshaking) => Probe::Failed(format!(
            "connected, but no Meshtastic handshake within {} s",
            timeout.as_secs()
        )),
        Link::Stuck(_) => Probe::Failed("could not connect in time".into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn established_connections_from_proc_net_tcp() {
        // 127.0.0.1:4403 listening (0A), one client established (01) both ways, a
        // TIME_WAIT (06), and an unrelated port.
        let table = "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 0100007F:1133 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 1 1 0 100 0 0 10 0
   1: 0100007F:1133 0100007F:D2F0 01 00000000:00000000 00:00000000 00000000     0        0 2 1 0 20 4 30 10 -1
   2: 0100007F:D2F0 0100007F:1133 01 00000000:00000000 00:00000000 00000000     0        0 3 1 0 20 4 30 10 -1
   3: 0100007F:1133 0100007F:D2F2 06 00000000:00000000 00:00000000 00000000     0        0 0 3 0 0 0 0 0 0
   4: 0100007F:2BCB 0100007F:D2F4 01 00000000:00000000 00:00000000 00000000     0        0 4 1 0 20 4 30 10 -1
";
        assert_eq!(established_on(4403, table), 1);
        assert_eq!(established_on(11211, table), 1);
        assert_eq!(established_on(80, table), 0);
        assert_eq!(established_on(4403, ""), 0);
        let v6 =
            "  sl  local_address                         remote_address                        st
   0: 00000000000000000000000001000000:1133 00000000000000000000000001000000:D2F0 01 0";
        assert_eq!(established_on(4403, v6), 1);
    }

    #[test]
    fn a_tcp_node_a_running_meshai_may_hold() {
        use crate::status_file::publish::Snapshot;
        let tcp = |host: &str| Transport::tcp(host, 4403);
        let remote = Candidate::Tcp {
            host: "192.168.1.50".into(),
            port: 4403,
        };
        let virtual_node = Candidate::VirtualNode {
            host: "192.168.1.50".into(),
            port: 4403,
        };
        let running = Snapshot::new(4242, None, 0, &tcp("192.168.1.50"))
            .update(&LinkState::Connecting, Default::default(), 0)
            .clone();
        let holds = Daemons {
            running: vec![running],
            ..Daemons::default()
        };
        assert_eq!(
            in_use(&remote, &holds).as_deref(),
            Some("held by the running meshai (pid 4242)")
        );
        assert_eq!(holds.holding(&tcp("192.168.1.51")), None);
        assert_eq!(
            in_use(&virtual_node, &holds),
            None,
            "a virtual node serves many"
        );

        let unreadable = |others: Vec<u32>| Daemons {
            unknown: vec!["cannot read /var/lib/meshai/meshai.db.status: denied".into()],
            others,
            ..Daemons::default()
        };
        assert_eq!(
            in_use(&remote, &unreadable(vec![77])).as_deref(),
            Some(
                "a running meshai (pid 77) may use it: cannot read \
                 /var/lib/meshai/meshai.db.status: denied"
            )
        );
        assert_eq!(
            in_use(&remote, &unreadable(vec![])),
            None,
            "no meshai runs: the file is a stopped service's"
        );
        assert_eq!(in_use(&remote, &Daemons::default()), None);
    }

    #[test]
    fn lock_file_contents() {
        assert_eq!(lock_file_pid(b"      1234\n"), Some(1234));
        assert_eq!(lock_file_pid(b"1234"), Some(1234));
        assert_eq!(lock_file_pid(&[0xd2, 0x04, 0, 0]), None);
        assert_eq!(lock_file_pid(b""), None);
    }

    #[test]
    fn serial_devices_prefer_by_id_names() {
        let dev = tempfile::tempdir().unwrap();
        for n in ["ttyUSB0", "ttyACM1", "ttyS0", "null"] {
            std::fs::write(dev.path().join(n), "").unwrap();
        }
        let names = |v: Vec<PathBuf>| -> Vec<String> {
            v.iter()
                .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
                .collect()
        };
        assert_eq!(names(serial_devices(dev.path())), ["ttyACM1", "ttyUSB0"]);
        let by_id = dev.path().join("serial").join("by-id");
        std::fs::create_dir_all(&by_id).unwrap();
        assert!(
            serial_devices(dev.path()).is_empty(),
            "by-id exists: only its names count"
        );
        std::os::unix::fs::symlink(dev.path().join("ttyUSB0"), by_id.join("usb-CP2102-if00"))
            .unwrap();
        assert_eq!(names(serial_devices(dev.path())), ["usb-CP2102-if00"]);
    }

    #[test]
    fn a_held_file_has_a_holder() {
        let dir = tempfile::tempdir().unwrap();
        let device = dir.path().join("ttyFAKE");
        std::fs::write(&device, "").unwrap();
        let link = dir.path().join("by-id-name");
        std::os::unix::fs::symlink(&device, &link).unwrap();
        let proc = Path::new("/proc");
        assert!(serial_holders(&link, proc, 0).is_empty());
        let held = std::fs::File::open(&device).unwrap();
        let me = std::process::id();
        let holders = serial_holders(&link, proc, 0);
        assert!(
            holders
                .iter()
                .any(|h| h.starts_with(&format!("pid {me} ("))),
            "{holders:?}"
        );
        assert!(
            serial_holders(&link, proc, me).is_empty(),
            "the caller itself is left out"
        );
        drop(held);
    }
}
