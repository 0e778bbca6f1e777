//! A person is their key (firmware 2.8 renumbers every node once, from its key): a PKI DM
//! from a new number with a key pinned to another number continues that person's
//! conversation — memory and standing (full answers, not a new node's cap), replies to the
//! new number over PKI — also when the daemon restarted in between; the operator's commands
//! take either number. A new number with another key gets none of it, and DMs without PKI
//! claiming the old number get nothing. Only the number the key implies is a new number
//! (2.8's rule), and one holding someone else's conversation is never overwritten.

use meshai::node::NodeId;

use std::sync::Arc;

use crate::harness::{self, Daemon, config_text, db_dir, paced, parse_config, replies};
use crate::support::fake_llm::{FakeLlm, FakeResponse};
use crate::support::sim_node::{MeshPacketSpec, SentText, SimNode};
use crate::trust::{ask_with, said, stored};

const OLD: u32 = 0xa1c1_0001;
/// The number firmware 2.8 gives K1's node: its CRC-32 (`PublicKey::node`).
const NEW: u32 = 0xbc49_20d8;
const OTHER: u32 = 0x0e7e_0003;
const K1: [u8; 32] = [0x11; 32];
const K2: [u8; 32] = [0x22; 32];

/// A new node's answers are held to one part here; a proven one's are not.
const LIMITS: &str = "[limits]\nnode_messages = 10000\nnew_node_parts = 1\nnew_node_turns = 100\n";

/// Answers a question with a long text (several parts), an echo otherwise.
fn long_answers(d: &Daemon) {
    d.answer_with(|req| {
        let q = req.last_user();
        if q.contains("tell me") {
            FakeResponse::Text(format!(
                "{q}: {}",
                "Antennas matter more than power. ".repeat(12)
            ))
        } else {
            FakeResponse::Text(format!("echo: {q}"))
        }
    });
}

/// The daemon on [`LIMITS`], the old number known from exchanges on two days before (one ACK
/// makes no node known; the standing is what moves with the key).
async fn start_known() -> Daemon {
    let sim = Arc::new(SimNode::start(harness::sim_config()).await);
    let llm = FakeLlm::start_echo().await;
    let dir = db_dir();
    harness::know_before(&dir.path().join("meshai.db"), [OLD]).await;
    Daemon::start_with(sim, llm, dir, LIMITS).await
}

/// The model's view of the last question `from` asked over PKI with `key`, and the reply.
async fn pki_turn(d: &Daemon, from: u32, text: &str, key: [u8; 32]) -> (String, Vec<SentText>) {
    let reply = ask_with(d, from, MeshPacketSpec::pki(from, text, key)).await;
    let req = replies(&d.llm)
        .into_iter()
        .rev()
        .find(|r| r.last_user() == text)
        .expect("the question's request");
    (said(&req), reply)
}

/// The renumbered node as the new number sees it: its memory, full answers, PKI replies.
async fn the_new_number_is_the_same_person(d: &Daemon) {
    // Its first DM: the memory, and a known node's full answer (not a new node's one part).
    let (seen, reply) = pki_turn(d, NEW, "tell me my gate code", K1).await;
    assert!(seen.contains("1234"), "her memory: {seen}");
    assert!(reply.len() > 1, "the full answer, not the cap: {reply:?}");
    assert!(
        reply.iter().all(|t| t.to == NEW && t.pki_encrypted),
        "{reply:?}"
    );
    assert!(
        stored(d, OLD).await.is_empty(),
        "the old number keeps nothing"
    );
    assert!(stored(d, NEW).await.len() >= 4);
}

