//! The radio line through the daemon: what is opened, what is reported, in which words.

use super::*;

const NOW: i64 = 1_750_000_000;
const WHAT: &str = "radio tcp 127.0.0.1:4403";

fn tcp() -> Transport {
    Transport::tcp("127.0.0.1", 4403)
}

fn serial() -> Transport {
    Transport::serial("/dev/ttyUSB0", 115_200)
}

/// A daemon ready for ten minutes, its last packet 12 s ago, written 5 s ago.
fn daemon() -> DaemonStatus {
    DaemonStatus {
        pid: 4242,
        pid_start: Some(1),
        started: NOW - 3600,
        written: NOW - 5,
        radio: tcp().target(),
        link: LinkWord::Ready,
        node: Some(0x1234_5678),
        name: Some("Base\u{1b}[2J".into()),
        connected_since: Some(1_749_999_400),
        last_packet: Some(NOW - 12),
        reconnects: 2,
        down_reason: None,
        retry_at: None,
        yielding: false,
        takeovers: 0,
        last_takeover: None,
        licensed: false,
        mesh_nodes: None,
    }
}

fn report(found: Found, transport: &Transport, connect: bool, others: &[u32]) -> Plan {
    plan(found, transport, Options { connect }, others, WHAT, NOW)
}

fn line(p: Plan) -> (bool, String, Option<String>) {
    match p {
        Plan::Report(o) => (o.ok, o.line, o.advice),
        Plan::Open => panic!("expected a report, got Open"),
    }
}

#[test]
fn when_the_node_is_opened() {
    let unknown = || Found::Unknown("cannot read x: Permission denied".into());
    // (found, transport, --connect, other meshai pids) → opened?
    let cases = [
        (Found::Nobody, tcp(), false, vec![], true),
        (Found::Daemon(daemon()), tcp(), true, vec![4242], false),
        (Found::Daemon(daemon()), serial(), false, vec![4242], false),
        (unknown(), tcp(), false, vec![4242], false),
        (unknown(), tcp(), true, vec![4242], true),
        (unknown(), serial(), false, vec![4242], true),
        // Nothing named meshai runs: nobody can hold it.
        (unknown(), tcp(), false, vec![], true),
    ];
    for (found, transport, connect, others, opened) in cases {
        let what = format!("{found:?} {transport:?} connect={connect} {others:?}");
        let got = report(found, &transport, connect, &others);
        assert_eq!(got == Plan::Open, opened, "{what}: {got:?}");
    }
}

#[test]
fn an_unreadable_state_says_so_and_how_to_go_on() {
    let (ok, l, advice) = line(report(
        Found::Unknown("cannot read /var/lib/meshai/meshai.db.status: Permission denied".into()),
        &tcp(),
        false,
        &[4242, 4343],
    ));
    assert!(!ok);
    assert_eq!(
        l,
        "radio tcp 127.0.0.1:4403: not opened: meshai runs (pid 4242, 4343) but its state is \
         not readable here (cannot read /var/lib/meshai/meshai.db.status: Permission denied); \
         a TCP node serves one client, opening it would take it from the daemon"
    );
    let advice = advice.unwrap();
    assert!(advice.contains("sudo -u meshai meshai check"), "{advice}");
    assert!(advice.contains("--connect"), "{advice}");
}

/// A change to the ready daemon, and the line and advice (a part of it) it gives.
type Case = (
    &'static str,
    fn(&mut DaemonStatus),
    bool,
    &'static str,
    Option<&'static str>,
);

