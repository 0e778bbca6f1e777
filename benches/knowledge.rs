//! Real-model knowledge benchmark: does a small model answer a club's questions from the
//! club's own documents, and say so when they do not cover a question?
//!
//! The documents are `benches/knowledge/docs/` (a radio club's handbook, repeater list, event
//! schedule, safety card, mesh guide, field-day guide, weekly nets, and a private clubhouse
//! note), the questions `benches/knowledge/questions.tsv` (worded unlike the documents, each
//! with the keys a correct answer contains). The whole daemon runs (`meshai::run_with`,
//! simulated node) against a real llama.cpp server through a recording proxy that keeps
//! llama-server's `timings`. Subjects, in one run:
//!
//! - `with the folder`: `[knowledge] dir` set to the documents;
//! - `with the folder, by meaning too`: and `[knowledge.embeddings]` on the embedding server
//!   at `MESHAI_EMBED_URL` (all-MiniLM-L6-v2 from scripts/embed-llm.sh; skipped without it);
//! - `without`: the same daemon without a knowledge folder;
//! - `init, empty folder` and `init, no folder`: the config `meshai init` writes (its
//!   defaults: `about`, `temperature`, a new node's two parts…), with its knowledge folder
//!   still empty, and with `dir` commented out: a newcomer's first questions, the everyday
//!   and general ones only (the club's would be meaningless).
//!
//! Every conversation is a node of its own (a follow-up is asked by the node that asked the
//! question before it), so no answer sees another question's memory. A private question is
//! asked twice: over PKI by a node in `private_to`, then by a node that is not.
//!
//! Per subject it prints: covered questions answered correctly (the answer contains a key),
//! private questions answered for the listed node and leaked to the other, uncovered
//! questions answered with "not in my notes" (or similar) against answered anyway, general
//! questions (not about the club) answered against refused, everyday questions (how-tos and
//! advice a newcomer asks) answered against refused, prompt tokens and tokens the server
//! evaluated per reply, DM → first packet p50; then every answer. `MESHAI_KNOWLEDGE_REQUESTS=
//! FILE` appends every reply's request (JSON, one a line, with the question's kind) to FILE,
//! for probing wordings against the server directly.
//!
//! Run: `scripts/knowledge-bench.sh` (starts llama-server with Qwen2.5-Coder-0.5B-Instruct),
//! or with `MESHAI_REAL_LLM_URL` set to a running server. Without it, it prints SKIPPED.
//! `MESHAI_KNOWLEDGE_SUBJECTS=with,meaning` runs those subjects; `MESHAI_KNOWLEDGE_DUMP=1` prints each
//! prompt's per-turn block. `[knowledge] about` is what the club's operator would write
//! (`OPERATORS_ABOUT`); `MESHAI_KNOWLEDGE_ABOUT=default` measures meshai's default instead.
//! `MESHAI_KNOWLEDGE_LANG=de` (or `es`, `fr`, `it`, `pt`, `nl`, `pl`) runs the same club in
//! that language: the documents and questions of `benches/knowledge/de/`, its operator's
//! `about` in that language (`about.txt`), and a decline counted by that language's phrases
//! (`declines.txt`, the daemon's own `Say::NotInNotes` among them) as well as the English
//! ones; unset or `en`, the English set above.

// A test, bench or example: its unwraps and panics are its assertions, and it prints.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
#![allow(clippy::print_stdout, clippy::print_stderr)]

#[path = "../tests/it/harness.rs"]
#[allow(dead_code)]
mod harness;
#[path = "../tests/it/support/mod.rs"]
#[allow(unused_imports)]
mod support;

use std::path::{Path, PathBuf};
use std::sync::{Arc, LazyLock};
use std::time::Duration;

use harness::{Daemon, answer_to, sim_config};
use meshai::chunk::strip_marker;
use meshai::lang::{Lang, Part, Say};
use support::fake_llm::FakeLlm;
use support::proxy::{Exchange, Recorded, prompt_usage, rewriting_proxy, with_timings};
use support::sim_node::SimNode;

