//! Issue 25: fair to the people it serves under floods and congestion. Against the simulated
//! node paced like the firmware (2 s between texts, ACKs after 1.5 s, the 45 s ACK timeout)
//! and the fake model, in paused time paced by `harness::VirtualPace`:
//!
//! - a new node's second and third DMs, sent while the model works on its first, are answered
//!   together, in one call, right after the first answer;
//! - 40 fresh ids with keys of their own × 4 PKI DMs (`keys_scenario`): a user whose key was
//!   pinned before and a known user are answered within 30 s;
//! - 2,000 silent ids × 1 DM (`silent_ids_scenario`): the pinned user within 10 s;
//! - 500 DMs stored from one id while it is rate limited (`stored_flood_scenario`): no model
//!   request carries more than the input bound;
//! - 60 fresh-id mentions in 3 s (`mentions_scenario`): a known node's mention is answered.
//!
//! The scenarios are shared with `benches/flood.rs`, which runs them on main's code too: they
//! seed and drive the daemon only through what both have (a key pinned and accepted by the
//! operator, a first exchange over the air).

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use tokio::time::Instant;

use crate::harness::{self, Daemon, Steps, VirtualPace};
use crate::support::fake_llm::{FakeLlm, FakeRequest, FakeResponse};
use crate::support::sim_node::{MeshPacketSpec, SentText, SimConfig, SimNode};

/// A user whose key the operator pinned days ago.
pub const PINNED: u32 = 0x9177_ed01;
pub const PINNED_KEY: [u8; 32] = [0x5a; 32];
/// A user who talked before in the clear, on two days (known).
pub const KNOWN: u32 = 0x4e0e_0002;
/// A node heard for the first time.
pub const NEWCOMER: u32 = 0x4e3e_0003;
/// The one id of the stored flood.
pub const HOG: u32 = 0x4040_0004;
pub const ADMIN: u32 = 0xad00_0005;

/// The first of the floods' ids.
pub const FRESH_BASE: u32 = 0x0f2e_0000;
pub const FRESH_KEYS: u32 = 40;
pub const FRESH_DMS: u32 = 4;
pub const SILENT_IDS: u32 = 2_000;
pub const MENTIONS: u32 = 60;
pub const STORED_DMS: u32 = 500;
/// The floods' pace: one DM every 20 ms (the node keeps only 32 packets for its client).
pub const EVERY: Duration = Duration::from_millis(20);
/// When the pinned and known users ask, after the flood's first DM.
pub const ASK_AFTER: Duration = Duration::from_secs(5);

/// What the model answers everyone: three parts.
pub const ANSWER: &str = "A hilltop node wants a vertical antenna with a little gain, mounted \
clear of the mast and metal roofs, fed with short low-loss coax. A 5.8 dBi collinear suits a \
clear horizon; on a crowded hill a 3 dBi whip covers the valleys below better. Seal every \
connector against water, ground the mast, and check the SWR before you leave the site.";

/// The key of fresh id `id`: its own.
fn key_of(id: u32) -> [u8; 32] {
    let mut key = [0u8; 32];
    key[..4].copy_from_slice(&id.to_be_bytes());
    key[31] = 1;
    key
}

/// Pins `key` for `node` three days ago and accepts it as the operator does with `meshai trust
/// --key`, in the database at `db` before the daemon opens it.
async fn pin_before(db: &Path, node: u32, key: [u8; 32]) {
    use meshai::node::{NodeId, PublicKey};
    let store = meshai::store::Store::open(db).expect("the database opens");
    let days_ago = meshai::clock::unix_now() - 3 * 86_400;
    let (node, key) = (NodeId(node), PublicKey(key));
    store.pin_key(node, key, days_ago).await.expect("pinned");
    store.accept_key(node, key).await.expect("vouched");
    store.close().await.expect("closes");
}

