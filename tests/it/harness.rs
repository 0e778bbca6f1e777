//! Runs the real daemon (`meshai::run_with`) in-process against a simulated node and a fake LLM,
//! in real time (the store has its own thread, so paused time would skip ahead of it), or in
//! paused time paced by [`VirtualPace`]. Also writes config files for tests that run the
//! `meshai` binary.

use std::path::Path;
use std::process::Stdio;
use std::sync::Arc;
use std::time::Duration;

use meshai::config::Config;
use meshai::knowledge::Reindex;
use tempfile::TempDir;
use tokio::task::JoinHandle;
use tokio_util::sync::{CancellationToken, DropGuard};

use crate::support::fake_llm::{FakeLlm, FakeRequest, FakeResponse};
use crate::support::sim_node::{SentText, SimConfig, SimNode};

/// Lets paused (virtual) time run while an in-process daemon waits on its database thread.
///
/// The store runs SQL on a thread of its own, outside the tokio runtime: while a task waits
/// for it the runtime looks idle, and a paused clock jumps to the next timer (the outbox's 2 s
/// gap, a 45 s ACK timeout) as if the store had taken that long. This task keeps a timer at
/// most one step ahead, so an idle runtime moves the clock by a step at most, and after each
/// step holds a blocking thread for one real millisecond — tokio does not move a paused clock
/// while a blocking task runs — in which the store answers. Virtual time so runs at most one
/// step per real millisecond while the daemon waits, and stands still while it computes. The
/// test runs on `#[tokio::test(start_paused = true)]`; dropping the pace stops it.
pub struct VirtualPace(JoinHandle<()>);

/// The steps of a [`VirtualPace`]: `fine` ones for the first `fine_for` of virtual time, then
/// `coarse` ones (hours of ACK timeouts pass quickly, while the start, where the database
/// works, stays fine).
#[derive(Debug, Clone, Copy)]
pub struct Steps {
    pub fine: Duration,
    pub fine_for: Duration,
    pub coarse: Duration,
}

impl Steps {
    /// The same step throughout.
    pub fn even(step: Duration) -> Steps {
        Steps {
            fine: step,
            fine_for: Duration::MAX,
            coarse: step,
        }
    }
}

impl VirtualPace {
    pub fn start(steps: Steps) -> VirtualPace {
        let started = tokio::time::Instant::now();
        VirtualPace(tokio::spawn(async move {
            loop {
                let real_ms = tokio::task::spawn_blocking(|| {
                    std::thread::sleep(Duration::from_millis(1));
                });
                // A failed blocking task only means the runtime is shutting down.
                if real_ms.await.is_err() {
                    return;
                }
                let step = if started.elapsed() < steps.fine_for {
                    steps.fine
                } else {
                    steps.coarse
                };
                tokio::time::sleep(step).await;
            }
        }))
    }
}

/// The pace of an in-process daemon test in paused time: steps of 10 ms throughout. A test
/// that waits for something not to happen (`sleep`, then no more packets) waits in virtual
/// time then: the daemon gets all the real time it needs, however loaded the machine.
pub fn paced() -> VirtualPace {
    VirtualPace::start(Steps::even(Duration::from_millis(10)))
}

