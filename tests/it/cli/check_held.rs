//! `meshai check` while `meshai run` holds a TCP node (issue 18): the node serves one client,
//! so the check reads the daemon's status file instead of connecting, and only opens the node
//! when no daemon holds it — or when asked to with `--connect` while the daemon's state
//! cannot be read. The daemon runs in-process or as the binary; `meshai check` as the binary.
//! On the wall clock: the checks are child processes, which paused time cannot reach.

use std::net::SocketAddr;
use std::path::Path;
use std::process::Stdio;
use std::sync::Arc;
use std::time::Duration;

use meshai::radio::{ActivitySnapshot, DownReason, LinkState, Transport};
use meshai::status_file::publish::Snapshot;
use meshai::status_file::{self, DaemonStatus, LinkWord};

use super::{marked, stdout};
use crate::harness::{Daemon, SOON, config_text, sim_config, spawn_meshai};
use crate::support::fake_llm::FakeLlm;
use crate::support::sim_node::SimNode;

/// Longest a check may take: its radio check gives up after the 5 s handshake timeout plus
/// a margin, so this is only reached if it hangs.
const CHILD_WAIT: Duration = Duration::from_secs(60);

/// Runs `meshai check --config <config>` and `extra` flags; returns the exit and stdout.
async fn check(config: &Path, extra: &[&str]) -> (bool, String) {
    check_with(config, extra, &[]).await
}

/// [`check`] with these environment variables set for it.
async fn check_with(config: &Path, extra: &[&str], env: &[(&str, &Path)]) -> (bool, String) {
    let out = tokio::process::Command::new(env!("CARGO_BIN_EXE_meshai"))
        .arg("check")
        .arg("--config")
        .arg(config)
        .args(extra)
        .envs(env.iter().copied())
        .env_remove("RUST_LOG")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .output();
    let out = tokio::time::timeout(CHILD_WAIT, out)
        .await
        .expect("meshai check finishes")
        .unwrap();
    (out.status.success(), stdout(&out))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn check_during_run_reports_the_daemon_and_leaves_its_link_alone() {
    let sim = Arc::new(SimNode::start(sim_config()).await);
    let llm = FakeLlm::start_echo().await;
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("meshai.db");
    let text = config_text(&sim, &llm.base_url(), &db, "");
    let config = dir.path().join("config.toml");
    std::fs::write(&config, &text).unwrap();
    let daemon = Daemon::start_with_text(sim.clone(), llm, dir, &text).await;
    let status = status_file::path_for(&db);
    let written = ready(&db).await;
    assert_eq!(
        written.pid,
        std::process::id(),
        "the daemon runs in this process"
    );

    let (ok, out) = check(&config, &[]).await;
    assert!(ok, "every line passes: {out}");
    let addr = sim.addr();
    let (line, advice) = held_by_this_process(&out, addr);
    assert!(
        line.contains(" UTC: node !12345678 \"Sim Base\", last packet "),
        "{line}"
    );
    assert_eq!(advice, None);
    // The node was never opened: one client, one handshake, nobody kicked.
    assert_eq!(
        (sim.connections(), sim.handshakes(), sim.kicked()),
        (1, 1, 0)
    );
    assert!(sim.is_ready(), "the daemon's link is still up");
    daemon.ask(0x0a0b_0c0d, "still there?", SOON).await;

    // Stopped cleanly, the daemon takes its status file with it: the check opens the node.
    let (result, sim, _llm, _dir) = daemon.stop().await;
    result.unwrap();
    assert!(!status.exists(), "removed on a clean shutdown");
    let (ok, out) = check(&config, &[]).await;
    assert!(ok, "{out}");
    let (line, _) = marked(&out, "✓ radio ").expect("radio line");
    assert_eq!(
        line,
        format!(
            "✓ radio tcp {addr}: node !12345678 \"Sim Base\", firmware 2.7.26.sim, hop limit 3, 1 node in its node DB"
        )
    );
    assert_eq!(sim.connections(), 2);
}

/// A check with another config (another database) on the node the daemon holds still finds
/// the daemon: `check` looks at the status files `init` looks at, here the user's default
/// database's (`$XDG_STATE_HOME/meshai/meshai.db`), and leaves the node alone.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn check_with_another_database_still_finds_the_daemon_on_its_node() {
    let sim = Arc::new(SimNode::start(sim_config()).await);
    let llm = FakeLlm::start_echo().await;
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("state");
    std::fs::create_dir_all(state.join("meshai")).unwrap();
    let db = state.join("meshai").join("meshai.db");
    let other = dir.path().join("other.toml");
    let other_db = dir.path().join("other.db");
    std::fs::write(&other, config_text(&sim, &llm.base_url(), &other_db, "")).unwrap();
    let text = config_text(&sim, &llm.base_url(), &db, "");
    let daemon = Daemon::start_with_text(sim.clone(), llm, dir, &text).await;
    ready(&db).await;

    let (ok, out) = check_with(&other, &[], &[("XDG_STATE_HOME", &state)]).await;
    assert!(ok, "every line passes: {out}");
    held_by_this_process(&out, sim.addr());
    assert_eq!(
        (sim.connections(), sim.handshakes(), sim.kicked()),
        (1, 1, 0),
        "the node was not opened"
    );
    assert!(other_db.exists(), "the check's own database was checked");
    let (result, _sim, _llm, _dir) = daemon.stop().await;
    result.unwrap();
}

/// The ready status the daemon using `db` wrote, once it did.
async fn ready(db: &Path) -> DaemonStatus {
    let status = status_file::path_for(db);
    eventually(|| {
        status_file::read(&status)
            .ok()
            .flatten()
            .filter(|s| s.link == LinkWord::Ready)
    })
    .await
}