/// The daemon of the scenarios: the node paced like the firmware (ACKs after 1.5 s, none ever
/// from `never_ack`), the instant model answering [`ANSWER`], `[limits]` as shipped unless
/// `extra` says otherwise, and [`PINNED`]'s key pinned before.
async fn daemon(never_ack: Vec<u32>, extra: &str, llm_lines: &str) -> Daemon {
    let sim = Arc::new(
        SimNode::start(SimConfig {
            ack_delay: harness::BENCH_ACK_DELAY,
            never_ack,
            ..SimConfig::default()
        })
        .await,
    );
    let llm = FakeLlm::start_echo().await;
    let dir = harness::db_dir();
    let db = dir.path().join("meshai.db");
    pin_before(&db, PINNED, PINNED_KEY).await;
    harness::know_before(&db, [KNOWN]).await;
    let extra = if extra.contains("[limits]") {
        extra.to_string()
    } else {
        format!("[limits]\n{extra}")
    };
    let text = harness::paced_like_firmware(
        &harness::config_text_with(&sim, &llm.base_url(), &db, &extra, llm_lines),
        harness::BENCH_GAP_MS,
    );
    let daemon = Daemon::start_with_text(sim, llm, dir, &text).await;
    daemon.answer_with(|_| FakeResponse::Text(ANSWER.to_string()));
    daemon
}

/// The first text to `to` among `texts[from..]`.
fn first_to(texts: &[SentText], from: usize, to: u32) -> Option<&SentText> {
    texts[from.min(texts.len())..].iter().find(|t| t.to == to)
}

/// Waits up to `cap` for the first text to `to` after `before`; how long after `asked`.
async fn first_part(
    sim: &SimNode,
    before: usize,
    to: u32,
    asked: Instant,
    cap: Duration,
) -> Option<Duration> {
    let remaining = cap.saturating_sub(asked.elapsed());
    sim.wait_for(remaining, |l| first_to(&l.texts, before, to).is_some())
        .await;
    first_to(&sim.texts(), before, to).map(|t| t.at.duration_since(asked))
}

/// What a flood scenario measured.
pub struct Outcome {
    /// The pinned user's DM → its first part on air (virtual); `None` by the cap.
    pub pinned: Option<Duration>,
    /// The known user's, when the scenario has one.
    pub known: Option<Duration>,
    /// Texts on air between the DMs and the pinned user's first part.
    pub texts_before: usize,
    pub daemon: Daemon,
}

/// Known (known from before) says hello and gets its answer; then the radio is idle.
async fn known_says_hello(d: &Daemon) {
    d.ask(KNOWN, "Hello, Known here.", harness::SOON).await;
    tokio::time::sleep(Duration::from_secs(5)).await;
}

/// 40 fresh ids, each with its own key and never ACKing, send 4 PKI DMs each (20 ms apart,
/// round by round); 5 s after the first, the pinned user (over PKI, its pinned key) and the
/// known user ask. Waits up to `cap` (virtual) for both first parts.
pub async fn keys_scenario(steps: Steps, cap: Duration) -> Outcome {
    let pace = VirtualPace::start(steps);
    let fresh: Vec<u32> = (0..FRESH_KEYS).map(|i| FRESH_BASE + i).collect();
    let d = daemon(fresh.clone(), "", "timeout_secs = 30").await;
    known_says_hello(&d).await;
    let sim = d.sim.clone();
    let from = Instant::now();
    for round in 0..FRESH_DMS {
        for id in &fresh {
            sim.inject_pki_dm(*id, &format!("fresh {round} from {id:x}"), key_of(*id));
            tokio::time::sleep(EVERY).await;
        }
    }
    tokio::time::sleep_until(from + ASK_AFTER).await;
    let before = sim.texts().len();
    let asked = Instant::now();
    sim.inject_text(MeshPacketSpec::pki(
        PINNED,
        "Which antenna for a hilltop node?",
        PINNED_KEY,
    ));
    sim.inject_dm(KNOWN, "And for a valley?", None);
    let pinned = first_part(&sim, before, PINNED, asked, cap).await;
    let known = first_part(&sim, before, KNOWN, asked, cap).await;
    let texts = sim.texts();
    let texts_before = texts[before..]
        .iter()
        .position(|t| t.to == PINNED)
        .unwrap_or(texts.len() - before);
    drop(pace);
    Outcome {
        pinned,
        known,
        texts_before,
        daemon: d,
    }
}