/// The node in `private_to`, its PKI key, and a node that is not listed.
const MEMBER: u32 = 0x4b00_0100;
const MEMBER_KEY: [u8; 32] = [7; 32];
const STRANGER: u32 = 0x4b00_0200;

/// Phrases of an answer that says the notes do not cover the question.
const NOT_IN_NOTES: &[&str] = &[
    "not in my notes",
    "not in the notes",
    "not in your notes",
    "notes do not",
    "notes don't",
    "notes have no",
    "no note",
    "not mentioned",
    "not covered",
    "not specified",
    "not listed",
    "not available",
    "no information",
    "don't have",
    "do not have",
    "don't know",
    "do not know",
    "not sure",
    "unknown",
    "can't find",
    "cannot find",
    "couldn't find",
    "unable to",
    "doesn't say",
    "does not say",
    "no details",
    "no record",
    "i'm sorry",
    "sorry",
];

/// The bench's language: `MESHAI_KNOWLEDGE_LANG` (`en`, or the code of one of meshai's other
/// languages with a folder under `benches/knowledge/`), read once.
static LANG: LazyLock<Lang> = LazyLock::new(|| {
    let code = std::env::var("MESHAI_KNOWLEDGE_LANG").unwrap_or_default();
    match code.as_str() {
        "" | "en" => Lang::En,
        code => Lang::ALL
            .into_iter()
            .find(|l| l.to_string() == code)
            .unwrap_or_else(|| {
                panic!("MESHAI_KNOWLEDGE_LANG={code}: not one of meshai's languages")
            }),
    }
});

/// The language's code, as its folder under `benches/knowledge/` is named.
fn lang_code() -> String {
    LANG.to_string()
}

/// The lines of `name` in the language's folder, without `#` comments and blank lines.
fn lang_lines(name: &str) -> Vec<String> {
    let path = bench_dir().join(name);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(str::to_string)
        .collect()
}

/// The phrases that make an answer a decline ([`Reply::says_not_in_notes`]): English's
/// [`NOT_IN_NOTES`]; in another language its folder's `declines.txt` and the English ones (a
/// message too short to detect gets the daemon's English, and the model may answer in it too);
/// and the daemon's own `Say::NotInNotes` in the language, whatever the lists hold.
static DECLINES: LazyLock<Vec<String>> = LazyLock::new(|| {
    let own = match *LANG {
        Lang::En => Vec::new(),
        _ => lang_lines("declines.txt"),
    };
    let mut phrases: Vec<String> = own
        .iter()
        .map(|p| p.to_lowercase())
        .chain(NOT_IN_NOTES.iter().map(|p| p.to_string()))
        .collect();
    let say = meshai::lang::say(*LANG, Say::NotInNotes);
    let say = say.trim().trim_end_matches('.').to_lowercase();
    if !phrases.contains(&say) {
        phrases.insert(0, say);
    }
    phrases
});

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Kind {
    Covered,
    Private,
    Uncovered,
    General,
    Everyday,
}

/// One line of `questions.tsv`.
#[derive(Clone, Debug)]
struct Question {
    kind: Kind,
    conversation: String,
    text: String,
    keys: Vec<String>,
}

/// `benches/knowledge`, or for another language its folder named by the language's code
/// (`de`, `es`, …): the folder of the language's `docs/`, `questions.tsv`, and (not English)
/// `about.txt` (the operator's `[knowledge] about`) and `declines.txt`.
fn bench_dir() -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/knowledge");
    match *LANG {
        Lang::En => dir,
        _ => dir.join(lang_code()),
    }
}

