//! A damaged database degrades, never silences: a search index damaged while the daemon runs
//! costs retrieval only (and is rebuilt at the next start, or by a `!reset` that needs it);
//! random bytes over pages of the file leave a daemon that starts, says once that the file is
//! damaged, answers without memory and answers `!reset`; `meshai check` reports the damage.
//! A damaged key table fails trust closed: no DM without PKI gets a memory or runs a command,
//! PKI DMs are answered without memory, and `!status` and `meshai check` say so.

use std::io::{Seek, SeekFrom, Write};
use std::path::Path;
use std::process::Stdio;
use std::sync::Arc;
use std::time::Duration;

use rusqlite::Connection;

use meshai::node::NodeId;
use meshai::store::Store;

use crate::harness::{Daemon, SOON, config_text, paced, replies, sim_config, spawn_meshai};
use crate::support::fake_llm::{FakeLlm, FakeRequest, echo};
use crate::support::sim_node::{MeshPacketSpec, SimNode};
use crate::trust::{ask_with, joined, said};

const ANN: u32 = 0xa1a1_0001;

/// What `!reset` says when it worked.
const RESET_DONE: &str = "Done: I forgot our conversation and everything I remembered about you.";

/// The start of what a command that needs the memory says when the file is damaged.
const DAMAGED: &str = "Sorry, my memory store is damaged";

/// Overwrites the search index's segment rows (not its structure record) with random bytes,
/// through a second connection, as a bad sector under them would.
fn damage_index(db: &Path) {
    let raw = Connection::open(db).expect("db");
    let n = raw
        .execute(
            "UPDATE exchanges_fts_data SET block = randomblob(length(block)) WHERE id > 10",
            [],
        )
        .expect("overwrite the index");
    assert!(n > 0, "the index has segments");
}

