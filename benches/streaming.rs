//! Streamed against not streamed, on a real model: DM → first packet and DM → last packet, the
//! tokens the server generated for each answer, and how many answers hit the reply budget.
//!
//! The whole daemon (`meshai::run`) runs in-process twice against the same llama.cpp server —
//! once with `[llm] stream = true`, once with `stream = false` — and the simulated node paces
//! like the firmware: 2 s between texts (it refuses a text < 1.9 s after the previous one,
//! leaving the daemon 100 ms of scheduling jitter), each part's ACK after 1.5 s, and the next
//! question waits until the radio is idle again. Every question goes to
//! both daemons, alternately first, from a fresh node each time (no history), at temperature
//! 0, so both get the same answer. Tokens generated come from llama-server's
//! `llamacpp:tokens_predicted_total` (`--metrics`) read before and after each answer, which
//! counts what the server generated after the daemon hung up too; the tokens of the text that
//! went on air come from its `/tokenize`.
//!
//! Run (start the server yourself, loopback only, with `--metrics`):
//! `MESHAI_REAL_LLM_URL=http://127.0.0.1:18090/v1 cargo bench --bench streaming`
//! (numbers in docs/benchmarks.md). Without the variable it prints SKIPPED.

// A test, bench or example: its unwraps and panics are its assertions, and it prints.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
#![allow(clippy::print_stdout, clippy::print_stderr)]

#[path = "../tests/it/harness.rs"]
#[allow(dead_code)]
mod harness;
#[path = "../tests/it/support/mod.rs"]
#[allow(unused_imports)]
mod support;

use std::time::{Duration, Instant};

use harness::Daemon;
use meshai::chunk::strip_marker;
use support::sim_node::SimConfig;

/// Questions that invite long answers (explanations, lists), then short ones.
const QUESTIONS: [&str; 12] = [
    "Explain how a LoRa mesh network relays a message from one node to another.",
    "List ten things to check before putting a solar relay node on a mountain.",
    "Why do radio waves travel further from a hill top? Explain it simply.",
    "Describe the steps to set up a Meshtastic node for the first time.",
    "What are the pros and cons of the LongFast and ShortFast presets?",
    "Explain what SNR and RSSI mean and how to use them to place an antenna.",
    "How should I keep a battery warm in winter on a remote node? Give several ideas.",
    "Explain why duty cycle limits exist on 868 MHz and what they mean for a bot.",
    "What is 2 + 2?",
    "Say hello in French.",
    "What colour is the sky on a clear day?",
    "Name the capital of Spain.",
];

/// Gap between texts and ACK delay of the simulated node: like a one-hop DM on LongFast.
const SEND_GAP_MS: u64 = harness::BENCH_GAP_MS;
const ACK_DELAY: Duration = harness::BENCH_ACK_DELAY;

/// One answer as measured.
#[derive(Debug, Clone, Default)]
struct Sample {
    first: Duration,
    last: Duration,
    parts: usize,
    /// Tokens the server generated (after the hang-up too).
    generated: u64,
    /// Tokens of the text that went on air (markers and `…` off).
    on_air_tokens: u64,
    cut_at_budget: bool,
}

/// The server's root (`…/v1` without the `/v1`).
fn root(url: &str) -> String {
    url.trim_end_matches('/')
        .trim_end_matches("/v1")
        .to_string()
}

