//! `meshai::run` end to end: DMs in through the simulated node, answers from the fake LLM,
//! packets out — memory, summaries, failures, commands and load.

use std::collections::HashMap;
use std::time::Duration;

use meshai::chunk::strip_marker;

use crate::harness::{Daemon, SOON, is_summary, paced, replies};
use crate::support::fake_llm::FakeResponse;

const ANN: u32 = 0xa1a1_0001;
const BOB: u32 = 0xb0b0_0002;

#[tokio::test]
async fn a_dm_gets_an_answer_on_the_wire() {
    let d = Daemon::start("").await;
    let id = d.sim.inject_dm(ANN, "hello there", None);
    let texts = d.sim.wait_texts(1, SOON).await;
    let t = &texts[0];
    assert_eq!(t.text, "echo: hello there");
    assert_eq!(t.to, ANN);
    assert_eq!(t.channel, 0);
    assert_eq!(t.reply_id, Some(id));
    assert!(t.want_ack);
    assert_eq!(t.hop_limit, 3);
    let req = &d.llm.requests()[0];
    assert_eq!(
        req.messages.first().map(|m| m.role.as_str()),
        Some("system")
    );
    assert!(
        req.messages[0].content.contains("at most 150 characters"),
        "budget in the prompt"
    );
    assert_eq!(req.last_user(), "hello there");
    let (result, sim, ..) = d.stop().await;
    assert!(result.is_ok());
    assert_eq!(sim.rate_limit_refusals(), 0);
}

/// A 560-character answer: at most 4 parts, each within both limits, markers 1/n..n/n, and the
/// words come back in order.
#[tokio::test]
async fn a_long_answer_is_split_into_marked_parts_that_reassemble() {
    let d = Daemon::start("").await;
    let sentence = "The quick brown fox jumps over the lazy dog near the river bank today. ";
    let answer: String = sentence.repeat(8).trim().to_string();
    assert!(answer.chars().count() >= 560);
    let want = answer.clone();
    d.answer_with(move |_| FakeResponse::Text(want.clone()));
    let before = d.sim.texts().len();
    d.sim.inject_dm(ANN, "tell me a long story", None);
    // Wait for the LLM call, then for every part it produced (1..=4).
    d.llm.wait_requests(1, SOON).await;
    let texts = d.sim.wait_texts(before + 4, SOON).await;
    let parts: Vec<_> = texts[before..].iter().collect();
    assert_eq!(parts.len(), 4);
    for (i, p) in parts.iter().enumerate() {
        assert!(p.text.chars().count() <= 150, "part {i}: {}", p.text);
        assert!(p.payload.len() <= 200);
        assert!(
            p.text.ends_with(&format!(" {}/4", i + 1)),
            "marker on {:?}",
            p.text
        );
    }
    let joined: Vec<&str> = parts
        .iter()
        .flat_map(|p| {
            strip_marker(&p.text)
                .trim_end_matches(" !more")
                .split_whitespace()
        })
        .collect();
    let want: Vec<&str> = answer.split_whitespace().collect();
    if joined.last().is_some_and(|w| w.ends_with('…')) {
        // Cut at 4 parts: what was sent is a word-for-word prefix.
        let n = joined.len() - 1;
        assert_eq!(joined[..n], want[..n]);
    } else {
        assert_eq!(joined, want);
    }
    // Only the first part carries reply_id.
    assert!(parts[0].reply_id.is_some());
    assert!(parts[1..].iter().all(|p| p.reply_id.is_none()));
}

