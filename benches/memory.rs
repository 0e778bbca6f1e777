//! Memory benchmark: replays scripted conversations of 10/20/50/100 exchanges through the real
//! daemon (simulated node + fake LLM, default memory settings) and prints, at the last turn,
//! the prompt meshai sent next to the full history a naive bot would send, and how many summary
//! calls it made. A second run stalls every summary call for 3 s with back-to-back DMs: a
//! summary yields to a reply once, then finishes while at most one reply per fold waits for it.
//!
//! Run: `cargo bench --bench memory` (numbers recorded in docs/benchmarks.md).

// A test, bench or example: its unwraps and panics are its assertions, and it prints.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
#![allow(clippy::print_stdout, clippy::print_stderr)]

#[path = "../tests/it/support/mod.rs"]
#[allow(unused_imports)]
mod support;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use meshai::chunk::{ChunkLimits, chunk};
use meshai::memory::layout::estimate_tokens;
use support::fake_llm::{FakeLlm, FakeRequest, FakeResponse};
use support::sim_node::{SimConfig, SimNode};
use tokio_util::sync::CancellationToken;

const TOPICS: &[&str] = &[
    "the weather on Bald Hill tomorrow",
    "a good antenna for the 868 MHz band",
    "how long a 18650 battery lasts on a T-Beam",
    "the trail from the north lot to the fire tower",
    "setting up a solar panel for my relay node",
    "what firmware version my Heltec V3 should run",
    "how to tie a bowline knot",
    "first aid for a twisted ankle on the trail",
    "a quick camp recipe with lentils",
    "why my messages show only one hop",
    "the best channel preset for a valley",
    "how far LoRa reaches from a ridge",
];

/// The n-th scripted user message: varied phrasing and topics (each topic comes back every 12
/// turns, so retrieval has something real to find), with facts worth remembering early on.
fn user_message(i: usize) -> String {
    match i {
        0 => "Hi, I'm Marta, callsign EA3MRT, I run the relay on Montseny.".to_string(),
        1 => "My node is a RAK4631 with a 5 dBi antenna at 1200 m.".to_string(),
        _ => {
            let topic = TOPICS[i % TOPICS.len()];
            match i % 3 {
                0 => format!("Tell me about {topic}?"),
                1 => format!("Any tips on {topic}"),
                _ => format!("What do you know about {topic}, please"),
            }
        }
    }
}

/// A reply of realistic, varied length (150 to 560 characters, within the budget).
fn reply_for(req: &FakeRequest, phase: usize) -> String {
    const LENGTHS: [usize; 4] = [150, 280, 420, 560];
    let n = req.messages.len() + req.last_user().len() + phase;
    let target = LENGTHS[n % LENGTHS.len()] - 10;
    let words = req.last_user().split_whitespace().cycle();
    let mut out = String::from("Sure.");
    for w in words {
        if out.len() + w.len() + 1 > target {
            break;
        }
        out.push(' ');
        out.push_str(w.trim_matches(|c: char| !c.is_alphanumeric()));
    }
    out.push('.');
    out
}

fn is_summary(req: &FakeRequest) -> bool {
    req.messages
        .last()
        .is_some_and(|m| meshai::memory::summary::is_summary_text(&m.content))
}

/// A summariser that keeps fact-like words (as a careful model would), ≤ 300 characters.
fn summary_for(req: &FakeRequest) -> String {
    let mut facts: Vec<&str> = Vec::new();
    for w in req.last_user().split(|c: char| !c.is_alphanumeric()) {
        let fact = w.len() >= 3
            && (w.chars().any(|c| c.is_ascii_digit())
                || w.chars().next().is_some_and(char::is_uppercase))
            && !matches!(
                w,
                "User" | "Assistant" | "Running" | "New" | "Sure" | "Tell" | "Any" | "What"
            );
        if fact && !facts.contains(&w) {
            facts.push(w);
        }
    }
    let mut out = String::from("Marta's notes:");
    for f in facts {
        if out.len() + f.len() + 1 > 300 {
            break;
        }
        out.push(' ');
        out.push_str(f);
    }
    out
}

