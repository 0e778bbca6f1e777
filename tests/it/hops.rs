//! Replies go no further than the question came (PROTOCOL.md, "How far a response goes"):
//! on a node whose hop limit is 7, an asker one hop away is answered at 3 hops, a zero-hop
//! asker at 0 — without want_ack, which the firmware would reset to the full limit — and both
//! answers go out and are kept; a command's answer and a mention's go by the same rule, and
//! `[radio] reply_hops` caps them all.

use std::sync::Arc;

use crate::harness::{Daemon, SOON, config_text_with, db_dir, sim_config};
use crate::support::fake_llm::FakeLlm;
use crate::support::sim_node::{BROADCAST, MeshPacketSpec, SimConfig, SimNode};
use crate::trust::{ask_with, joined, stored};

const NEAR: u32 = 0x0b0b_0001;
const NEIGHBOUR: u32 = 0x0b0b_0002;
const FAR: u32 = 0x0b0b_0003;
const MENTIONS: &str = "[channels]\nanswer_mentions = true\nmention = \"@ai\"\nchannels = [0]\n";

/// The daemon on a node whose hop limit is 7, with these `[radio]` lines besides the usual.
async fn daemon(radio: &str, extra: &str) -> Daemon {
    let sim = Arc::new(
        SimNode::start(SimConfig {
            hop_limit: 7,
            ..sim_config()
        })
        .await,
    );
    let llm = FakeLlm::start_echo().await;
    let dir = db_dir();
    let text = config_text_with(
        &sim,
        &llm.base_url(),
        &dir.path().join("meshai.db"),
        extra,
        "timeout_secs = 3",
    )
    .replace("[radio]\n", &format!("[radio]\n{radio}"));
    Daemon::start_with_text(sim, llm, dir, &text).await
}

/// A DM from `from` with these hop fields.
fn dm(from: u32, text: &str, hop_start: u32, hop_limit: u32) -> MeshPacketSpec {
    MeshPacketSpec {
        hop_start,
        hop_limit,
        ..MeshPacketSpec::text(from, text)
    }
}

/// (hop limit, want_ack) of each text.
fn hops(texts: &[crate::support::sim_node::SentText]) -> Vec<(u32, bool)> {
    texts.iter().map(|t| (t.hop_limit, t.want_ack)).collect()
}

#[tokio::test]
async fn answers_go_as_far_as_the_question_came() {
    let d = daemon("", MENTIONS).await;
    // One hop away (3 → 2): hops used + 2.
    let near = ask_with(&d, NEAR, dm(NEAR, "how far am I?", 3, 2)).await;
    assert_eq!(joined(&near), "echo: how far am I?");
    assert_eq!(hops(&near), [(3, true)]);
    // A zero-hop DM: answered zero-hop, without want_ack (else the node sends it at 7).
    let neighbour = ask_with(&d, NEIGHBOUR, dm(NEIGHBOUR, "and me, next door?", 0, 0)).await;
    assert_eq!(joined(&neighbour), "echo: and me, next door?");
    assert_eq!(hops(&neighbour), [(0, false)]);
    // Both answers went out, and are kept as said.
    for (node, answer) in [
        (NEAR, "echo: how far am I?"),
        (NEIGHBOUR, "echo: and me, next door?"),
    ] {
        let history = stored(&d, node).await;
        assert!(
            history.iter().any(|m| m.text == answer),
            "{node:x}: {history:?}"
        );
    }
    // A command's answer by the same rule.
    let help = ask_with(&d, NEIGHBOUR, dm(NEIGHBOUR, "!help", 0, 0)).await;
    assert!(hops(&help).iter().all(|&h| h == (0, false)), "{help:?}");
    // More hops than our limit would give: as many as it used (hop_start 7 → 1: 6 used, 6+2
    // is not below 7, so the limit).
    let far = ask_with(&d, FAR, dm(FAR, "from the far side", 7, 1)).await;
    assert_eq!(hops(&far), [(7, true)]);
    // A mention two hops away: its answer to the channel at 4.
    let before = d.sim.texts().len();
    d.sim.inject_text(MeshPacketSpec {
        to: Some(BROADCAST),
        ..dm(NEAR, "@ai hello channel", 5, 3)
    });
    let answered = d
        .sim
        .wait_for(SOON, |l| {
            l.texts[before..].iter().any(|t| t.to == BROADCAST)
        })
        .await;
    assert!(answered, "the mention is answered");
    let public: Vec<_> = d.sim.texts()[before..]
        .iter()
        .filter(|t| t.to == BROADCAST)
        .cloned()
        .collect();
    assert_eq!(hops(&public), [(4, true)]);
}

#[tokio::test]
async fn reply_hops_caps_every_answer() {
    let d = daemon("reply_hops = 2\n", "").await;
    let near = ask_with(&d, NEAR, dm(NEAR, "capped?", 3, 2)).await;
    assert_eq!(hops(&near), [(2, true)]);
    let far = ask_with(&d, FAR, dm(FAR, "capped too?", 7, 1)).await;
    assert_eq!(hops(&far), [(2, true)]);
}