#[tokio::test(start_paused = true)]
async fn a_renumbered_node_keeps_its_memory_and_standing() {
    let _pace = paced();
    let d = start_known().await;
    long_answers(&d);
    pki_turn(&d, OLD, "My gate code is 1234.", K1).await;
    // A stranger's new node is held to one part.
    let (_, capped) = pki_turn(&d, OTHER, "tell me about the mesh", K2).await;
    assert_eq!(capped.len(), 1, "{capped:?}");

    the_new_number_is_the_same_person(&d).await;

    // A DM without PKI claiming the old number: nothing at all, no LLM call.
    let before = d.sim.texts().len();
    let calls = d.llm.requests().len();
    d.sim.inject_dm(OLD, "what is my gate code?", None);
    d.sim.inject_dm(OLD, "!summary", None);
    ask_with(&d, OTHER, MeshPacketSpec::pki(OTHER, "control", K2)).await;
    assert!(
        d.sim.texts()[before..].iter().all(|t| t.to != OLD),
        "{:?}",
        &d.sim.texts()[before..]
    );
    assert_eq!(d.llm.requests().len(), calls + 1, "only the control's call");

    // The operator's commands take either number and name both.
    let config = parse_config(&config_text(
        &d.sim,
        &d.llm.base_url(),
        &d.dir.path().join("meshai.db"),
        LIMITS,
    ));
    for asked in [OLD, NEW] {
        let mut out = Vec::new();
        meshai::cli::admin::history(&config, NodeId(asked), 20, &mut out)
            .await
            .expect("history");
        let out = String::from_utf8(out).expect("utf-8");
        assert!(
            out.contains(&format!("{} (earlier {})", NodeId(NEW), NodeId(OLD)))
                && out.contains("1234"),
            "{out}"
        );
    }
    // Issue 39: `meshai forget OLD` wiped her at her new number. A changing command on an
    // old number does nothing without --follow, and says which number it would act on.
    let mut out = Vec::new();
    let refused = meshai::cli::admin::forget(&config, NodeId(OLD), false, &mut out).await;
    let why = format!("{:#}", refused.expect_err("refused without --follow"));
    assert!(
        why.contains(&format!(
            "{} is an old number of {}",
            NodeId(OLD),
            NodeId(NEW)
        )) && why.contains("--follow"),
        "{why}"
    );
    assert!(stored(&d, NEW).await.len() >= 4, "her memory stays");
    let mut out = Vec::new();
    meshai::cli::admin::stats(&config, &mut out)
        .await
        .expect("stats");
    let out = String::from_utf8(out).expect("utf-8");
    assert!(
        out.contains(&format!(
            "renumbered: {} is now {} (same key)",
            NodeId(OLD),
            NodeId(NEW)
        )),
        "{out}"
    );
}

#[test]
fn new_is_the_number_k1_implies() {
    assert_eq!(meshai::node::PublicKey(K1).node(), NodeId(NEW));
}

/// Issue 39: one key took its memory to `!0badbeef`, and through 20 numbers. Any number but
/// the key's own is answered without memory, and nothing moves.
#[tokio::test(start_paused = true)]
async fn a_key_on_a_number_it_does_not_imply_moves_nothing() {
    let _pace = paced();
    let d = start_known().await;
    long_answers(&d);
    pki_turn(&d, OLD, "My gate code is 1234.", K1).await;
    for (i, from) in [0x0bad_beef_u32, 0x0bad_bee0, 0x0bad_bee1]
        .into_iter()
        .enumerate()
    {
        let asked = format!("what is my gate code? ({i})");
        let (seen, reply) = pki_turn(&d, from, &asked, K1).await;
        assert!(!seen.contains("1234"), "{seen}");
        assert!(
            !reply.is_empty() && reply.iter().all(|t| t.to == from),
            "{reply:?}"
        );
        assert!(
            stored(&d, from).await.is_empty(),
            "not stored under {from:#x}"
        );
    }
    let (seen, _) = pki_turn(&d, OLD, "and my gate code?", K1).await;
    assert!(
        seen.contains("1234"),
        "still hers at the old number: {seen}"
    );
    // `!summary` from a wrong number says why, in one line.
    let reply = ask_with(
        &d,
        0x0bad_beef,
        MeshPacketSpec::pki(0x0bad_beef, "!summary", K1),
    )
    .await;
    assert!(reply[0].text.contains("new number"), "{reply:?}");
}