fn questions() -> Vec<Question> {
    let path = bench_dir().join("questions.tsv");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            let kind = match f.first().copied() {
                Some("covered") => Kind::Covered,
                Some("private") => Kind::Private,
                Some("uncovered") => Kind::Uncovered,
                Some("general") => Kind::General,
                Some("everyday") => Kind::Everyday,
                other => panic!("unknown kind {other:?} in {l:?}"),
            };
            Question {
                kind,
                conversation: f.get(1).copied().unwrap_or_default().to_string(),
                text: f.get(2).copied().unwrap_or_default().to_string(),
                keys: f
                    .get(3)
                    .copied()
                    .unwrap_or_default()
                    .split('|')
                    .filter(|k| !k.is_empty())
                    .map(str::to_string)
                    .collect(),
            }
        })
        .collect()
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Subject {
    With,
    /// With the folder, and passages found by meaning too (`[knowledge.embeddings]` on the
    /// server at `MESHAI_EMBED_URL`).
    Meaning,
    Without,
    /// `meshai init`'s config, its knowledge folder empty.
    InitEmpty,
    /// `meshai init`'s config with `dir` commented out.
    InitNone,
}

/// `[knowledge.embeddings]` for the `meaning` subject: the server `MESHAI_EMBED_URL`
/// (scripts/embed-llm.sh), its model `MESHAI_EMBED_MODEL`, and `min_similarity` from
/// `MESHAI_KNOWLEDGE_MIN_SIMILARITY` when set (meshai's default otherwise).
fn embeddings() -> Option<String> {
    let url = std::env::var("MESHAI_EMBED_URL").ok()?;
    let model = std::env::var("MESHAI_EMBED_MODEL").unwrap_or_else(|_| "all-minilm-l6-v2".into());
    let min = std::env::var("MESHAI_KNOWLEDGE_MIN_SIMILARITY")
        .map(|m| format!("min_similarity = {m}\n"))
        .unwrap_or_default();
    Some(format!(
        "[knowledge.embeddings]\nbase_url = \"{url}\"\nmodel = \"{model}\"\n{min}"
    ))
}

/// `[knowledge] about` as the club's operator would write it (`MESHAI_KNOWLEDGE_ABOUT`
/// for another, `default` for meshai's own).
fn about() -> String {
    match std::env::var("MESHAI_KNOWLEDGE_ABOUT") {
        Ok(a) if a == "default" => meshai::knowledge::DEFAULT_ABOUT.to_string(),
        Ok(a) if !a.trim().is_empty() => a,
        _ => match *LANG {
            Lang::En => OPERATORS_ABOUT.to_string(),
            _ => lang_lines("about.txt").concat(),
        },
    }
}

/// What the club's documents are about, in the operator's words.
const OPERATORS_ABOUT: &str = "the club, its repeaters, nets, events, members and safety rules";

impl Subject {
    fn name(self) -> &'static str {
        match self {
            Subject::With => "with the folder",
            Subject::Meaning => "with the folder, by meaning too",
            Subject::Without => "without",
            Subject::InitEmpty => "init, empty folder",
            Subject::InitNone => "init, no folder",
        }
    }

    /// The subject runs `meshai init`'s config, which asks only the newcomer's questions.
    fn init(self) -> bool {
        matches!(self, Subject::InitEmpty | Subject::InitNone)
    }

    /// Whether `q` is asked of this subject.
    fn asks(self, q: &Question) -> bool {
        !self.init() || matches!(q.kind, Kind::General | Kind::Everyday)
    }

    fn config(self) -> String {
        let folder = format!(
            "[knowledge]\ndir = \"{}\"\nabout = \"{}\"\nprivate_to = [\"!{MEMBER:08x}\"]\n",
            bench_dir().join("docs").display(),
            about()
        );
        match self {
            Subject::With => folder,
            Subject::Meaning => folder + &embeddings().unwrap_or_default(),
            Subject::Without | Subject::InitEmpty | Subject::InitNone => String::new(),
        }
    }
}

/// The config `meshai init` writes for the simulated node at `node` and the server at
/// `llm_url` (the model's name is the server's business), with the database and, for
/// [`Subject::InitEmpty`], the knowledge folder in `state` (created empty, as init does).
fn init_config(subject: Subject, node: &str, llm_url: &str, state: &Path) -> String {
    use meshai::cli::init::template::{EXAMPLE, RadioLine, Values, render};
    let knowledge = (subject == Subject::InitEmpty).then(|| {
        let dir = state.join("knowledge");
        std::fs::create_dir_all(&dir).expect("the knowledge folder");
        dir.display().to_string()
    });
    let values = Values {
        radio: RadioLine::Tcp(node.to_string()),
        base_url: llm_url.to_string(),
        model: "qwen2.5-coder-0.5b".into(),
        database: state.join("meshai.db").display().to_string(),
        knowledge,
        header: Vec::new(),
    };
    render(EXAMPLE, &values).expect("init's template renders")
}

