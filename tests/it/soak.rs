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

const NODES: u32 = 30;
const PER_NODE: u32 = 10;
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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn soak_300_dms_30_nodes_with_link_drops_reboot_and_llm_faults() {
    let d = Daemon::start("").await;
    d.answer_with(faulty);
    let total = (NODES * PER_NODE) as usize;

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

    let mut rss_at_100 = 0;
    for round in 0..PER_NODE {
        for n in 0..NODES {
            d.sim.inject_dm(FIRST + n, &format!("n{n} m{round}"), None);
        }
        // Keep the injected backlog within what the sim queues for a reconnecting client.
        d.sim
            .wait_texts(
                ((round + 1) * NODES) as usize * 9 / 10,
                Duration::from_secs(120),
            )
            .await;
        if round == 3 {
            rss_at_100 = rss_kib();
        }
    }
    let texts = d.sim.wait_texts(total, Duration::from_secs(180)).await;
    // Nothing more may come: wait out an ACK timeout's worth of resends.
    tokio::time::sleep(Duration::from_secs(6)).await;
    stop.store(true, Ordering::Relaxed);
    let (drops, rebooted) = faults.await.expect("fault task");
    let texts_end = d.sim.texts();
    let rss_end = rss_kib();

    let mut per_node: HashMap<u32, Vec<String>> = HashMap::new();
    for t in &texts_end {
        per_node.entry(t.to).or_default().push(t.text.clone());
    }
    let mut notices = 0;
    for n in 0..NODES {
        let got = per_node.remove(&(FIRST + n)).unwrap_or_default();
        assert_eq!(
            got.len(),
            PER_NODE as usize,
            "node {n}: one packet per DM: {got:#?}"
        );
        for (round, text) in got.iter().enumerate() {
            let q = format!("n{n} m{round}");
            if bucket(&q) < 10 {
                assert!(
                    text.starts_with("Sorry"),
                    "node {n} m{round}: notice, got {text:?}"
                );
                notices += 1;
            } else if bucket(&q) < 15 {
                // A stalled answer is the fake's echo text.
                assert_eq!(
                    text,
                    &format!("echo: {q}"),
                    "node {n}: in order, exactly once"
                );
            } else {
                assert_eq!(text, &format!("ok {q}"), "node {n}: in order, exactly once");
            }
        }
    }
    assert!(
        per_node.is_empty(),
        "no packet to anyone else: {per_node:?}"
    );
    assert_eq!(texts.len().max(texts_end.len()), total, "no duplicates");
    assert!(drops >= 4, "the link was dropped {drops} times");
    assert!(rebooted);
    eprintln!(
        "soak: {total} DMs, {} packets, {notices} notices, {drops} link drops, reboot={rebooted}, \
         handshakes={}, refusals={}, RSS after 100 DMs {rss_at_100} KiB, at end {rss_end} KiB",
        texts_end.len(),
        d.sim.handshakes(),
        d.sim.rate_limit_refusals(),
    );
    assert!(
        rss_end < rss_at_100 + 16 * 1024,
        "RSS flat: {rss_at_100} KiB after 100 DMs, {rss_end} KiB at the end"
    );
}
