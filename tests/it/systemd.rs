//! The binary under a fake systemd: `READY=1` once the radio is configured, `WATCHDOG=1` at
//! half the watchdog interval, and SIGTERM → `STOPPING=1`, a clean exit 0, a closed database.

use std::os::unix::net::UnixDatagram;
use std::process::Stdio;
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::harness::{SOON, config_text, sim_config};
use crate::support::fake_llm::FakeLlm;
use crate::support::sim_node::SimNode;

/// Reads datagrams until one contains `want` or `timeout` passes; returns all text seen.
fn wait_for(sock: &UnixDatagram, want: &str, timeout: Duration) -> (bool, String) {
    let deadline = Instant::now() + timeout;
    let mut seen = String::new();
    let mut buf = [0u8; 4096];
    while Instant::now() < deadline {
        if let Ok(n) = sock.recv(&mut buf) {
            let text = String::from_utf8_lossy(&buf[..n]);
            seen.push_str(&text);
            if text.lines().any(|l| l == want) {
                return (true, seen);
            }
        }
    }
    (false, seen)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn notify_ready_watchdog_and_sigterm_exit_zero() {
    let sim = Arc::new(SimNode::start(sim_config()).await);
    let llm = FakeLlm::start_echo().await;
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join("meshai.db");
    let config = dir.path().join("config.toml");
    std::fs::write(&config, config_text(&sim, &llm.base_url(), &db, "")).expect("config");
    let sock_path = dir.path().join("notify.sock");
    let sock = UnixDatagram::bind(&sock_path).expect("bind the notify socket");
    sock.set_read_timeout(Some(Duration::from_millis(100)))
        .expect("timeout");

    // systemd sets WATCHDOG_PID to the service's pid: `exec` keeps the shell's pid for meshai.
    let mut child = tokio::process::Command::new("sh")
        .arg("-c")
        .arg("WATCHDOG_PID=$$ exec \"$0\" run --config \"$1\"")
        .arg(env!("CARGO_BIN_EXE_meshai"))
        .arg(&config)
        .env("NOTIFY_SOCKET", &sock_path)
        .env("WATCHDOG_USEC", "400000")
        .env("RUST_LOG", "warn")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .expect("spawn meshai");

    let (ready, seen) = wait_for(&sock, "READY=1", SOON);
    assert!(ready, "READY=1 once the radio is configured; got {seen:?}");
    assert!(sim.handshakes() >= 1, "ready only after the handshake");
    assert!(
        seen.contains("STATUS=radio ready: !12345678 Sim Base"),
        "{seen:?}"
    );
    let (pinged, seen) = wait_for(&sock, "WATCHDOG=1", Duration::from_secs(5));
    assert!(pinged, "WATCHDOG=1 within the interval; got {seen:?}");
    let (again, _) = wait_for(&sock, "WATCHDOG=1", Duration::from_secs(2));
    assert!(again, "and again");

    // A DM is answered while running, then SIGTERM ends it cleanly.
    sim.inject_dm(0xabcd_0001, "still there?", None);
    sim.wait_texts(1, SOON).await;
    let pid = child.id().expect("pid");
    let killed = std::process::Command::new("kill")
        .args(["-TERM", &pid.to_string()])
        .status()
        .expect("kill");
    assert!(killed.success());
    let (stopping, _) = wait_for(&sock, "STOPPING=1", Duration::from_secs(10));
    assert!(stopping, "STOPPING=1 on SIGTERM");
    let status = tokio::time::timeout(SOON, child.wait())
        .await
        .expect("exits")
        .expect("wait");
    assert_eq!(status.code(), Some(0), "SIGTERM → exit 0");
    // Closed cleanly: the WAL was checkpointed away.
    assert!(
        !dir.path().join("meshai.db-wal").exists(),
        "database closed cleanly"
    );
}