/// Issue 39: a move onto a number deleted what a person without a pinned key had told the
/// bot there. Her conversation stays hers; nothing moves until the operator forgets it.
#[tokio::test(start_paused = true)]
async fn a_new_number_with_a_conversation_of_its_own_is_not_overwritten() {
    let _pace = paced();
    let d = start_known().await;
    long_answers(&d);
    pki_turn(&d, OLD, "My gate code is 1234.", K1).await;
    // Someone without PKI talks to the bot from NEW first.
    ask_with(&d, NEW, MeshPacketSpec::text(NEW, "My locker is 77.")).await;
    let (seen, reply) = pki_turn(&d, NEW, "tell me my gate code", K1).await;
    assert!(!seen.contains("1234") && !seen.contains("77"), "{seen}");
    assert!(!reply.is_empty(), "answered, without memory");
    let hers = stored(&d, NEW).await;
    assert!(
        hers.iter().any(|m| m.text.contains("locker is 77"))
            && !hers.iter().any(|m| m.text.contains("1234")),
        "{hers:?}"
    );
    assert!(
        stored(&d, OLD)
            .await
            .iter()
            .any(|m| m.text.contains("1234")),
        "the old number's memory stays where it was"
    );
}

#[tokio::test(start_paused = true)]
async fn a_renumbered_node_keeps_its_memory_across_a_restart() {
    let _pace = paced();
    let d = start_known().await;
    long_answers(&d);
    pki_turn(&d, OLD, "My gate code is 1234.", K1).await;
    // Its ACK comes back: an exchange completed, kept across the restart with the standing
    // earned before.
    tokio::time::sleep(std::time::Duration::from_secs(2)).await;
    let (result, sim, llm, dir) = d.stop().await;
    result.expect("a clean stop");
    let d = Daemon::start_with(sim, llm, dir, LIMITS).await;
    long_answers(&d);
    the_new_number_is_the_same_person(&d).await;
}

#[tokio::test(start_paused = true)]
async fn a_new_number_with_another_key_gets_nothing_of_it() {
    let _pace = paced();
    let d = Daemon::start(LIMITS).await;
    long_answers(&d);
    pki_turn(&d, OLD, "My gate code is 1234.", K1).await;
    let (seen, capped) = pki_turn(&d, NEW, "tell me my gate code", K2).await;
    assert!(!seen.contains("1234"), "{seen}");
    assert_eq!(capped.len(), 1, "a new node's first answer: {capped:?}");
    // The old number is untouched: its owner still has it.
    let (seen, _) = pki_turn(&d, OLD, "and my gate code?", K1).await;
    assert!(seen.contains("1234"), "{seen}");
}

/// The binary's log says it once: `node !old is now !new (same key)`.
#[tokio::test]
async fn the_log_says_once_that_the_node_renumbered() {
    use std::process::Stdio;

    use crate::harness::{SOON, sim_config, spawn_meshai};
    use crate::support::fake_llm::FakeLlm;
    use crate::support::sim_node::SimNode;

    let sim = SimNode::start(sim_config()).await;
    let llm = FakeLlm::start_echo().await;
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join("meshai.db");
    let config = dir.path().join("config.toml");
    std::fs::write(&config, config_text(&sim, &llm.base_url(), &db, "")).expect("config");
    let log_path = dir.path().join("meshai.log");
    let log = std::fs::File::create(&log_path).expect("log file");
    let mut child = spawn_meshai(&config, "info", Stdio::from(log));
    sim.wait_handshakes(1, SOON).await;
    for (from, text) in [(OLD, "hello"), (NEW, "hello again"), (NEW, "and again")] {
        let before = sim.texts().len();
        sim.inject_pki_dm(from, text, K1);
        let sent = sim.wait_texts(before + 1, SOON).await;
        assert_eq!(sent[before].to, from);
    }
    child.start_kill().expect("kill");
    let _ = child.wait().await;
    let log = std::fs::read_to_string(&log_path).expect("log");
    let line = format!("node {} is now {} (same key)", NodeId(OLD), NodeId(NEW));
    assert_eq!(log.matches(&line).count(), 1, "{log}");
}
