//! Knowledge index benchmark: how long a folder of about 1,000 passages takes to index, to
//! reindex unchanged and with one file changed, what a turn's search costs (by words, and
//! by meaning over 1,000 stored 384-value vectors: the scan `[knowledge.embeddings]` adds,
//! the question's own vector left out, it is the server's time), and the release daemon's
//! RSS idle with that index, with and without its vectors (against the same daemon without
//! a knowledge folder; the vectors come from the fake server's embeddings).
//!
//! The folder is generated: 50 Markdown files of 20 sections, each section a heading and
//! two paragraphs (about 420 characters) of words drawn from a 400-word vocabulary, with
//! numbers, so every section is one passage. Indexing runs `knowledge::sync::sync` on a
//! fresh database on this machine's disk (WAL, `synchronous=FULL`), the way the daemon and
//! `meshai knowledge reindex` run it.
//!
//! Run: `cargo build --release && cargo bench --bench knowledge_index` (numbers in
//! docs/benchmarks.md).

// A test, bench or example: its unwraps and panics are its assertions, and it prints.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
#![allow(clippy::print_stdout, clippy::print_stderr)]

#[path = "../tests/it/support/mod.rs"]
#[allow(unused_imports)]
mod support;

use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

use meshai::knowledge::Bounds;
use meshai::knowledge::search::{Ask, search};
use meshai::knowledge::sync::sync;
use meshai::lang::Lang;
use meshai::store::{Passages, Store};
use support::fake_llm::FakeLlm;
use support::release::{binary, status_kib};
use support::sim_node::{SimConfig, SimNode};
use tokio::io::{AsyncBufReadExt, BufReader};

const FILES: usize = 50;
const SECTIONS: usize = 20;

/// A deterministic word list: syllables combined, 400 words.
fn vocabulary() -> Vec<String> {
    let a = ["ka", "to", "mi", "re", "sa", "lu", "ne", "po", "vi", "da"];
    let b = ["ster", "mond", "lin", "vark", "bel", "gran", "tor", "sel"];
    let c = ["", "s", "er", "ing", "ed"];
    let mut words = Vec::new();
    for x in a {
        for y in b {
            for z in c {
                words.push(format!("{x}{y}{z}"));
            }
        }
    }
    words
}

/// A small linear congruential generator: the same folder on every run.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1);
        ((self.0 >> 33) as usize) % n
    }
}

fn paragraph(rng: &mut Rng, words: &[String], n: usize) -> String {
    let mut out: Vec<String> = Vec::with_capacity(n);
    for i in 0..n {
        out.push(if i % 9 == 8 {
            format!("{}.{}", 100 + rng.below(400), rng.below(1000))
        } else {
            words[rng.below(words.len())].clone()
        });
    }
    let mut text = out.join(" ");
    text.push('.');
    text
}

fn file(rng: &mut Rng, words: &[String], i: usize) -> String {
    let mut text = format!("# Document {i}\n\n");
    for s in 0..SECTIONS {
        let title = format!("{} {}", words[rng.below(words.len())], s);
        text.push_str(&format!(
            "## {title}\n\n{}\n\n{}\n\n",
            paragraph(rng, words, 30),
            paragraph(rng, words, 30)
        ));
    }
    text
}

fn write_folder(dir: &Path) {
    let words = vocabulary();
    let mut rng = Rng(20);
    for i in 0..FILES {
        std::fs::write(dir.join(format!("doc{i:02}.md")), file(&mut rng, &words, i))
            .expect("write");
    }
}

/// Indexing, reindexing and searching, in this process.
async fn index(folder: &Path) {
    let db = tempfile::tempdir_in(env!("CARGO_MANIFEST_DIR")).expect("tempdir on disk");
    let store = Store::open(&db.path().join("index.db")).expect("open");
    let started = Instant::now();
    let r = sync(&store, folder).await.expect("sync");
    let first = started.elapsed();
    let index = store.knowledge_index().await.expect("index");
    println!(
        "index {} files, {} passages ({} KiB of text): {:.0} ms",
        r.files,
        index.passages,
        (0..FILES)
            .map(|i| std::fs::metadata(folder.join(format!("doc{i:02}.md"))).map_or(0, |m| m.len()))
            .sum::<u64>()
            / 1024,
        first.as_secs_f64() * 1000.0
    );
    let started = Instant::now();
    let r = sync(&store, folder).await.expect("sync");
    println!(
        "reindex, nothing changed ({} unchanged): {:.1} ms",
        r.unchanged,
        started.elapsed().as_secs_f64() * 1000.0
    );
    let path = folder.join("doc07.md");
    let mut text = std::fs::read_to_string(&path).expect("read");
    text.push_str("## Added\n\nThe new repeater is on 145.6125 MHz.\n");
    std::fs::write(&path, text).expect("write");
    let started = Instant::now();
    let r = sync(&store, folder).await.expect("sync");
    println!(
        "reindex, one file changed ({} changed, {} passages written): {:.1} ms",
        r.changed,
        r.passages,
        started.elapsed().as_secs_f64() * 1000.0
    );
    let words = vocabulary();
    let mut rng = Rng(7);
    let bounds = Bounds {
        max_passages: 3,
        max_chars: 1200,
        min_score: 0.3,
    };
    let mut times = Vec::new();
    for _ in 0..100 {
        let q = format!(
            "What about the {} and the {} near {}?",
            words[rng.below(words.len())],
            words[rng.below(words.len())],
            words[rng.below(words.len())]
        );
        let started = Instant::now();
        let ask = Ask {
            question: &q,
            previous: None,
            private: true,
            lang: Lang::En,
        };
        search(&store, &bounds, None, &ask).await.expect("search");
        times.push(started.elapsed());
    }
    times.sort();
    println!(
        "search per turn (100 questions of three words): p50 {:.2} ms, p95 {:.2} ms",
        times[50].as_secs_f64() * 1000.0,
        times[95].as_secs_f64() * 1000.0
    );
    let started = Instant::now();
    let mut vectors = 0;
    loop {
        let pending = store
            .knowledge_unembedded(MODEL.into(), 64)
            .await
            .expect("unembedded");
        if pending.is_empty() {
            break;
        }
        vectors += pending.len();
        let batch = pending.iter().map(|p| (p.key, vector(&p.input))).collect();
        store
            .knowledge_put_vectors(MODEL.into(), batch)
            .await
            .expect("put");
    }
    println!(
        "store {vectors} vectors of {DIMS} values: {:.0} ms",
        started.elapsed().as_secs_f64() * 1000.0
    );
    let mut times = Vec::new();
    for i in 0..100 {
        let q = vector(&format!("question {i}"));
        let started = Instant::now();
        store
            .knowledge_nearest(MODEL.into(), q, Passages::WithPrivate, 12)
            .await
            .expect("nearest");
        times.push(started.elapsed());
    }
    times.sort();
    println!(
        "nearest 12 of {vectors} by meaning (100 questions): p50 {:.2} ms, p95 {:.2} ms",
        times[50].as_secs_f64() * 1000.0,
        times[95].as_secs_f64() * 1000.0
    );
    store.close().await.expect("close");
    let size = std::fs::metadata(db.path().join("index.db")).map_or(0, |m| m.len());
    println!(
        "database file with the index and the vectors: {} KiB",
        size / 1024
    );
}