#[tokio::test(start_paused = true)]
async fn emoji_and_cjk_answers_stay_within_the_byte_budget() {
    let _pace = paced();
    let d = Daemon::start("").await;
    let cjk = "网状网络是一种去中心化的通信方式，每个节点都可以转发消息。".repeat(6);
    let emoji = "🙂📡🛰️ ".repeat(60);
    for (i, answer) in [cjk, emoji].into_iter().enumerate() {
        let a = answer.clone();
        d.answer_with(move |_| FakeResponse::Text(a.clone()));
        let before = d.sim.texts().len();
        let reqs = d.llm.requests().len();
        d.sim.inject_dm(ANN, &format!("question {i}"), None);
        d.llm.wait_requests(reqs + 1, SOON).await;
        let sent = d.sim.wait_texts(before + 1, SOON).await;
        // Let the rest of the parts come in (each waits for the ACK of the one before).
        tokio::time::sleep(Duration::from_millis(800)).await;
        let sent = &d.sim.texts()[before.min(sent.len())..];
        assert!(!sent.is_empty() && sent.len() <= 4, "{} parts", sent.len());
        for p in sent {
            assert!(
                p.payload.len() <= 200,
                "{} bytes: {}",
                p.payload.len(),
                p.text
            );
            assert!(p.text.chars().count() <= 150);
            assert!(
                std::str::from_utf8(&p.payload).is_ok(),
                "valid UTF-8, no split code point"
            );
        }
    }
}

#[tokio::test]
async fn history_is_carried_and_nodes_are_isolated() {
    let d = Daemon::start("").await;
    d.dm_and_wait(ANN, "my name is Ann and I live in Bern", 1)
        .await;
    d.dm_and_wait(BOB, "my dog is called Rex", 1).await;
    d.dm_and_wait(ANN, "where do I live?", 1).await;
    d.dm_and_wait(BOB, "what is my dog called?", 1).await;
    let reqs = replies(&d.llm);
    assert_eq!(reqs.len(), 4);
    let ann2 = &reqs[2];
    let bob2 = &reqs[3];
    let body = |r: &crate::support::fake_llm::FakeRequest| {
        r.messages
            .iter()
            .map(|m| m.content.clone())
            .collect::<Vec<_>>()
            .join("\n")
    };
    assert!(
        body(ann2).contains("I live in Bern"),
        "Ann's history is in her prompt"
    );
    assert!(
        body(ann2).contains("echo: my name is Ann"),
        "with the bot's earlier answer"
    );
    assert!(
        !body(ann2).contains("Rex"),
        "Bob's text never reaches Ann's prompt"
    );
    assert!(body(bob2).contains("called Rex"));
    assert!(
        !body(bob2).contains("Bern"),
        "Ann's text never reaches Bob's prompt"
    );
}

/// Over 30 turns the prompt stays within a band once folds begin (between folds it grows by
/// one exchange a turn, a fold brings it back), summaries are made in batches, and a fact
/// planted in the first message is still in the prompt at the end, through the summary.
#[tokio::test]
async fn summary_keeps_the_prompt_flat_and_carries_a_planted_fact() {
    let d = Daemon::start("").await;
    d.answer_with(|req| FakeResponse::Text(format!("Noted: {}", req.last_user())));
    d.dm_and_wait(ANN, "Remember this: my callsign is KD9XYZ.", 1)
        .await;
    for i in 1..30 {
        d.dm_and_wait(ANN, &format!("turn {i}: how is the weather on the hill"), 1)
            .await;
    }
    let reqs = replies(&d.llm);
    assert_eq!(reqs.len(), 30);
    let sizes: Vec<usize> = reqs.iter().map(|r| r.prompt_chars()).collect();
    // From turn 10 on folds keep the prompt within a band (summary ≤ 240 chars, facts, at
    // most 12 unsummarised messages, retrieved exchanges ≤ 2 × 200), never growing with the
    // turn count.
    let late = &sizes[10..];
    let (min, max) = (late.iter().min().copied(), late.iter().max().copied());
    let (min, max) = (min.unwrap_or(0), max.unwrap_or(0));
    assert!(
        max - min <= 1000,
        "prompt sizes over turns 10..30: {sizes:?}"
    );
    assert!(sizes[29] < sizes[9] + 1000, "flat, not growing: {sizes:?}");
    let last = reqs.last().map(|r| r.messages.clone()).unwrap_or_default();
    let summary = last
        .iter()
        .find(|m| m.content.starts_with(meshai::memory::layout::MEMORY_INTRO));
    let summary = summary.map(|m| m.content.clone()).unwrap_or_default();
    assert!(
        summary.contains("KD9XYZ"),
        "planted fact carried by the memory: {last:#?}"
    );
    // 30 turns = 60 messages; a fold is due above 2 + 10 unsummarised (or once the prompt
    // reaches its token budget) and folds all but 2, so at least 10 at a time: at most
    // 58 / 10 = 5 summary calls, and a fold is never a per-turn cost.
    let summary_calls = d.llm.requests().iter().filter(|r| is_summary(r)).count();
    assert!(
        (1..=5).contains(&summary_calls),
        "{summary_calls} summary calls"
    );
}