async fn http(method: &str, url: &str, body: Option<&str>) -> String {
    let url = url.trim_start_matches("http://");
    let (host, path) = url.split_once('/').unwrap_or((url, ""));
    let mut stream = tokio::net::TcpStream::connect(host).await.expect("connect");
    let body = body.unwrap_or("");
    let req = format!(
        "{method} /{path} HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\n\
         Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    stream.write_all(req.as_bytes()).await.expect("write");
    let mut out = Vec::new();
    let _ = stream.read_to_end(&mut out).await;
    let text = String::from_utf8_lossy(&out).to_string();
    text.split_once("\r\n\r\n")
        .map(|(_, b)| b.to_string())
        .unwrap_or_default()
}

/// `llamacpp:tokens_predicted_total`, once the server is idle.
async fn predicted_total(root: &str) -> u64 {
    for _ in 0..100 {
        let slots = http("GET", &format!("{root}/slots"), None).await;
        if !slots.contains("\"is_processing\":true") {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let metrics = http("GET", &format!("{root}/metrics"), None).await;
    metrics
        .lines()
        .find_map(|l| l.strip_prefix("llamacpp:tokens_predicted_total "))
        .and_then(|v| v.trim().parse::<f64>().ok())
        .map_or(0, |v| v as u64)
}

async fn tokens(root: &str, text: &str) -> u64 {
    let body = serde_json::json!({ "content": text }).to_string();
    let out = http("POST", &format!("{root}/tokenize"), Some(&body)).await;
    let out = out
        .find('{')
        .and_then(|a| out.rfind('}').map(|b| &out[a..=b]))
        .unwrap_or("{}");
    let v: serde_json::Value = serde_json::from_str(out).unwrap_or_default();
    v["tokens"].as_array().map_or(0, |t| t.len() as u64)
}

async fn daemon(url: &str, stream: bool) -> Daemon {
    let llm = format!("timeout_secs = 120\ntemperature = 0.0\nstream = {stream}");
    harness::bench_daemon(url, SimConfig::default(), &llm, "").await
}

async fn ask(d: &Daemon, root: &str, node: u32, q: &str) -> Sample {
    let before_tokens = predicted_total(root).await;
    let asked = tokio::time::Instant::now();
    let texts = d.ask(node, q, Duration::from_secs(300)).await;
    // The last part's ACK and the send gap: the next question finds the radio idle.
    tokio::time::sleep(ACK_DELAY + Duration::from_millis(SEND_GAP_MS)).await;
    let generated = predicted_total(root).await - before_tokens;
    let bodies: Vec<&str> = texts.iter().map(|t| strip_marker(&t.text)).collect();
    let cut = bodies.last().is_some_and(|b| b.ends_with('…'));
    let on_air = bodies.join(" ");
    Sample {
        first: texts[0].at.duration_since(asked),
        last: texts[texts.len() - 1].at.duration_since(asked),
        parts: texts.len(),
        generated,
        on_air_tokens: tokens(root, on_air.trim_end_matches('…')).await,
        cut_at_budget: cut,
    }
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

fn p50(mut xs: Vec<f64>) -> f64 {
    if xs.is_empty() {
        return f64::NAN;
    }
    xs.sort_by(f64::total_cmp);
    let n = xs.len();
    if n % 2 == 1 {
        xs[n / 2]
    } else {
        (xs[n / 2 - 1] + xs[n / 2]) / 2.0
    }
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let Ok(url) = std::env::var("MESHAI_REAL_LLM_URL") else {
        println!("SKIPPED streaming bench: MESHAI_REAL_LLM_URL is not set");
        return;
    };
    let root = root(&url);
    let rounds: usize = std::env::var("MESHAI_BENCH_ROUNDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1);
    println!(
        "real model at {url}: {} questions x {rounds} round(s), streamed and not, \
         send gap {SEND_GAP_MS} ms, ACK after {ACK_DELAY:?}",
        QUESTIONS.len()
    );
    let streamed = daemon(&url, true).await;
    let batch = daemon(&url, false).await;
    // A first call warms the server up (model pages, first KV allocation) for both.
    let _ = ask(&batch, &root, 0x0bad_0000, "Hi").await;
    let mut pairs: Vec<(usize, Sample, Sample)> = Vec::new();
    let wall = Instant::now();
    let mut node = 0x5700_0001u32;
    for round in 0..rounds {
        for (i, q) in QUESTIONS.iter().enumerate() {
            node += 1;
            let streamed_first = (i + round) % 2 == 0;
            let (s, b) = if streamed_first {
                let s = ask(&streamed, &root, node, q).await;
                let b = ask(&batch, &root, node, q).await;
                (s, b)
            } else {
                let b = ask(&batch, &root, node, q).await;
                let s = ask(&streamed, &root, node, q).await;
                (s, b)
            };
            println!(
                "q{:<2} streamed: first {:>6.0} last {:>6.0} ms, {} parts, {:>3} tok ({:>3} on air){} | \
                 batch: first {:>6.0} last {:>6.0} ms, {} parts, {:>3} tok ({:>3} on air){}",
                i + 1,
                ms(s.first),
                ms(s.last),
                s.parts,
                s.generated,
                s.on_air_tokens,
                if s.cut_at_budget { " cut" } else { "" },
                ms(b.first),
                ms(b.last),
                b.parts,
                b.generated,
                b.on_air_tokens,
                if b.cut_at_budget { " cut" } else { "" },
            );
            pairs.push((i, s, b));
        }
    }
    let summary = |name: &str, pick: &dyn Fn(&(usize, Sample, Sample)) -> bool| {
        let set: Vec<&(usize, Sample, Sample)> = pairs.iter().filter(|p| pick(p)).collect();
        let n = set.len();
        let col =
            |f: &dyn Fn(&(usize, Sample, Sample)) -> f64| p50(set.iter().map(|p| f(p)).collect());
        let share = |f: &dyn Fn(&Sample) -> bool, s: bool| {
            let k = set
                .iter()
                .filter(|p| f(if s { &p.1 } else { &p.2 }))
                .count();
            format!("{k}/{n}")
        };
        println!(
            "| {name} | {n} | {:.0} | {:.0} | {:.2} | {:.0} | {:.0} | {:+.0} | {:.0} | {:.0} | {} | {} |",
            col(&|p| ms(p.1.first)),
            col(&|p| ms(p.2.first)),
            col(&|p| ms(p.1.first) / ms(p.2.first)),
            col(&|p| ms(p.1.last)),
            col(&|p| ms(p.2.last)),
            col(&|p| ms(p.1.last) - ms(p.2.last)),
            col(&|p| p.1.generated as f64),
            col(&|p| p.2.generated as f64),
            share(&|s| s.cut_at_budget, true),
            share(&|s| s.cut_at_budget, false),
        );
    };
    println!(
        "| answers | n | first p50 streamed ms | first p50 batch ms | first ratio p50 | last p50 streamed ms | \
         last p50 batch ms | last diff p50 ms | tokens p50 streamed | tokens p50 batch | cut streamed | cut batch |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|---|---|");
    summary("all", &|_| true);
    summary(">= 3 parts (batch)", &|p| p.2.parts >= 3);
    summary("< 3 parts (batch)", &|p| p.2.parts < 3);
    let cut: Vec<&(usize, Sample, Sample)> = pairs.iter().filter(|p| p.1.cut_at_budget).collect();
    if !cut.is_empty() {
        let ratios: Vec<f64> = cut
            .iter()
            .map(|p| p.1.generated as f64 / p.1.on_air_tokens.max(1) as f64)
            .collect();
        let max = ratios.iter().copied().fold(0.0, f64::max);
        println!(
            "streamed answers cut at the budget: {}; tokens generated / tokens on air: p50 {:.2}, max {:.2}",
            cut.len(),
            p50(ratios.clone()),
            max
        );
    }
    let worst_last = pairs
        .iter()
        .map(|p| ms(p.1.last) - ms(p.2.last))
        .fold(f64::MIN, f64::max);
    let worst_first = pairs
        .iter()
        .filter(|p| p.2.parts >= 3)
        .map(|p| ms(p.1.first) / ms(p.2.first))
        .fold(0.0, f64::max);
    println!(
        "worst: last packet streamed - batch {worst_last:+.0} ms; first packet ratio (>= 3 parts) {worst_first:.2}; \
         {:.0} s in all",
        wall.elapsed().as_secs_f64()
    );
    println!(
        "rate-limit refusals by the simulated node: streamed {}, not streamed {}",
        streamed.sim.rate_limit_refusals(),
        batch.sim.rate_limit_refusals()
    );
    let (r1, ..) = streamed.stop().await;
    let (r2, ..) = batch.stop().await;
    r1.expect("streamed daemon stopped cleanly");
    r2.expect("batch daemon stopped cleanly");
}