impl Drop for VirtualPace {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// A directory for a test's database: in memory (`/dev/shm`) where there is one, so that a
/// paced paused-time test does not count disk flushes as virtual time.
pub fn db_dir() -> TempDir {
    tempfile::tempdir_in("/dev/shm")
        .or_else(|_| tempfile::tempdir())
        .expect("tempdir")
}

/// Makes `nodes` known in the database at `db` before the daemon opens it, as two completed
/// exchanges half a day apart did (two days and one day ago): one ACK, or a test's few, makes
/// no node known (`responder::schedule::standing::KNOWN_AFTER`).
pub async fn know_before(db: &Path, nodes: impl IntoIterator<Item = u32>) {
    use meshai::node::NodeId;
    use meshai::store::{Over, Store};
    let store = Store::open(db).expect("the database opens");
    let now = meshai::clock::unix_now();
    for node in nodes {
        for at in [now - 2 * 86_400, now - 86_400] {
            let noted = store
                .note_exchange(NodeId(node), Over::Channel, at, 12 * 3600)
                .await
                .expect("exchange noted");
            assert_eq!(noted.known, at == now - 86_400, "known after the second");
        }
    }
    store.close().await.expect("closes");
}

/// A daemon on a node paced like the firmware (ACKs after [`BENCH_ACK_DELAY`], texts
/// [`BENCH_GAP_MS`] apart, the 45 s ACK timeout), the echo model with these `[llm]` lines,
/// `extra` config, and `known` known from before ([`know_before`]).
pub async fn firmware_paced_daemon(known: &[u32], extra: &str, llm_lines: &str) -> Daemon {
    let sim = Arc::new(
        SimNode::start(SimConfig {
            ack_delay: BENCH_ACK_DELAY,
            ..SimConfig::default()
        })
        .await,
    );
    let llm = FakeLlm::start_echo().await;
    let dir = db_dir();
    let db = dir.path().join("meshai.db");
    know_before(&db, known.iter().copied()).await;
    let text = paced_like_firmware(
        &config_text_with(&sim, &llm.base_url(), &db, extra, llm_lines),
        BENCH_GAP_MS,
    );
    Daemon::start_with_text(sim, llm, dir, &text).await
}

/// The pace used in real-time daemon tests: short, so a 4-part reply takes well under a second,
/// and the simulated firmware enforces a slightly shorter gap (scheduling jitter on a loaded
/// machine must not turn into refusals here; the exact 2 s rule is tested in paused time).
pub const GAP_MS: u64 = 60;

/// Generous upper bound for anything the daemon should do promptly.
pub const SOON: Duration = Duration::from_secs(20);

/// Longer than the link's 2 s between two publications of the mesh view.
pub const VIEW_SETTLES: Duration = Duration::from_millis(2500);

/// Waits until the daemon's mesh view has what `sim` sent so far: the packets have left the
/// node's queue to the daemon, then [`VIEW_SETTLES`] passes, in which the link publishes its
/// view (at most every 2 s). Nothing outside the daemon shows that publication but an
/// answer from the view, so this waits the interval out (virtual time in a paused test).
pub async fn view_settled(sim: &SimNode) {
    assert!(
        sim.wait_idle(SOON).await,
        "the node's packets reach the daemon"
    );
    tokio::time::sleep(VIEW_SETTLES).await;
}

pub fn sim_config() -> SimConfig {
    SimConfig {
        ack_delay: Duration::from_millis(5),
        min_text_gap: Duration::from_millis(GAP_MS * 3 / 4),
        log_text: true,
        ..SimConfig::default()
    }
}

/// Spawns the `meshai` binary as `meshai run --config <config>` with `RUST_LOG=<log>`:
/// stdout discarded, stderr (its log) going to `stderr`, killed when dropped.
pub fn spawn_meshai(config: &Path, log: &str, stderr: Stdio) -> tokio::process::Child {
    tokio::process::Command::new(env!("CARGO_BIN_EXE_meshai"))
        .args(["run", "--config"])
        .arg(config)
        .env("RUST_LOG", log)
        .stdout(Stdio::null())
        .stderr(stderr)
        .kill_on_drop(true)
        .spawn()
        .expect("spawn meshai")
}

/// A config file's text for the daemon under test. `extra` is appended (extra sections);
/// unless `extra` has its own `[limits]`, the per-node rate limit and the budget of a node
/// heard for the first time are lifted (every test node is new to a fresh database).
pub fn config_text(sim: &SimNode, llm_url: &str, db: &Path, extra: &str) -> String {
    config_text_with(sim, llm_url, db, extra, "timeout_secs = 3")
}

/// [`config_text`] with the `[llm]` lines besides `base_url` and `model` given, e.g. a longer
/// time budget for a real model on a CPU.
pub fn config_text_with(
    sim: &SimNode,
    llm_url: &str,
    db: &Path,
    extra: &str,
    llm_lines: &str,
) -> String {
    let limits = if extra.contains("[limits]") {
        ""
    } else {
        "[limits]\nnode_messages = 10000\nnew_node_parts = 10\n"
    };
    format!(
        r#"[radio]
tcp = "{addr}"
send_gap_ms = {GAP_MS}
ack_timeout_secs = 5
handshake_timeout_secs = 5

[llm]
base_url = "{llm_url}"
model = "fake-model"
{llm_lines}

[storage]
database = "{db}"

{limits}
{extra}
"#,
        addr = sim.addr(),
        db = db.display(),
    )
}

/// A [`config_text_with`] text paced like a real node instead of the tests' short pace:
/// `gap_ms` between texts and the default 45 s ACK timeout (for benches on a real model).
pub fn paced_like_firmware(text: &str, gap_ms: u64) -> String {
    text.replace(
        &format!("send_gap_ms = {GAP_MS}"),
        &format!("send_gap_ms = {gap_ms}"),
    )
    .replace("ack_timeout_secs = 5", "ack_timeout_secs = 45")
}

/// The real-model benches' radio: a one-hop DM on LongFast, 2 s between texts (the node
/// refuses a text < 1.9 s after the previous one, leaving 100 ms of scheduling jitter) and
/// each part's ACK after 1.5 s.
pub const BENCH_GAP_MS: u64 = 2000;
pub const BENCH_ACK_DELAY: Duration = Duration::from_millis(1500);

/// A daemon for a real-model bench: the model server at `llm_url` with these `[llm]` lines,
/// the simulated node `sim` (its pacing set to the benches' radio), `extra` config sections.
/// Only the benches use it.
#[allow(dead_code)]
pub async fn bench_daemon(llm_url: &str, sim: SimConfig, llm_lines: &str, extra: &str) -> Daemon {
    let sim = Arc::new(
        SimNode::start(SimConfig {
            ack_delay: BENCH_ACK_DELAY,
            min_text_gap: Duration::from_millis(BENCH_GAP_MS - 100),
            log_text: true,
            ..sim
        })
        .await,
    );
    let placeholder = FakeLlm::start_echo().await;
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join("meshai.db");
    let text = paced_like_firmware(
        &config_text_with(&sim, llm_url, &db, extra, llm_lines),
        BENCH_GAP_MS,
    );
    Daemon::start_with_text(sim, placeholder, dir, &text).await
}

pub fn parse_config(text: &str) -> Config {
    let (config, _warnings) =
        meshai::config::parse(text, "test.toml", &|_| None).expect("test config parses");
    config
}

/// Whether a packet ends its reply: it has no marker, or the ` n/n` one (not ` i/?`).
pub fn is_last_part(text: &str) -> bool {
    match text.rsplit_once(' ').and_then(|(_, m)| m.split_once('/')) {
        Some((i, n)) if !i.is_empty() && i.bytes().all(|b| b.is_ascii_digit()) => i == n,
        _ => true,
    }
}

/// Whether `texts` ends with a complete reply.
pub fn ends_reply(texts: &[SentText]) -> bool {
    texts.last().is_some_and(|t| is_last_part(&t.text))
}

/// Is this request a summary update (rather than a reply)?
pub fn is_summary(req: &FakeRequest) -> bool {
    req.is_summary()
}

/// The reply requests only: no summary, no warm-up after one (`FakeRequest::is_prefill`).
pub fn replies(llm: &FakeLlm) -> Vec<FakeRequest> {
    llm.requests()
        .into_iter()
        .filter(|r| !is_summary(r) && !r.is_prefill())
        .collect()
}

/// Waits until the texts after `before` to `node` form a complete answer (an unmarked part or
/// the `n/n` one, not ` i/?`); returns them. Only the benches use it.
#[allow(dead_code)]
pub async fn answer_to(sim: &SimNode, node: u32, before: usize) -> Vec<SentText> {
    let done = sim
        .wait_for(Duration::from_secs(600), |l| {
            let mine: Vec<&SentText> = l.texts[before..].iter().filter(|t| t.to == node).collect();
            mine.last().is_some_and(|last| is_last_part(&last.text))
        })
        .await;
    assert!(done, "no complete answer");
    sim.texts()[before..]
        .iter()
        .filter(|t| t.to == node)
        .cloned()
        .collect()
}

/// A running daemon with its fakes.
pub struct Daemon {
    pub sim: Arc<SimNode>,
    pub llm: FakeLlm,
    pub dir: TempDir,
    /// Asks the daemon to reindex its knowledge folder (what SIGHUP does in `main.rs`).
    pub reindex: Reindex,
    shutdown: CancellationToken,
    task: Option<JoinHandle<anyhow::Result<()>>>,
    /// Stops the daemon when a test ends early (panics) without calling `stop`.
    _guard: DropGuard,
}

impl Daemon {
    /// Starts the fakes and the daemon with `extra` config sections, waits for the handshake.
    pub async fn start(extra: &str) -> Daemon {
        Daemon::start_llm(extra, "timeout_secs = 3").await
    }