#[tokio::test(start_paused = true)]
async fn llm_failures_give_one_notice_then_service_resumes() {
    let _pace = paced();
    let d = Daemon::start("").await;
    let cases: [(&str, FakeResponse, &str); 3] = [
        (
            "server error",
            FakeResponse::Status(500, "{\"error\":\"boom\"}".into()),
            "unavailable",
        ),
        (
            "garbage",
            FakeResponse::Garbage("<html>oops</html>".into()),
            "unusable",
        ),
        ("timeout", FakeResponse::Hang, "too long"),
    ];
    for (name, response, notice) in cases {
        d.answer_with(move |_| response.clone());
        let before = d.sim.texts().len();
        d.sim
            .inject_dm(ANN, &format!("question during {name}"), None);
        let texts = d.sim.wait_texts(before + 1, SOON).await;
        let got = &texts[before..];
        assert_eq!(got.len(), 1, "{name}: one packet");
        assert!(got[0].text.contains(notice), "{name}: {:?}", got[0].text);
        assert!(
            !got[0].text.contains("500") && !got[0].text.contains("html"),
            "no raw error"
        );
        // No second packet follows the notice.
        tokio::time::sleep(Duration::from_millis(300)).await;
        assert_eq!(
            d.sim.texts().len(),
            before + 1,
            "{name}: exactly one packet"
        );
        // Service resumes.
        d.answer_with(|req| FakeResponse::Text(format!("ok: {}", req.last_user())));
        let back = d.dm_and_wait(ANN, "are you back", 1).await;
        assert_eq!(back, vec!["ok: are you back".to_string()]);
    }
}

#[tokio::test]
async fn reset_forgets_the_node() {
    let d = Daemon::start("").await;
    d.dm_and_wait(ANN, "my secret word is PINEAPPLE42", 1).await;
    let reset = d.dm_and_wait(ANN, "!reset", 1).await;
    assert!(reset[0].starts_with("Done"), "{reset:?}");
    d.dm_and_wait(ANN, "what is my secret word?", 1).await;
    let last = replies(&d.llm).pop().expect("a request");
    let all: String = last.messages.iter().map(|m| m.content.as_str()).collect();
    assert!(!all.contains("PINEAPPLE42"), "forgotten: {all}");
    assert_eq!(replies(&d.llm).len(), 2, "!reset costs no LLM call");
}

#[tokio::test]
async fn commands_are_answered_without_the_llm() {
    let d = Daemon::start("").await;
    let help = d.dm_and_wait(ANN, "!help", 1).await;
    assert!(
        help[0].contains("!reset") && help[0].contains("!summary"),
        "{help:?}"
    );
    let summary = d.dm_and_wait(ANN, "!summary", 1).await;
    assert!(
        summary[0].contains("don't remember anything"),
        "{summary:?}"
    );
    let status = d.dm_and_wait(ANN, "!status", 1).await;
    assert!(status[0].contains("radio ok"), "{status:?}");
    let unknown = d.dm_and_wait(ANN, "!frobnicate", 1).await;
    assert!(unknown[0].starts_with("Unknown command"), "{unknown:?}");
    assert!(d.llm.requests().is_empty());
}

