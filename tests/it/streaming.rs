//! Streamed replies end to end: `meshai::run` against the simulated node and a fake server
//! that streams slowly (a word every 50 ms), stalls, breaks off, sends garbage, or ignores
//! `stream` and answers with one JSON body. The tests run in paused time (`harness::paced`),
//! so the words' pace, the time budget and the waits are virtual. The pacing is the harness's
//! short one; the 2 s gap and the ACK waits with streamed parts are in `radio::outbox`.

use std::time::Duration;

use meshai::chunk::{MORE, strip_marker};
use rusqlite::Connection;

use crate::harness::{Daemon, GAP_MS, SOON, db_dir, paced, sim_config};
use crate::support::fake_llm::{FakeLlm, FakeResponse, FakeStream, StreamEnd};
use crate::support::sim_node::{SentText, SimNode};

const ANN: u32 = 0xa1a1_0001;

/// About 520 characters: four parts of at most 150.
pub(crate) const LONG: &str = "LoRa is a long-range, low-power radio modulation that trades speed for \
reach. A few hundred bytes per second can cross many kilometres from a hill. Meshtastic uses it \
to relay short text messages from node to node without any phone network at all. Every hop \
repeats the packet, so airtime is shared and precious on a busy mesh. Keep messages short, \
pick a sensible preset for your area, and put the antenna as high as you can get it safely.";

const WORD: Duration = Duration::from_millis(50);

/// A daemon with a 20 s LLM budget (a slow stream takes seconds).
async fn daemon(timeout_secs: u64) -> Daemon {
    let sim = std::sync::Arc::new(SimNode::start(sim_config()).await);
    let llm = FakeLlm::start_echo().await;
    let url = llm.base_url();
    let dir = db_dir();
    let lines = format!("timeout_secs = {timeout_secs}");
    Daemon::start_with_llm_url(sim, llm, dir, "", &url, &lines).await
}

fn texts(sent: &[SentText]) -> Vec<String> {
    sent.iter().map(|t| t.text.clone()).collect()
}

