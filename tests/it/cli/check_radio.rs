//! `meshai check`'s radio line against the simulated node: the real binary runs as a child
//! process while the sim serves in this process, on a multi-thread runtime so that it keeps
//! serving while the test awaits the child.

use std::net::TcpListener;
use std::process::Stdio;
use std::time::Duration;

use super::mini_llm::{Answer, MiniLlm};
use super::{Setup, marked, stdout};
use crate::support::sim_node::{SimConfig, SimNode};

/// How long `meshai check` may take at most: its radio check gives up after the 2 s
/// handshake timeout plus a margin, so this is only reached if it hangs.
const CHILD_WAIT: Duration = Duration::from_secs(60);

/// Runs `meshai check` without blocking the runtime the sim runs on.
async fn check(setup: &Setup) -> (bool, String) {
    let mut cmd = tokio::process::Command::from(setup.command(&["check"]));
    cmd.stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    let out = tokio::time::timeout(CHILD_WAIT, cmd.output())
        .await
        .expect("meshai check finishes")
        .unwrap();
    (out.status.success(), stdout(&out))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn check_against_the_simulated_node_passes_every_line() {
    let sim = SimNode::start(SimConfig::default()).await;
    let llm = MiniLlm::start(|_| Answer::Text("pong".into()));
    let addr = sim.addr();
    let setup = Setup::with_radio(&llm.url, "meshai.db", &format!("tcp = \"{addr}\""));
    let (ok, out) = check(&setup).await;
    assert!(ok, "every check passes, exit 0: {out}");

    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 4, "config, database, llm, radio: {out}");
    assert!(lines.iter().all(|l| l.starts_with("✓ ")), "{out}");
    assert_eq!(
        lines[3],
        format!(
            "✓ radio tcp {addr}: node !12345678 \"Sim Base\", firmware 2.7.26.sim, hop limit 3, 1 node in its node DB"
        )
    );
    assert_eq!(sim.handshakes(), 1);
    // The check ends its session politely, so a serial node knows the client is gone.
    let goodbye = sim
        .wait_for(Duration::from_secs(5), |l| l.disconnects == 1)
        .await;
    assert!(
        goodbye,
        "no ToRadio.disconnect: {:?}",
        sim.log().disconnects
    );
    assert!(sim.texts().is_empty(), "the check sends no text");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn check_against_the_simulated_node_over_a_pty() {
    let (sim, pty) = SimNode::start_pty(SimConfig {
        // An escape sequence in the node's name must not reach the terminal.
        long_name: "Pty\u{1b}[2JNode".into(),
        hop_limit: 5,
        log_text: true,
        ..SimConfig::default()
    });
    let llm = MiniLlm::start(|_| Answer::Text("pong".into()));
    let setup = Setup::with_radio(&llm.url, "meshai.db", &format!("serial = \"{}\"", pty.path));
    let (ok, out) = check(&setup).await;
    assert!(ok, "{out}");
    let (line, advice) = marked(&out, "✓ radio ").expect("radio line");
    let want = format!("✓ radio serial {}: node !12345678 \"Pty", pty.path);
    assert!(line.starts_with(&want), "{line}");
    assert!(
        line.ends_with("Node\", firmware 2.7.26.sim, hop limit 5, 1 node in its node DB"),
        "{line}"
    );
    assert!(!line.chars().any(char::is_control), "{line:?}");
    assert_eq!(advice, None);
    assert_eq!(sim.handshakes(), 1);
    drop(pty.slave);
}

#[test]
fn check_reports_a_missing_serial_device_with_the_plugged_in_advice() {
    let llm = MiniLlm::start(|_| Answer::Text("pong".into()));
    let dir = tempfile::tempdir().unwrap();
    let device = dir.path().join("ttyUSB-gone");
    let radio = format!("serial = \"{}\"", device.display());
    let setup = Setup::with_radio(&llm.url, "meshai.db", &radio);
    let (ok, out) = setup.run(&["check"]);
    assert!(!ok, "a failed radio check gives a non-zero exit");
    assert!(marked(&out, "✓ llm ").is_some(), "{out}");
    let prefix = format!("✗ radio serial {}: ", device.display());
    let (line, advice) = marked(&out, &prefix).expect("radio line");
    assert!(line.contains(&device.display().to_string()), "{line}");
    assert_eq!(
        advice.as_deref(),
        Some("is the node plugged in? `ls /dev/ttyUSB* /dev/ttyACM*`")
    );
}

#[test]
fn check_reports_a_node_that_never_answers_the_handshake() {
    // The kernel accepts the connection into the backlog; nobody ever answers on it.
    let silent = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = silent.local_addr().unwrap();
    let llm = MiniLlm::start(|_| Answer::Text("pong".into()));
    let setup = Setup::with_radio(&llm.url, "meshai.db", &format!("tcp = \"{addr}\""));
    let (ok, out) = setup.run(&["check"]);
    assert!(!ok);
    let (line, advice) = marked(&out, &format!("✗ radio tcp {addr}: ")).expect("radio line");
    assert!(line.contains("handshake"), "{line}");
    assert!(advice.unwrap().contains("serial API"));
    drop(silent);
}
