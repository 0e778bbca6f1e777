//! Issue 39's stranger flood, measured: the release `meshai` binary against the simulated
//! node and the fake LLM (both in this process, on 127.0.0.1), the radio paced as shipped (2 s
//! between texts). A known user (exchanges on two days, seeded in the database) is idle; then
//! `MESHAI_BENCH_IDS` fresh ids (default 100,000) each send `!help` as fast as the simulated
//! node delivers them (commands skip admission: every id used to get a worker of its own, held
//! for 10 minutes). Prints the daemon's RSS idle (the baseline), at its peak and after the
//! flood, and the known user's `!status` DM → its answer on air, sent in the middle of it.
//!
//! Run: `cargo build --release && cargo bench --bench strangers` (numbers in
//! docs/benchmarks.md).

// A test, bench or example: its unwraps and panics are its assertions, and it prints.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
#![allow(clippy::print_stdout, clippy::print_stderr)]

#[path = "../tests/it/support/mod.rs"]
#[allow(unused_imports)]
mod support;

use std::process::Stdio;
use std::time::{Duration, Instant};

use meshai::node::NodeId;
use meshai::store::{Over, Store};
use support::fake_llm::{FakeLlm, FakeResponse};
use support::release::{binary, status_kib};
use support::sim_node::{SimConfig, SimNode};

const KNOWN: u32 = 0x4e0e_0002;
const FRESH_BASE: u32 = 0x2000_0000;

fn mib(kib: u64) -> f64 {
    kib as f64 / 1024.0
}

#[tokio::main]
async fn main() {
    let ids: u32 = std::env::var("MESHAI_BENCH_IDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(100_000);
    let sim = SimNode::start(SimConfig {
        ack_delay: Duration::from_millis(500),
        min_text_gap: Duration::from_secs(2),
        ..SimConfig::default()
    })
    .await;
    let llm = FakeLlm::start(|req| FakeResponse::Text(format!("ok {}", req.last_user()))).await;
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join("bench.db");
    let store = Store::open(&db).expect("the database opens");
    let now = meshai::clock::unix_now();
    for at in [now - 2 * 86_400, now - 86_400] {
        store
            .note_exchange(NodeId(KNOWN), Over::Channel, at, 12 * 3600)
            .await
            .expect("exchange");
    }
    store.close().await.expect("closes");
    let config = dir.path().join("config.toml");
    let text = format!(
        "[radio]\ntcp = \"{}\"\n\n[llm]\nbase_url = \"{}\"\nmodel = \"fake\"\n\n[storage]\n\
         database = \"{}\"\n",
        sim.addr(),
        llm.base_url(),
        db.display()
    );
    std::fs::write(&config, text).expect("config");
    let mut child = tokio::process::Command::new(binary())
        .args(["run", "--config"])
        .arg(&config)
        .env(
            "RUST_LOG",
            std::env::var("MESHAI_BENCH_LOG_LEVEL").unwrap_or_else(|_| "warn".into()),
        )
        .stdout(Stdio::null())
        // MESHAI_BENCH_LOG=FILE keeps the daemon's log.
        .stderr(match std::env::var_os("MESHAI_BENCH_LOG") {
            Some(path) => Stdio::from(std::fs::File::create(path).expect("the log file")),
            None => Stdio::null(),
        })
        .kill_on_drop(true)
        .spawn()
        .expect("spawn the release binary (run `cargo build --release` first)");
    let pid = child.id().expect("pid");
    let t0 = Instant::now();
    while !sim.is_ready() {
        assert!(
            t0.elapsed() < Duration::from_secs(30),
            "no handshake in 30 s"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    tokio::time::sleep(Duration::from_secs(3)).await;
    let idle = status_kib(pid, "VmRSS:");
    println!("{ids} fresh ids × `!help`; idle RSS {:.1} MiB", mib(idle));

    let flood = Instant::now();
    let mut asked = None;
    for i in 0..ids {
        sim.inject_dm(FRESH_BASE + i, "!help", None);
        // The node's queue to its client holds 32 packets (as the firmware's): let it drain.
        if i % 16 == 15 {
            tokio::time::sleep(Duration::from_millis(1)).await;
        }
        if i == ids / 2 {
            asked = Some((sim.texts().len(), Instant::now()));
            sim.inject_dm(KNOWN, "!status", None);
        }
    }
    let sent_in = flood.elapsed();
    let (before, at) = asked.expect("asked in the middle");
    let got = sim
        .wait_for(Duration::from_secs(300), |l| {
            l.texts[before..].iter().any(|t| t.to == KNOWN)
        })
        .await;
    let waited = got.then(|| {
        sim.texts()[before..]
            .iter()
            .find(|t| t.to == KNOWN)
            .map(|t| t.at.duration_since(at.into()))
    });
    let after_flood = status_kib(pid, "VmRSS:");
    // The fresh ids' workers retire when idle (30 s for a new id's).
    tokio::time::sleep(Duration::from_secs(45)).await;
    let settled = status_kib(pid, "VmRSS:");
    let peak = status_kib(pid, "VmHWM:");
    let served = {
        let texts = sim.texts();
        let mut to: Vec<u32> = texts
            .iter()
            .map(|t| t.to)
            .filter(|t| *t >= FRESH_BASE)
            .collect();
        to.sort_unstable();
        to.dedup();
        to.len()
    };
    println!(
        "flood sent in {sent_in:.1?}; RSS peak {:.1} MiB (+{:.1} over idle, ×{:.2}), when the \
         known user was answered {:.1} MiB, 45 s later {:.1} MiB",
        mib(peak),
        mib(peak.saturating_sub(idle)),
        peak as f64 / idle.max(1) as f64,
        mib(after_flood),
        mib(settled)
    );
    match waited.flatten() {
        Some(w) => println!("known user's !status, sent mid-flood → on air: {w:.1?}"),
        None => println!("known user's !status: NOT answered within 300 s"),
    }
    println!(
        "fresh ids answered by then: {served} (2 s per text on air); packets the node's full \
         queue dropped: {}",
        sim.to_client_dropped()
    );
    let _ = child.kill().await;
}
