//! Issue 17's flood: 50 never-heard ids × 3 DMs, ids that never ACK (as forged ones do), and
//! a node that talked before over PKI, whose next DM arrives 5 s into the flood. The first
//! part of its answer must be on air within 30 s, with an instant model and the firmware's
//! pacing (a 2 s send gap, the simulated node refusing a text < 2 s after the last, ACKs after
//! 1.5 s, the 45 s ACK timeout); before issue 17 it waited behind all 150 answers.
//!
//! Issue 25's silent destination: a known node stops ACKing (it walked out of range) right
//! after a DM, and another known node asks; its first part must be on air within 15 s while the
//! silent node's reply is still being retried (before issue 25 it waited for all its tries).
//!
//! The daemon runs in-process in paused time, paced by `harness::VirtualPace`, so the 30 s are
//! virtual: no wall-clock bound. `scenario` and `silent_scenario` are shared with
//! `benches/flood.rs`. Also here: a turn that waits past `[limits] max_turn_wait_secs`, and
//! `!status`'s queue line.

use std::sync::Arc;
use std::time::Duration;

use tokio::time::Instant;

use crate::harness::{self, Daemon, Steps, VirtualPace};
use crate::support::fake_llm::{FakeLlm, FakeResponse};
use crate::support::sim_node::{MeshPacketSpec, SentText, SimConfig, SimNode};

/// The node that talked before, over PKI.
pub const ALICE: u32 = 0xa11c_e001;
/// The first of the flood's ids.
pub const FLOOD_BASE: u32 = 0x0f1d_0000;
pub const FLOOD_IDS: u32 = 50;
pub const FLOOD_DMS: u32 = 3;
/// The flood's pace: one DM every 20 ms, all 150 within 3 s (the node keeps only 32 packets for
/// its client, so a burst any faster would mostly be lost before the daemon reads it).
pub const FLOOD_EVERY: Duration = Duration::from_millis(20);
/// What the instant model answers everyone: three parts, so a new id's answer is cut at its
/// two.
pub const ANSWER: &str = "A hilltop node wants a vertical antenna with a little gain, mounted \
clear of the mast and metal roofs, fed with short low-loss coax. A 5.8 dBi collinear suits a \
clear horizon; on a crowded hill a 3 dBi whip covers the valleys below better. Seal every \
connector against water, ground the mast, and check the SWR before you leave the site.";

/// When Alice's DM comes, after the flood's first.
pub const ALICE_AFTER: Duration = Duration::from_secs(5);

/// The silent scenario's node that stops ACKing, and the one that asks meanwhile.
pub const ROVER: u32 = 0x0a0e_0006;
pub const HOME: u32 = 0x40e0_0007;
/// When Home's DM comes, after Rover's first part went on air unanswered.
pub const HOME_AFTER: Duration = Duration::from_secs(1);

/// What one run of a scenario measured.
pub struct Outcome {
    /// Alice's (or Home's) DM → the first part of her answer on air (virtual time); `None`
    /// when it had not gone by the cap.
    pub first_part: Option<Duration>,
    /// Texts that went on air between that DM and her first part.
    pub texts_before: usize,
    /// Flood ids that got an answer by then (none without a flood).
    pub flood_answered: usize,
    /// The daemon, still running.
    pub daemon: Daemon,
    /// When that DM was injected.
    pub asked: Instant,
}

/// The flood's ids.
pub fn flood_ids() -> impl Iterator<Item = u32> {
    (0..FLOOD_IDS).map(|i| FLOOD_BASE + i)
}

/// Alice's key, pinned days before the scenario when she talks over PKI.
pub const ALICE_KEY: [u8; 32] = [0xa1; 32];

/// A DM from `from`: over PKI with Alice's key, or in the clear.
fn dm(from: u32, text: &str, pki: bool) -> MeshPacketSpec {
    if pki {
        MeshPacketSpec::pki(from, text, ALICE_KEY)
    } else {
        MeshPacketSpec::text(from, text)
    }
}

/// Pins Alice's key three days ago and accepts it as the operator does (`meshai trust
/// --key`), in the database at `db` before the daemon opens it: a key pinned before proves
/// her (a key first seen in the scenario would not).
async fn pin_alice(db: &std::path::Path) {
    use meshai::node::{NodeId, PublicKey};
    let store = meshai::store::Store::open(db).expect("the database opens");
    let days_ago = meshai::clock::unix_now() - 3 * 86_400;
    let (node, key) = (NodeId(ALICE), PublicKey(ALICE_KEY));
    store.pin_key(node, key, days_ago).await.expect("pinned");
    store.accept_key(node, key).await.expect("vouched");
    store.close().await.expect("closes");
}

