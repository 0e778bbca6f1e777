//! "Who is asking" (`[context]`): with the first message of a conversation, the asker's names
//! reach the model in the message's header (kept with that message, as the model saw it),
//! and the hops, SNR, distance and direction from our node and the local time in notes for
//! that turn alone — never in the system prompt, the memory block, a summary or the store.

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

/// `text` is `This message was sent Ddd HH:MM.` (`Ddd HH:MM UTC.` with `utc`): the time
/// note (the clock is the machine's; the exact time is table-tested in `responder::sender`).
fn is_time_note(text: &str, utc: bool) -> bool {
    let Some(time) = text
        .strip_prefix("This message was sent ")
        .and_then(|t| t.strip_suffix('.'))
    else {
        return false;
    };
    let time = if utc {
        match time.strip_suffix(" UTC") {
            Some(t) => t,
            None => return false,
        }
    } else {
        time
    };
    let b = time.as_bytes();
    ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"].contains(&&time[..3.min(time.len())])
        && b.len() == 9
        && b[3] == b' '
        && b[6] == b':'
        && [4, 5, 7, 8].iter().all(|&i| b[i].is_ascii_digit())
}

/// The notes of a turn as `(radio note, time note)`, when there are those two.
fn radio_and_time(p: &crate::memory::Parts) -> Option<(&str, &str)> {
    notes(p)?.split_once("\n\n")
}

/// Every text the store keeps about any node: messages, summaries and facts.
fn stored_texts(dir: &std::path::Path) -> Vec<String> {
    let db = rusqlite::Connection::open(dir.join("meshai.db")).expect("open the db");
    let mut all = Vec::new();
    for sql in [
        "SELECT text FROM messages",
        "SELECT coalesce(prompt, '') FROM messages",
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
async fn who_is_asking_comes_with_the_first_message_and_how_it_came_is_never_stored() {
    let d = start(&format!("{MEMORY}[context]\nutc_offset = \"+01:00\"\n")).await;
    dm(&d, ANN, "How is my signal?").await;
    let req = last_reply(&d);
    let p = parts(&req);
    // The first message of a conversation says who, in its header...
    assert_eq!(p.new, "[Ann Smith (ANN)] How is my signal?");
    // ...and how it came and when, in notes for this turn alone, before it.
    let (radio, time) = radio_and_time(&p).expect("two notes");
    assert_eq!(
        radio,
        "Radio details of this message: 2 hops away, SNR -7.5 dB, 11.5 km NE of you."
    );
    assert!(is_time_note(time, false), "{time:?}");
    assert!(
        !req.messages[0].content.contains("Radio details"),
        "{req:?}"
    );

    // A node the DB does not know writes over the API (no SNR): only what is known is said.
    dm_with(
        &d,
        MeshPacketSpec {
            rx_snr: 0.0,
            rx_rssi: 0,
            ..MeshPacketSpec::text(BOB, "hello")
        },
    )
    .await;
    let bob = parts(&last_reply(&d));
    assert_eq!(bob.new, "hello", "no names, no header");
    let (radio, time) = radio_and_time(&bob).expect("two notes");
    assert_eq!(radio, "Radio details of this message: 1 hop away.");
    assert!(is_time_note(time, false), "{time:?}");
    // Ann's next message goes on in the same conversation: no header, no note; her first
    // message stays in the prompt as the model saw it, the note gone.
    d.sim.inject_position(ANN, 475_000_000, HOME.1);
    dm(&d, ANN, "And now?").await;
    let next = parts(&last_reply(&d));
    assert_eq!(next.new, "And now?");
    assert_eq!(next.turn, None, "{next:#?}");
    assert_eq!(next.verbatim[0].1, p.new);

    // Enough turns for folds: the radio note never reaches the memory block, the verbatim
    // messages, a summary request or the store; the header stays with its message.
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
                    .any(|t| t.contains("Radio details") || t.contains("SNR")),
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
                !t.contains("Radio details") && !t.contains("SNR") && !t.contains("was sent"),
                "outside the per-turn block: {t:?}"
            );
        }
    }
    assert!(seen_memory, "no prompt carried a memory block");
    let stored = stored_texts(dir.path());
    for t in &stored {
        assert!(
            !t.contains("Radio details")
                && !t.contains("SNR")
                && !t.contains(" km ")
                && !t.contains("was sent"),
            "stored: {t:?}"
        );
    }
    // The header is kept with the message it came with, as the model saw it; the text is
    // what Ann wrote.
    assert!(stored.iter().any(|t| t == "How is my signal?"));
    assert!(
        stored
            .iter()
            .any(|t| t == "[Ann Smith (ANN)] How is my signal?"),
        "{stored:#?}"
    );
}

#[tokio::test]
async fn context_items_can_be_switched_off() {
    let d = start("[context]\nnames = false\nsnr = false\ndistance = false\ntime = false\n").await;
    dm(&d, ANN, "Who am I?").await;
    let p = parts(&last_reply(&d));
    assert_eq!(p.new, "Who am I?", "no header");
    assert_eq!(
        notes(&p),
        Some("Radio details of this message: 2 hops away.")
    );
    d.stop().await.0.expect("clean stop");

    let d = start("[context]\nhops = false\nutc_offset = \"UTC\"\n").await;
    dm(&d, ANN, "Who am I?").await;
    let p = parts(&last_reply(&d));
    assert_eq!(p.new, "[Ann Smith (ANN)] Who am I?");
    let (radio, time) = radio_and_time(&p).expect("two notes");
    assert_eq!(
        radio,
        "Radio details of this message: SNR -7.5 dB, 11.5 km NE of you."
    );
    assert!(is_time_note(time, true), "{time:?}");
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

/// The per-turn block without the line that opens every one (`NOTES_INTRO`).
fn notes(p: &crate::memory::Parts) -> Option<&str> {
    p.turn.as_deref().map(|t| {
        t.strip_prefix(meshai::memory::layout::NOTES_INTRO)
            .unwrap_or(t)
            .trim_start()
    })
}