/// The latest stored reply, once it says `want` (or after 5 s, whatever it says then). A
/// streamed reply is stored as its parts are handed over, so it grows to the whole answer a
/// moment after the last part is on the wire.
pub(crate) async fn stored_reply(d: &Daemon, want: &str) -> String {
    let db = Connection::open(d.dir.path().join("meshai.db")).expect("db");
    let latest = || {
        db.query_row(
            "SELECT text FROM messages WHERE role = 'assistant' ORDER BY id DESC LIMIT 1",
            [],
            |r| r.get::<_, String>(0),
        )
        .ok()
    };
    for _ in 0..250 {
        if latest().as_deref() == Some(want) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    latest().expect("a stored reply")
}

/// Checks rule 4 (` i/?` … ` n/n`, or ` i/n` throughout) and the size limits.
fn assert_numbered(parts: &[String], open: bool) {
    let n = parts.len();
    for (k, p) in parts.iter().enumerate() {
        let i = k + 1;
        let want = match (n, open) {
            (1, _) => String::new(),
            (_, true) if i < n => format!(" {i}/?"),
            _ => format!(" {i}/{n}"),
        };
        assert!(p.ends_with(&want), "part {i} of {parts:?}");
        assert!(p.chars().count() <= 150 && p.len() <= 200, "{p:?}");
    }
}

#[tokio::test(start_paused = true)]
async fn parts_leave_while_the_model_is_still_writing() {
    let _pace = paced();
    let d = daemon(20).await;
    d.answer_with(|_| FakeResponse::Stream(FakeStream::words(LONG, WORD)));
    let sent = d.ask(ANN, "what is lora?", SOON).await;
    let parts = texts(&sent);
    assert!(parts.len() >= 3, "{parts:?}");
    assert_numbered(&parts, true);
    // The first part went out while the server was still sending words.
    let log = &d.llm.streams()[0];
    let last_word = log.last_at.expect("words were sent");
    assert!(
        sent[0].at + Duration::from_millis(500) < last_word,
        "first part at {:?}, last word at {last_word:?}",
        sent[0].at
    );
    assert_eq!(log.sent, log.total, "the whole answer fits: nothing cut");
    // The parts, markers off, are the answer word for word; only the first carries reply_id.
    let bodies: Vec<&str> = parts.iter().map(|p| strip_marker(p)).collect();
    let words: Vec<&str> = bodies.iter().flat_map(|b| b.split_whitespace()).collect();
    assert_eq!(words, LONG.split_whitespace().collect::<Vec<_>>());
    assert!(sent[0].reply_id.is_some());
    assert!(sent[1..].iter().all(|t| t.reply_id.is_none()));
    // What is stored is the text as sent, without markers.
    let said = bodies.join(" ");
    assert_eq!(stored_reply(&d, &said).await, said);
    // Pacing held: never two texts closer than the gap, never a refusal.
    for w in sent.windows(2) {
        assert!(w[1].at.duration_since(w[0].at) >= Duration::from_millis(GAP_MS * 3 / 4));
    }
    assert_eq!(d.sim.rate_limit_refusals(), 0);
    assert_eq!(d.sim.log().duplicate_drops, 0);
}

#[tokio::test(start_paused = true)]
async fn an_answer_that_arrives_whole_is_numbered_i_of_n() {
    let _pace = paced();
    let d = daemon(20).await;
    // A server that ignores `stream` and answers one JSON body.
    d.answer_with(|_| FakeResponse::Text(LONG.to_string()));
    let parts = texts(&d.ask(ANN, "what is lora?", SOON).await);
    assert!(parts.len() >= 3);
    assert_numbered(&parts, false);
    // A server that streams, but faster than the parts can be cut: every event at once.
    d.answer_with(|_| FakeResponse::Stream(FakeStream::words(LONG, Duration::ZERO)));
    let again = texts(&d.ask(ANN, "again?", SOON).await);
    assert_eq!(again.len(), parts.len());
    for (a, b) in again.iter().zip(&parts) {
        assert_eq!(strip_marker(a), strip_marker(b));
    }
    let req = &d.llm.requests()[0];
    let json = req.json.as_ref().expect("json body");
    assert_eq!(json["stream"], true);
    assert_eq!(json["stream_options"]["include_usage"], true);
}

#[tokio::test(start_paused = true)]
async fn an_answer_that_arrives_whole_and_overflows_the_budget_ends_n_of_n() {
    let _pace = paced();
    let d = daemon(20).await;
    let rambling = LONG.repeat(3);
    // One JSON body, and a stream whose events all come at once: the budget fills in the same
    // batch in which the answer ends, and the cut part is still the reply's last.
    let r = rambling.clone();
    d.answer_with(move |_| FakeResponse::Text(r.clone()));
    let whole = texts(&d.ask(ANN, "tell me everything", SOON).await);
    assert_eq!(whole.len(), 4, "{whole:?}");
    assert_numbered(&whole, false);
    assert!(strip_marker(&whole[3]).ends_with(MORE), "{whole:?}");
    d.answer_with(move |_| FakeResponse::Stream(FakeStream::words(&rambling, Duration::ZERO)));
    let again = texts(&d.ask(ANN, "and again", SOON).await);
    assert_eq!(again.len(), 4, "{again:?}");
    assert!(again[3].ends_with(" 4/4"), "{again:?}");
    assert!(strip_marker(&again[3]).ends_with(MORE), "{again:?}");
}

#[tokio::test(start_paused = true)]
async fn the_budget_stops_the_model() {
    let _pace = paced();
    let d = daemon(30).await;
    let rambling = LONG.repeat(4);
    let r = rambling.clone();
    d.answer_with(move |_| FakeResponse::Stream(FakeStream::words(&r, Duration::from_millis(10))));
    let parts = texts(&d.ask(ANN, "tell me everything", SOON).await);
    assert_eq!(parts.len(), 4, "{parts:?}");
    assert_numbered(&parts, true);
    assert!(strip_marker(&parts[3]).ends_with(MORE), "{parts:?}");
    // The connection was closed: the server stopped a little after the budget's words.
    let budget_words: usize = parts
        .iter()
        .map(|p| {
            strip_marker(p)
                .trim_end_matches(MORE)
                .split_whitespace()
                .count()
        })
        .sum();
    let log = {
        let mut log = d.llm.streams()[0].clone();
        for _ in 0..50 {
            if log.client_closed {
                break;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
            log = d.llm.streams()[0].clone();
        }
        log
    };
    assert!(log.client_closed, "{log:?}");
    assert!(log.sent < log.total / 2, "{log:?}");
    assert!(
        // The words the chunker needs to be sure of the last cut, a few in flight, and the
        // room the `… !more` mark takes (about a word and a half of the last part).
        log.sent <= budget_words + 5,
        "{} words sent for {budget_words} on air",
        log.sent
    );
}

#[tokio::test(start_paused = true)]
async fn a_stream_that_breaks_after_part_one_ends_with_one_notice_part() {
    let _pace = paced();
    for end in [StreamEnd::BreakAfter(40), StreamEnd::GarbageAfter(40)] {
        let d = daemon(20).await;
        d.answer_with(move |_| FakeResponse::Stream(FakeStream::words(LONG, WORD).ending(end)));
        let sent = d.ask(ANN, "what is lora?", SOON).await;
        let parts = texts(&sent);
        assert!(parts.len() >= 2, "{end:?}: {parts:?}");
        assert_numbered(&parts, true);
        let notice = strip_marker(&parts[parts.len() - 1]);
        assert!(notice.contains("cut off"), "{end:?}: {parts:?}");
        // Nothing duplicated, nothing after the notice, one request (no retry once on air).
        tokio::time::sleep(Duration::from_millis(500)).await;
        assert_eq!(d.sim.texts().len(), parts.len(), "{end:?}");
        let bodies: Vec<&str> = parts[..parts.len() - 1]
            .iter()
            .map(|p| strip_marker(p))
            .collect();
        let words: Vec<&str> = bodies.iter().flat_map(|b| b.split_whitespace()).collect();
        let want: Vec<&str> = LONG.split_whitespace().collect();
        assert_eq!(words, want[..words.len()], "{end:?}: a prefix, in order");
        assert_eq!(d.llm.requests().len(), 1, "{end:?}");
        // What went on air is stored as the answer; the notice is not.
        let said = bodies.join(" ");
        assert_eq!(stored_reply(&d, &said).await, said, "{end:?}");
    }
}

#[tokio::test(start_paused = true)]
async fn a_stream_that_stalls_ends_at_the_time_budget() {
    let _pace = paced();
    let d = daemon(3).await;
    d.answer_with(|_| {
        FakeResponse::Stream(FakeStream::words(LONG, WORD).ending(StreamEnd::StallAfter(40)))
    });
    let asked = tokio::time::Instant::now();
    let sent = d.ask(ANN, "what is lora?", SOON).await;
    let parts = texts(&sent);
    assert!(parts.len() >= 2, "{parts:?}");
    assert!(strip_marker(&parts[parts.len() - 1]).contains("cut off"));
    let waited = sent[sent.len() - 1].at.duration_since(asked);
    assert!(
        waited >= Duration::from_secs(3) && waited < Duration::from_secs(6),
        "notice after {waited:?}"
    );
    assert_eq!(d.llm.requests().len(), 1);
}

#[tokio::test(start_paused = true)]
async fn a_break_before_the_first_part_is_retried_like_any_failed_call() {
    let _pace = paced();
    let d = daemon(20).await;
    let calls = std::sync::atomic::AtomicUsize::new(0);
    d.answer_with(move |_| {
        let stream = FakeStream::words(LONG, Duration::from_millis(5));
        match calls.fetch_add(1, std::sync::atomic::Ordering::SeqCst) {
            0 => FakeResponse::Stream(stream.ending(StreamEnd::BreakAfter(5))),
            _ => FakeResponse::Stream(stream),
        }
    });
    let parts = texts(&d.ask(ANN, "what is lora?", SOON).await);
    assert_numbered(&parts, true);
    let words: Vec<&str> = parts
        .iter()
        .flat_map(|p| strip_marker(p).split_whitespace())
        .collect();
    assert_eq!(words, LONG.split_whitespace().collect::<Vec<_>>());
    assert!(!parts.iter().any(|p| p.contains("cut off")));
    assert_eq!(d.llm.requests().len(), 2);
    let said: Vec<&str> = parts.iter().map(|p| strip_marker(p)).collect();
    let answered = stored_reply(&d, &said.join(" ")).await;
    assert_eq!(answered, said.join(" "));
    // A stream that breaks before anything usable is a failed call: one notice, nothing
    // stored as the answer.
    d.answer_with(|_| {
        FakeResponse::Stream(FakeStream::words(LONG, WORD).ending(StreamEnd::BreakAfter(3)))
    });
    let notice = texts(&d.ask(ANN, "and again?", SOON).await);
    assert_eq!(notice.len(), 1, "{notice:?}");
    assert!(notice[0].contains("unavailable"), "{notice:?}");
    assert_eq!(
        stored_reply(&d, &answered).await,
        answered,
        "nothing stored for the failed call"
    );
    assert_eq!(
        d.llm.requests().len(),
        5,
        "three attempts for the second message"
    );
}

#[tokio::test(start_paused = true)]
async fn a_think_block_never_reaches_the_radio() {
    let _pace = paced();
    let d = daemon(20).await;
    let answer = format!("<think>The user asks about LoRa. I will explain.</think>{LONG}");
    d.answer_with(move |_| {
        FakeResponse::Stream(FakeStream::words(&answer, Duration::from_millis(5)))
    });
    let parts = texts(&d.ask(ANN, "what is lora?", SOON).await);
    assert!(
        parts
            .iter()
            .all(|p| !p.contains("think") && !p.contains("user asks"))
    );
    assert!(parts[0].starts_with("LoRa is"), "{parts:?}");
}

#[tokio::test(start_paused = true)]
async fn stream_false_asks_for_one_json_answer() {
    let _pace = paced();
    let sim = std::sync::Arc::new(SimNode::start(sim_config()).await);
    let llm = FakeLlm::start_echo().await;
    let url = llm.base_url();
    let dir = db_dir();
    let d = Daemon::start_with_llm_url(sim, llm, dir, "", &url, "timeout_secs = 5\nstream = false")
        .await;
    d.answer_with(|_| FakeResponse::Text(LONG.to_string()));
    let parts = texts(&d.ask(ANN, "what is lora?", SOON).await);
    assert_numbered(&parts, false);
    let json = d.llm.requests()[0].json.clone().expect("json");
    assert_eq!(json["stream"], false);
    assert!(json.get("stream_options").is_none());
}
