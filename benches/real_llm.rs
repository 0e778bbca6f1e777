//! Real-model benchmark: wall time per reply through the whole daemon against a real llama.cpp
//! server (SmolLM2-135M, started by `scripts/local-llm.sh`), with memory compaction (the default
//! `[memory]`: a window of 8 messages, summaries, retrieval) and without it (every earlier
//! message in every prompt, no summary: `window_messages = 200`, `retrieve_exchanges = 0`).
//! The two run alternately, twice each, in one process, so the ratio is taken on the same
//! machine state. A recording proxy measures each request body (bytes of JSON) and counts the summary calls.
//!
//! Run: `eval "$(scripts/local-llm.sh start)" && cargo bench --bench real_llm`
//! (numbers in docs/benchmarks.md). Without `MESHAI_REAL_LLM_URL` it prints SKIPPED.

#[path = "../tests/it/harness.rs"]
#[allow(dead_code)]
mod harness;
#[path = "../tests/it/support/mod.rs"]
#[allow(unused_imports)]
mod support;

use std::sync::Arc;
use std::time::{Duration, Instant};

use harness::{Daemon, sim_config};
use support::fake_llm::FakeLlm;
use support::proxy::recording_proxy;
use support::sim_node::{SentText, SimNode};

const NODE: u32 = 0xbe0c_0001;

/// Twelve turns of a plausible conversation; the later ones lean on the earlier ones.
const QUESTIONS: [&str; 12] = [
    "Hi, I am Marta, callsign EA3MRT. I run a relay on Montseny.",
    "What is LoRa, in two sentences?",
    "How far can a LoRa radio reach from a mountain top?",
    "What antenna would you put on my relay?",
    "How much power does a RAK4631 node draw?",
    "Is a 10 W solar panel enough for it?",
    "Why does my message show only one hop?",
    "What channel preset suits a long valley?",
    "How do I keep the battery warm in winter?",
    "What should I check after a storm?",
    "Can you remind me of my callsign?",
    "Thanks! Any last tip for the relay?",
];

/// One reply's timing and the prompt that produced it.
struct Turn {
    first: Duration,
    last: Duration,
    parts: usize,
    request_bytes: usize,
}

/// Whether `texts` ends with a complete reply: an unmarked part, or the `n/n` part.
fn complete(texts: &[SentText]) -> bool {
    let Some(last) = texts.last() else {
        return false;
    };
    match last.text.rsplit_once(' ').map(|(_, m)| m.split_once('/')) {
        Some(Some((i, n))) if i.parse::<u32>().is_ok() && n.parse::<u32>().is_ok() => i == n,
        _ => true,
    }
}

async fn conversation(url: &str, compaction: bool) -> (Vec<Turn>, usize) {
    let (proxy_url, seen) = recording_proxy(url.to_string()).await;
    let sim = Arc::new(SimNode::start(sim_config()).await);
    let placeholder = FakeLlm::start_echo().await;
    let dir = tempfile::tempdir().expect("tempdir");
    let memory = if compaction {
        ""
    } else {
        "[memory]\nwindow_messages = 200\nretrieve_exchanges = 0\n"
    };
    let d = Daemon::start_with_llm_url(sim, placeholder, dir, memory, &proxy_url, 120).await;
    let mut turns = Vec::new();
    for q in QUESTIONS {
        let before = d.sim.texts().len();
        let asked = Instant::now();
        d.sim.inject_dm(NODE, q, None);
        d.sim.wait_texts(before + 1, Duration::from_secs(300)).await;
        let first = asked.elapsed();
        let done = d
            .sim
            .wait_for(Duration::from_secs(60), |l| {
                l.texts.len() > before && complete(&l.texts[before..])
            })
            .await;
        assert!(done, "the reply to {q:?} did not complete");
        let last = asked.elapsed();
        let parts = d.sim.texts().len() - before;
        let request_bytes = seen
            .lock()
            .map(|bodies| {
                bodies
                    .iter()
                    .rev()
                    .find(|b| b.contains(&q.replace('"', "\\\"")) && !is_summary_body(b))
                    .map_or(0, String::len)
            })
            .unwrap_or(0);
        turns.push(Turn {
            first,
            last,
            parts,
            request_bytes,
        });
    }
    let summaries = seen
        .lock()
        .map(|b| b.iter().filter(|b| is_summary_body(b)).count())
        .unwrap_or(0);
    let (result, ..) = d.stop().await;
    result.expect("the daemon stopped cleanly");
    (turns, summaries)
}

fn is_summary_body(body: &str) -> bool {
    body.contains("You maintain a running summary")
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

fn mean(xs: impl Iterator<Item = f64>) -> f64 {
    let v: Vec<f64> = xs.collect();
    v.iter().sum::<f64>() / v.len().max(1) as f64
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let Ok(url) = std::env::var("MESHAI_REAL_LLM_URL") else {
        println!(
            "SKIPPED real-model bench: MESHAI_REAL_LLM_URL is not set \
             (eval \"$(scripts/local-llm.sh start)\" first)"
        );
        return;
    };
    println!(
        "real model at {url}: {} turns per conversation, one node",
        QUESTIONS.len()
    );
    let mut means = [Vec::new(), Vec::new()];
    for run in 1..=2 {
        for compaction in [true, false] {
            let (turns, summaries) = conversation(&url, compaction).await;
            let label = if compaction {
                "with compaction"
            } else {
                "without (full history)"
            };
            println!("run {run}, {label}: {summaries} summary calls");
            println!("  turn  request_bytes  first_part_ms  last_part_ms  parts");
            for (i, t) in turns.iter().enumerate() {
                println!(
                    "  {:>4}  {:>13}  {:>13.0}  {:>12.0}  {:>5}",
                    i + 1,
                    t.request_bytes,
                    ms(t.first),
                    ms(t.last),
                    t.parts
                );
            }
            let late = &turns[turns.len() / 2..];
            let m_all = mean(turns.iter().map(|t| ms(t.last)));
            let m_late = mean(late.iter().map(|t| ms(t.last)));
            let p_late = mean(late.iter().map(|t| t.request_bytes as f64));
            println!(
                "  mean wall time per reply: {m_all:.0} ms (all turns), {m_late:.0} ms \
                 (turns {}-{}, mean request {p_late:.0} bytes)",
                turns.len() / 2 + 1,
                turns.len()
            );
            means[usize::from(!compaction)].push((m_all, m_late));
        }
    }
    for (i, ((with_all, with_late), (without_all, without_late))) in
        means[0].iter().zip(&means[1]).enumerate()
    {
        println!(
            "run {}: without / with compaction = {:.2} (all turns), {:.2} (second half)",
            i + 1,
            without_all / with_all,
            without_late / with_late
        );
    }
}
