//! Daemon benchmark: runs the release `meshai` binary against the simulated node and the fake
//! LLM (both in this process, on 127.0.0.1) and prints
//! - startup to ready (spawn → `READY=1` on a NOTIFY_SOCKET),
//! - peak RSS idle and under a 20-node burst (VmHWM / VmRSS of the daemon process),
//! - daemon overhead per DM: DM in → LLM request out, LLM request → first packet out (p50/p95),
//! - DMs answered per minute at the 2 s pace (default `send_gap_ms`), with 1 s and 5 s ACKs,
//! - the binary's size.
//!
//! Run: `cargo build --release && cargo bench --bench daemon` (numbers in docs/benchmarks.md).

// A test, bench or example: its unwraps and panics are its assertions, and it prints.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
#![allow(clippy::print_stdout, clippy::print_stderr)]

#[path = "../tests/it/support/mod.rs"]
#[allow(unused_imports)]
mod support;

use std::os::unix::net::UnixDatagram;
use std::process::Stdio;
use std::time::{Duration, Instant};

use support::fake_llm::{FakeLlm, FakeResponse};
use support::release::{binary, status_kib};
use support::sim_node::{SimConfig, SimNode};

struct Running {
    child: tokio::process::Child,
    sim: SimNode,
    llm: FakeLlm,
    _dir: tempfile::TempDir,
    ready_after: Duration,
}

async fn start(send_gap_ms: u64, sim_cfg: SimConfig) -> Running {
    let sim = SimNode::start(sim_cfg).await;
    let llm = FakeLlm::start(|req| FakeResponse::Text(format!("ok {}", req.last_user()))).await;
    let dir = tempfile::tempdir().expect("tempdir");
    let config = dir.path().join("config.toml");
    let text = format!(
        "[radio]\ntcp = \"{}\"\nsend_gap_ms = {send_gap_ms}\n\n[llm]\nbase_url = \"{}\"\n\
         model = \"fake\"\n\n[storage]\ndatabase = \"{}\"\n\n[limits]\nnode_messages = 10000\n",
        sim.addr(),
        llm.base_url(),
        dir.path().join("bench.db").display()
    );
    std::fs::write(&config, text).expect("config");
    let sock_path = dir.path().join("notify.sock");
    let sock = UnixDatagram::bind(&sock_path).expect("notify socket");
    sock.set_read_timeout(Some(Duration::from_millis(20)))
        .expect("timeout");
    let t0 = Instant::now();
    let child = tokio::process::Command::new(binary())
        .args(["run", "--config"])
        .arg(&config)
        .env("NOTIFY_SOCKET", &sock_path)
        .env("RUST_LOG", "warn")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .expect("spawn the release binary (run `cargo build --release` first)");
    let mut buf = [0u8; 1024];
    let ready_after = loop {
        if let Ok(n) = sock.recv(&mut buf)
            && String::from_utf8_lossy(&buf[..n])
                .lines()
                .any(|l| l == "READY=1")
        {
            break t0.elapsed();
        }
        if t0.elapsed() > Duration::from_secs(30) {
            panic!("no READY=1 within 30 s (run the binary by hand with this config to see why)");
        }
        tokio::task::yield_now().await;
    };
    Running {
        child,
        sim,
        llm,
        _dir: dir,
        ready_after,
    }
}

/// CPU time (user + system) the process has used, in clock ticks (1/100 s on Linux).
fn cpu_ticks(pid: u32) -> u64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    // Fields after the ")" that ends the command name: utime is the 12th, stime the 13th.
    let rest = stat.rsplit_once(')').map_or("", |(_, r)| r);
    let f: Vec<&str> = rest.split_whitespace().collect();
    let num = |i: usize| f.get(i).and_then(|v| v.parse::<u64>().ok()).unwrap_or(0);
    num(11) + num(12)
}

