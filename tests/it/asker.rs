//! "Who is asking" (`[context]`): the asker's names, hops, SNR, distance and direction from our
//! node, and the local time reach the model in the per-turn block of the prompt, and nowhere
//! else: not the system prompt, not the memory block, not the stored messages, not a summary.

use std::sync::Arc;

use crate::harness::{Daemon, is_summary, replies, sim_config};
use crate::memory::parts;
use crate::support::fake_llm::{FakeLlm, FakeRequest};
use crate::support::sim_node::{MeshPacketSpec, SimConfig, SimNode, SimPeer};

const ANN: u32 = 0xa1a1_0001;
const BOB: u32 = 0xb0b0_0002;

/// Our node: Zurich main station.
const HOME: (i32, i32) = (473_769_000, 85_417_000);
/// Ann, 11.5 km north-east of it.
const ANN_AT: (i32, i32) = (474_500_000, 86_500_000);

/// Small memory, so a dozen messages make a fold (and a summary request) happen.
const MEMORY: &str = "[memory]\nwindow_messages = 4\nsummarize_threshold = 4\n";

fn sim() -> SimConfig {
    SimConfig {
        position: Some(HOME),
        peers: vec![SimPeer::new(ANN, "Ann Smith", "ANN").at(ANN_AT.0, ANN_AT.1)],
        ..sim_config()
    }
}

async fn start(extra: &str) -> Daemon {
    let sim = Arc::new(SimNode::start(sim()).await);
    let llm = FakeLlm::start_echo().await;
    let dir = tempfile::tempdir().expect("tempdir");
    Daemon::start_with(sim, llm, dir, extra).await
}

/// A DM from `from`, 2 hops away, heard at -7.5 dB; waits for its one-part reply.
async fn dm(d: &Daemon, from: u32, text: &str) {
    dm_with(
        d,
        MeshPacketSpec {
            hop_start: 3,
            hop_limit: 1,
            rx_snr: -7.5,
            rx_rssi: -118,
            ..MeshPacketSpec::text(from, text)
        },
    )
    .await;
}

async fn dm_with(d: &Daemon, spec: MeshPacketSpec) {
    let before = d.sim.texts().len();
    d.sim.inject_text(spec);
    d.sim.wait_texts(before + 1, crate::harness::SOON).await;
}

fn last_reply(d: &Daemon) -> FakeRequest {
    replies(&d.llm).pop().expect("a reply request")
}

/// `text` ends with `local time Ddd HH:MM.` (the clock is the machine's; the exact time is
/// table-tested in `responder::asker`).
fn ends_with_a_local_time(text: &str) -> bool {
    let Some((_, time)) = text.rsplit_once("local time ") else {
        return false;
    };
    let b = time.as_bytes();
    ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"].contains(&&time[..3.min(time.len())])
        && b.len() == 10
        && b[3] == b' '
        && b[6] == b':'
        && b[9] == b'.'
        && [4, 5, 7, 8].iter().all(|&i| b[i].is_ascii_digit())
}

/// Every text the store keeps about any node: messages, summaries and facts.
fn stored_texts(dir: &std::path::Path) -> Vec<String> {
    let db = rusqlite::Connection::open(dir.join("meshai.db")).expect("open the db");
    let mut all = Vec::new();
    for sql in [
        "SELECT text FROM messages",
        "SELECT text FROM summaries",
        "SELECT text FROM facts",
    ] {
        let mut stmt = db.prepare(sql).expect("query");
        let rows = stmt
            .query_map([], |r| r.get::<_, String>(0))
            .expect("rows")
            .collect::<Result<Vec<_>, _>>()
            .expect("rows");
        all.extend(rows);
    }
    all
}

