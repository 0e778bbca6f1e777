//! Airtime sent per answer under the `[airtime]` policy, on a real model: the same ordinary
//! questions at 10 % channel utilization (calm: up to `[reply] max_chunks` = 4 packets) and
//! at 30 % (busy: at most 2 packets and the budget note in the prompt), and how long replies
//! waited at 45 % (very busy).
//!
//! The whole daemon (`meshai::run`, default config but for the pacing and the model's
//! temperature 0) runs three times in one process against the same llama.cpp server, through
//! a recording proxy that notes when each request arrives. The simulated node reports the
//! channel in its node info at the handshake and paces like firmware 2.7 with a one-hop DM
//! on LongFast: 2 s between texts, each part's ACK after 1.5 s. Every question comes from a
//! fresh node (no history), answers are streamed (the default), and the next question waits
//! until the radio is idle again.
//!
//! Per answer: packets sent, characters and UTF-8 bytes on air (markers included), and the
//! estimated time on air on LongFast (`meshai::radio::time_on_air`: Semtech's formula, the
//! 16-byte header plus the encoded `Data`), summed over the packets, for one hop.
//!
//! The held case: the channel is at 45 % when the DM arrives; the next reading (the firmware
//! sends one a minute) says 20 % after 10, 30 or 60 s, or never comes under 40 % (then the
//! reply goes after `max_wait_secs` = 120, shortened). The wait is the time from the DM to the
//! request reaching the server.
//!
//! Run (loopback only; the lock keeps other real-model runs off the two cores):
//! `flock /tmp/meshai-realmodel.lock scripts/airtime-bench.sh`
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

use std::time::Duration;

use harness::Daemon;
use meshai::radio::time_on_air::{Modem, text_time_on_air};
use support::proxy::{Recorded, recording_proxy};
use support::sim_node::{SentText, SimConfig};
use tokio::time::Instant;

/// Ordinary questions, some inviting long answers.
const QUESTIONS: [&str; 8] = [
    "How does a LoRa mesh relay a message from one node to another?",
    "What should I check before putting a solar relay node on a hill?",
    "Why do radio waves reach further from a hill top?",
    "How do I keep a battery warm in winter on a remote node?",
    "What is the difference between SNR and RSSI?",
    "Can you suggest a good antenna for a home base station?",
    "How long does a 18650 cell last in a node that sleeps most of the time?",
    "What is a sensible hop limit for a small town mesh?",
];

/// Gap between texts and ACK delay of the simulated node: a one-hop DM on LongFast.
const SEND_GAP_MS: u64 = harness::BENCH_GAP_MS;
const ACK_DELAY: Duration = harness::BENCH_ACK_DELAY;

/// The held case: when the reading that calms the channel comes after the DM (`None`: never).
const CALM_AFTER: [Option<u64>; 4] = [Some(10), Some(30), Some(60), None];

/// One answer as sent.
#[derive(Debug, Clone, Default)]
struct Sample {
    parts: usize,
    chars: usize,
    bytes: usize,
    air: Duration,
    /// DM → the request reaching the server (the hold, when there was one).
    wait: Duration,
    /// DM → first packet.
    first: Duration,
    /// The prompt carried the budget note.
    noted: bool,
    /// The last packet ends with `…` (cut at the reply budget).
    cut: bool,
}

/// A daemon whose node reports `utilization` % busy and our sending at 1 %.
async fn daemon(url: &str, utilization: f32) -> Daemon {
    let sim = SimConfig {
        device_metrics: Some((utilization, 1.0)),
        ..SimConfig::default()
    };
    harness::bench_daemon(url, sim, "timeout_secs = 120\ntemperature = 0.0", "").await
}

/// Asks `q` from `node`; with `calm_after`, the channel is very busy at the DM and a calm
/// reading follows that many seconds later.
async fn ask(
    d: &Daemon,
    recorded: &Recorded,
    node: u32,
    q: &str,
    calm_after: Option<Option<u64>>,
) -> Sample {
    if calm_after.is_some() {
        d.sim.inject_telemetry(45.0, 1.0);
    }
    let requests = recorded.lock().map(|r| r.len()).unwrap_or(0);
    let asked = Instant::now();
    let calm = calm_after.flatten().map(|secs| {
        let sim = d.sim.clone();
        tokio::spawn(async move {
            tokio::time::sleep(Duration::from_secs(secs)).await;
            sim.inject_telemetry(20.0, 1.0);
        })
    });
    let texts = d.ask(node, q, Duration::from_secs(400)).await;
    if let Some(calm) = calm {
        let _ = calm.await;
    }
    // The last part's ACK and the send gap: the next question finds the radio idle.
    tokio::time::sleep(ACK_DELAY + Duration::from_millis(SEND_GAP_MS)).await;
    // The answer's chat request (the daemon's start-up GETs go through the proxy too).
    let request = recorded
        .lock()
        .ok()
        .and_then(|r| {
            r.iter()
                .skip(requests)
                .find(|e| e.request.contains("\"messages\""))
                .cloned()
        })
        .unwrap_or_default();
    measure(&texts, asked, request.at, &request.request)
}

