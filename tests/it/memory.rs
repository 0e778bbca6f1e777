//! Memory under real-model timing: the lossless window, summaries that finish while the user
//! answers at once, a prompt that only grows at its end between folds, botched summaries,
//! facts and stemmed retrieval, and llama.cpp server slots.
//!
//! `[memory]` is small here (keep 4 messages, threshold 4): a fold is due above 8
//! unsummarised messages, the hard cap is 16, the prompt carries at most 20, and the goal
//! "never more than window + 2 × threshold behind" is 12.

use std::time::Duration;

use meshai::chunk::strip_marker;
use meshai::memory::layout::MEMORY_INTRO;

use crate::harness::{Daemon, SOON, db_dir, is_summary, paced, replies, sim_config, summarizer};
use crate::support::fake_llm::{FakeLlm, FakeMessage, FakeRequest, FakeResponse, without_header};
use crate::support::sim_node::SimNode;

const ANN: u32 = 0xa1a1_0001;
const BOB: u32 = 0xb0b0_0002;
const CID: u32 = 0xc1c1_0003;
const ADMIN: u32 = 0xad00_0009;

const MEMORY: &str = "[memory]\nwindow_messages = 4\nsummarize_threshold = 4\n";
const KEEP: usize = 4;
const THRESHOLD: usize = 4;

fn config() -> String {
    format!("{MEMORY}[access]\nadmins = [\"!{ADMIN:08x}\"]\n")
}

/// A reply prompt taken apart: the memory block, the verbatim messages, the per-turn block
/// and the new message (as the model sees it, its header included).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Parts {
    pub memory: Option<String>,
    pub verbatim: Vec<(String, String)>,
    /// The per-turn block: the system notes and the mesh facts (a user message of its own
    /// before the new message), joined.
    pub turn: Option<String>,
    /// How many messages that block is.
    pub turn_messages: usize,
    pub new: String,
}

/// Whether `m` is the mesh facts' note: a user message that opens as in some language.
pub(crate) fn is_mesh_note(m: &FakeMessage) -> bool {
    use meshai::lang::{Lang, Part, part};
    m.role == "user"
        && Lang::ALL
            .iter()
            .any(|l| m.content.starts_with(part(*l, Part::MeshIntro)))
}

pub(crate) fn parts(req: &FakeRequest) -> Parts {
    let msgs: &[FakeMessage] = &req.messages;
    let mut rest = msgs.get(1..).unwrap_or_default();
    let mut memory = None;
    if let Some(m) = rest
        .first()
        .filter(|m| m.role == "system" && m.content.starts_with(MEMORY_INTRO))
    {
        memory = Some(m.content.clone());
        rest = &rest[1..];
    }
    let (new, mut rest) = rest.split_last().expect("a new message");
    let mut block: Vec<String> = Vec::new();
    if let Some((m, before)) = rest.split_last()
        && is_mesh_note(m)
    {
        block.push(m.content.clone());
        rest = before;
    }
    if let Some((m, before)) = rest.split_last()
        && m.role == "system"
    {
        block.insert(0, m.content.clone());
        rest = before;
    }
    let turn_messages = block.len();
    let turn = (!block.is_empty()).then(|| block.join("\n\n"));
    Parts {
        memory,
        turn_messages,
        verbatim: rest
            .iter()
            .map(|m| (m.role.clone(), m.content.clone()))
            .collect(),
        turn,
        new: new.content.clone(),
    }
}

/// The admin's `!status` counters: (started, saved, yielded, failed) summaries, once every
/// summary started has ended (see [`settled_counts`]).
async fn summary_counts(d: &Daemon) -> (u64, u64, u64, u64) {
    let c = settled_counts(d).await;
    (c[0], c[1], c[2], c[3])
}