struct Run {
    exchanges: usize,
    prompt_chars: usize,
    /// The last prompt's parts: system prompt, memory (summary + retrieved), window + new message.
    breakdown: (usize, usize, usize),
    full_chars: usize,
    summary_calls: usize,
    reply_latencies: Vec<Duration>,
    summary_turn_latencies: Vec<Duration>,
}

async fn replay(exchanges: usize, summary_stall: Duration, phase: usize) -> Run {
    let sim = SimNode::start(SimConfig {
        ack_delay: Duration::from_millis(1),
        min_text_gap: Duration::from_millis(1),
        ..SimConfig::default()
    })
    .await;
    let stall = summary_stall;
    let llm = FakeLlm::start(move |req| {
        if is_summary(req) {
            if stall.is_zero() {
                FakeResponse::Text(summary_for(req))
            } else {
                FakeResponse::Stall(stall)
            }
        } else {
            FakeResponse::Text(reply_for(req, phase))
        }
    })
    .await;
    let dir = tempfile::tempdir().expect("tempdir");
    let text = format!(
        "[radio]\ntcp = \"{}\"\nsend_gap_ms = 2\nack_timeout_secs = 5\n\n[llm]\nbase_url = \"{}\"\n\
         model = \"fake\"\ntimeout_secs = 30\n\n[storage]\ndatabase = \"{}\"\n\n\
         [limits]\nnode_messages = 1000\n",
        sim.addr(),
        llm.base_url(),
        dir.path().join("bench.db").display()
    );
    let (config, _) = meshai::config::parse(&text, "bench.toml", &|_| None).expect("config");
    let limits = ChunkLimits {
        max_chars: 150,
        max_bytes: 200,
        max_chunks: 4,
    };
    let shutdown = CancellationToken::new();
    let daemon = tokio::spawn(meshai::run(config, shutdown.clone()));
    sim.wait_handshakes(1, Duration::from_secs(10)).await;

    let node = 0x4d41_5254;
    let mut history_chars = 0usize;
    let mut full_chars = 0usize;
    let mut prompt_chars = 0usize;
    let mut breakdown = (0, 0, 0);
    let mut reply_latencies = Vec::new();
    let mut summary_turn_latencies = Vec::new();
    let summaries_seen = Arc::new(AtomicUsize::new(0));
    for i in 0..exchanges {
        // People take a moment between messages; back-to-back DMs would make every reply
        // preempt the summary started after the previous one (see the latency run below).
        if summary_stall.is_zero() {
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        let msg = user_message(i);
        let before_texts = sim.texts().len();
        let before_reqs = llm.requests().iter().filter(|r| !is_summary(r)).count();
        let summaries_before = llm.requests().iter().filter(|r| is_summary(r)).count();
        let t0 = Instant::now();
        sim.inject_dm(node, &msg, None);
        // The reply request for this turn, then its first packet.
        while llm.requests().iter().filter(|r| !is_summary(r)).count() <= before_reqs {
            llm.wait_requests(before_reqs + 1, Duration::from_secs(30))
                .await;
        }
        let req = llm
            .requests()
            .into_iter()
            .filter(|r| !is_summary(r))
            .nth(before_reqs);
        let req = req.expect("reply request");
        sim.wait_texts(before_texts + 1, Duration::from_secs(30))
            .await;
        let latency = t0.elapsed();
        if summaries_before > summaries_seen.load(Ordering::Relaxed) {
            summary_turn_latencies.push(latency);
        } else {
            reply_latencies.push(latency);
        }
        summaries_seen.store(summaries_before, Ordering::Relaxed);
        let answer = reply_for(&req, phase);
        let parts = chunk(&answer, &limits).len();
        sim.wait_texts(before_texts + parts, Duration::from_secs(30))
            .await;
        // What a bot that sends everything would send this turn: system + all history + new.
        let system = req
            .messages
            .first()
            .map_or(0, |m| m.content.chars().count());
        full_chars = system + history_chars + msg.chars().count();
        prompt_chars = req.prompt_chars();
        let chars = |m: &support::fake_llm::FakeMessage| m.content.chars().count();
        let memory: usize = req
            .messages
            .iter()
            .skip(1)
            .filter(|m| m.role == "system")
            .map(chars)
            .sum();
        breakdown = (system, memory, prompt_chars - system - memory);
        history_chars += msg.chars().count() + answer.chars().count();
    }
    // Let a summary still running finish before counting.
    tokio::time::sleep(Duration::from_millis(200)).await;
    let summary_calls = llm.requests().iter().filter(|r| is_summary(r)).count();
    shutdown.cancel();
    let _ = daemon.await;
    Run {
        exchanges,
        prompt_chars,
        breakdown,
        full_chars,
        summary_calls,
        reply_latencies,
        summary_turn_latencies,
    }
}

fn pct(d: &mut [Duration], p: f64) -> Duration {
    d.sort();
    if d.is_empty() {
        return Duration::ZERO;
    }
    let i = ((d.len() as f64 - 1.0) * p).round() as usize;
    d[i.min(d.len() - 1)]
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    println!("# prompt size at the last turn vs the full history (default [memory] settings)");
    println!(
        "| exchanges | meshai prompt chars (≈tokens) | of which system / memory / window+new | full history chars (≈tokens) | cut | cut, 3 runs: mean (min) | summary calls | evicted msgs per summary call |"
    );
    println!("|---|---|---|---|---|---|---|---|");
    for n in [10, 20, 50, 100] {
        // Three runs whose answers cycle through the lengths from a different start: which
        // answers sit in the window at the last turn moves the figure by a few points.
        let mut cuts = Vec::new();
        let mut first = None;
        for phase in 0..3 {
            let r = replay(n, Duration::ZERO, phase).await;
            cuts.push(100.0 * (1.0 - r.prompt_chars as f64 / r.full_chars as f64));
            first.get_or_insert(r);
        }
        let Some(r) = first else { return };
        let cut = cuts[0];
        let mean = cuts.iter().sum::<f64>() / cuts.len() as f64;
        let min = cuts.iter().copied().fold(f64::MAX, f64::min);
        let evicted = (2 * r.exchanges).saturating_sub(4);
        let per_call = if r.summary_calls == 0 {
            "-".to_string()
        } else {
            format!("{:.1}", evicted as f64 / r.summary_calls as f64)
        };
        println!(
            "| {} | {} ({}) | {} / {} / {} | {} ({}) | {:.1} % | {:.1} % ({:.1} %) | {} | {} |",
            r.exchanges,
            r.prompt_chars,
            estimate_tokens(r.prompt_chars),
            r.breakdown.0,
            r.breakdown.1,
            r.breakdown.2,
            r.full_chars,
            estimate_tokens(r.full_chars),
            cut,
            mean,
            min,
            r.summary_calls,
            per_call
        );
    }
    println!();
    println!("# reply latency (DM in -> first packet out) while every summary call stalls 3 s");
    let mut r = replay(24, Duration::from_secs(3), 0).await;
    let normal = (
        pct(&mut r.reply_latencies, 0.5),
        pct(&mut r.reply_latencies, 1.0),
    );
    let during = (
        pct(&mut r.summary_turn_latencies, 0.5),
        pct(&mut r.summary_turn_latencies, 1.0),
    );
    println!(
        "turns without a summary start: n={} p50={:?} max={:?}",
        r.reply_latencies.len(),
        normal.0,
        normal.1
    );
    println!(
        "turns right after a summary started: n={} p50={:?} max={:?}",
        r.summary_turn_latencies.len(),
        during.0,
        during.1
    );
    let waited = r
        .reply_latencies
        .iter()
        .chain(&r.summary_turn_latencies)
        .filter(|d| **d >= Duration::from_millis(2500))
        .count();
    println!(
        "replies that waited for a summary (>= 2.5 s): {waited} of 24; summary calls: {} \
         (a yielded one is counted again when it reruns)",
        r.summary_calls
    );
}