fn measure(texts: &[SentText], asked: Instant, request_at: Option<Instant>, body: &str) -> Sample {
    Sample {
        parts: texts.len(),
        chars: texts.iter().map(|t| t.text.chars().count()).sum(),
        bytes: texts.iter().map(|t| t.payload.len()).sum(),
        air: texts
            .iter()
            .map(|t| text_time_on_air(&t.text, t.reply_id, &Modem::LONG_FAST))
            .sum(),
        wait: request_at.map_or(Duration::ZERO, |at| at.duration_since(asked)),
        first: texts
            .first()
            .map_or(Duration::ZERO, |t| t.at.duration_since(asked)),
        noted: body.contains("radio channel is busy"),
        cut: texts.last().is_some_and(|t| {
            meshai::chunk::strip_marker(&t.text)
                .trim_end()
                .ends_with('…')
        }),
    }
}

fn mean(xs: impl Iterator<Item = f64>) -> f64 {
    let xs: Vec<f64> = xs.collect();
    if xs.is_empty() {
        return f64::NAN;
    }
    xs.iter().sum::<f64>() / xs.len() as f64
}

fn secs(d: Duration) -> f64 {
    d.as_secs_f64()
}

/// One table row for a setting; `base` is the 10 % run, whose same questions (the first
/// `samples.len()`) the airtime is compared with.
fn row(name: &str, samples: &[Sample], base: &[Sample]) -> String {
    let m = |f: &dyn Fn(&Sample) -> f64| mean(samples.iter().map(f));
    let air = m(&|s| secs(s.air));
    let same = base.iter().take(samples.len()).map(|s| secs(s.air));
    let ratio = format!("{:.2}", air / mean(same));
    let max_wait = samples.iter().map(|s| secs(s.wait)).fold(0.0, f64::max);
    format!(
        "| {name} | {} | {:.2} | {:.0} | {:.0} | {:.2} | {:.1} | {ratio} | {}/{} | {}/{} | {:.1} / {:.1} | {:.1} |",
        samples.len(),
        m(&|s| s.parts as f64),
        m(&|s| s.chars as f64),
        m(&|s| s.bytes as f64),
        air,
        samples.iter().map(|s| secs(s.air)).sum::<f64>(),
        samples.iter().filter(|s| s.noted).count(),
        samples.len(),
        samples.iter().filter(|s| s.cut).count(),
        samples.len(),
        m(&|s| secs(s.wait)),
        max_wait,
        m(&|s| secs(s.first)),
    )
}

fn print_sample(name: &str, i: usize, s: &Sample) {
    println!(
        "{name} q{}: {} parts, {:>3} chars, {:>3} B, {:>5.2} s on air, waited {:>5.1} s, \
         first packet {:>5.1} s{}{}",
        i + 1,
        s.parts,
        s.chars,
        s.bytes,
        secs(s.air),
        secs(s.wait),
        secs(s.first),
        if s.noted { ", note" } else { "" },
        if s.cut { ", cut" } else { "" },
    );
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let Ok(url) = std::env::var("MESHAI_REAL_LLM_URL") else {
        println!("SKIPPED airtime bench: MESHAI_REAL_LLM_URL is not set");
        return;
    };
    println!(
        "real model at {url}: {} questions at 10 % and 30 % channel utilization, {} held at \
         45 %; send gap {SEND_GAP_MS} ms, ACK after {ACK_DELAY:?}, LongFast time on air",
        QUESTIONS.len(),
        CALM_AFTER.len()
    );
    let (proxy, recorded) = recording_proxy(url.trim_end_matches("/v1").to_string()).await;
    let settings = [("10 %", 10.0), ("30 %", 30.0), ("45 % (held)", 45.0)];
    let mut results: Vec<(&str, Vec<Sample>)> = Vec::new();
    let mut node = 0xa170_0000u32;
    for (name, utilization) in settings {
        let d = daemon(&proxy, utilization).await;
        if results.is_empty() {
            // A first call warms the server up (model pages, first KV allocation).
            node += 1;
            let _ = ask(&d, &recorded, node, "Hi", None).await;
        }
        let held = utilization > 40.0;
        let mut samples = Vec::new();
        for (i, q) in QUESTIONS.iter().enumerate() {
            let calm_after = match (held, CALM_AFTER.get(i)) {
                (false, _) => None,
                (true, Some(c)) => Some(*c),
                (true, None) => break,
            };
            node += 1;
            let s = ask(&d, &recorded, node, q, calm_after).await;
            print_sample(name, i, &s);
            samples.push(s);
        }
        println!(
            "{name}: rate-limit refusals by the simulated node: {}",
            d.sim.rate_limit_refusals()
        );
        let (result, ..) = d.stop().await;
        result.expect("the daemon stopped cleanly");
        results.push((name, samples));
    }
    let base = results.first().map(|(_, s)| s.clone()).unwrap_or_default();
    println!(
        "| setting | answers | packets/answer | chars/answer | bytes/answer | time on air/answer s | \
         time on air total s | vs the same questions at 10 % | budget note | cut with … | wait mean / max s | DM → first packet mean s |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|---|---|");
    for (name, samples) in &results {
        println!("{}", row(name, samples, &base));
    }
}
