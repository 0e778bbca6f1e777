//! Soak under faults (CI size): 300 DMs from 30 nodes while the link is dropped every ~50
//! packets, the node reboots once, and the fake LLM fails 10 % of the calls and stalls on some.
//! Every DM gets exactly one reply or one failure notice, none twice, in order per node, and
//! the process RSS stays flat. The bigger run is `cargo bench --bench soak`.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use crate::harness::Daemon;
use crate::support::fake_llm::{FakeRequest, FakeResponse};

const FIRST: u32 = 0x50a0_0000;

/// A stable 0..100 bucket of a message, so the same DM fails every retry of its call.
fn bucket(text: &str) -> u32 {
    text.bytes()
        .fold(7u32, |h, b| h.wrapping_mul(31).wrapping_add(u32::from(b)))
        % 100
}

/// 10 % of DMs fail (HTTP 500 on every try), 5 % stall 400 ms (then the fake answers with its
/// echo text), the rest answer at once.
pub fn faulty(req: &FakeRequest) -> FakeResponse {
    let q = req.last_user();
    match bucket(q) {
        0..10 => FakeResponse::Status(500, "{\"error\":\"overloaded\"}".into()),
        10..15 => FakeResponse::Stall(Duration::from_millis(400)),
        _ => FakeResponse::Text(format!("ok {q}")),
    }
}

fn rss_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmRSS:"))
                .and_then(|l| l.split_whitespace().nth(1)?.parse().ok())
        })
        .unwrap_or(0)
}

/// What a soak run saw.
#[derive(Debug)]
pub struct SoakReport {
    pub dms: usize,
    pub packets: usize,
    pub notices: usize,
    pub drops: u32,
    pub rebooted: bool,
    pub handshakes: usize,
    pub refusals: u32,
    pub rss_early_kib: u64,
    pub rss_end_kib: u64,
    pub seconds: f64,
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn soak_300_dms_30_nodes_with_link_drops_reboot_and_llm_faults() {
    let r = soak(30, 10).await;
    eprintln!(
        "soak: {} DMs, {} packets, {} notices, {} drops, reboot {}, {} handshakes, {} refusals, \
         RSS {} → {} KiB, {:.0} s",
        r.dms,
        r.packets,
        r.notices,
        r.drops,
        r.rebooted,
        r.handshakes,
        r.refusals,
        r.rss_early_kib,
        r.rss_end_kib,
        r.seconds
    );
    assert_eq!(r.packets, r.dms, "one packet per DM");
    assert!(r.notices > 0 && r.handshakes >= 5);
    assert!(r.drops >= 4, "the link was dropped {} times", r.drops);
    assert!(r.rebooted);
    assert!(
        r.rss_end_kib < r.rss_early_kib + 16 * 1024,
        "RSS flat: {} KiB early, {} KiB at the end",
        r.rss_early_kib,
        r.rss_end_kib
    );
}

/// Runs `nodes × per_node` DMs under faults and checks that every DM got exactly one answer or
/// one notice, in order, none twice (panics otherwise). Also run bigger by `benches/soak.rs`.
pub async fn soak(nodes: u32, per_node: u32) -> SoakReport {
    let started = std::time::Instant::now();
    let d = Daemon::start("").await;
    d.answer_with(faulty);
    let total = (nodes * per_node) as usize;

    // The fault injector: drop the link after every ~50 packets on the wire, reboot once.
    let stop = Arc::new(AtomicBool::new(false));
    let sim = d.sim.clone();
    let faults = {
        let stop = stop.clone();
        tokio::spawn(async move {
            let (mut drops, mut rebooted, mut next) = (0u32, false, 50usize);
            while !stop.load(Ordering::Relaxed) {
                let seen = sim.texts().len();
                if seen >= next {
                    if !rebooted && drops == 2 {
                        sim.send_rebooted();
                        rebooted = true;
                    } else {
                        sim.drop_connection();
                        drops += 1;
                    }
                    next = seen + 50;
                }
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
            (drops, rebooted)
        })
    };

    let mut rss_early = 0;
    for round in 0..per_node {
        for n in 0..nodes {
            d.sim.inject_dm(FIRST + n, &format!("n{n} m{round}"), None);
        }
        // Wait for every answer before the next round: like the firmware, the simulated node
        // keeps at most 32 packets for a client and drops the oldest beyond that, so a backlog
        // of two rounds during a link drop would lose DMs or ACKs (see docs/benchmarks.md).
        let answered = ((round + 1) * nodes) as usize;
        d.sim.wait_texts(answered, Duration::from_secs(120)).await;
        if round == per_node / 3 {
            rss_early = rss_kib();
        }
    }
    let texts = d.sim.wait_texts(total, Duration::from_secs(180)).await;
    // Nothing more may come: wait out an ACK timeout's worth of resends.
    tokio::time::sleep(Duration::from_secs(6)).await;
    stop.store(true, Ordering::Relaxed);
    let (drops, rebooted) = faults.await.expect("fault task");
    let texts_end = d.sim.texts();
    let rss_end = rss_kib();

    let mut per_node_texts: HashMap<u32, Vec<String>> = HashMap::new();
    for t in &texts_end {
        per_node_texts.entry(t.to).or_default().push(t.text.clone());
    }
    let mut notices = 0;
    for n in 0..nodes {
        let got = per_node_texts.remove(&(FIRST + n)).unwrap_or_default();
        assert_eq!(
            got.len(),
            per_node as usize,
            "node {n}: one packet per DM: {got:#?}"
        );
        for (round, text) in got.iter().enumerate() {
            let q = format!("n{n} m{round}");
            let want = match bucket(&q) {
                0..10 => {
                    notices += 1;
                    assert!(
                        text.starts_with("Sorry"),
                        "node {n} m{round}: notice, got {text:?}"
                    );
                    continue;
                }
                // A stalled answer is the fake's echo text.
                10..15 => format!("echo: {q}"),
                _ => format!("ok {q}"),
            };
            assert_eq!(text, &want, "node {n}: in order, exactly once");
        }
    }
    assert!(
        per_node_texts.is_empty(),
        "no packet to anyone else: {per_node_texts:?}"
    );
    assert_eq!(texts.len().max(texts_end.len()), total, "no duplicates");
    SoakReport {
        dms: total,
        packets: texts_end.len(),
        notices,
        drops,
        rebooted,
        handshakes: d.sim.handshakes(),
        refusals: d.sim.rate_limit_refusals(),
        rss_early_kib: rss_early,
        rss_end_kib: rss_end,
        seconds: started.elapsed().as_secs_f64(),
    }
}