    /// Like [`Daemon::start`], with these `[llm]` lines (see [`config_text_with`]).
    pub async fn start_llm(extra: &str, llm_lines: &str) -> Daemon {
        let sim = Arc::new(SimNode::start(sim_config()).await);
        let llm = FakeLlm::start_echo().await;
        let url = llm.base_url();
        Daemon::start_with_llm_url(sim, llm, db_dir(), extra, &url, llm_lines).await
    }

    pub async fn start_with(sim: Arc<SimNode>, llm: FakeLlm, dir: TempDir, extra: &str) -> Daemon {
        let url = llm.base_url();
        Daemon::start_with_llm_url(sim, llm, dir, extra, &url, "timeout_secs = 3").await
    }

    /// Like [`Daemon::start_with`], but the daemon talks to the LLM at `llm_url` (e.g. a
    /// real server) with these `[llm]` lines (see [`config_text_with`]); `llm` stays unused.
    pub async fn start_with_llm_url(
        sim: Arc<SimNode>,
        llm: FakeLlm,
        dir: TempDir,
        extra: &str,
        llm_url: &str,
        llm_lines: &str,
    ) -> Daemon {
        let db = dir.path().join("meshai.db");
        let text = config_text_with(&sim, llm_url, &db, extra, llm_lines);
        Daemon::start_with_text(sim, llm, dir, &text).await
    }

