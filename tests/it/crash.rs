//! Crash safety: the real `meshai` binary is killed with SIGKILL at random points of a busy
//! run, five times over the same database. After each kill: `PRAGMA integrity_check` is ok,
//! every user message the daemon acknowledged (by answering it) is stored, and every summary
//! agrees with its cursor (text and cursor are written in one transaction). And a kill in the
//! middle of a streamed answer keeps the parts that went on air: the next turn's prompt
//! carries them as the assistant's message. On the wall clock: the daemon is a child process,
//! killed at moments of real time.

use std::collections::HashSet;
use std::process::Stdio;
use std::sync::Arc;
use std::time::Duration;

use rand::{Rng, SeedableRng};
use rusqlite::Connection;

use meshai::chunk::strip_marker;

use crate::harness::{SOON, config_text, config_text_with, is_summary, sim_config, spawn_meshai};
use crate::support::fake_llm::{
    FakeLlm, FakeRequest, FakeResponse, FakeStream, StreamEnd, without_header,
};
use crate::support::sim_node::SimNode;

/// Messages a fold leaves verbatim here.
const KEEP: i64 = 4;

/// The summariser names the last user line of its request, so a test can tell whether the
/// saved cursor belongs to the saved text: the request goes on from the node's whole
/// conversation, the messages it folds and then the (at most `KEEP` + 1) it keeps.
fn marking_summarizer(req: &FakeRequest) -> FakeResponse {
    // The conversation is the request's turns; its last message asks for the summary.
    let turns = &req.messages[..req.messages.len().saturating_sub(1)];
    let last = turns
        .iter()
        .rev()
        .find(|m| m.role == "user")
        .map(|m| m.content.as_str());
    FakeResponse::Text(format!("upto={}", last.unwrap_or("none")))
}