/// What one reply was.
#[derive(Clone, Debug)]
struct Reply {
    question: Question,
    /// Asked by the listed node over PKI (private questions), or by the stranger.
    by_member: bool,
    answer: String,
    first_packet: Duration,
    prompt_tokens: u64,
    evaluated: u64,
    /// The per-turn block the prompt carried (for the dump).
    notes: String,
    /// The request's messages, the time note's minute masked (two runs differ there only).
    prompt: Vec<String>,
}

impl Reply {
    fn correct(&self) -> bool {
        let a = self.answer.to_lowercase();
        // "=3": the answer is that and nothing else.
        let whole = a.trim().trim_end_matches(['.', '!']);
        self.question
            .keys
            .iter()
            .any(|k| match k.strip_prefix('=') {
                Some(k) => whole == k.to_lowercase(),
                None => a.contains(&k.to_lowercase()),
            })
    }

    fn says_not_in_notes(&self) -> bool {
        let a = self.answer.to_lowercase().replace('’', "'");
        DECLINES.iter().any(|p| a.contains(p.as_str()))
    }
}

/// The per-turn block of a request: the system message right before the question.
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

/// The messages of `request`, each with the time note masked.
fn prompt_of(request: &str) -> Vec<String> {
    let v: serde_json::Value = serde_json::from_str(request).unwrap_or_default();
    let msgs = v["messages"].as_array().cloned().unwrap_or_default();
    msgs.iter()
        .map(|m| masked_clock(m["content"].as_str().unwrap_or_default()))
        .collect()
}

