//! Real-model mesh benchmark: does a small model answer questions about the mesh it lives on
//! — who is around, a node's battery and sensors, how far, the channel — right, and say so
//! when a node or a reading does not exist, rather than invent one?
//!
//! The mesh is `tests/it/support/mesh.rs` (twelve nodes around our node with positions, last
//! heard, hops, SNR and batteries; three broadcast environment readings), the questions
//! `benches/mesh/questions.tsv` (phrased as people would; `known`: the answer contains one of
//! the keys; `missing`: a node or reading the view lacks, the answer must decline). The whole
//! daemon runs against a real llama.cpp server through a recording proxy that keeps
//! llama-server's `timings`. Subjects: `with` (`[mesh]` on, the default) and `without`
//! (`[mesh] enabled = false`: the model has only the asker's radio line, as before issue 30).
//! Each question comes from a node of its own (no answer sees another's memory), but the
//! `ann` ones: Ann's handheld, whose position the distance questions need.
//!
//! Per subject: known questions right, missing ones declined, prompt tokens and tokens the
//! server evaluated per reply; then every answer. Run with `MESHAI_REAL_LLM_URL` set (e.g.
//! under `flock /tmp/llm.lock`); without it, it prints SKIPPED. `MESHAI_MESH_SUBJECTS=with`
//! runs one subject; `MESHAI_MESH_DUMP=1` prints each prompt's per-turn block;
//! `MESHAI_MESH_LANG=de` (es, pt, fr, it, nl, pl) asks the same questions in that language.

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
use std::time::Duration;

use harness::{Daemon, answer_to, sim_config};
use meshai::chunk::strip_marker;
use support::fake_llm::FakeLlm;
use support::mesh::{self, ANN};
use support::proxy::{Exchange, Recorded, prompt_usage, rewriting_proxy, with_timings};
use support::sim_node::SimNode;

/// Phrases of an answer that declines: the node or the reading is not known.
const DECLINES: &[&str] = &[
    "don't know",
    "do not know",
    "don't have",
    "do not have",
    "unknown",
    "not known",
    "no information",
    "no data",
    "no reading",
    "no record",
    "not sure",
    "can't",
    "cannot",
    "not available",
    "no node",
    "not in my",
    "isn't in",
    "is not in",
    "no such",
    "not aware",
    "doesn't",
    "does not",
    "not found",
    "unable",
    "sorry",
    "no position",
    "not shared",
    "n't share",
    "not sent",
    "hasn't sent",
    "has not sent",
    "no temperature",
    "no humidity",
    "no battery",
];

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Kind {
    Known,
    Missing,
}

#[derive(Clone, Debug)]
struct Question {
    kind: Kind,
    by_ann: bool,
    text: String,
    keys: Vec<String>,
}

/// The questions file: `questions.tsv` (English), or with `MESHAI_MESH_LANG=de` (es, pt, fr,
/// it, nl, pl) the same questions in that language, `questions.de.tsv`, whose `missing`
/// lines carry the phrases that decline in it (English ones: [`DECLINES`]).
fn questions() -> Vec<Question> {
    let name = match lang().as_str() {
        "en" => "questions.tsv".to_string(),
        lang => format!("questions.{lang}.tsv"),
    };
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("benches/mesh")
        .join(&name);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{name}: {e}"));
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let cols: Vec<&str> = l.split('\t').collect();
            Question {
                kind: if cols[0] == "known" {
                    Kind::Known
                } else {
                    Kind::Missing
                },
                by_ann: cols[1] == "ann",
                text: cols[2].to_string(),
                keys: cols
                    .get(3)
                    .map(|k| {
                        k.split('|')
                            .filter(|s| !s.is_empty())
                            .map(str::to_lowercase)
                            .collect()
                    })
                    .unwrap_or_default(),
            }
        })
        .collect()
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Subject {
    With,
    Without,
}

impl Subject {
    fn name(self) -> &'static str {
        match self {
            Subject::With => "with mesh notes",
            Subject::Without => "without (`[mesh] enabled = false`)",
        }
    }

    fn config(self) -> &'static str {
        match self {
            Subject::With => "",
            Subject::Without => "[mesh]\nenabled = false\n",
        }
    }
}

struct Reply {
    question: Question,
    answer: String,
    prompt_tokens: u64,
    evaluated: u64,
    notes: String,
}

impl Reply {
    /// The answer declines: by the question's own phrases (its language's), or English ones.
    fn declines(&self) -> bool {
        let a = self.answer.to_lowercase().replace('’', "'");
        if self.question.keys.is_empty() {
            DECLINES.iter().any(|p| a.contains(p))
        } else {
            self.question.keys.iter().any(|p| a.contains(p.as_str()))
        }
    }

    fn right(&self) -> bool {
        let a = self.answer.to_lowercase();
        let said = match self.question.kind {
            Kind::Known => self.question.keys.iter().any(|k| a.contains(k.as_str())),
            Kind::Missing => self.declines(),
        };
        said && !self.in_english()
    }

    /// In a run of another language, the answer is English (two of [`ENGLISH`]'s words): the
    /// right value in the wrong language is a miss (a short question around English node
    /// names once went undetected and got the daemon's English sentence).
    fn in_english(&self) -> bool {
        if lang() == "en" {
            return false;
        }
        let a = self.answer.to_lowercase();
        let english = a
            .split(|c: char| !c.is_alphanumeric() && c != '\'')
            .filter(|w| ENGLISH.contains(w))
            .count();
        english >= 2
    }
}