/// Ten nodes send two DMs each at once: every DM reaches the model once, and each node's
/// answers come in order — its second DM answered with the first (one call, one reply) when
/// both waited together, or on its own after it.
#[tokio::test(start_paused = true)]
async fn ten_nodes_two_dms_each_answered_once_in_order() {
    let _pace = paced();
    let d = Daemon::start("").await;
    for round in 0..2 {
        for n in 0..10u32 {
            d.sim
                .inject_dm(0x0a00_0000 + n, &format!("node {n} message {round}"), None);
        }
    }
    let last = |n: u32| format!("echo: node {n} message 1");
    let done = d
        .sim
        .wait_for(Duration::from_secs(60), |l| {
            (0..10).all(|n| l.texts.iter().any(|t| t.text == last(n)))
        })
        .await;
    assert!(done, "every node's last DM answered: {:?}", d.sim.texts());
    tokio::time::sleep(Duration::from_millis(300)).await;
    let texts = d.sim.texts();
    let mut per_node: HashMap<u32, Vec<String>> = HashMap::new();
    for t in &texts {
        per_node.entry(t.to).or_default().push(t.text.clone());
    }
    assert_eq!(per_node.len(), 10);
    for (node, got) in per_node {
        let n = node - 0x0a00_0000;
        let apart = vec![format!("echo: node {n} message 0"), last(n)];
        assert!(got == apart || got == [last(n)], "node {n}: {got:?}");
    }
    // Every DM reached the model, once: as the question, or before it in a combined one.
    let replies = crate::harness::replies(&d.llm);
    for n in 0..10u32 {
        for round in 0..2 {
            let dm = format!("node {n} message {round}");
            let asked = replies.iter().filter(|r| r.last_user() == dm).count();
            let before = replies
                .iter()
                .filter(|r| r.last_user() != dm && r.body.contains(&dm))
                .count();
            assert!(
                asked == 1 || before >= 1,
                "{dm}: asked {asked}, before {before}"
            );
        }
    }
}

#[tokio::test(start_paused = true)]
async fn rate_limit_sends_one_notice_then_silence() {
    let _pace = paced();
    // A new node's budget lifted: only the rate limit is under test.
    let limits = "[limits]\nnode_messages = 2\nnode_window_secs = 600\n";
    let d = Daemon::start(limits).await;
    d.dm_and_wait(ANN, "one", 1).await;
    d.dm_and_wait(ANN, "two", 1).await;
    let notice = d.dm_and_wait(ANN, "three", 1).await;
    assert!(notice[0].contains("faster than I can answer"), "{notice:?}");
    let before = d.sim.texts().len();
    d.sim.inject_dm(ANN, "four", None);
    d.sim.inject_dm(ANN, "five", None);
    // Another node is still served, and ANN's extra messages got nothing.
    d.dm_and_wait(BOB, "hi", 1).await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    let after: Vec<_> = d.sim.texts()[before..].iter().map(|t| t.to).collect();
    assert_eq!(after, vec![BOB]);
    assert_eq!(replies(&d.llm).len(), 3, "no LLM call for limited messages");
    // Every message is in the record, answered or not; the notice is not.
    let (result, _sim, _llm, dir) = d.stop().await;
    assert!(result.is_ok());
    let rows = stored(dir.path(), ANN);
    let users: Vec<&str> = rows
        .iter()
        .filter(|(role, _)| role == "user")
        .map(|(_, t)| t.as_str())
        .collect();
    assert_eq!(users, ["one", "two", "three", "four", "five"]);
    assert_eq!(rows.len(), 7, "two answers, no notice: {rows:?}");
}

/// `(role, text)` of every stored message of `node`, in store order.
fn stored(dir: &std::path::Path, node: u32) -> Vec<(String, String)> {
    let db = rusqlite::Connection::open(dir.join("meshai.db")).expect("open the db");
    let mut stmt = db
        .prepare("SELECT role, text FROM messages WHERE node = ?1 ORDER BY id")
        .expect("query");
    stmt.query_map([node], |r| Ok((r.get(0)?, r.get(1)?)))
        .expect("rows")
        .collect::<Result<_, _>>()
        .expect("rows")
}

