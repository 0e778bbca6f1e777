//! A PKI DM and a command count once: a captured PKI `!reset`, sent again after 10,001
//! channel texts from made-up ids (more than the radio's duplicate filter holds) and again
//! after a restart, does nothing; so does a command without PKI sent again.

use meshai::chunk::strip_marker;

use crate::harness::{Daemon, SOON, paced, replies};
use crate::support::sim_node::{BROADCAST, MeshPacketSpec};
use crate::trust::{ask_with, joined, said, stored};

const ALICE: u32 = 0xa1c1_0001;
const BOB: u32 = 0xb0b0_0002;
const KEY: [u8; 32] = [0x11; 32];
const RESET_ID: u32 = 0x5e5e_0001;

/// Channel texts from `n` made-up ids, in batches the node's queue to the client holds.
async fn flood(d: &Daemon, n: u32) {
    let mut sent = 0;
    while sent < n {
        for _ in 0..16.min(n - sent) {
            let from = 0x7000_0000 + sent;
            d.sim.inject_text(MeshPacketSpec {
                to: Some(BROADCAST),
                ..MeshPacketSpec::text(from, "hello mesh")
            });
            sent += 1;
        }
        assert!(d.sim.wait_idle(SOON).await, "the daemon reads the channel");
    }
    assert_eq!(
        d.sim.to_client_dropped(),
        0,
        "every text reached the daemon"
    );
}

/// What Alice's memory holds now, as the model sees it for `question` (over PKI), once its
/// answer went out; and how many texts went to her since `before` (her answer's included).
async fn alice_sees(d: &Daemon, question: &str, before: usize) -> (String, usize) {
    d.sim.inject_text(MeshPacketSpec::pki(ALICE, question, KEY));
    let answer = format!("echo: {question}");
    let answered = d
        .sim
        .wait_for(SOON, |l| {
            l.texts[before..]
                .iter()
                .any(|t| t.to == ALICE && strip_marker(&t.text) == answer)
        })
        .await;
    assert!(answered, "{:?}", &d.sim.texts()[before..]);
    let req = replies(&d.llm)
        .into_iter()
        .rev()
        .find(|r| r.last_user() == question)
        .expect("the question's request");
    let to_alice = d.sim.texts()[before..]
        .iter()
        .filter(|t| t.to == ALICE)
        .count();
    (said(&req), to_alice)
}

#[tokio::test(start_paused = true)]
async fn a_replayed_pki_reset_does_nothing_after_a_flood_and_a_restart() {
    let _pace = paced();
    let d = Daemon::start("").await;
    let pki = |text: &str| MeshPacketSpec::pki(ALICE, text, KEY);
    ask_with(&d, ALICE, pki("My door code is 4711.")).await;
    let reset = MeshPacketSpec {
        id: Some(RESET_ID),
        ..pki("!reset")
    };
    let done = joined(&ask_with(&d, ALICE, reset.clone()).await);
    assert!(done.starts_with("Done: I forgot"), "{done}");
    ask_with(&d, ALICE, pki("My gate code is 1234.")).await;

    flood(&d, 10_001).await;
    let before = d.sim.texts().len();
    d.sim.inject_text(reset.clone());
    let (seen, to_alice) = alice_sees(&d, "what is my gate code?", before).await;
    assert!(seen.contains("1234"), "the replay wiped nothing: {seen}");
    assert_eq!(
        to_alice, 1,
        "only the question's answer, nothing for the replay"
    );

    // A command without PKI counts once too (Bob never used PKI).
    let status = MeshPacketSpec {
        id: Some(0x5e5e_0002),
        ..MeshPacketSpec::text(BOB, "!status")
    };
    ask_with(&d, BOB, status.clone()).await;

    let (result, sim, llm, dir) = d.stop().await;
    result.expect("a clean stop");
    let d = Daemon::start_with(sim, llm, dir, "").await;
    let stored_before = stored(&d, ALICE).await;
    let before = d.sim.texts().len();
    d.sim.inject_text(reset);
    let (seen, to_alice) = alice_sees(&d, "and my gate code now?", before).await;
    assert!(seen.contains("1234"), "nor after a restart: {seen}");
    assert_eq!(to_alice, 1, "nothing for the replay");
    assert!(stored(&d, ALICE).await.len() > stored_before.len());

    let before = d.sim.texts().len();
    d.sim.inject_text(status);
    ask_with(&d, BOB, MeshPacketSpec::text(BOB, "control question")).await;
    let to_bob: Vec<String> = d.sim.texts()[before..]
        .iter()
        .filter(|t| t.to == BOB)
        .map(|t| t.text.clone())
        .collect();
    assert_eq!(to_bob, ["echo: control question"], "no second !status");
}