/// Words of the daemon's English sentences that no other of its languages writes.
const ENGLISH: &[&str] = &[
    "ago",
    "reported",
    "heard",
    "away",
    "battery",
    "don't",
    "know",
    "shares",
    "position",
    "power",
    "temperature",
    "humidity",
    "pressure",
    "voltage",
    "yes",
    "nearest",
    "around",
    "the",
    "of",
    "you",
    "was",
    "last",
];

/// `MESHAI_MESH_LANG`, or "en".
fn lang() -> String {
    std::env::var("MESHAI_MESH_LANG")
        .ok()
        .filter(|l| !l.is_empty())
        .unwrap_or_else(|| "en".to_string())
}

/// The per-turn block of a request: the system message before the question.
fn notes(request: &str) -> String {
    let v: serde_json::Value = serde_json::from_str(request).unwrap_or_default();
    let msgs = v["messages"].as_array().cloned().unwrap_or_default();
    match msgs.len().checked_sub(2).and_then(|i| msgs.get(i)) {
        Some(m) if m["role"] == "system" && msgs.len() > 2 => {
            m["content"].as_str().unwrap_or_default().to_string()
        }
        _ => String::new(),
    }
}

/// The last reply request after `before`, once its response is through.
async fn exchange(seen: &Recorded, before: usize) -> Exchange {
    for _ in 0..300 {
        let last = seen.lock().ok().and_then(|l| {
            l[before..]
                .iter()
                .rev()
                .find(|e| e.request.contains("\"messages\""))
                .cloned()
        });
        match last {
            Some(e) if !e.response.is_empty() => return e,
            _ => tokio::time::sleep(Duration::from_millis(100)).await,
        }
    }
    Exchange::default()
}

async fn run(url: &str, subject: Subject) -> Vec<Reply> {
    let (proxy_url, seen) = rewriting_proxy(url.to_string(), with_timings).await;
    let sim = Arc::new(SimNode::start(mesh::sim_config(sim_config())).await);
    let placeholder = FakeLlm::start_echo().await;
    let dir = tempfile::tempdir().expect("tempdir");
    let llm = "timeout_secs = 300\ntemperature = 0.0\nmax_tokens = 120\nstream = true";
    let d =
        Daemon::start_with_llm_url(sim, placeholder, dir, subject.config(), &proxy_url, llm).await;
    mesh::broadcast_sensors(&d.sim);
    tokio::time::sleep(Duration::from_millis(2500)).await;
    let mut replies = Vec::new();
    for (i, q) in questions().into_iter().enumerate() {
        let node = if q.by_ann {
            ANN
        } else {
            0x5200_0000 + i as u32
        };
        let before_texts = d.sim.texts().len();
        let before_reqs = seen.lock().map(|l| l.len()).unwrap_or(0);
        d.sim.inject_dm(node, &q.text, None);
        let parts = answer_to(&d.sim, node, before_texts).await;
        let text: Vec<&str> = parts.iter().map(|p| strip_marker(&p.text)).collect();
        let e = exchange(&seen, before_reqs).await;
        let (prompt_tokens, evaluated) = prompt_usage(&e.response);
        replies.push(Reply {
            question: q,
            answer: text.join(" "),
            prompt_tokens,
            evaluated,
            notes: notes(&e.request),
        });
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
    let (result, ..) = d.stop().await;
    result.expect("the daemon stopped cleanly");
    replies
}

fn report(subject: Subject, replies: &[Reply]) {
    let of = |k: Kind| {
        replies
            .iter()
            .filter(|r| r.question.kind == k)
            .collect::<Vec<_>>()
    };
    let (known, missing) = (of(Kind::Known), of(Kind::Missing));
    let right = |rs: &[&Reply]| rs.iter().filter(|r| r.right()).count();
    let all_right = right(&known) + right(&missing);
    let mean = |f: fn(&Reply) -> u64| {
        replies.iter().map(f).sum::<u64>() as f64 / replies.len().max(1) as f64
    };
    println!(
        "| {} | {}/{} ({:.0} %) | {}/{} | {}/{} | {:.0} | {:.0} |",
        subject.name(),
        all_right,
        replies.len(),
        100.0 * all_right as f64 / replies.len().max(1) as f64,
        right(&known),
        known.len(),
        right(&missing),
        missing.len(),
        mean(|r| r.prompt_tokens),
        mean(|r| r.evaluated),
    );
    let dump = std::env::var("MESHAI_MESH_DUMP").is_ok_and(|v| v == "1");
    for r in replies {
        println!(
            "  {} [{:?}] {:?} → {:?}",
            match (r.right(), r.in_english()) {
                (true, _) => "ok  ",
                (false, true) => "EN  ",
                (false, false) => "MISS",
            },
            r.question.kind,
            r.question.text,
            r.answer
        );
        if dump {
            println!("      notes: {:?}", r.notes);
        }
    }
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let Ok(url) = std::env::var("MESHAI_REAL_LLM_URL") else {
        println!("SKIPPED mesh bench: MESHAI_REAL_LLM_URL is not set");
        return;
    };
    let only = std::env::var("MESHAI_MESH_SUBJECTS").unwrap_or_default();
    println!(
        "mesh bench: {} questions ({}), server {url}, streamed",
        questions().len(),
        std::env::var("MESHAI_MESH_LANG").unwrap_or_else(|_| "en".into())
    );
    println!(
        "| subject | right | known: right | missing: declined | prompt tokens per reply | evaluated per reply |"
    );
    println!("|---|---|---|---|---|---|");
    for (key, subject) in [("with", Subject::With), ("without", Subject::Without)] {
        if !only.is_empty() && !only.split(',').any(|s| s.trim() == key) {
            continue;
        }
        let replies = run(&url, subject).await;
        report(subject, &replies);
    }
}