/// [`counts`] once every summary started has ended (saved, yielded or failed): the last fold
/// runs in the background after the last reply. Asks again every 100 ms, 50 times at most,
/// then returns what it has.
async fn settled_counts(d: &Daemon) -> [u64; 5] {
    let mut c = counts(d).await;
    for _ in 0..50 {
        if c[0] == c[1] + c[2] + c[3] {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
        c = counts(d).await;
    }
    c
}

/// The admin's `!status` counters: summaries started, saved, yielded, failed, and folds run
/// at the hard cap.
async fn counts(d: &Daemon) -> [u64; 5] {
    // Several packets: the admin part makes it longer than one.
    let parts = d.ask(ADMIN, "!status", SOON).await;
    let status: Vec<&str> = parts.iter().map(|p| strip_marker(&p.text)).collect();
    let status = status.join(" ");
    let n = |label: &str| -> u64 {
        let at = status.find(label).expect(label);
        status[..at]
            .split_whitespace()
            .last()
            .and_then(|w| w.parse().ok())
            .expect("a count")
    };
    [
        n(" started"),
        n(" saved"),
        n(" yielded"),
        n(" failed"),
        n(" at the cap"),
    ]
}

/// Between two folds each prompt, without its per-turn block and new message, is a prefix of
/// the next one; across a fold the verbatim messages are the newest of what came before, at
/// least `KEEP` of them; and every message is in the prompt until a summary covers it.
#[tokio::test(start_paused = true)]
async fn the_prompt_only_grows_at_its_end_between_folds_and_loses_nothing() {
    let _pace = paced();
    let d = Daemon::start(&config()).await;
    d.answer_with(|req| FakeResponse::Text(format!("Noted: {}", req.last_user())));
    for i in 0..20 {
        d.dm_and_wait(ANN, &format!("turn {i}: the hill relay K{i}X is up"), 1)
            .await;
    }
    let reqs = replies(&d.llm);
    assert_eq!(reqs.len(), 20);
    let mut folds = 0;
    for (t, pair) in reqs.windows(2).enumerate() {
        let (a, b) = (parts(&pair[0]), parts(&pair[1]));
        let mut carried = a.verbatim.clone();
        carried.push(("user".into(), a.new.clone()));
        carried.push((
            "assistant".into(),
            format!("Noted: {}", without_header(&a.new)),
        ));
        if a.memory == b.memory {
            // No fold between t and t+1: t's prompt without its per-turn block and new message
            // is a prefix of t+1's (which then goes on with that message and its reply).
            let n = pair[0].messages.len() - 1 - a.turn_messages;
            assert_eq!(
                pair[0].messages[..n],
                pair[1].messages[..n],
                "turn {t} → {}",
                t + 1
            );
            assert_eq!(b.verbatim, carried, "turn {}: nothing lost", t + 1);
        } else {
            folds += 1;
            assert!(
                carried.ends_with(&b.verbatim) && b.verbatim.len() >= KEEP,
                "turn {}: after a fold the newest {KEEP}+ stay: {b:#?}",
                t + 1
            );
            assert_eq!(b.verbatim.first().map(|m| m.0.as_str()), Some("user"));
        }
        assert!(b.verbatim.len() <= KEEP + 2 * THRESHOLD, "turn {}", t + 1);
    }
    assert!(folds >= 3, "{folds} folds in 20 turns");
    // The first message left the prompt only through the summary.
    let last = parts(reqs.last().expect("a request"));
    assert!(
        last.memory.as_deref().unwrap_or_default().contains("K0X"),
        "{last:#?}"
    );
    let (started, saved, yielded, failed) = summary_counts(&d).await;
    // The next DM follows each answer at once, so a summary may yield once to it.
    assert_eq!(failed, 0);
    assert!(yielded <= saved, "{yielded} yielded, {saved} saved");
    assert_eq!(started, saved + yielded);
    // The last fold may have been saved after the last reply.
    assert!(
        saved == folds || saved == folds + 1,
        "{saved} saved, {folds} seen"
    );
}

/// A summary slower than the user's pause used to be cancelled by every next reply, so none
/// was ever saved. Now it yields once, then runs to the end: the backlog stays within
/// window + 2 × threshold and there is at most one cancelled summary per saved one.
#[tokio::test(start_paused = true)]
async fn summaries_finish_when_the_user_answers_at_once() {
    let _pace = paced();
    let d = Daemon::start(&config()).await;
    d.llm.set_behaviour(|req| {
        if is_summary(req) {
            match summarizer(req) {
                FakeResponse::Text(t) => FakeResponse::Slow(Duration::from_millis(600), t),
                other => other,
            }
        } else {
            FakeResponse::Text(format!("Noted: {}", req.last_user()))
        }
    });
    for i in 0..24 {
        // The next DM goes out as soon as the answer arrived.
        d.dm_and_wait(ANN, &format!("turn {i}: my grid square is JN{i}7"), 1)
            .await;
    }
    let reqs = replies(&d.llm);
    let most = reqs.iter().map(|r| parts(r).verbatim.len()).max();
    assert!(
        most <= Some(KEEP + 2 * THRESHOLD),
        "unsummarised messages in a prompt: {most:?}"
    );
    let [started, saved, yielded, failed, at_cap] = settled_counts(&d).await;
    assert_eq!(failed, 0);
    assert_eq!(
        at_cap, 0,
        "the reply path never waited for a fold at the hard cap"
    );
    assert!(saved >= 4, "saved {saved} summaries in 24 turns");
    assert!(yielded <= saved, "{yielded} cancelled for {saved} saved");
    assert_eq!(started, saved + yielded);
    let last = parts(reqs.last().expect("a request"));
    assert!(
        last.memory.as_deref().unwrap_or_default().contains("JN07"),
        "{last:#?}"
    );
}

/// Refused summaries (a refusal, an empty text) change nothing: the messages stay in the
/// prompt. At the hard cap the fold runs before the reply; the prompt stays bounded even when
/// every summary fails.
#[tokio::test]
async fn botched_summaries_lose_nothing_and_the_hard_cap_folds_before_the_reply() {
    let d = Daemon::start(&config()).await;
    d.llm.set_behaviour(|req| {
        if is_summary(req) {
            FakeResponse::Text("I'm sorry, I can't help with that.".into())
        } else {
            FakeResponse::Text(format!("Noted: {}", req.last_user()))
        }
    });
    d.dm_and_wait(ANN, "My callsign is KD9XYZ", 1).await;
    for i in 1..12 {
        d.dm_and_wait(ANN, &format!("turn {i}"), 1).await;
        // The backlog reaches the hard cap (16) at turn 8: from then on each reply first
        // runs the fold itself.
        if i == 7 || i == 11 {
            let at_cap = counts(&d).await[4];
            assert_eq!(at_cap, if i == 7 { 0 } else { 4 }, "after turn {i}");
        }
    }
    let reqs = replies(&d.llm);
    // Up to turn 10 (20 unsummarised messages, the most a prompt carries) nothing left it.
    for (t, r) in reqs.iter().enumerate().take(11).skip(1) {
        let p = parts(r);
        assert_eq!(p.memory, None, "turn {t}: no summary was saved");
        assert_eq!(
            p.verbatim.first().map(|m| without_header(&m.1)),
            Some("My callsign is KD9XYZ"),
            "turn {t}: the first message is still in the prompt"
        );
    }
    let most = reqs.iter().map(|r| parts(r).verbatim.len()).max();
    assert!(most <= Some(KEEP + 4 * THRESHOLD), "{most:?}");

    // A good summary at last: the messages it covers leave the prompt, into the summary.
    d.answer_with(|req| FakeResponse::Text(format!("Noted: {}", req.last_user())));
    let before = d.llm.requests().len();
    d.dm_and_wait(ANN, "turn 12", 1).await;
    let reqs: Vec<FakeRequest> = d.llm.requests()[before..].to_vec();
    assert!(reqs.iter().any(is_summary), "the fold ran at the cap");
    let reply = reqs.iter().rfind(|r| !is_summary(r)).expect("reply");
    let p = parts(reply);
    assert!(p.verbatim.len() <= KEEP + 1, "{p:#?}");
    assert!(
        p.memory.as_deref().unwrap_or_default().contains("KD9XYZ"),
        "{p:#?}"
    );
    let (_, saved, _, failed) = summary_counts(&d).await;
    assert!(saved >= 1 && failed >= 1, "saved {saved} failed {failed}");
}

/// A summary that keeps nothing specific: the user's own statements survive it as facts, and
/// an inflected question finds the old exchange by its stem.
#[tokio::test]
async fn facts_and_stemmed_retrieval_bring_back_what_the_summary_dropped() {
    let d = Daemon::start(&config()).await;
    d.llm.set_behaviour(|req| {
        if is_summary(req) {
            FakeResponse::Text("Chatted about radios.".into())
        } else {
            FakeResponse::Text(format!("Noted: {}", req.last_user()))
        }
    });
    d.dm_and_wait(ANN, "My dog is called Rex.", 1).await;
    d.dm_and_wait(ANN, "our swap meets are every second Saturday", 1)
        .await;
    d.dm_and_wait(ANN, "Which batteries survive freezing nights?", 1)
        .await;
    for q in [
        "What is LoRa?",
        "How far does it reach?",
        "Which antenna is best?",
        "What is a hop?",
        "Any tips for soldering?",
    ] {
        d.dm_and_wait(ANN, q, 1).await;
    }
    d.dm_and_wait(ANN, "When is the swap meet?", 1).await;
    let reqs = replies(&d.llm);
    let p = parts(reqs.last().expect("reply"));
    assert!(
        !p.verbatim.iter().any(|m| m.1.contains("swap")),
        "folded already: {p:#?}"
    );
    let memory = p.memory.clone().unwrap_or_default();
    assert!(memory.contains("Chatted about radios."), "{memory}");
    assert!(memory.contains("- My dog is called Rex."), "{memory}");
    assert!(
        memory.contains("- our swap meets are every second Saturday"),
        "{memory}"
    );
    // The exchange whose question is a kept fact is not brought back: the memory block has it.
    let turn = p.turn.clone().unwrap_or_default();
    assert!(!turn.contains("swap meets"), "{turn}");
    // A question (no fact) found by its stems: "battery ... freezing night".
    d.dm_and_wait(ANN, "A battery for a freezing night?", 1)
        .await;
    let reqs = replies(&d.llm);
    let p = parts(reqs.last().expect("reply"));
    let turn = p.turn.unwrap_or_default();
    assert!(
        turn.contains("They wrote “Which batteries survive freezing nights?”"),
        "{turn}"
    );
    let summary = d.dm_and_wait(ANN, "!summary", 1).await.join(" ");
    assert!(
        summary.contains("I remember: Chatted about radios.")
            && summary.contains("You told me: My dog is called Rex."),
        "{summary}"
    );
}

/// A corrected fact no longer reaches the prompt after the fold that keeps the correction
/// (the summary that still says it is cleaned, retrieval does not bring the old statement
/// back); `!summary` says the new value only, already while the correction is in the window.
#[tokio::test]
async fn a_corrected_fact_no_longer_reaches_the_prompt() {
    let d = Daemon::start(&config()).await;
    // A model whose notes keep the old callsign.
    d.llm.set_behaviour(|req| {
        if is_summary(req) {
            FakeResponse::Text("Ann's callsign is SP9QRZ. Ann likes yagis.".into())
        } else {
            FakeResponse::Text(format!("Noted: {}", req.last_user()))
        }
    });
    let fillers = [
        "What is LoRa?",
        "How far does it reach?",
        "Which antenna is best?",
        "What is a hop?",
        "Any tips for soldering?",
        "What is SNR?",
    ];
    d.dm_and_wait(ANN, "My callsign is SP9QRZ.", 1).await;
    d.dm_and_wait(ANN, "My friend's callsign is DL1ABC.", 1)
        .await;
    for q in &fillers[..5] {
        d.dm_and_wait(ANN, q, 1).await;
    }
    let reqs = replies(&d.llm);
    let memory = parts(reqs.last().expect("reply"))
        .memory
        .unwrap_or_default();
    assert!(
        memory.contains("- My callsign is SP9QRZ."),
        "folded: {memory}"
    );
    // The correction, in the window: after the memory block, which says it is older.
    d.dm_and_wait(ANN, "Update: my callsign is SP2KWT now.", 1)
        .await;
    d.dm_and_wait(ANN, "What is my callsign?", 1).await;
    let reqs = replies(&d.llm);
    let p = parts(reqs.last().expect("reply"));
    let memory = p.memory.clone().unwrap_or_default();
    assert!(
        memory.contains("their messages below are newer"),
        "{memory}"
    );
    assert!(
        p.verbatim.iter().any(|m| m.1.contains("SP2KWT")),
        "the correction is in the window: {p:#?}"
    );
    let summary = d.dm_and_wait(ANN, "!summary", 1).await.join(" ");
    assert!(
        summary.contains("SP2KWT") && !summary.contains("SP9QRZ") && summary.contains("DL1ABC"),
        "{summary}"
    );
    // Folded: the new fact is kept, the old one is nowhere in the prompt.
    for q in &fillers {
        d.dm_and_wait(ANN, q, 1).await;
    }
    d.dm_and_wait(ANN, "My callsign, what was it?", 1).await;
    let reqs = replies(&d.llm);
    let last = reqs.last().expect("reply");
    let p = parts(last);
    let memory = p.memory.clone().unwrap_or_default();
    assert!(
        memory.contains("- Update: my callsign is SP2KWT now."),
        "{memory}"
    );
    assert!(
        !p.verbatim.iter().any(|m| m.1.contains("SP2KWT")),
        "folded already: {p:#?}"
    );
    let whole: String = last.messages.iter().map(|m| m.content.as_str()).collect();
    assert!(
        !whole.contains("SP9QRZ"),
        "the old value reached the prompt: {whole}"
    );
    assert!(memory.contains("Ann likes yagis."), "{memory}");
    let summary = d.dm_and_wait(ANN, "!summary", 1).await.join(" ");
    assert!(
        summary.contains("SP2KWT") && !summary.contains("SP9QRZ"),
        "{summary}"
    );
}

/// With a llama.cpp server (detected by `/props`) each node keeps its own slot and summaries
/// use the last one, with `cache_prompt`; a server that is not llama.cpp gets neither field.
#[tokio::test(start_paused = true)]
async fn slots_pin_nodes_and_keep_summaries_apart() {
    let _pace = paced();
    for (props, fixed) in [
        (Some(4), ""),
        (None, "slots = 4"),
        (None, ""),
        (Some(4), "slots = \"off\""),
    ] {
        let sim = std::sync::Arc::new(SimNode::start(sim_config()).await);
        let llm = FakeLlm::start_echo().await;
        llm.set_props_slots(props);
        let dir = db_dir();
        let url = llm.base_url();
        let lines = format!("timeout_secs = 3\n{fixed}");
        let d = Daemon::start_with_llm_url(sim, llm, dir, &config(), &url, &lines).await;
        d.answer_with(|req| FakeResponse::Text(format!("Noted: {}", req.last_user())));
        for i in 0..5 {
            for node in [ANN, BOB, CID] {
                d.dm_and_wait(node, &format!("{node:x} turn {i}"), 1).await;
            }
        }
        tokio::time::sleep(Duration::from_millis(300)).await;
        let chats: Vec<FakeRequest> = d
            .llm
            .requests()
            .into_iter()
            .filter(|r| r.path.ends_with("/chat/completions"))
            .collect();
        let slot = |r: &FakeRequest| {
            r.json
                .as_ref()
                .and_then(|j| j.get("id_slot"))
                .and_then(|v| v.as_u64())
        };
        let cache = |r: &FakeRequest| r.json.as_ref().and_then(|j| j.get("cache_prompt")).cloned();
        let llama = props.is_some() && fixed.is_empty() || fixed == "slots = 4";
        if !llama {
            assert!(
                chats
                    .iter()
                    .all(|r| slot(r).is_none() && cache(r).is_none()),
                "props {props:?} {fixed:?}: plain OpenAI requests"
            );
            continue;
        }
        // node → the slots its replies used
        let mut pinned: std::collections::HashMap<String, std::collections::BTreeSet<u64>> =
            std::collections::HashMap::new();
        for r in &chats {
            assert_eq!(cache(r), Some(serde_json::Value::Bool(true)));
            let s = slot(r).expect("id_slot");
            if is_summary(r) {
                assert_eq!(s, 3, "summaries on the last slot");
            } else {
                let node = r
                    .last_user()
                    .split(' ')
                    .next()
                    .unwrap_or_default()
                    .to_string();
                assert!(s < 3);
                pinned.entry(node).or_default().insert(s);
            }
        }
        assert_eq!(pinned.len(), 3, "{pinned:?}");
        assert!(
            pinned.values().all(|s| s.len() == 1),
            "one slot per node: {pinned:?}"
        );
        let distinct: std::collections::BTreeSet<u64> =
            pinned.values().flatten().copied().collect();
        assert_eq!(distinct.len(), 3, "three nodes, three slots: {pinned:?}");
        assert!(chats.iter().any(is_summary), "summaries ran");
    }
}

/// A small model writing the person's message back (Qwen2.5-0.5B to "Hi, my name is …",
/// docs/benchmarks.md): the person gets the daemon's "Noted." (to a question, its
/// unusable-answer notice), and no later prompt carries an answer for that message: neither
/// the echo, which taught the model to echo every later message, nor "Noted.", which taught
/// it to say "Noted." to every later question. An answer that says more goes as written.
#[tokio::test(start_paused = true)]
async fn an_answer_that_only_writes_the_message_back_is_not_sent() {
    use meshai::lang::{Lang, Say, say};
    let _pace = paced();
    let d = Daemon::start(&config()).await;
    d.answer_with(|req| {
        let said = without_header(req.last_user());
        if said.starts_with("Hi") {
            FakeResponse::Text(format!("{said} (session 1)"))
        } else if said.starts_with("Again") {
            FakeResponse::Text("The same answer as before.".into())
        } else {
            FakeResponse::Text(format!("Sure: {said}"))
        }
    });
    let texts = d.dm_and_wait(ANN, "Hi, my name is Ann.", 1).await;
    assert_eq!(texts, [say(Lang::En, Say::Noted)]);
    let texts = d.dm_and_wait(ANN, "Hi, is anyone there?", 1).await;
    assert_eq!(texts, [say(Lang::En, Say::LlmUnusable)]);
    let texts = d.dm_and_wait(ANN, "My dog is Rex.", 1).await;
    assert_eq!(texts, ["Sure: My dog is Rex."]);
    d.dm_and_wait(ANN, "And my cat is Tom.", 1).await;
    // The bot's previous answer again, to another message, is no answer either; to the same
    // message again it is.
    let texts = d.dm_and_wait(ANN, "Again, the first time.", 1).await;
    assert_eq!(texts, ["The same answer as before."]);
    let texts = d.dm_and_wait(ANN, "Again, a second time.", 1).await;
    assert_eq!(texts, [say(Lang::En, Say::Noted)]);
    let texts = d.dm_and_wait(ANN, "Again, the first time.", 1).await;
    assert_eq!(texts, ["The same answer as before."]);
    let reqs = replies(&d.llm);
    let last = parts(&reqs[3]);
    let verbatim: Vec<(&str, &str)> = last
        .verbatim
        .iter()
        .map(|(role, text)| (role.as_str(), without_header(text)))
        .collect();
    assert_eq!(
        verbatim,
        [
            ("user", "Hi, my name is Ann."),
            ("user", "Hi, is anyone there?"),
            ("user", "My dog is Rex."),
            ("assistant", "Sure: My dog is Rex."),
        ],
        "{last:#?}"
    );
}

/// An answer from the line of memory next to the one asked about (Qwen2.5-0.5B's locator
/// line to "What is my daughter called?") goes as the line asked about, quoted; that quote
/// is what the next prompt repeats. An answer from the line asked about goes as written.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_answer_from_the_wrong_line_of_memory_goes_as_the_line_asked_about() {
    let _pace = paced();
    let d = Daemon::start(&config()).await;
    d.answer_with(|req| match without_header(req.last_user()) {
        said if said.ends_with('?') => FakeResponse::Text("Your dog is called Rex.".into()),
        said => FakeResponse::Text(format!("Noted: {said}")),
    });
    d.dm_and_wait(ANN, "My dog is called Rex.", 1).await;
    d.dm_and_wait(ANN, "My daughter is called Mia.", 1).await;
    let quote = "You told me: \u{201c}My daughter is called Mia.\u{201d}";
    let texts = d.dm_and_wait(ANN, "What is my daughter called?", 1).await;
    assert_eq!(texts, [quote]);
    let texts = d.dm_and_wait(ANN, "What is my dog called?", 1).await;
    assert_eq!(texts, ["Your dog is called Rex."]);
    let reqs = replies(&d.llm);
    let last = parts(&reqs[3]);
    let answers: Vec<&str> = last
        .verbatim
        .iter()
        .filter(|(role, _)| role == "assistant")
        .map(|(_, text)| text.as_str())
        .collect();
    assert_eq!(
        answers,
        [
            "Noted: My dog is called Rex.",
            "Noted: My daughter is called Mia.",
            quote
        ],
        "{last:#?}"
    );
}