fn pct(v: &mut [Duration], p: f64) -> Duration {
    v.sort();
    v.get(((v.len().max(1) - 1) as f64 * p).round() as usize)
        .copied()
        .unwrap_or_default()
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let size = std::fs::metadata(binary()).map(|m| m.len()).unwrap_or(0);
    println!(
        "binary: {} ({:.1} MiB, release, stripped)",
        binary().display(),
        size as f64 / 1048576.0
    );

    // Startup, idle RSS, overhead per DM: no pacing in the way (gap 1 ms, ACK after 1 ms).
    let fast = SimConfig {
        ack_delay: Duration::from_millis(1),
        min_text_gap: Duration::ZERO,
        ..SimConfig::default()
    };
    let mut startups = Vec::new();
    for _ in 0..5 {
        let mut r = start(1, fast.clone()).await;
        startups.push(r.ready_after);
        let _ = r.child.kill().await;
    }
    println!(
        "startup to ready (spawn → READY=1, TCP handshake with the sim): p50 {:?}, max {:?} over 5",
        pct(&mut startups, 0.5),
        pct(&mut startups, 1.0)
    );

    let mut r = start(1, fast.clone()).await;
    let pid = r.child.id().expect("pid");
    tokio::time::sleep(Duration::from_secs(2)).await;
    println!(
        "idle after ready: RSS {} KiB, peak {} KiB",
        status_kib(pid, "VmRSS:"),
        status_kib(pid, "VmHWM:")
    );
    let before = cpu_ticks(pid);
    tokio::time::sleep(Duration::from_secs(30)).await;
    println!(
        "CPU while idle: {} ticks (1/100 s) in 30 s = {:.2} % of one core",
        cpu_ticks(pid) - before,
        (cpu_ticks(pid) - before) as f64 / 30.0
    );
    let (mut inbound, mut outbound) = (Vec::new(), Vec::new());
    for i in 0..200u32 {
        let before = r.sim.texts().len();
        let reqs = r.llm.requests().len();
        let t0 = tokio::time::Instant::now();
        r.sim
            .inject_dm(0x0b00_0000 + i % 7, &format!("overhead probe {i}"), None);
        let texts = r.sim.wait_texts(before + 1, Duration::from_secs(10)).await;
        let req = r.llm.requests().get(reqs).map(|q| q.at).expect("request");
        inbound.push(req.duration_since(t0));
        outbound.push(texts[before].at.duration_since(req));
    }
    println!(
        "overhead per DM over 200 DMs (fake LLM answers at once; includes the loopback hops): \
         DM in → LLM request p50 {:?} p95 {:?}; LLM request → first packet p50 {:?} p95 {:?}",
        pct(&mut inbound, 0.5),
        pct(&mut inbound, 0.95),
        pct(&mut outbound, 0.5),
        pct(&mut outbound, 0.95)
    );
    for n in 0..20u32 {
        r.sim
            .inject_dm(0x0c00_0000 + n, &format!("burst from node {n}"), None);
    }
    let before = r.sim.texts().len();
    r.sim
        .wait_texts(before.max(200) + 20, Duration::from_secs(60))
        .await;
    println!(
        "after a 20-node burst: RSS {} KiB, peak {} KiB",
        status_kib(pid, "VmRSS:"),
        status_kib(pid, "VmHWM:")
    );
    let _ = r.child.kill().await;

    // Throughput at the real pace: 2 s gap, the firmware's 2 s rule, ACKs after 1 s and 5 s.
    for ack in [1u64, 5] {
        let paced = SimConfig {
            ack_delay: Duration::from_secs(ack),
            min_text_gap: Duration::from_secs(2),
            ..SimConfig::default()
        };
        let r = start(2000, paced).await;
        let t0 = tokio::time::Instant::now();
        for n in 0..20u32 {
            r.sim.inject_dm(0x0d00_0000 + n, &format!("q{n}"), None);
        }
        let texts = r.sim.wait_texts(20, Duration::from_secs(300)).await;
        let span = texts[19].at.duration_since(t0);
        println!(
            "20 single-packet answers at send_gap 2000 ms, ACK after {ack} s: {:?} → {:.1} DMs/min, \
             refusals {}",
            span,
            20.0 * 60.0 / span.as_secs_f64(),
            r.sim.rate_limit_refusals()
        );
    }
}