/// Waits until the node has a saved summary (its older exchanges are then retrievable).
async fn wait_summary(db: &Path) {
    let raw = Connection::open(db).expect("db");
    let deadline = tokio::time::Instant::now() + SOON;
    while tokio::time::Instant::now() < deadline {
        let n: i64 = raw
            .query_row("SELECT count(*) FROM summaries", [], |r| r.get(0))
            .unwrap_or(0);
        if n > 0 {
            return;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("no summary was saved");
}

/// The reply request whose new message is `text`.
fn request_for(llm: &FakeLlm, text: &str) -> FakeRequest {
    replies(llm)
        .into_iter()
        .rev()
        .find(|r| r.last_user() == text)
        .unwrap_or_else(|| panic!("no request for {text:?}"))
}

/// Whether the request carries retrieved exchanges mentioning `word`.
fn retrieved(req: &FakeRequest, word: &str) -> bool {
    req.messages.iter().any(|m| {
        m.role == "system"
            && m.content.contains(meshai::memory::layout::RETRIEVED_INTRO)
            && m.content.contains(word)
    })
}

#[tokio::test(start_paused = true)]
async fn a_damaged_search_index_costs_only_retrieval() {
    let _pace = paced();
    let extra = "[memory]\nwindow_messages = 2\nsummarize_threshold = 2\n";
    let d = Daemon::start(extra).await;
    d.answer_with(echo);
    let db = d.dir.path().join("meshai.db");
    // A question, not a statement: its exchange is found by retrieval (a kept fact would be
    // in the memory block instead).
    d.ask(ANN, "Would a yagi7 on the roof reach the hill?", SOON)
        .await;
    for i in 0..5 {
        d.ask(ANN, &format!("filler line {i}"), SOON).await;
    }
    wait_summary(&db).await;

    // Healthy: the yagi7 exchange, folded into the summary, is retrieved.
    let question = "Which yagi7 do I have?";
    d.ask(ANN, question, SOON).await;
    assert!(retrieved(&request_for(&d.llm, question), "yagi7"));

    // Damaged while running: answered all the same, with the rest of the memory.
    damage_index(&db);
    let question = "Which yagi7 antenna again?";
    let sent = d.ask(ANN, question, SOON).await;
    assert_eq!(sent[0].text, format!("echo: {question}"));
    let req = request_for(&d.llm, question);
    assert!(!retrieved(&req, "yagi7"), "{:#?}", req.messages);
    assert!(
        req.messages.iter().any(|m| m.role == "assistant"),
        "the window is still there: {:#?}",
        req.messages
    );
    assert!(
        req.messages
            .iter()
            .any(|m| m.content.starts_with(meshai::memory::layout::MEMORY_INTRO)),
        "the summary is still there: {:#?}",
        req.messages
    );

    // The next start finds the damage and rebuilds the index from the messages.
    let (result, sim, llm, dir) = d.stop().await;
    result.expect("a clean stop");
    let d = Daemon::start_with(sim, llm, dir, extra).await;
    let question = "Tell me about my yagi7 once more.";
    d.ask(ANN, question, SOON).await;
    assert!(retrieved(&request_for(&d.llm, question), "yagi7"));

    // Damaged again: a reset, which needs the index, rebuilds it and forgets.
    damage_index(&db);
    let sent = d.ask(ANN, "!reset", SOON).await;
    assert_eq!(sent[0].text, RESET_DONE);
    let (result, ..) = d.stop().await;
    result.expect("a clean stop");
}

/// Writes bytes over pages 2 to 5 of the file (4 KiB pages): tables' and indexes' pages.
fn damage_pages(db: &Path) {
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .open(db)
        .expect("db");
    f.seek(SeekFrom::Start(4096)).expect("seek");
    let junk: Vec<u8> = (0..4 * 4096u32).map(|i| (i * 7919 % 251) as u8).collect();
    f.write_all(&junk).expect("write");
}

#[tokio::test]
async fn random_bytes_over_the_file_leave_a_daemon_that_answers_without_memory() {
    // A database with a conversation, closed (checkpointed) by a clean stop.
    let d = Daemon::start("").await;
    for i in 0..6 {
        d.ask(ANN, &format!("my callsign is K{i}ABC, remember it"), SOON)
            .await;
    }
    let (result, sim, llm, dir) = d.stop().await;
    result.expect("a clean stop");
    let db = dir.path().join("meshai.db");
    damage_pages(&db);

    // The binary, with its log in a file.
    let config = dir.path().join("config.toml");
    std::fs::write(&config, config_text(&sim, &llm.base_url(), &db, "")).expect("config");
    let log_path = dir.path().join("meshai.log");
    let log = std::fs::File::create(&log_path).expect("log file");
    let handshakes = sim.handshakes();
    let mut child = spawn_meshai(&config, "info", Stdio::from(log));
    sim.wait_handshakes(handshakes + 1, SOON).await;

    for i in 0..3 {
        let before = sim.texts().len();
        let text = format!("what is my callsign? ({i})");
        sim.inject_dm(ANN, &text, None);
        let sent = sim.wait_texts(before + 1, SOON).await;
        assert_eq!(sent[before].text, format!("echo: {text}"));
        let req = request_for(&llm, &text);
        let users = req.messages.iter().filter(|m| m.role == "user").count();
        let said = req
            .messages
            .iter()
            .filter(|m| m.role == "assistant")
            .count();
        assert_eq!((users, said), (1, 0), "no memory: {:#?}", req.messages);
    }
    let before = sim.texts().len();
    sim.inject_dm(ANN, "!reset", None);
    let reset = sim.wait_texts(before + 1, SOON).await[before].text.clone();
    assert!(
        reset == RESET_DONE || reset.starts_with(DAMAGED),
        "a sensible answer: {reset:?}"
    );
    let before = sim.texts().len();
    sim.inject_dm(ANN, "!status", None);
    let status = sim.wait_texts(before + 1, SOON).await[before].text.clone();
    assert!(status.contains("Memory store damaged"), "{status}");
    child.start_kill().expect("kill");
    let _ = child.wait().await;

    let log = std::fs::read_to_string(&log_path).expect("log");
    eprintln!("reset: {reset}\nstatus: {status}\nlog:\n{log}");
    assert_eq!(
        log.matches("the database file is damaged").count(),
        1,
        "said once: {log}"
    );
    assert!(log.contains("A damaged database"), "with what to do: {log}");
    assert!(!log.contains("memory store failed"), "{log}");

    // `meshai check` reports it, with the advice.
    let (line, advice) = check_database(&config).await;
    assert!(line.contains("the file is damaged"), "{line}");
    assert!(
        advice.contains("answers without memory") && advice.contains("A damaged database"),
        "{advice}"
    );
}

#[tokio::test]
async fn check_reports_a_damaged_search_index() {
    let sim = Arc::new(SimNode::start(sim_config()).await);
    let d = Daemon::start_with(
        sim,
        FakeLlm::start_echo().await,
        tempfile::tempdir().expect("tempdir"),
        "",
    )
    .await;
    for i in 0..3 {
        d.ask(ANN, &format!("the antenna number {i}"), SOON).await;
    }
    let (result, sim, llm, dir) = d.stop().await;
    result.expect("a clean stop");
    let db = dir.path().join("meshai.db");
    damage_index(&db);
    let config = dir.path().join("config.toml");
    std::fs::write(&config, config_text(&sim, &llm.base_url(), &db, "")).expect("config");
    let (line, advice) = check_database(&config).await;
    assert!(line.contains("its search index is damaged"), "{line}");
    assert!(advice.contains("rebuilds it at its next start"), "{advice}");
}

/// Runs `meshai check` on `config`: its `✗ database` line and the advice under it.
async fn check_database(config: &Path) -> (String, String) {
    let out = tokio::process::Command::new(env!("CARGO_BIN_EXE_meshai"))
        .args(["check", "--config"])
        .arg(config)
        .env_remove("RUST_LOG")
        .output()
        .await
        .expect("meshai check");
    let out = String::from_utf8_lossy(&out.stdout).into_owned();
    let mut lines = out.lines().skip_while(|l| !l.starts_with("✗ database"));
    let line = lines
        .next()
        .unwrap_or_else(|| panic!("no database line: {out}"));
    let advice = lines.next().unwrap_or_default();
    (line.to_string(), advice.to_string())
}

/// Writes bytes over the root page of `table`, as a bad sector under it would.
fn damage_table(db: &Path, table: &str) {
    let (root, page_size) = {
        let raw = Connection::open(db).expect("db");
        let root: i64 = raw
            .query_row(
                "SELECT rootpage FROM sqlite_master WHERE name = ?1",
                [table],
                |r| r.get(0),
            )
            .expect("the table's root page");
        let size: i64 = raw
            .query_row("PRAGMA page_size", [], |r| r.get(0))
            .expect("page size");
        (root as u64, size as u64)
    };
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .open(db)
        .expect("db");
    f.seek(SeekFrom::Start((root - 1) * page_size))
        .expect("seek");
    let junk: Vec<u8> = (0..page_size).map(|i| (i * 7919 % 251) as u8).collect();
    f.write_all(&junk).expect("write");
}

/// `node`'s stored messages' texts, read through a second connection.
async fn texts_of(db: &Path, node: u32) -> Vec<String> {
    let path = db.to_path_buf();
    let store = tokio::task::spawn_blocking(move || Store::open(&path))
        .await
        .expect("open task")
        .expect("the database opens");
    let history = store.history(NodeId(node), 100).await.expect("history");
    store.close().await.expect("close");
    history.into_iter().map(|m| m.text).collect()
}

const KEY: [u8; 32] = [0x11; 32];
const BOB: u32 = 0xb0b0_0002;

/// Random bytes over the key table's root page: a forged DM without PKI with a PKI user's id
/// gets none of her memory, is stored nowhere and runs no command; her real PKI DMs are
/// answered without memory; a node that never used PKI is answered without memory too (no
/// DM without PKI can be told from a forgery); `!status` and `meshai check` say so, with the
/// way out.
#[tokio::test(start_paused = true)]
async fn a_damaged_key_table_fails_trust_closed() {
    let _pace = paced();
    let pki = |text: &str| MeshPacketSpec::pki(ANN, text, KEY);
    let plain = |from, text: &str| MeshPacketSpec::text(from, text);
    let d = Daemon::start("").await;
    ask_with(&d, ANN, pki("My door code is 4711.")).await;
    ask_with(&d, BOB, plain(BOB, "My boat is the Blue Heron.")).await;
    let (result, sim, llm, dir) = d.stop().await;
    result.expect("a clean stop");
    let db = dir.path().join("meshai.db");
    let ann_before = texts_of(&db, ANN).await;
    assert_eq!(ann_before.len(), 2, "{ann_before:?}");
    damage_table(&db, "node_keys");

    let d = Daemon::start_with(sim, llm, dir, "").await;
    // A forgery with her id: answered from the message alone, stored nowhere.
    let reply = ask_with(&d, ANN, plain(ANN, "what is my door code?")).await;
    assert_eq!(joined(&reply), "echo: what is my door code?");
    let req = replies(&d.llm).pop().expect("request");
    assert!(!said(&req).contains("4711"), "{}", said(&req));
    // No command at all, not even `!help`.
    for command in ["!reset", "!summary", "!help"] {
        let refused = joined(&ask_with(&d, ANN, plain(ANN, command)).await);
        assert!(
            refused.starts_with("I can't check who sent this"),
            "{command}: {refused}"
        );
    }
    // Her own PKI DM: answered, without memory, and nothing stored.
    let reply = ask_with(&d, ANN, pki("and my door code?")).await;
    assert!(reply.iter().all(|t| t.pki_encrypted), "{reply:?}");
    let req = replies(&d.llm).pop().expect("request");
    assert!(!said(&req).contains("4711"), "{}", said(&req));
    let status = joined(&ask_with(&d, ANN, pki("!status")).await);
    assert!(status.contains("Key table unreadable"), "{status}");
    // A node that never used PKI cannot be told from a forgery either.
    ask_with(&d, BOB, plain(BOB, "what is my boat called?")).await;
    let req = replies(&d.llm).pop().expect("request");
    assert!(!said(&req).contains("Blue Heron"), "{}", said(&req));
    let (result, sim, llm, dir) = d.stop().await;
    result.expect("a clean stop");
    assert_eq!(
        texts_of(&db, ANN).await,
        ann_before,
        "nothing stored into her memory"
    );
    assert_eq!(texts_of(&db, BOB).await.len(), 2, "nor into his");

    let config = dir.path().join("config.toml");
    std::fs::write(&config, config_text(&sim, &llm.base_url(), &db, "")).expect("config");
    let (line, advice) = check_database(&config).await;
    assert!(
        line.contains("the key table (node_keys) cannot be read"),
        "{line}"
    );
    assert!(
        advice.contains("trust fails closed") && advice.contains("A damaged"),
        "{advice}"
    );
}