/// The daemon of both scenarios: the simulated node paced like the firmware (ACKs after 1.5 s,
/// none ever from `never_ack`), the instant model answering [`ANSWER`], and `[limits]` as
/// shipped (the rate limit and the new nodes' budget apply).
async fn paced_daemon(never_ack: Vec<u32>, pki: bool) -> Daemon {
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
    if pki {
        pin_alice(&db).await;
    } else {
        harness::know_before(&db, [ALICE]).await;
    }
    harness::know_before(&db, [ROVER, HOME]).await;
    let text = harness::paced_like_firmware(
        &harness::config_text(&sim, &llm.base_url(), &db, "[limits]\n"),
        harness::BENCH_GAP_MS,
    );
    let daemon = Daemon::start_with_text(sim, llm, dir, &text).await;
    daemon.answer_with(|_| FakeResponse::Text(ANSWER.to_string()));
    daemon
}

/// Runs the scenario in paused time paced by `steps` (see `VirtualPace`): Alice asks once (over
/// PKI with her key pinned days before when `pki`: proven; else in the clear, known from
/// exchanges on two days before) and gets her answer; then,
/// with `flood`, the flood's 150 DMs arrive within 3 s; 5 s after the first of them Alice asks
/// again. Waits up to `cap` (virtual) for the first part of her second answer.
pub async fn scenario(flood: bool, pki: bool, steps: Steps, cap: Duration) -> Outcome {
    let pace = VirtualPace::start(steps);
    let daemon = paced_daemon(flood_ids().collect(), pki).await;
    let sim = daemon.sim.clone();

    sim.inject_text(dm(ALICE, "Hi, I am Alice from the ridge.", pki));
    let to_alice =
        |l: &crate::support::sim_node::SimLog| l.texts.iter().filter(|t| t.to == ALICE).count();
    assert!(
        sim.wait_for(harness::SOON, |l| harness::ends_reply(&l.texts))
            .await,
        "Alice's first answer"
    );
    // Her last ACK comes, and the radio is idle again.
    tokio::time::sleep(Duration::from_secs(5)).await;

    let flood_from = Instant::now();
    if flood {
        for dm in 0..FLOOD_DMS {
            for id in flood_ids() {
                sim.inject_dm(id, &format!("flood message {dm} from {id:x}"), None);
                tokio::time::sleep(FLOOD_EVERY).await;
            }
        }
    }
    tokio::time::sleep_until(flood_from + ALICE_AFTER).await;
    let before = sim.texts().len();
    let answered_before = to_alice(&sim.log());
    let asked = Instant::now();
    sim.inject_text(dm(
        ALICE,
        "What is the best antenna for a hilltop node?",
        pki,
    ));
    let got = sim.wait_for(cap, |l| to_alice(l) > answered_before).await;
    let texts = sim.texts();
    let first = texts[before..].iter().position(|t| t.to == ALICE);
    let first_part = got
        .then(|| first.map(|i| texts[before + i].at.duration_since(asked)))
        .flatten();
    let flood_answered = flood_ids()
        .filter(|id| texts.iter().any(|t| t.to == *id))
        .count();
    drop(pace);
    Outcome {
        first_part,
        texts_before: first.unwrap_or(texts.len() - before),
        flood_answered,
        daemon,
        asked,
    }
}

/// The first text to `to` among `texts[from..]`, and the texts before it there.
fn first_to(texts: &[SentText], from: usize, to: u32) -> (Option<&SentText>, usize) {
    let after = &texts[from.min(texts.len())..];
    match after.iter().position(|t| t.to == to) {
        Some(i) => (Some(&after[i]), i),
        None => (None, after.len()),
    }
}