/// 2,000 never-ACKing ids send one DM each, 20 ms apart; 5 s after the first the pinned user
/// asks over PKI. Waits up to `cap` (virtual) for its first part; the flood goes on meanwhile.
pub async fn silent_ids_scenario(steps: Steps, cap: Duration) -> Outcome {
    let pace = VirtualPace::start(steps);
    let silent: Vec<u32> = (0..SILENT_IDS).map(|i| FRESH_BASE + i).collect();
    let d = daemon(silent.clone(), "", "timeout_secs = 30").await;
    let sim = d.sim.clone();
    let from = Instant::now();
    let flood = {
        let sim = sim.clone();
        tokio::spawn(async move {
            for id in silent {
                sim.inject_dm(id, &format!("hello from {id:x}"), None);
                tokio::time::sleep(EVERY).await;
            }
        })
    };
    tokio::time::sleep_until(from + ASK_AFTER).await;
    let before = sim.texts().len();
    let asked = Instant::now();
    sim.inject_text(MeshPacketSpec::pki(
        PINNED,
        "Which antenna for a hilltop node?",
        PINNED_KEY,
    ));
    let pinned = first_part(&sim, before, PINNED, asked, cap).await;
    flood.abort();
    let texts = sim.texts();
    let texts_before = texts[before..]
        .iter()
        .position(|t| t.to == PINNED)
        .unwrap_or(texts.len() - before);
    drop(pace);
    Outcome {
        pinned,
        known: None,
        texts_before,
        daemon: d,
    }
}

/// What the stored flood measured.
pub struct Stored {
    /// The largest model request (reply or fold), in characters of its messages.
    pub largest: usize,
    /// Model requests made after the flood.
    pub requests: usize,
    pub daemon: Daemon,
}

/// One id sends 500 DMs 20 ms apart, far over its rate limit (10 a minute here), so all but
/// the first are stored unanswered; a minute later it asks again, and its answer and the folds
/// after it run. Measures the largest model request since the flood began.
pub async fn stored_flood_scenario(steps: Steps) -> Stored {
    let pace = VirtualPace::start(steps);
    let d = daemon(
        Vec::new(),
        "[limits]\nnode_messages = 10\nnode_window_secs = 60\n",
        "timeout_secs = 30",
    )
    .await;
    d.answer_with(|_| FakeResponse::Text("Noted.".to_string()));
    let sim = d.sim.clone();
    let from = d.llm.requests().len();
    let text = "I am listing every repeater I heard today with its frequency and offset, \
                please keep them all: 146.940 MHz minus 600 kHz tone 100.0";
    for i in 0..STORED_DMS {
        sim.inject_dm(HOG, &format!("{i}: {text}"), None);
        tokio::time::sleep(EVERY).await;
    }
    tokio::time::sleep(Duration::from_secs(70)).await;
    d.ask(HOG, "So which repeater is best?", Duration::from_secs(120))
        .await;
    // The folds after the answer.
    tokio::time::sleep(Duration::from_secs(60)).await;
    let requests: Vec<FakeRequest> = d.llm.requests().into_iter().skip(from).collect();
    let largest = requests.iter().map(|r| r.prompt_chars()).max().unwrap_or(0);
    drop(pace);
    Stored {
        largest,
        requests: requests.len(),
        daemon: d,
    }
}

/// What the mentions scenario measured.
pub struct Mentioned {
    /// The known node's mention → its answer on the channel (virtual); `None` by the cap.
    pub answered: Option<Duration>,
    /// Fresh ids' mentions answered by then.
    pub fresh_answered: usize,
    pub daemon: Daemon,
}

/// A channel mention of `from` on channel 0.
fn mention(from: u32, text: &str) -> MeshPacketSpec {
    MeshPacketSpec {
        to: Some(u32::MAX),
        ..MeshPacketSpec::text(from, &format!("@ai {text}"))
    }
}