fn behaviour(req: &FakeRequest) -> FakeResponse {
    if is_summary(req) {
        marking_summarizer(req)
    } else {
        FakeResponse::Text(format!("ok {}", req.last_user()))
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kill_9_at_random_points_keeps_the_store_consistent() {
    let seed: u64 = std::env::var("MESHAI_CRASH_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(rand::random);
    eprintln!("crash test seed {seed} (rerun with MESHAI_CRASH_SEED={seed})");
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    let sim = Arc::new(SimNode::start(sim_config()).await);
    let llm = FakeLlm::start(behaviour).await;
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join("meshai.db");
    let extra = format!("[memory]\nwindow_messages = {KEEP}\nsummarize_threshold = 4\n");
    let config = dir.path().join("config.toml");
    std::fs::write(&config, config_text(&sim, &llm.base_url(), &db, &extra)).expect("config");

    let mut sent = 0u32;
    for round in 0..5 {
        let mut child = spawn_meshai(&config, "warn", Stdio::null());
        sim.wait_handshakes(round + 1, SOON).await;
        // Busy: DMs from four nodes every few ms, killed after a random time.
        let kill_after = Duration::from_millis(rng.random_range(150..1500));
        let deadline = tokio::time::Instant::now() + kill_after;
        while tokio::time::Instant::now() < deadline {
            let node = 0xc0de_0000 + sent % 4;
            sim.inject_dm(node, &format!("msg{sent}"), None);
            sent += 1;
            tokio::time::sleep(Duration::from_millis(rng.random_range(5..40))).await;
        }
        child.start_kill().expect("SIGKILL");
        let status = child.wait().await.expect("wait");
        assert!(!status.success(), "killed, not exited");
        check_store(&db, &sim, round);
    }
    assert!(sent > 20, "the runs were busy ({sent} DMs)");

    // After the last kill, a fresh start still remembers: the next prompt of a node carries
    // its earlier messages (its window, and its summary once one was made).
    let node = 0xc0de_0000;
    let mut child = spawn_meshai(&config, "warn", Stdio::null());
    sim.wait_handshakes(6, SOON).await;
    let before = llm.requests().len();
    sim.inject_dm(node, "after the crash", None);
    // The restarted daemon may ask the model something else first (a summary due since
    // before the kill): wait on until the DM's own request comes.
    let mut want = before + 1;
    let req = loop {
        let reqs = llm.wait_requests(want, SOON).await;
        if let Some(r) = reqs
            .iter()
            .find(|r| r.last_user().contains("after the crash"))
        {
            break r.clone();
        }
        want = reqs.len() + 1;
    };
    // This node's DMs were msg0, msg4, msg8, ... (sent % 4 == 0).
    let of_node = |text: &str| {
        text.strip_prefix("msg")
            .and_then(|n| n.parse::<u32>().ok())
            .is_some_and(|n| n % 4 == 0)
    };
    let remembered = req
        .messages
        .iter()
        .filter(|m| m.role == "user" && of_node(&m.content))
        .count();
    assert!(
        remembered > 0,
        "memory kept across kill -9: {:#?}",
        req.messages
    );
    let _ = child.start_kill();
}

fn check_store(db: &std::path::Path, sim: &SimNode, round: usize) {
    let conn = Connection::open(db).expect("open the database");
    let ok: String = conn
        .query_row("PRAGMA integrity_check", [], |r| r.get(0))
        .expect("integrity_check");
    assert_eq!(ok, "ok", "round {round}");

    // Every answered DM: its user message is stored.
    let mut stmt = conn
        .prepare("SELECT text FROM messages WHERE role = 'user'")
        .expect("sql");
    let stored: HashSet<String> = stmt
        .query_map([], |r| r.get::<_, String>(0))
        .expect("query")
        .filter_map(Result::ok)
        .collect();
    let answered: Vec<String> = sim
        .texts()
        .iter()
        .filter_map(|t| t.text.strip_prefix("ok ").map(str::to_string))
        .collect();
    for q in &answered {
        assert!(
            stored.contains(q),
            "round {round}: answered {q:?} but it is not stored"
        );
    }

    // Every summary agrees with its cursor.
    let mut stmt = conn
        .prepare("SELECT node, text, through_id FROM summaries")
        .expect("sql");
    let rows: Vec<(i64, String, i64)> = stmt
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
        .expect("query")
        .filter_map(Result::ok)
        .collect();
    for (node, text, through) in &rows {
        // The line the summary names is the newest user line of its job: at or after the
        // newest one the cursor covers, and no more than the kept messages beyond it.
        let named = text.strip_prefix("upto=").unwrap_or_default();
        let named_id: Option<i64> = conn
            .query_row(
                "SELECT id FROM messages WHERE node = ?1 AND role = 'user' AND text = ?2",
                rusqlite::params![node, without_header(named)],
                |r| r.get(0),
            )
            .ok();
        let covered: Option<i64> = conn
            .query_row(
                "SELECT max(id) FROM messages WHERE node = ?1 AND role = 'user' AND id <= ?2",
                rusqlite::params![node, through],
                |r| r.get(0),
            )
            .ok()
            .flatten();
        let named_id = named_id.unwrap_or_else(|| {
            panic!("round {round}: node {node}: the summary names no stored line: {text:?}")
        });
        assert!(
            covered.is_some_and(|c| named_id >= c),
            "round {round}: node {node}: {text:?} is older than cursor {through}"
        );
        let beyond: i64 = conn
            .query_row(
                "SELECT count(*) FROM messages WHERE node = ?1 AND id > ?2 AND id <= ?3",
                rusqlite::params![node, through, named_id],
                |r| r.get(0),
            )
            .expect("count");
        assert!(
            beyond <= KEEP + 1,
            "round {round}: node {node}: {text:?} is {beyond} messages past cursor {through}"
        );
    }
    eprintln!(
        "round {round}: integrity ok, {} answered DMs stored, {} summaries consistent",
        answered.len(),
        rows.len()
    );
}

/// What the killed daemon's streamed answer says: 24 words of 7 characters per 150-character
/// part, so after 70 words three parts are certain and the fourth is still growing.
fn streamed_words() -> Vec<String> {
    (0..80).map(|i| format!("word{i:02} ")).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_kill_mid_answer_keeps_the_parts_that_went_on_air() {
    let sim = Arc::new(SimNode::start(sim_config()).await);
    let llm = FakeLlm::start(|req| {
        if req.last_user() == "tell me a long story" {
            // Three parts' worth and a bit, then nothing: the answer is still being written.
            FakeResponse::Stream(
                FakeStream {
                    tokens: streamed_words(),
                    every: Duration::from_millis(5),
                    end: StreamEnd::Done,
                }
                .ending(StreamEnd::StallAfter(70)),
            )
        } else {
            FakeResponse::Text(format!("ok {}", req.last_user()))
        }
    })
    .await;
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join("meshai.db");
    let config = dir.path().join("config.toml");
    let text = config_text_with(&sim, &llm.base_url(), &db, "", "timeout_secs = 60");
    std::fs::write(&config, text).expect("config");

    let mut child = spawn_meshai(&config, "warn", Stdio::null());
    sim.wait_handshakes(1, SOON).await;
    sim.inject_dm(0xa1a1_0001, "tell me a long story", None);
    let on_air = sim.wait_texts(3, SOON).await;
    let bodies: Vec<&str> = on_air.iter().map(|t| strip_marker(&t.text)).collect();
    let said = bodies.join(" ");
    assert!(on_air[2].text.ends_with(" 3/?"), "{on_air:?}");
    // The row follows the parts as they are handed over, before the answer ends.
    let conn = Connection::open(&db).expect("db");
    let stored = || {
        conn.query_row(
            "SELECT text FROM messages WHERE role = 'assistant'",
            [],
            |r| r.get::<_, String>(0),
        )
        .ok()
    };
    let deadline = tokio::time::Instant::now() + SOON;
    while stored().as_deref() != Some(said.as_str()) && tokio::time::Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(
        stored().as_deref(),
        Some(said.as_str()),
        "stored as handed over"
    );
    assert_eq!(sim.texts().len(), 3, "the fourth part was not sent");
    child.start_kill().expect("SIGKILL");
    let _ = child.wait().await;

    let mut child = spawn_meshai(&config, "warn", Stdio::null());
    sim.wait_handshakes(2, SOON).await;
    sim.inject_dm(0xa1a1_0001, "and then?", None);
    let deadline = tokio::time::Instant::now() + SOON;
    let req = loop {
        let found = llm
            .requests()
            .into_iter()
            .find(|r| r.last_user() == "and then?");
        if let Some(req) = found {
            break req;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "no request after the restart"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    let turns: Vec<(&str, &str)> = req
        .messages
        .iter()
        .filter(|m| m.role != "system")
        .map(|m| (m.role.as_str(), without_header(&m.content)))
        .collect();
    assert_eq!(
        turns,
        [
            ("user", "tell me a long story"),
            ("assistant", said.as_str()),
            ("user", "and then?")
        ],
        "the next prompt knows what went on air"
    );
    let _ = child.start_kill();
}