/// Runs issue 25's silent destination in paused time paced by `steps`: Rover and Home each ask
/// once in the clear and ACK their answers (both known, their parts held); then Rover's node
/// stops ACKing, Rover asks again, and `HOME_AFTER` after Rover's first part went on air Home
/// asks. Waits up to `cap` (virtual) for the first part of Home's answer; Rover stays silent.
pub async fn silent_scenario(steps: Steps, cap: Duration) -> Outcome {
    let pace = VirtualPace::start(steps);
    let daemon = paced_daemon(Vec::new(), false).await;
    let sim = daemon.sim.clone();
    for (node, hello) in [(ROVER, "Hi, Rover here."), (HOME, "Hello from Home.")] {
        daemon.ask(node, hello, harness::SOON).await;
        // Its last ACK comes: the node is known, and the radio idle again.
        tokio::time::sleep(Duration::from_secs(5)).await;
    }

    sim.stop_acking(ROVER);
    let before = sim.texts().len();
    sim.inject_dm(ROVER, "What is the repeater frequency?", None);
    let on_air = sim
        .wait_for(cap, |l| first_to(&l.texts, before, ROVER).0.is_some())
        .await;
    assert!(on_air, "Rover's first part");
    tokio::time::sleep(HOME_AFTER).await;
    let before = sim.texts().len();
    let asked = Instant::now();
    sim.inject_dm(HOME, "Which antenna for a hilltop node?", None);
    let got = sim
        .wait_for(cap, |l| first_to(&l.texts, before, HOME).0.is_some())
        .await;
    let texts = sim.texts();
    let (first, texts_before) = first_to(&texts, before, HOME);
    let first_part = got
        .then(|| first.map(|t| t.at.duration_since(asked)))
        .flatten();
    drop(pace);
    Outcome {
        first_part,
        texts_before,
        flood_answered: 0,
        daemon,
        asked,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The `i` of a part's ` i/n` or ` i/?` marker; 1 for an unnumbered text.
    fn part_number(text: &str) -> u32 {
        text.rsplit_once(' ')
            .and_then(|(_, m)| m.split_once('/'))
            .and_then(|(i, _)| i.parse().ok())
            .unwrap_or(1)
    }

    #[tokio::test(start_paused = true)]
    async fn a_proven_user_is_answered_within_30_s_during_a_flood_of_never_acking_ids() {
        let steps = Steps::even(Duration::from_millis(10));
        let run = scenario(true, true, steps, Duration::from_secs(60)).await;
        let first = run
            .first_part
            .expect("Alice's answer went on air within 60 s");
        assert!(
            first <= Duration::from_secs(30),
            "Alice's first part after {first:?} ({} texts before it)",
            run.texts_before
        );
        // The flood is still on air around her answer, paced as the firmware wants.
        let _pace = harness::paced();
        tokio::time::sleep(Duration::from_secs(20)).await;
        let sim = run.daemon.sim.clone();
        let texts = sim.texts();
        assert!(
            texts.iter().any(|t| t.at > run.asked && t.to != ALICE),
            "the flood was still being answered"
        );
        for w in texts.windows(2) {
            assert!(w[1].at - w[0].at >= Duration::from_secs(2), "{w:?}");
        }
        assert_eq!(sim.rate_limit_refusals(), 0);
        // A new id's answer has two parts at most; Alice's has them all.
        for t in texts.iter().filter(|t| t.to != ALICE) {
            assert!(part_number(&t.text) <= 2, "{:x} got {:?}", t.to, t.text);
        }
        let alice = texts.iter().filter(|t| t.to == ALICE && t.at > run.asked);
        assert_eq!(alice.map(|t| part_number(&t.text)).max(), Some(3));
        assert!(run.flood_answered > 0, "new ids are answered too");
        let (result, _sim, _llm, dir) = run.daemon.stop().await;
        result.expect("the daemon stops cleanly");
        drop(_pace);

        // Every message is stored, answered or not.
        let flood: Vec<usize> = stored_users(dir.path(), flood_ids()).await;
        assert_eq!(flood, vec![FLOOD_DMS as usize; FLOOD_IDS as usize]);
        assert_eq!(stored_users(dir.path(), [ALICE]).await, [2]);
    }

    #[tokio::test(start_paused = true)]
    async fn a_known_user_is_answered_within_15_s_while_another_known_node_is_silent() {
        let steps = Steps::even(Duration::from_millis(10));
        let run = silent_scenario(steps, Duration::from_secs(300)).await;
        let first = run.first_part.expect("Home's answer went on air");
        assert!(
            first <= Duration::from_secs(15),
            "Home's first part after {first:?} ({} texts before it)",
            run.texts_before
        );
        // Rover comes back into range between its first part's second and third try.
        let _pace = VirtualPace::start(Steps::even(Duration::from_millis(10)));
        let sim = run.daemon.sim.clone();
        let rover_from = sim
            .texts()
            .iter()
            .rposition(|t| t.to == ROVER && t.at <= run.asked)
            .expect("Rover's first part went before Home asked");
        let rover_at = sim.texts()[rover_from].at;
        tokio::time::sleep_until(rover_at + Duration::from_secs(60)).await;
        sim.resume_acking(ROVER);
        let done = sim
            .wait_for(Duration::from_secs(300), |l| {
                let mut rover = l.texts[rover_from..].iter().filter(|t| t.to == ROVER);
                rover
                    .next_back()
                    .is_some_and(|t| harness::is_last_part(&t.text))
            })
            .await;
        assert!(done, "Rover's reply ends once Rover ACKs again");

        let texts = sim.texts();
        let after = &texts[rover_from..];
        let rover: Vec<&SentText> = after.iter().filter(|t| t.to == ROVER).collect();
        let home: Vec<&SentText> = after.iter().filter(|t| t.to == HOME).collect();
        // Three tries of the unanswered part (no more), then the rest in order.
        let numbers: Vec<u32> = rover.iter().map(|t| part_number(&t.text)).collect();
        assert_eq!(numbers, [1, 1, 1, 2, 3], "{rover:#?}");
        // Home's whole answer went between Rover's tries.
        let home_numbers: Vec<u32> = home.iter().map(|t| part_number(&t.text)).collect();
        assert_eq!(home_numbers, [1, 2, 3], "{home:#?}");
        assert!(
            home.last().map(|t| t.at) < Some(rover[1].at),
            "Home's last part {:?} before Rover's second try {:?}",
            home.last().map(|t| t.at - rover_at),
            rover[1].at - rover_at
        );
        for w in texts.windows(2) {
            assert!(w[1].at - w[0].at >= Duration::from_secs(2), "{w:?}");
        }
        assert_eq!(sim.rate_limit_refusals(), 0);
        let (result, ..) = run.daemon.stop().await;
        result.expect("the daemon stops cleanly");
    }

    const BOB: u32 = 0xb0b0_0002;
    const CAROL: u32 = 0xca20_0003;
    const HOG: u32 = 0x4040_0004;
    const ADMIN: u32 = 0xad00_0005;

    /// How many user messages the database in `dir` holds for each of `nodes` (the daemon
    /// stopped).
    async fn stored_users(
        dir: &std::path::Path,
        nodes: impl IntoIterator<Item = u32>,
    ) -> Vec<usize> {
        use meshai::store::{Role, Store};
        let store = Store::open(&dir.join("meshai.db")).expect("the database opens");
        let mut counts = Vec::new();
        for node in nodes {
            let history = store
                .history(meshai::node::NodeId(node), 100)
                .await
                .expect("history");
            counts.push(history.iter().filter(|m| m.role == Role::User).count());
        }
        store.close().await.expect("closes");
        counts
    }

    /// The admin's whole `!status` text.
    async fn status_of(d: &Daemon) -> String {
        let parts = d.ask(ADMIN, "!status", harness::SOON).await;
        let bodies: Vec<&str> = parts
            .iter()
            .map(|t| meshai::chunk::strip_marker(&t.text))
            .collect();
        bodies.join(" ")
    }

    #[tokio::test(start_paused = true)]
    async fn a_turn_that_waits_too_long_gets_one_notice_if_its_node_is_known_and_stays_stored() {
        let _pace = harness::paced();
        let extra =
            format!("[limits]\nmax_turn_wait_secs = 10\n\n[access]\nadmins = [\"!{ADMIN:08x}\"]\n");
        let d = harness::firmware_paced_daemon(&[BOB], &extra, "timeout_secs = 120").await;
        d.answer_with(|req| match req.last_user() {
            "take your time" => FakeResponse::Stall(Duration::from_secs(60)),
            q => FakeResponse::Text(format!("ok: {q}")),
        });
        // Bob, known from before (two days' exchanges), talks.
        d.ask(BOB, "hello", harness::SOON).await;
        tokio::time::sleep(Duration::from_secs(3)).await;
        // A slow answer holds the one LLM slot; Bob (known) and Carol (new) wait behind it.
        d.sim.inject_dm(HOG, "take your time", None);
        tokio::time::sleep(Duration::from_secs(1)).await;
        let before = d.sim.texts().len();
        d.sim.inject_dm(BOB, "are you there?", None);
        d.sim.inject_dm(CAROL, "hi, I am new here", None);
        tokio::time::sleep(Duration::from_secs(5)).await;
        let status = status_of(&d).await;
        assert!(
            status.contains("Queue: 2 waiting (0 proven, 1 known, 1 new), oldest "),
            "{status}"
        );
        tokio::time::sleep(Duration::from_secs(20)).await;
        let after: Vec<(u32, String)> = d.sim.texts()[before..]
            .iter()
            .filter(|t| t.to != ADMIN)
            .map(|t| (t.to, t.text.clone()))
            .collect();
        assert_eq!(
            after,
            [(
                BOB,
                "Sorry, I was too busy to answer that in time. Please ask again.".to_string()
            )],
            "the known node gets one notice, the new one nothing"
        );
        let status = status_of(&d).await;
        assert!(status.contains("0 displaced, 2 late."), "{status}");
        let (result, _sim, _llm, dir) = d.stop().await;
        result.expect("the daemon stops cleanly");
        assert_eq!(
            stored_users(dir.path(), [BOB, CAROL]).await,
            [2, 1],
            "every message is stored"
        );
    }
}
