//! The status file: its name, its reading, the liveness test, and the content the publisher
//! writes for each link state.

use std::sync::Arc;
use std::time::Duration;

use super::publish::{Snapshot, write_whole};
use super::*;
use crate::node::NodeId;
use crate::radio::{ActivitySnapshot, DownReason, LinkState, LocalNode, NodeNames, Transport};

fn tcp(host: &str, port: u16) -> Transport {
    Transport::tcp(host, port)
}

#[test]
fn the_file_sits_beside_the_database() {
    let cases = [
        (
            "/var/lib/meshai/meshai.db",
            "/var/lib/meshai/meshai.db.status",
        ),
        ("meshai.db", "meshai.db.status"),
        (
            "/home/pi/.local/state/meshai/test",
            "/home/pi/.local/state/meshai/test.status",
        ),
    ];
    for (db, want) in cases {
        assert_eq!(path_for(Path::new(db)), PathBuf::from(want), "{db}");
    }
}

#[test]
fn proc_stat_fields() {
    // A name with a space and a parenthesis, as `comm` may hold.
    let stat = "4242 (mesh ai)) S 1 4242 4242 0 -1 4194560 1000 0 0 0 10 5 0 0 20 0 3 0 \
                987654 123456789 2000 18446744073709551615";
    assert_eq!(comm(stat), Some("mesh ai)"));
    assert_eq!(start_time(stat), Some(987_654));
    assert_eq!(comm("1 (meshai) S 0"), Some("meshai"));
    assert_eq!(start_time("1 (meshai) S 0"), None);
    assert_eq!(start_time("garbage"), None);
    assert_eq!(comm("garbage"), None);
}

fn status(pid: u32, pid_start: Option<u64>) -> DaemonStatus {
    Snapshot::new(pid, pid_start, 1_700_000_000, &tcp("127.0.0.1", 4403))
        .update(
            &LinkState::Connecting,
            ActivitySnapshot::default(),
            1_700_000_000,
        )
        .clone()
}

#[test]
fn running_means_the_same_pid_and_start_time() {
    let proc = Path::new("/proc");
    let me = std::process::id();
    let start = own_start_time();
    assert!(start.is_some(), "this test needs /proc");
    assert!(status(me, start).is_running(proc));
    let other_start = start.map(|s| s + 1);
    assert!(!status(me, other_start).is_running(proc), "pid reused");
    assert!(!status(u32::MAX, start).is_running(proc), "no such pid");

    // Without a start time: a process named meshai.
    let fake = tempfile::tempdir().unwrap();
    for (pid, name) in [(10, "meshai"), (11, "bash"), (12, "meshai")] {
        let dir = fake.path().join(pid.to_string());
        std::fs::create_dir(&dir).unwrap();
        std::fs::write(dir.join("stat"), format!("{pid} ({name}) S 1 0 0")).unwrap();
    }
    std::fs::create_dir(fake.path().join("self")).unwrap();
    assert!(status(10, None).is_running(fake.path()));
    assert!(!status(11, None).is_running(fake.path()));
    assert_eq!(meshai_processes(fake.path(), 12), [10]);
    assert_eq!(meshai_processes(fake.path(), 0), [10, 12]);
}

#[test]
fn reading_a_file_that_is_missing_damaged_unreadable_or_good() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("meshai.db.status");
    assert!(matches!(read(&path), Ok(None)));
    std::fs::write(&path, "{\"pid\": 1").unwrap();
    assert!(matches!(read(&path), Err(ReadError::Damaged { .. })));
    // A folder where the file should be: opens, does not read.
    let folder = dir.path().join("folder.status");
    std::fs::create_dir(&folder).unwrap();
    assert!(matches!(read(&folder), Err(ReadError::Unreadable { .. })));

    let written = status(77, Some(5));
    write_whole(&path, &serde_json::to_vec(&written).unwrap()).unwrap();
    assert_eq!(read(&path).unwrap(), Some(written));
    let names: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names.len(), 2, "no temporary file left: {names:?}");

    // Fields a later meshai may add are ignored; ones an older one left out default.
    let text = r#"{"pid": 9, "started": 1, "written": 2, "radio": {"serial": {"path": "/dev/x"}},
                   "link": "ready", "future_field": [1, 2]}"#;
    std::fs::write(&path, text).unwrap();
    let s = read(&path).unwrap().unwrap();
    assert_eq!((s.pid, s.link, s.takeovers), (9, LinkWord::Ready, 0));
}