#[test]
fn the_daemons_state_in_words() {
    let cases: &[Case] = &[
        (
            "ready",
            |_| {},
            true,
            "radio tcp 127.0.0.1:4403: held by the running meshai (pid 4242), connected since \
             2025-06-15 14:56:40 UTC: node !12345678 \"Base [2J\", last packet 12 s ago, 2 \
             reconnects",
            None,
        ),
        (
            "ready, taken before",
            |s| {
                s.reconnects = 1;
                s.takeovers = 3;
                s.last_takeover = Some(NOW - 300);
                s.mesh_nodes = Some(14);
            },
            true,
            "radio tcp 127.0.0.1:4403: held by the running meshai (pid 4242), connected since \
             2025-06-15 14:56:40 UTC: node !12345678 \"Base [2J\", last packet 12 s ago, 1 \
             reconnect, 14 nodes in its mesh view; another client took the node 3 times, last \
             5 min ago",
            None,
        ),
        (
            "yielding",
            |s| {
                s.link = LinkWord::Down;
                s.yielding = true;
                s.down_reason = Some("node closed the connection again".into());
                s.retry_at = Some(NOW + 240);
                s.takeovers = 2;
                s.last_takeover = Some(NOW - 60);
            },
            false,
            "radio tcp 127.0.0.1:4403: the running meshai (pid 4242) is yielding the node to \
             another client (taken 2 times, last 1 min ago); it tries again in 4 min",
            Some("multi-client proxy"),
        ),
        (
            "down",
            |s| {
                s.link = LinkWord::Down;
                s.down_reason = Some("radio silent".into());
                s.retry_at = Some(NOW + 45);
            },
            false,
            "radio tcp 127.0.0.1:4403: the running meshai (pid 4242) lost the node: radio \
             silent; it tries again in 45 s",
            Some("journalctl -u meshai"),
        ),
        (
            "connecting",
            |s| s.link = LinkWord::Handshaking,
            false,
            "radio tcp 127.0.0.1:4403: the running meshai (pid 4242) is connecting to the node",
            None,
        ),
        (
            "closing",
            |s| s.link = LinkWord::Closed,
            false,
            "radio tcp 127.0.0.1:4403: the running meshai (pid 4242) is shutting down",
            None,
        ),
        (
            "hung",
            |s| s.written = NOW - 600,
            false,
            "radio tcp 127.0.0.1:4403: held by the running meshai (pid 4242), but its status \
             was last written 10 min ago",
            Some("is it hung?"),
        ),
    ];
    for (name, change, want_ok, want_line, want_advice) in cases {
        let mut s = daemon();
        change(&mut s);
        let (ok, l, advice) = line(report(Found::Daemon(s), &tcp(), false, &[]));
        assert_eq!((ok, l.as_str()), (*want_ok, *want_line), "{name}");
        match (advice, want_advice) {
            (None, None) => {}
            (Some(a), Some(w)) => assert!(a.contains(w), "{name}: {a:?} lacks {w:?}"),
            (a, w) => panic!("{name}: advice {a:?}, want {w:?}"),
        }
    }
}

#[test]
fn the_status_file_is_believed_only_for_a_running_writer_and_the_same_node() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("meshai.db");
    let path = crate::status_file::path_for(&db);
    let found = |t: &Transport| {
        find(
            &Daemons::read(std::slice::from_ref(&db), Path::new("/proc")),
            t,
        )
    };
    assert_eq!(found(&tcp()), Found::Nobody, "no file");

    let mut s = daemon();
    s.pid = std::process::id();
    s.pid_start = crate::status_file::own_start_time();
    let write = |s: &DaemonStatus| std::fs::write(&path, serde_json::to_vec(s).unwrap()).unwrap();
    write(&s);
    assert_eq!(found(&tcp()), Found::Daemon(s.clone()));
    assert_eq!(found(&serial()), Found::Nobody, "another node");
    s.pid_start = s.pid_start.map(|t| t + 1);
    write(&s);
    assert_eq!(found(&tcp()), Found::Nobody, "left by a crash");
    std::fs::write(&path, "not json").unwrap();
    assert!(matches!(found(&tcp()), Found::Unknown(_)));
}

#[test]
fn a_licensed_node_is_named_with_what_it_means() {
    let licensed = DaemonStatus {
        licensed: true,
        ..daemon()
    };
    let (ok, l, advice) = line(report(Found::Daemon(licensed), &tcp(), false, &[]));
    assert!(ok, "{l}");
    assert!(l.contains("licensed (ham) mode"), "{l}");
    let advice = advice.unwrap_or_default();
    assert!(advice.contains("no DM can be proven"), "{advice}");
    let (_, l, advice) = line(report(Found::Daemon(daemon()), &tcp(), false, &[]));
    assert!(!l.contains("licensed") && advice.is_none(), "{l}");
}