#[tokio::test]
async fn who_is_asking_is_in_the_per_turn_block_and_nowhere_else() {
    let d = start(&format!("{MEMORY}[context]\nutc_offset = \"+01:00\"\n")).await;
    dm(&d, ANN, "How is my signal?").await;
    let req = last_reply(&d);
    let p = parts(&req);
    let turn = p.turn.clone().expect("a per-turn block");
    assert!(
        turn.contains(
            "Asker: Ann Smith (ANN), 2 hops away, SNR -7.5 dB, 11.5 km NE of you; local time "
        ),
        "{turn}"
    );
    assert!(ends_with_a_local_time(&turn), "{turn}");
    assert!(!turn.ends_with(" UTC."), "an offset is set: {turn}");
    assert_eq!(p.new, "How is my signal?");
    assert!(!req.messages[0].content.contains("Asker"), "{req:?}");

    // Ann moves (a POSITION_APP packet) and a node the DB does not know writes over the API
    // (no SNR): only what is known is said, and the latest position counts.
    d.sim.inject_position(ANN, 475_000_000, HOME.1);
    dm_with(
        &d,
        MeshPacketSpec {
            rx_snr: 0.0,
            rx_rssi: 0,
            ..MeshPacketSpec::text(BOB, "hello")
        },
    )
    .await;
    let bob = parts(&last_reply(&d)).turn.expect("a per-turn block");
    assert!(bob.starts_with("Asker: 1 hop away; local time "), "{bob}");
    dm(&d, ANN, "And now?").await;
    let turn = parts(&last_reply(&d)).turn.expect("a per-turn block");
    assert!(
        turn.contains("Asker: Ann Smith (ANN), 2 hops away, SNR -7.5 dB, 13.7 km N of you;"),
        "{turn}"
    );

    // Enough turns for folds: the line never reaches the memory block, the verbatim
    // messages, a summary request or the store.
    for i in 0..12 {
        dm(&d, ANN, &format!("turn {i}: relay K{i}X is up")).await;
    }
    let summaries = d.llm.requests().into_iter().filter(is_summary).count();
    let (result, _sim, llm, dir) = d.stop().await;
    result.expect("clean stop");
    assert!(summaries > 0, "no fold happened");
    let requests = llm.requests();
    let mut seen_memory = false;
    for req in &requests {
        let everything: Vec<&str> = req.messages.iter().map(|m| m.content.as_str()).collect();
        if is_summary(req) {
            assert!(
                !everything
                    .iter()
                    .any(|t| t.contains("Asker") || t.contains("SNR")),
                "summary request: {everything:#?}"
            );
            continue;
        }
        let p = parts(req);
        seen_memory |= p.memory.is_some();
        let outside_turn = std::iter::once(req.messages[0].content.as_str())
            .chain(p.memory.as_deref())
            .chain(p.verbatim.iter().map(|(_, t)| t.as_str()))
            .chain(std::iter::once(p.new.as_str()));
        for t in outside_turn {
            assert!(
                !t.contains("Asker") && !t.contains("local time"),
                "outside the per-turn block: {t:?}"
            );
        }
        let turn = p.turn.unwrap_or_default();
        assert!(turn.contains("Asker: "), "{turn}");
    }
    assert!(seen_memory, "no prompt carried a memory block");
    for t in stored_texts(dir.path()) {
        assert!(
            !t.contains("Asker") && !t.contains("SNR") && !t.contains("local time"),
            "stored: {t:?}"
        );
    }
}

#[tokio::test]
async fn context_items_can_be_switched_off() {
    let d = start("[context]\nnames = false\nsnr = false\ndistance = false\ntime = false\n").await;
    dm(&d, ANN, "Who am I?").await;
    let turn = parts(&last_reply(&d)).turn.expect("a per-turn block");
    assert_eq!(turn.lines().last(), Some("Asker: 2 hops away."), "{turn}");
    d.stop().await.0.expect("clean stop");

    let d = start("[context]\nhops = false\nutc_offset = \"UTC\"\n").await;
    dm(&d, ANN, "Who am I?").await;
    let turn = parts(&last_reply(&d)).turn.expect("a per-turn block");
    assert!(
        turn.contains("Asker: Ann Smith (ANN), SNR -7.5 dB, 11.5 km NE of you; local time "),
        "{turn}"
    );
    assert!(turn.ends_with(" UTC."), "offset 0: {turn}");
    d.stop().await.0.expect("clean stop");

    let everything_off =
        "[context]\nnames = false\nhops = false\nsnr = false\ndistance = false\ntime = false\n";
    let d = start(everything_off).await;
    dm(&d, ANN, "Who am I?").await;
    let p = parts(&last_reply(&d));
    assert_eq!(p.turn, None, "{p:#?}");
    assert_eq!(p.new, "Who am I?");
    d.stop().await.0.expect("clean stop");
}