fn ready(generation: u64) -> LinkState {
    LinkState::Ready {
        generation,
        local: Arc::new(LocalNode {
            num: NodeId(0x1234_5678),
            names: NodeNames {
                long_name: "Base".into(),
                short_name: "BA".into(),
            },
            firmware_version: "2.7.26".into(),
            hop_limit: 3,
            channels: Vec::new(),
            known_nodes: 1,
            reboot_count: 0,
            licensed: false,
        }),
    }
}

fn down(reason: DownReason, secs: u64) -> LinkState {
    LinkState::Down {
        reason,
        retry_in: Duration::from_secs(secs),
    }
}

/// The fields that change with the link, for one update.
#[derive(Debug, PartialEq)]
struct Seen {
    link: LinkWord,
    node: Option<u32>,
    connected_since: Option<i64>,
    reconnects: u64,
    down_reason: Option<String>,
    retry_at: Option<i64>,
    yielding: bool,
}

#[test]
fn the_content_follows_the_link() {
    let t0 = 1_700_000_000;
    let mut snap = Snapshot::new(1, None, t0, &tcp("127.0.0.1", 4403));
    let act = |ready_since: Option<i64>| ActivitySnapshot {
        last_frame: Some(t0 + 1),
        ready_since,
        takeovers: 0,
        last_takeover: None,
        mesh_nodes: 0,
    };
    let node = Some(0x1234_5678);
    // (state, counters, now) → what the file says.
    let cases = [
        (
            LinkState::Connecting,
            act(None),
            t0,
            Seen {
                link: LinkWord::Connecting,
                node: None,
                connected_since: None,
                reconnects: 0,
                down_reason: None,
                retry_at: None,
                yielding: false,
            },
        ),
        (
            ready(1),
            act(Some(t0 + 2)),
            t0 + 3,
            Seen {
                link: LinkWord::Ready,
                node,
                connected_since: Some(t0 + 2),
                reconnects: 0,
                down_reason: None,
                retry_at: None,
                yielding: false,
            },
        ),
        (
            down(DownReason::ClosedByNode, 1),
            act(None),
            t0 + 10,
            Seen {
                link: LinkWord::Down,
                node,
                connected_since: None,
                reconnects: 0,
                down_reason: Some("node closed the connection".into()),
                retry_at: Some(t0 + 11),
                yielding: false,
            },
        ),
        (
            down(DownReason::TakenOver, 60),
            act(None),
            t0 + 20,
            Seen {
                link: LinkWord::Down,
                node,
                connected_since: None,
                reconnects: 0,
                down_reason: Some(
                    "node closed the connection again: another client keeps taking its API".into(),
                ),
                retry_at: Some(t0 + 80),
                yielding: true,
            },
        ),
        // The minute's refresh during the same wait keeps its end.
        (
            down(DownReason::TakenOver, 60),
            act(None),
            t0 + 50,
            Seen {
                link: LinkWord::Down,
                node,
                connected_since: None,
                reconnects: 0,
                down_reason: Some(
                    "node closed the connection again: another client keeps taking its API".into(),
                ),
                retry_at: Some(t0 + 80),
                yielding: true,
            },
        ),
        (
            ready(3),
            act(Some(t0 + 81)),
            t0 + 81,
            Seen {
                link: LinkWord::Ready,
                node,
                connected_since: Some(t0 + 81),
                reconnects: 2,
                down_reason: None,
                retry_at: None,
                yielding: false,
            },
        ),
        (
            LinkState::Closed,
            act(None),
            t0 + 90,
            Seen {
                link: LinkWord::Closed,
                node,
                connected_since: None,
                reconnects: 2,
                down_reason: None,
                retry_at: None,
                yielding: false,
            },
        ),
    ];
    for (state, counters, now, want) in cases {
        let s = snap.update(&state, counters, now);
        let got = Seen {
            link: s.link,
            node: s.node,
            connected_since: s.connected_since,
            reconnects: s.reconnects,
            down_reason: s.down_reason.clone(),
            retry_at: s.retry_at,
            yielding: s.yielding,
        };
        assert_eq!(got, want, "{state:?} at {now}");
        assert_eq!((s.written, s.last_packet), (now, Some(t0 + 1)));
    }
}