    /// Starts the daemon with this whole config text (see [`config_text_with`]).
    pub async fn start_with_text(
        sim: Arc<SimNode>,
        llm: FakeLlm,
        dir: TempDir,
        text: &str,
    ) -> Daemon {
        init_logging();
        let config = parse_config(text);
        let handshakes = sim.handshakes();
        let shutdown = CancellationToken::new();
        let reindex = Reindex::default();
        let task = tokio::spawn(meshai::run_with(config, shutdown.clone(), reindex.clone()));
        sim.wait_handshakes(handshakes + 1, SOON).await;
        let _guard = shutdown.clone().drop_guard();
        Daemon {
            sim,
            llm,
            dir,
            reindex,
            shutdown,
            task: Some(task),
            _guard,
        }
    }

    /// Graceful stop (what SIGTERM does); returns `run`'s result.
    pub async fn stop(mut self) -> (anyhow::Result<()>, Arc<SimNode>, FakeLlm, TempDir) {
        self.shutdown.cancel();
        let result = match self.task.take() {
            Some(task) => tokio::time::timeout(SOON, task)
                .await
                .expect("the daemon stops within the timeout")
                .expect("the daemon task did not panic"),
            None => Ok(()),
        };
        (result, self.sim, self.llm, self.dir)
    }