#[tokio::test(start_paused = true)]
async fn messages_beyond_a_full_node_queue_are_stored_unanswered() {
    let _pace = paced();
    // A new node's budget lifted: the node's queue is under test.
    let limits = "[limits]\nnode_messages = 10000\nnode_queue = 1\n";
    let d = Daemon::start(limits).await;
    // The first answer takes a while, so the node's queue (1) overflows behind it.
    d.answer_with(|req| match req.last_user() {
        "q0" => FakeResponse::Stall(Duration::from_millis(500)),
        q => FakeResponse::Text(format!("ok {q}")),
    });
    for i in 0..5 {
        d.sim.inject_dm(ANN, &format!("q{i}"), None);
    }
    d.dm_and_wait(BOB, "still here?", 1).await;
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let answered = d.sim.texts().iter().filter(|t| t.to == ANN).count();
    assert!((1..=2).contains(&answered), "{answered} answered");
    let (result, _sim, _llm, dir) = d.stop().await;
    assert!(result.is_ok());
    let rows = stored(dir.path(), ANN);
    let mut users: Vec<&str> = rows
        .iter()
        .filter(|(role, _)| role == "user")
        .map(|(_, t)| t.as_str())
        .collect();
    // The unanswered ones are stored on arrival, so they may come before a queued one.
    users.sort_unstable();
    assert_eq!(users, ["q0", "q1", "q2", "q3", "q4"], "every message kept");
    assert_eq!(rows.len(), 5 + answered);
}

#[tokio::test(start_paused = true)]
async fn deny_list_gets_no_reply_and_no_llm_call() {
    let _pace = paced();
    let extra = format!("[access]\ndeny = [\"!{ANN:08x}\"]\n");
    let d = Daemon::start(&extra).await;
    d.sim.inject_dm(ANN, "let me in", None);
    d.dm_and_wait(BOB, "hello", 1).await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    let to: Vec<u32> = d.sim.texts().iter().map(|t| t.to).collect();
    assert_eq!(to, vec![BOB]);
    assert_eq!(d.llm.requests().len(), 1);
}

#[tokio::test]
async fn memory_survives_a_restart() {
    let d = Daemon::start("").await;
    d.dm_and_wait(ANN, "my boat is the Blue Heron", 1).await;
    let (result, sim, llm, dir) = d.stop().await;
    assert!(result.is_ok());
    let d = Daemon::start_with(sim, llm, dir, "").await;
    d.dm_and_wait(ANN, "what is my boat called?", 1).await;
    let last = replies(&d.llm).pop().expect("a request");
    let all: String = last.messages.iter().map(|m| m.content.as_str()).collect();
    assert!(all.contains("Blue Heron"), "remembered after restart");
}

/// Channel messages are ignored by default; in mention mode a broadcast that starts with the
/// mention word is answered on that channel, to everyone, and others still are not.
#[tokio::test(start_paused = true)]
async fn broadcasts_are_answered_only_in_mention_mode() {
    let _pace = paced();
    use crate::support::sim_node::{BROADCAST, MeshPacketSpec};
    let broadcast = |text: &str, channel: u32| MeshPacketSpec {
        to: Some(BROADCAST),
        channel,
        ..MeshPacketSpec::text(ANN, text)
    };
    let d = Daemon::start("").await;
    d.sim.inject_text(broadcast("@ai what is the weather", 0));
    d.dm_and_wait(BOB, "hi", 1).await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    let to: Vec<u32> = d.sim.texts().iter().map(|t| t.to).collect();
    assert_eq!(to, vec![BOB], "no answer to a channel message by default");
    let (_, sim, llm, dir) = d.stop().await;

    let on = "[channels]\nanswer_mentions = true\nmention = \"@ai\"\nchannels = [0, 1]\n";
    let d = Daemon::start_with(sim, llm, dir, on).await;
    let before = d.sim.texts().len();
    d.sim.inject_text(broadcast("just chatting", 1));
    d.sim.inject_text(broadcast("@AI, what is the weather", 1));
    let texts = d.sim.wait_texts(before + 1, SOON).await;
    let t = &texts[before];
    assert_eq!(
        (t.to, t.channel),
        (BROADCAST, 1),
        "answered on the channel, to everyone"
    );
    assert_eq!(
        t.text, "echo: what is the weather",
        "the mention word is not sent to the LLM"
    );
    d.sim
        .inject_text(broadcast("@ai on a channel not listed", 2));
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(
        d.sim.texts().len(),
        before + 1,
        "only listed channels, only mentions"
    );
}