/// With `answer_mentions` on: the known user says hello in a DM; 60 fresh ids mention the bot
/// on channel 0 within 3 s; then the known user does. Waits up to `cap` (virtual) for the
/// known user's answer on the channel.
pub async fn mentions_scenario(steps: Steps, cap: Duration) -> Mentioned {
    let pace = VirtualPace::start(steps);
    let fresh: Vec<u32> = (0..MENTIONS).map(|i| FRESH_BASE + i).collect();
    let channels = "[channels]\nanswer_mentions = true\nmention = \"@ai\"\nchannels = [0]\n";
    let d = daemon(fresh.clone(), channels, "timeout_secs = 30").await;
    d.answer_with(|req| FakeResponse::Text(format!("ok: {}", req.last_user())));
    known_says_hello(&d).await;
    let sim = d.sim.clone();
    for id in &fresh {
        sim.inject_text(mention(*id, &format!("fresh question from {id:x}")));
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let before = sim.texts().len();
    let asked = Instant::now();
    sim.inject_text(mention(KNOWN, "is the club net on tonight?"));
    let mine = |t: &SentText| t.text.contains("is the club net on tonight?");
    let got = sim
        .wait_for(cap, |l| l.texts[before..].iter().any(mine))
        .await;
    let texts = sim.texts();
    let answered = got
        .then(|| texts[before..].iter().find(|t| mine(t)))
        .flatten()
        .map(|t| t.at.duration_since(asked));
    let fresh_answered = texts
        .iter()
        .filter(|t| t.text.contains("fresh question"))
        .count();
    drop(pace);
    Mentioned {
        answered,
        fresh_answered,
        daemon: d,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The characters of messages a reply's prompt or a fold's request carries at most on the
    /// defaults (`[memory] fold_tokens` 480 × 4 × 4 characters a token), with room for the
    /// system prompt, the memory block and the notes.
    const INPUT_BOUND: usize = 12_000;

    fn steps() -> Steps {
        Steps::even(Duration::from_millis(10))
    }

    /// How many user messages the database in `dir` holds for `node` (the daemon stopped).
    async fn stored_users(dir: &Path, node: u32) -> usize {
        use meshai::store::{Role, Store};
        let store = Store::open(&dir.join("meshai.db")).expect("the database opens");
        let history = store
            .history(meshai::node::NodeId(node), 10_000)
            .await
            .expect("history");
        store.close().await.expect("closes");
        history.iter().filter(|m| m.role == Role::User).count()
    }

    #[tokio::test(start_paused = true)]
    async fn a_new_nodes_later_dms_are_answered_together_right_after_its_first_answer() {
        let _pace = harness::paced();
        let admins = format!("[access]\nadmins = [\"!{ADMIN:08x}\"]\n");
        let d = daemon(
            Vec::new(),
            &format!("[limits]\n\n{admins}"),
            "timeout_secs = 30",
        )
        .await;
        d.answer_with(|req| match req.last_user() {
            "hi there" => FakeResponse::Stall(Duration::from_secs(4)),
            q => FakeResponse::Text(format!("ok: {q}")),
        });
        let sim = d.sim.clone();
        sim.inject_dm(NEWCOMER, "hi there", None);
        tokio::time::sleep(Duration::from_secs(1)).await;
        sim.inject_dm(NEWCOMER, "what is the repeater frequency?", None);
        tokio::time::sleep(Duration::from_millis(500)).await;
        sim.inject_dm(NEWCOMER, "and the offset?", None);
        let done = sim
            .wait_for(Duration::from_secs(60), |l| {
                l.texts
                    .iter()
                    .any(|t| t.text.contains("ok: and the offset?"))
            })
            .await;
        assert!(done, "the later DMs are answered: {:?}", sim.texts());
        let texts = sim.texts();
        let mine: Vec<&SentText> = texts.iter().filter(|t| t.to == NEWCOMER).collect();
        assert_eq!(mine.len(), 2, "two replies, one packet each: {mine:#?}");
        assert_eq!(mine[0].text, "echo: hi there");
        // One model call after the first answer: the combined answer is on air within it
        // (no model time here) and the send gap.
        let after = mine[1].at.duration_since(mine[0].at);
        assert!(after <= Duration::from_secs(4), "{after:?}");
        // One request for both, each message as the conversation stores it, in order.
        let replies = harness::replies(&d.llm);
        assert_eq!(replies.len(), 2, "{replies:#?}");
        let users: Vec<&str> = replies[1]
            .messages
            .iter()
            .filter(|m| m.role == "user")
            .map(|m| m.content.as_str())
            .collect();
        let n = users.len();
        assert!(n >= 3, "{users:?}");
        assert!(users[n - 3].ends_with("hi there"), "{users:?}");
        assert_eq!(users[n - 2], "what is the repeater frequency?");
        assert_eq!(users[n - 1], "and the offset?");
        assert!(
            replies[1]
                .body
                .contains("The asker sent 2 messages since your last answer"),
            "{}",
            replies[1].body
        );
        // `!status` counts it, by standing.
        let status = d.ask(ADMIN, "!status", harness::SOON).await;
        let status: String = status
            .iter()
            .map(|t| meshai::chunk::strip_marker(&t.text))
            .collect::<Vec<_>>()
            .join(" ");
        assert!(status.contains("combined 0/0/1, refused 0/0/0"), "{status}");
        let (result, _sim, _llm, dir) = d.stop().await;
        result.expect("the daemon stops cleanly");
        assert_eq!(
            stored_users(dir.path(), NEWCOMER).await,
            3,
            "every DM stored"
        );
    }

    #[tokio::test(start_paused = true)]
    async fn fresh_keys_take_no_place_of_a_pinned_or_a_known_user() {
        let run = keys_scenario(steps(), Duration::from_secs(120)).await;
        let pinned = run.pinned.expect("the pinned user's answer went on air");
        let known = run.known.expect("the known user's answer went on air");
        assert!(pinned <= Duration::from_secs(30), "pinned after {pinned:?}");
        assert!(known <= Duration::from_secs(30), "known after {known:?}");
        let _pace = harness::paced();
        let (result, ..) = run.daemon.stop().await;
        result.expect("the daemon stops cleanly");
    }

    #[tokio::test(start_paused = true)]
    async fn two_thousand_silent_ids_do_not_hold_a_pinned_user_back() {
        let run = silent_ids_scenario(steps(), Duration::from_secs(60)).await;
        let pinned = run.pinned.expect("the pinned user's answer went on air");
        assert!(pinned <= Duration::from_secs(10), "pinned after {pinned:?}");
        let _pace = harness::paced();
        let (result, ..) = run.daemon.stop().await;
        result.expect("the daemon stops cleanly");
    }

    #[tokio::test(start_paused = true)]
    async fn a_stored_flood_never_makes_a_model_request_larger_than_the_bound() {
        let run = stored_flood_scenario(steps()).await;
        assert!(run.requests >= 2, "the answer and a fold: {}", run.requests);
        assert!(
            run.largest <= INPUT_BOUND,
            "a request of {} characters",
            run.largest
        );
        let _pace = harness::paced();
        let (result, _sim, _llm, dir) = run.daemon.stop().await;
        result.expect("the daemon stops cleanly");
        // Nothing lost: every DM stays stored for the record.
        assert_eq!(stored_users(dir.path(), HOG).await, STORED_DMS as usize + 1);
    }

    #[tokio::test(start_paused = true)]
    async fn a_known_nodes_mention_is_answered_after_sixty_fresh_ones() {
        let run = mentions_scenario(steps(), Duration::from_secs(600)).await;
        assert!(
            run.answered.is_some(),
            "the known node's mention was answered"
        );
        assert!(run.fresh_answered > 0, "fresh ids are answered too");
        let _pace = harness::paced();
        let (result, ..) = run.daemon.stop().await;
        result.expect("the daemon stops cleanly");
    }

    /// Issue 39: a reply's packet id and destination go out in the clear, so anyone can send
    /// its ACK — the simulated node ACKs every reply "from" its destination, which is what a
    /// forged ACK does for a fresh id. Six fresh ids each get one answer ACKed, then hold a
    /// slow question each (`max_waiting = 6`); the known user (exchanges on two days before)
    /// still gets an answer. Before, one ACK made each of the six known and they filled the
    /// known places: the known user got neither an answer nor a notice.
    #[tokio::test(start_paused = true)]
    async fn six_forged_ack_ids_take_no_place_of_a_known_user() {
        let _pace = harness::paced();
        let forged: Vec<u32> = (0..6).map(|i| FRESH_BASE + 0x100 + i).collect();
        let d = harness::firmware_paced_daemon(
            &[KNOWN],
            "[limits]\nmax_waiting = 6\n",
            "timeout_secs = 120",
        )
        .await;
        d.answer_with(|req| match req.last_user() {
            q if q.starts_with("slow") => {
                FakeResponse::Slow(Duration::from_secs(20), "A slow answer.".to_string())
            }
            q => FakeResponse::Text(format!("ok: {q}")),
        });
        for id in &forged {
            let parts = d.ask(*id, "hello", harness::SOON).await;
            assert!(!parts.is_empty(), "{id:x} answered");
        }
        // The last ACK comes back.
        tokio::time::sleep(Duration::from_secs(5)).await;
        for id in &forged {
            d.sim.inject_dm(*id, "slow question", None);
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        tokio::time::sleep(Duration::from_secs(1)).await;
        let before = d.sim.texts().len();
        d.sim.inject_dm(KNOWN, "Is the club net on tonight?", None);
        let mine = |t: &SentText| t.to == KNOWN && t.text.contains("Is the club net on tonight?");
        let answered = d
            .sim
            .wait_for(Duration::from_secs(45), |l| {
                l.texts[before..].iter().any(mine)
            })
            .await;
        let to_known: Vec<String> = d.sim.texts()[before..]
            .iter()
            .filter(|t| t.to == KNOWN)
            .map(|t| t.text.clone())
            .collect();
        assert!(
            answered,
            "the known user's answer within 45 s; it got {to_known:?}"
        );
        let (result, ..) = d.stop().await;
        result.expect("the daemon stops cleanly");
    }

    /// Issue 39: commands skip admission and each fresh id got a worker of its own, held for
    /// 10 minutes (20,000 ids: RSS 12 → 203 MB). Now new ids' workers are bounded
    /// (`NEW_WORKERS_MAX` = 256): 600 fresh ids send `!help` within 1.2 s; at most 256 of them
    /// are served, the rest counted and left, and the known user's `!status` still comes.
    #[tokio::test(start_paused = true)]
    async fn six_hundred_fresh_ids_with_commands_hold_a_bounded_number_of_workers() {
        let _pace = VirtualPace::start(Steps::even(Duration::from_millis(50)));
        let fresh: Vec<u32> = (0..600).map(|i| FRESH_BASE + 0x1000 + i).collect();
        let sim = Arc::new(SimNode::start(harness::sim_config()).await);
        let llm = FakeLlm::start_echo().await;
        let dir = harness::db_dir();
        harness::know_before(&dir.path().join("meshai.db"), [KNOWN]).await;
        let d = Daemon::start_with(sim, llm, dir, "[limits]\n").await;
        for id in &fresh {
            d.sim.inject_dm(*id, "!help", None);
            tokio::time::sleep(Duration::from_millis(2)).await;
        }
        let before = d.sim.texts().len();
        let asked = Instant::now();
        d.sim.inject_dm(KNOWN, "!status", None);
        let known = first_part(&d.sim, before, KNOWN, asked, Duration::from_secs(120)).await;
        let known = known.expect("the known user's !status during the flood");
        // Long enough for every reply handed over to go on air (the tests' short pace).
        tokio::time::sleep(Duration::from_secs(300)).await;
        let texts = d.sim.texts();
        let served: std::collections::HashSet<u32> = texts
            .iter()
            .map(|t| t.to)
            .filter(|to| fresh.contains(to))
            .collect();
        assert!(
            served.len() <= 256,
            "{} fresh ids were served: their workers are not bounded",
            served.len()
        );
        assert!(
            served.len() >= 100,
            "fresh ids are still served: {}",
            served.len()
        );
        assert!(
            known <= Duration::from_secs(60),
            "the known user's !status after {known:?}"
        );
        let (result, ..) = d.stop().await;
        result.expect("the daemon stops cleanly");
    }
}