/// `harness::masked_clock`, and in German or Spanish the time note in that language masked
/// too (`Part::SentAt`: the line starting "Diese Nachricht wurde " becomes "Diese Nachricht
/// wurde …"), so that `same_prompts` compares what it compares in English.
fn masked_clock(text: &str) -> String {
    let text = harness::masked_clock(text);
    if *LANG == Lang::En {
        return text;
    }
    let note = meshai::lang::part(*LANG, Part::SentAt);
    let Some((before, _)) = note.split_once("{time}") else {
        return text;
    };
    text.split('\n')
        .map(|l| {
            if l.starts_with(before) {
                format!("{before}…")
            } else {
                l.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
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

async fn run(url: &str, subject: Subject, stream: bool) -> Vec<Reply> {
    let (proxy_url, seen) = rewriting_proxy(url.to_string(), with_timings).await;
    let sim = Arc::new(SimNode::start(sim_config()).await);
    let placeholder = FakeLlm::start_echo().await;
    let dir = tempfile::tempdir().expect("tempdir");
    // Temperature 0, a radio bot's short answers, streamed as users get them by default.
    let llm = format!("timeout_secs = 300\ntemperature = 0.0\nmax_tokens = 120\nstream = {stream}");
    let d = if subject.init() {
        let text = init_config(subject, &sim.addr().to_string(), &proxy_url, dir.path());
        Daemon::start_with_text(sim, placeholder, dir, &text).await
    } else {
        Daemon::start_with_llm_url(sim, placeholder, dir, &subject.config(), &proxy_url, &llm).await
    };
    if !matches!(subject, Subject::Without | Subject::InitNone) {
        // With embeddings, the first indexing counts once every passage has its vector.
        d.indexed(1).await;
    }
    let mut nodes: Vec<String> = Vec::new();
    let mut replies = Vec::new();
    let requests = std::env::var_os("MESHAI_KNOWLEDGE_REQUESTS");
    for q in questions().into_iter().filter(|q| subject.asks(q)) {
        let askers: Vec<(u32, bool)> = match q.kind {
            Kind::Private => vec![(MEMBER, true), (STRANGER, false)],
            _ => {
                if !nodes.contains(&q.conversation) {
                    nodes.push(q.conversation.clone());
                }
                let i = nodes.iter().position(|c| *c == q.conversation).unwrap_or(0);
                vec![(0x4b01_0000 + i as u32, false)]
            }
        };
        for (node, by_member) in askers {
            let before_texts = d.sim.texts().len();
            let before_reqs = seen.lock().map(|l| l.len()).unwrap_or(0);
            let asked = tokio::time::Instant::now();
            if by_member {
                d.sim.inject_pki_dm(node, &q.text, MEMBER_KEY);
            } else {
                d.sim.inject_dm(node, &q.text, None);
            }
            let parts = answer_to(&d.sim, node, before_texts).await;
            let first_packet = parts
                .first()
                .map_or(Duration::ZERO, |p| p.at.saturating_duration_since(asked));
            let text: Vec<&str> = parts.iter().map(|p| strip_marker(&p.text)).collect();
            let e = exchange(&seen, before_reqs).await;
            let (prompt_tokens, evaluated) = prompt_usage(&e.response);
            if let Some(path) = &requests {
                dump_request(path, subject, &q, &e.request);
            }
            replies.push(Reply {
                question: q.clone(),
                by_member,
                answer: text.join(" "),
                first_packet,
                prompt_tokens,
                evaluated,
                notes: notes(&e.request),
                prompt: prompt_of(&e.request),
            });
            // The user reads the answer and types the next message.
            tokio::time::sleep(Duration::from_millis(500)).await;
        }
    }
    let (result, ..) = d.stop().await;
    result.expect("the daemon stopped cleanly");
    replies
}

/// Appends `request` to the file at `path` as one JSON line with the subject and question.
fn dump_request(path: &std::ffi::OsStr, subject: Subject, q: &Question, request: &str) {
    use std::io::Write;
    let request: serde_json::Value = serde_json::from_str(request).unwrap_or_default();
    let line = serde_json::json!({
        "subject": subject.name(),
        "kind": format!("{:?}", q.kind),
        "question": q.text,
        "request": request,
    });
    let file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path);
    if let Ok(mut file) = file {
        let _ = writeln!(file, "{line}");
    }
}

fn percentile(mut xs: Vec<f64>, pct: usize) -> f64 {
    xs.sort_by(|a, b| a.total_cmp(b));
    let rank = (xs.len() * pct).div_ceil(100).max(1);
    xs.get(rank - 1).copied().unwrap_or(0.0)
}

fn report(subject: Subject, replies: &[Reply]) {
    let of = |kind: Kind| -> Vec<&Reply> {
        replies.iter().filter(|r| r.question.kind == kind).collect()
    };
    let covered = of(Kind::Covered);
    let right = covered.iter().filter(|r| r.correct()).count();
    let private = of(Kind::Private);
    let member = private.iter().filter(|r| r.by_member).count();
    let member_right = private
        .iter()
        .filter(|r| r.by_member && r.correct())
        .count();
    let leaked = private
        .iter()
        .filter(|r| !r.by_member && r.correct())
        .count();
    let uncovered = of(Kind::Uncovered);
    let declined = uncovered.iter().filter(|r| r.says_not_in_notes()).count();
    let general = of(Kind::General);
    let refused = general.iter().filter(|r| r.says_not_in_notes()).count();
    let everyday = of(Kind::Everyday);
    let everyday_refused = everyday.iter().filter(|r| r.says_not_in_notes()).count();
    let mean = |f: fn(&Reply) -> u64| {
        replies.iter().map(f).sum::<u64>() as f64 / replies.len().max(1) as f64
    };
    let firsts: Vec<f64> = replies
        .iter()
        .map(|r| r.first_packet.as_secs_f64() * 1000.0)
        .collect();
    println!(
        "| {} | {right}/{} ({:.0} %) | {member_right}/{member} | {leaked}/{} | {declined}/{} | {}/{} | {}/{} | {:.0} | {:.0} | {:.0} |",
        subject.name(),
        covered.len(),
        100.0 * right as f64 / covered.len().max(1) as f64,
        private.len() - member,
        uncovered.len(),
        general.len() - refused,
        general.len(),
        everyday.len() - everyday_refused,
        everyday.len(),
        mean(|r| r.prompt_tokens),
        mean(|r| r.evaluated),
        percentile(firsts, 50),
    );
    let dump = std::env::var_os("MESHAI_KNOWLEDGE_DUMP").is_some();
    for r in replies {
        let mark = match r.question.kind {
            Kind::Covered => {
                if r.correct() {
                    "✓"
                } else {
                    "✗"
                }
            }
            Kind::Private if r.by_member => {
                if r.correct() {
                    "✓"
                } else {
                    "✗"
                }
            }
            Kind::Private => {
                if r.correct() {
                    "LEAK"
                } else {
                    "·"
                }
            }
            Kind::Uncovered => {
                if r.says_not_in_notes() {
                    "declined"
                } else {
                    "ANSWERED"
                }
            }
            Kind::General | Kind::Everyday => {
                if r.says_not_in_notes() {
                    "REFUSED"
                } else {
                    "answered"
                }
            }
        };
        println!(
            "    {mark} {:?}{}: {} [{}/{} tokens]",
            r.question.text,
            if r.question.kind == Kind::Private {
                if r.by_member {
                    " (member, PKI)"
                } else {
                    " (stranger)"
                }
            } else {
                ""
            },
            r.answer.replace('\n', " "),
            r.evaluated,
            r.prompt_tokens
        );
        if dump {
            println!("        notes: {}", r.notes.replace('\n', " / "));
        }
    }
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let Ok(url) = std::env::var("MESHAI_REAL_LLM_URL") else {
        println!(
            "SKIPPED knowledge bench: MESHAI_REAL_LLM_URL is not set (run scripts/knowledge-bench.sh)"
        );
        return;
    };
    let stream = std::env::var("MESHAI_KNOWLEDGE_STREAM").map_or(true, |v| v != "0");
    let only = std::env::var("MESHAI_KNOWLEDGE_SUBJECTS").unwrap_or_default();
    let n = questions().len();
    let mut ran: Vec<(Subject, Vec<Reply>)> = Vec::new();
    println!(
        "knowledge bench: {n} questions ({}), server {url}{}, [knowledge] about = {:?}",
        lang_code(),
        if stream { ", streamed" } else { "" },
        about()
    );
    println!(
        "| subject | covered: correct | private: member correct | private: leaked to a stranger | uncovered: says not in notes | general: answered | everyday: answered | prompt tokens per reply | evaluated per reply | DM → first packet p50 ms |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|");
    for (key, subject) in [
        ("with", Subject::With),
        ("meaning", Subject::Meaning),
        ("without", Subject::Without),
        ("init-empty", Subject::InitEmpty),
        ("init-none", Subject::InitNone),
    ] {
        if !only.is_empty() && !only.split(',').any(|s| s.trim() == key) {
            continue;
        }
        if subject == Subject::Meaning && embeddings().is_none() {
            println!(
                "| {} | SKIPPED: MESHAI_EMBED_URL is not set |",
                subject.name()
            );
            continue;
        }
        let replies = run(&url, subject, stream).await;
        report(subject, &replies);
        ran.push((subject, replies));
    }
    same_prompts(&ran);
}

/// Whether `meshai init`'s empty folder gave every question the prompt it gets without a
/// folder, word for word (the time note aside): printed when both subjects ran.
fn same_prompts(ran: &[(Subject, Vec<Reply>)]) {
    let of = |s: Subject| {
        ran.iter()
            .find(|(r, _)| *r == s)
            .map(|(_, replies)| replies)
    };
    let (Some(empty), Some(none)) = (of(Subject::InitEmpty), of(Subject::InitNone)) else {
        return;
    };
    let same = empty
        .iter()
        .filter(|e| {
            none.iter()
                .any(|n| n.question.text == e.question.text && n.prompt == e.prompt)
        })
        .count();
    println!(
        "{}: {same}/{} prompts identical to {}'s (the time note aside)",
        Subject::InitEmpty.name(),
        empty.len(),
        Subject::InitNone.name()
    );
}