    /// Injects a DM and waits until the sim has `texts_before + n` texts.
    pub async fn dm_and_wait(&self, from: u32, text: &str, n: usize) -> Vec<String> {
        let before = self.sim.texts().len();
        self.sim.inject_dm(from, text, None);
        let texts = self.sim.wait_texts(before + n, SOON).await;
        texts[before..].iter().map(|t| t.text.clone()).collect()
    }

    /// Injects a DM and waits up to `wait` for a complete reply after it (its last part is
    /// unnumbered or ` n/n`); returns the reply's texts. Panics when none completes.
    pub async fn ask(&self, from: u32, text: &str, wait: Duration) -> Vec<SentText> {
        let before = self.sim.texts().len();
        self.sim.inject_dm(from, text, None);
        let done = self
            .sim
            .wait_for(wait, |l| {
                l.texts.len() > before && ends_reply(&l.texts[before..])
            })
            .await;
        let texts = self.sim.texts();
        assert!(
            done,
            "no complete reply to {text:?}: {:?}",
            &texts[before..]
        );
        texts[before..].to_vec()
    }

    /// Waits until the daemon has finished `n` reindexes of its knowledge folder since it
    /// started (the first runs at start).
    pub async fn indexed(&self, n: u64) {
        let mut finished = self.reindex.finished();
        let waited = tokio::time::timeout(SOON, finished.wait_for(|done| *done >= n)).await;
        assert!(
            matches!(waited, Ok(Ok(_))),
            "the knowledge folder was not indexed {n} times"
        );
    }

    /// Asks for a reindex (SIGHUP's) and waits until it has finished.
    pub async fn reindexed(&self) {
        let done = *self.reindex.finished().borrow();
        self.reindex.request();
        self.indexed(done + 1).await;
    }

    /// Replaces the fake LLM's behaviour for reply requests; summaries keep `summarizer`.
    pub fn answer_with(&self, f: impl Fn(&FakeRequest) -> FakeResponse + Send + Sync + 'static) {
        self.llm.set_behaviour(move |req| {
            if is_summary(req) {
                summarizer(req)
            } else {
                f(req)
            }
        });
    }
}

/// A fake summariser that behaves like a careful model: it keeps every word that looks like a
/// fact to keep (callsigns, numbers, capitalised names) from the previous summary and the new
/// lines, within 300 characters.
pub fn summarizer(req: &FakeRequest) -> FakeResponse {
    // The previous summary (in the system message) and the folded messages, not the request.
    let all = req.messages[..req.messages.len().saturating_sub(1)]
        .iter()
        .map(|m| m.content.as_str())
        .collect::<Vec<_>>()
        .join(" ");
    let text = all.as_str();
    let mut facts: Vec<String> = Vec::new();
    for word in text.split(|c: char| !c.is_alphanumeric()) {
        let keep = word.len() >= 3
            && word.chars().any(|c| c.is_ascii_digit())
            && word.chars().any(|c| c.is_ascii_uppercase());
        if keep && !facts.iter().any(|f| f == word) {
            facts.push(word.to_string());
        }
    }
    if facts.is_empty() {
        // A label alone is no summary (meshai refuses it): say so in a sentence.
        return FakeResponse::Text("No facts to keep yet.".into());
    }
    let mut out = String::from("Facts:");
    for f in facts {
        if out.len() + f.len() + 1 > 300 {
            break;
        }
        out.push(' ');
        out.push_str(&f);
    }
    FakeResponse::Text(out)
}

/// Daemon logs in test output when `RUST_LOG` is set (e.g. `RUST_LOG=meshai=debug`).
pub fn init_logging() {
    if std::env::var_os("RUST_LOG").is_some() {
        let _ = tracing_subscriber::fmt()
            .with_env_filter(tracing_subscriber::EnvFilter::from_default_env())
            .with_test_writer()
            .try_init();
    }
}

/// `text` with the time note's clock masked ("This message was sent …"): two turns a minute
/// apart differ only there.
pub fn masked_clock(text: &str) -> String {
    text.split('\n')
        .map(|l| {
            if l.starts_with("This message was sent ") {
                "This message was sent …"
            } else {
                l
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}