/// The embedding model's name in the bench's store and config.
const MODEL: &str = "bench-embed";
/// all-MiniLM-L6-v2's length.
const DIMS: usize = 384;

/// A deterministic stand-in for a text's embedding: `DIMS` values seeded by the text.
fn vector(text: &str) -> Vec<f32> {
    let mut rng = Rng(meshai::store::fnv1a(text.as_bytes()));
    (0..DIMS)
        .map(|_| rng.below(2001) as f32 / 1000.0 - 1.0)
        .collect()
}

/// The release daemon's RSS after it indexed `folder` (or without a folder) and idled.
async fn rss(folder: Option<&Path>, embeddings: bool) -> (u64, u64) {
    let sim = SimNode::start(SimConfig::default()).await;
    let llm = FakeLlm::start_echo().await;
    llm.set_embeddings(Some(std::sync::Arc::new(vector)));
    let dir = tempfile::tempdir_in(env!("CARGO_MANIFEST_DIR")).expect("tempdir on disk");
    let mut knowledge = folder.map_or(String::new(), |f| {
        format!("\n[knowledge]\ndir = \"{}\"\n", f.display())
    });
    if embeddings {
        knowledge.push_str(&format!("[knowledge.embeddings]\nmodel = \"{MODEL}\"\n"));
    }
    let config = dir.path().join("config.toml");
    let text = format!(
        "[radio]\ntcp = \"{}\"\n\n[llm]\nbase_url = \"{}\"\nmodel = \"fake\"\n\n[storage]\n\
         database = \"{}\"\n{knowledge}",
        sim.addr(),
        llm.base_url(),
        dir.path().join("bench.db").display()
    );
    std::fs::write(&config, text).expect("config");
    let mut child = tokio::process::Command::new(binary())
        .args(["run", "--config"])
        .arg(&config)
        .env("RUST_LOG", "info")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("spawn the release binary (run `cargo build --release` first)");
    let mut lines = BufReader::new(child.stderr.take().expect("stderr")).lines();
    let want = match (folder, embeddings) {
        (Some(_), true) => "knowledge embedded",
        (Some(_), false) => "knowledge indexed",
        (None, _) => "meshai running",
    };
    let deadline = tokio::time::Instant::now() + Duration::from_secs(60);
    loop {
        match tokio::time::timeout_at(deadline, lines.next_line()).await {
            Ok(Ok(Some(line))) if line.contains(want) => break,
            Ok(Ok(Some(_))) => {}
            other => panic!("no {want:?} line: {other:?}"),
        }
    }
    // Keep reading the log, so the daemon never blocks on a full pipe.
    tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
    tokio::time::sleep(Duration::from_secs(3)).await;
    let pid = child.id().expect("pid");
    let out = (status_kib(pid, "VmRSS:"), status_kib(pid, "VmHWM:"));
    let _ = child.kill().await;
    out
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let folder = tempfile::tempdir_in(env!("CARGO_MANIFEST_DIR")).expect("tempdir on disk");
    write_folder(folder.path());
    index(folder.path()).await;
    if !binary().exists() {
        println!(
            "SKIPPED the RSS part: no release binary at {} (cargo build --release)",
            binary().display()
        );
        return;
    }
    let (rss0, hwm0) = rss(None, false).await;
    println!("release daemon idle without a knowledge folder: RSS {rss0} KiB, peak {hwm0} KiB");
    let (rss1, hwm1) = rss(Some(folder.path()), false).await;
    println!(
        "release daemon idle after indexing the folder at start: RSS {rss1} KiB, peak {hwm1} KiB"
    );
    let (rss2, hwm2) = rss(Some(folder.path()), true).await;
    println!(
        "release daemon idle after indexing and embedding the folder at start: RSS {rss2} KiB, \
         peak {hwm2} KiB"
    );
}
