//! Real-model benchmark: wall time per reply through the whole daemon against a real llama.cpp
//! server (SmolLM2-135M, started by `scripts/local-llm.sh`), with memory compaction (the default
//! `[memory]`: a window of 8 messages, summaries, retrieval) and without it (every earlier
//! message in every prompt, no summary: `window_messages = 200`, `retrieve_exchanges = 0`).
//! The two run alternately, twice each, in one process, so the ratio is taken on the same
//! machine state. A recording proxy keeps each request and llama-server's `timings` from each
//! response: prompt tokens taken from its KV cache or evaluated, and the milliseconds spent on
//! the prompt and on generation; summary calls are counted with their server time.
//!
//! Run: `eval "$(scripts/local-llm.sh start)" && cargo bench --bench real_llm`
//! (numbers in docs/benchmarks.md). Without `MESHAI_REAL_LLM_URL` it prints SKIPPED.

// A test, bench or example: its unwraps and panics are its assertions, and it prints.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
#![allow(clippy::print_stdout, clippy::print_stderr)]

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
use support::proxy::{Exchange, recording_proxy};
use support::sim_node::SimNode;

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

/// One reply: wall time through the daemon, and what the server says it spent.
struct Turn {
    /// DM injected → last part accepted by the simulated node.
    wall: Duration,
    parts: usize,
    request_bytes: usize,
    server: Timings,
}

/// llama-server's `timings` of one completion.
#[derive(Default, Clone, Copy)]
struct Timings {
    /// Prompt tokens taken from the KV cache (not evaluated again).
    cached: u64,
    /// Prompt tokens evaluated.
    evaluated: u64,
    prompt_ms: f64,
    generated: u64,
    generate_ms: f64,
}

fn timings(response: &str) -> Timings {
    let v: serde_json::Value = serde_json::from_str(response).unwrap_or_default();
    let t = &v["timings"];
    Timings {
        cached: t["cache_n"].as_u64().unwrap_or(0),
        evaluated: t["prompt_n"].as_u64().unwrap_or(0),
        prompt_ms: t["prompt_ms"].as_f64().unwrap_or(0.0),
        generated: t["predicted_n"].as_u64().unwrap_or(0),
        generate_ms: t["predicted_ms"].as_f64().unwrap_or(0.0),
    }
}

fn is_summary(e: &Exchange) -> bool {
    e.is_summary()
}

/// One conversation; returns its turns and the server time spent on summaries (count, ms).
/// `tag` makes the first message, and so every later prompt, differ from other runs: the
/// server keeps earlier prompts' KV state in RAM and would otherwise answer from it.
async fn conversation(url: &str, compaction: bool, tag: &str) -> (Vec<Turn>, usize, f64) {
    let (proxy_url, seen) = recording_proxy(url.to_string()).await;
    let sim = Arc::new(SimNode::start(sim_config()).await);
    let placeholder = FakeLlm::start_echo().await;
    let dir = tempfile::tempdir().expect("tempdir");
    let memory = if compaction {
        ""
    } else {
        "[memory]\nwindow_messages = 200\nretrieve_exchanges = 0\n"
    };
    // Temperature 0: the same prompt gets the same answer, so the two settings differ only
    // in what memory puts into the prompt.
    // Not streamed: this bench reads llama-server's `timings` from one JSON body per reply
    // (streaming is measured by `benches/streaming.rs`).
    let llm = "timeout_secs = 120\ntemperature = 0.0\nstream = false";
    let d = Daemon::start_with_llm_url(sim, placeholder, dir, memory, &proxy_url, llm).await;
    let mut turns = Vec::new();
    for (i, q) in QUESTIONS.iter().enumerate() {
        let q = if i == 0 {
            format!("{q} ({tag})")
        } else {
            q.to_string()
        };
        let q = q.as_str();
        let asked = Instant::now();
        let parts = d.ask(NODE, q, Duration::from_secs(300)).await.len();
        let wall = asked.elapsed();
        let exchange = seen
            .lock()
            .ok()
            .and_then(|l| {
                l.iter()
                    .rev()
                    .find(|e| e.request.contains(q) && !is_summary(e))
                    .cloned()
            })
            .unwrap_or_default();
        turns.push(Turn {
            wall,
            parts,
            request_bytes: exchange.request.len(),
            server: timings(&exchange.response),
        });
    }
    // Let a summary still running finish, so its cost is counted.
    tokio::time::sleep(Duration::from_secs(20)).await;
    let (summaries, summary_ms) = seen
        .lock()
        .map(|l| {
            let s: Vec<Timings> = l
                .iter()
                .filter(|e| is_summary(e))
                .map(|e| timings(&e.response))
                .collect();
            let ms = s
                .iter()
                .fold(0.0, |sum, t| sum + t.prompt_ms + t.generate_ms);
            (s.len(), ms)
        })
        .unwrap_or((0, 0.0));
    let (result, ..) = d.stop().await;
    result.expect("the daemon stopped cleanly");
    (turns, summaries, summary_ms)
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
        "real model at {url}: {} turns per conversation, one node, temperature 0",
        QUESTIONS.len()
    );
    // (mean wall ms, mean prompt ms, mean generate ms, summary ms) per run, per setting.
    let mut means = [Vec::new(), Vec::new()];
    for run in 1..=2 {
        for compaction in [true, false] {
            let tag = format!("run {run}, {}", if compaction { "a" } else { "b" });
            let (turns, summaries, summary_ms) = conversation(&url, compaction, &tag).await;
            let label = if compaction {
                "with compaction"
            } else {
                "without (full history)"
            };
            println!(
                "run {run}, {label}: {summaries} summary calls, {summary_ms:.0} ms of server time"
            );
            println!(
                "  turn  request_bytes  wall_ms  parts  prompt_tokens(cached+evaluated)  \
                 prompt_ms  generated  generate_ms"
            );
            for (i, t) in turns.iter().enumerate() {
                let s = t.server;
                println!(
                    "  {:>4}  {:>13}  {:>7.0}  {:>5}  {:>14} = {:>5} + {:>5}  {:>9.0}  {:>9}  {:>11.0}",
                    i + 1,
                    t.request_bytes,
                    ms(t.wall),
                    t.parts,
                    s.cached + s.evaluated,
                    s.cached,
                    s.evaluated,
                    s.prompt_ms,
                    s.generated,
                    s.generate_ms
                );
            }
            let wall = mean(turns.iter().map(|t| ms(t.wall)));
            let prompt = mean(turns.iter().map(|t| t.server.prompt_ms));
            let generate = mean(turns.iter().map(|t| t.server.generate_ms));
            println!(
                "  mean per reply: wall {wall:.0} ms = prompt {prompt:.0} ms + generation \
                 {generate:.0} ms + the rest"
            );
            means[usize::from(!compaction)].push((wall, prompt, generate, summary_ms));
        }
    }
    for (i, (with, without)) in means[0].iter().zip(&means[1]).enumerate() {
        println!(
            "run {}: without / with compaction: wall {:.2}, prompt eval {:.2}, generation {:.2}; \
             summaries cost {:.0} ms of server time ({:.0} ms per reply)",
            i + 1,
            without.0 / with.0,
            without.1 / with.1,
            without.2 / with.2,
            with.3,
            with.3 / QUESTIONS.len() as f64
        );
    }
}