/// The radio line of a check's `out`, which must say that the daemon in this process holds
/// the node at `addr`; and its advice.
fn held_by_this_process(out: &str, addr: SocketAddr) -> (String, Option<String>) {
    let (line, advice) = marked(out, &format!("✓ radio tcp {addr}: ")).expect("radio line");
    let held = format!(
        "✓ radio tcp {addr}: held by the running meshai (pid {}), connected since ",
        std::process::id()
    );
    assert!(line.starts_with(&held), "{line}");
    (line, advice)
}

/// Waits until `f` gives something (checked every 20 ms: a file has no change signal here).
async fn eventually<T>(f: impl Fn() -> Option<T>) -> T {
    let deadline = tokio::time::Instant::now() + SOON;
    loop {
        if let Some(v) = f() {
            return v;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "nothing within {SOON:?}"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn check_does_not_open_a_tcp_node_when_the_daemons_state_cannot_be_read() {
    let sim = SimNode::start(sim_config()).await;
    let llm = FakeLlm::start_echo().await;
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("meshai.db");
    let config = dir.path().join("config.toml");
    std::fs::write(&config, config_text(&sim, &llm.base_url(), &db, "")).unwrap();
    // Something the check cannot read where the status file goes, as another user's state
    // folder would be (a folder: the tests may run as root, who reads anything).
    let status = status_file::path_for(&db);
    std::fs::create_dir(&status).unwrap();
    let mut daemon = spawn_meshai(&config, "warn", Stdio::null());
    let pid = daemon.id().expect("the daemon's pid");
    sim.wait_handshakes(1, SOON).await;

    let (ok, out) = check(&config, &[]).await;
    assert!(!ok, "the radio was not checked: {out}");
    let addr = sim.addr();
    let (line, advice) = marked(&out, &format!("✗ radio tcp {addr}: ")).expect("radio line");
    // Other meshai processes (other tests' children) may run too.
    let pid = pid.to_string();
    let pids = line
        .strip_prefix(&format!(
            "✗ radio tcp {addr}: not opened: meshai runs (pid "
        ))
        .and_then(|rest| rest.split_once(')'))
        .map(|(pids, _)| pids.split(", ").collect::<Vec<_>>())
        .unwrap_or_default();
    assert!(pids.contains(&pid.as_str()), "{line}");
    assert!(
        line.contains(&format!(
            "but its state is not readable here (cannot read {}",
            status.display()
        )),
        "{line}"
    );
    assert!(advice.unwrap().contains("--connect"));
    assert_eq!(
        (sim.connections(), sim.kicked()),
        (1, 0),
        "the node was not opened"
    );

    // Asked to: the check opens the node, which drops the daemon's link for it.
    let (ok, out) = check(&config, &["--connect"]).await;
    assert!(ok, "{out}");
    assert!(
        marked(&out, &format!("✓ radio tcp {addr}: node !12345678")).is_some(),
        "{out}"
    );
    assert!(sim.kicked() >= 1, "the daemon was kicked");
    daemon.start_kill().unwrap();
    let _ = daemon.wait().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn check_reports_a_daemon_that_yields_the_node_to_another_client() {
    // The status a yielding daemon writes, by a running process (this one), for a node
    // that nobody listens on: the check must not even try it.
    let llm = FakeLlm::start_echo().await;
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("meshai.db");
    let port = super::closed_port();
    let text = format!(
        "[radio]\ntcp = \"127.0.0.1:{port}\"\nhandshake_timeout_secs = 2\n\n[llm]\nbase_url = \
         \"{}\"\nmodel = \"fake-model\"\n\n[storage]\ndatabase = \"{}\"\n",
        llm.base_url(),
        db.display()
    );
    let config = dir.path().join("config.toml");
    std::fs::write(&config, text).unwrap();
    // What the daemon's publisher wrote at the third takeover, 70 s ago, which made it wait
    // 4 min, and again at its refresh 10 s ago.
    let now = meshai::clock::unix_now();
    let radio = Transport::tcp("127.0.0.1", port);
    let mut snapshot = Snapshot::new(
        std::process::id(),
        status_file::own_start_time(),
        now - 3600,
        &radio,
    );
    let taken = LinkState::Down {
        reason: DownReason::TakenOver,
        retry_in: Duration::from_secs(240),
    };
    let counters = ActivitySnapshot {
        last_frame: Some(now - 70),
        ready_since: None,
        takeovers: 3,
        last_takeover: Some(now - 70),
        mesh_nodes: 0,
    };
    snapshot.update(&taken, counters, now - 70);
    let yielding = snapshot.update(&taken, counters, now - 10).clone();
    assert!(yielding.yielding);
    let status = status_file::path_for(&db);
    std::fs::write(&status, serde_json::to_vec(&yielding).unwrap()).unwrap();

    let (ok, out) = check(&config, &[]).await;
    assert!(!ok, "{out}");
    let (line, advice) =
        marked(&out, &format!("✗ radio tcp 127.0.0.1:{port}: ")).expect("radio line");
    assert_eq!(
        line,
        format!(
            "✗ radio tcp 127.0.0.1:{port}: the running meshai (pid {}) is yielding the node \
             to another client (taken 3 times, last 1 min ago); it tries again in 2 min",
            std::process::id()
        )
    );
    let advice = advice.unwrap();
    assert!(
        advice.contains("serial link") && advice.contains("multi-client proxy"),
        "{advice}"
    );
    assert!(
        marked(&out, "✓ llm ").is_some(),
        "the other checks still run: {out}"
    );
}
