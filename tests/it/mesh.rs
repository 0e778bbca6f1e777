//! Answers about the mesh through the daemon, against the simulated mesh
//! (`support::mesh`): a telemetry broadcast changes the next answer's facts, a hidden node is
//! never named, positions off means no distance, nothing of one user's DM reaches another's
//! prompt, and `!nodes` fits one packet however many nodes were heard. In paused time
//! (`harness::paced`): the waits for the view are virtual.

use std::sync::Arc;

use crate::harness::{Daemon, SOON, db_dir, paced, replies, sim_config, view_settled};
use crate::support::fake_llm::{FakeLlm, FakeRequest};
use crate::support::mesh::{self, ANN, BOB, HILLTOP};
use crate::support::sim_node::{SimConfig, SimNode, SimPeer};

/// The daemon on the simulated mesh, its sensors' readings broadcast and in the view.
async fn start(extra: &str) -> Daemon {
    let d = start_on(mesh::sim_config(sim_config()), extra).await;
    mesh::broadcast_sensors(&d.sim);
    view_settled(&d.sim).await;
    d
}

async fn start_on(cfg: SimConfig, extra: &str) -> Daemon {
    let sim = Arc::new(SimNode::start(cfg).await);
    let llm = FakeLlm::start_echo().await;
    Daemon::start_with(sim, llm, db_dir(), extra).await
}

/// The mesh facts of a request (the per-turn note), or "" when it has none.
fn facts(req: &FakeRequest) -> String {
    // Issue 39: what nodes broadcast (their names) never reaches a system message.
    assert!(
        req.messages
            .iter()
            .all(|m| m.role != "system" || !m.content.contains("Mesh facts")),
        "{}",
        req.body
    );
    req.messages
        .iter()
        .filter(|m| m.role == "user")
        .filter_map(|m| {
            m.content
                .split_once("Mesh facts")
                .map(|(_, f)| f.to_string())
        })
        .collect()
}

/// Asks `text` as a DM from `node`; returns the reply request the model got and the reply.
async fn ask(d: &Daemon, node: u32, text: &str) -> (FakeRequest, String) {
    match ask_any(d, node, text).await {
        (Some(req), reply) => (req, reply),
        (None, reply) => panic!("no request for {text:?}; the daemon said {reply:?}"),
    }
}

/// Asks `text` as a DM from `node`; the reply request, when the model was asked, and the
/// reply.
async fn ask_any(d: &Daemon, node: u32, text: &str) -> (Option<FakeRequest>, String) {
    let before = replies(&d.llm).len();
    let reply = d.ask(node, text, SOON).await;
    let req = replies(&d.llm).into_iter().nth(before);
    let reply = reply
        .iter()
        .map(|t| t.text.as_str())
        .collect::<Vec<_>>()
        .join(" ");
    (req, reply)
}

/// A command's answer (no model): the texts sent after it.
async fn command(d: &Daemon, node: u32, text: &str) -> Vec<String> {
    let calls = replies(&d.llm).len();
    let reply = d.ask(node, text, SOON).await;
    assert_eq!(replies(&d.llm).len(), calls, "{text} asked the model");
    reply.into_iter().map(|t| t.text).collect()
}

#[tokio::test(start_paused = true)]
async fn a_telemetry_broadcast_changes_the_next_answers_facts() {
    let _pace = paced();
    let d = start("").await;
    // One field of one node: the daemon's own answer, from the view.
    let (req, first) = ask_any(&d, ANN, "what's the battery of the hilltop relay?").await;
    assert!(req.is_none(), "{req:?}");
    assert!(
        first.contains("Hilltop Relay (HILL): battery 87 % (good)"),
        "{first}"
    );
    d.sim.inject_battery(HILLTOP, 41, 3.61);
    view_settled(&d.sim).await;
    let (_, second) = ask_any(&d, ANN, "and now, the hilltop relay's battery?").await;
    assert!(
        second.contains("Hilltop Relay (HILL): battery 41 % (half or less), reported just now"),
        "{second}"
    );
    // What needs words goes to the model, with the facts.
    let (hill, _) = ask(&d, ANN, "tell me about the hilltop relay").await;
    assert!(
        hill.body.contains("battery 41 % (half or less)"),
        "{}",
        hill.body
    );
    assert!(hill.messages[0].content.contains(meshai::mesh::SYSTEM_HINT));
    // What a node reads, all of it: the daemon's card, the model not asked.
    let (req, wx) = ask_any(&d, ANN, "what does ridge weather read?").await;
    assert!(req.is_none(), "{req:?}");
    assert!(wx.contains("temperature 3.5 °C (just now)"), "{wx}");
    let (wx, _) = ask(&d, ANN, "why is ridge weather so cold?").await;
    assert!(
        wx.body.contains("Ridge Weather (RWX) temperature: 3.5 °C"),
        "{}",
        wx.body
    );
    // A reading the node never sent: the daemon says so.
    let (req, none) = ask_any(&d, ANN, "what's the temperature at the hilltop relay").await;
    assert!(req.is_none(), "{req:?}");
    assert_eq!(
        none,
        "Hilltop Relay (HILL) has sent no temperature reading."
    );
    // A node the view does not hold: the daemon says so itself, the model is not asked.
    let (ghost, reply) = ask_any(&d, ANN, "what's the battery of the foobar node?").await;
    assert!(ghost.is_none(), "{ghost:?}");
    assert_eq!(reply, meshai::mesh::UNKNOWN_NODE);
    // How busy the channel is: the daemon's own sentence, from our node's reading.
    let (req, channel) = ask_any(&d, ANN, "how busy is the channel?").await;
    assert!(req.is_none(), "{req:?}");
    assert!(
        channel.starts_with("The channel is moderately used: 18.5 % of the last minute in use"),
        "{channel}"
    );
    d.stop().await.0.unwrap();
}

#[tokio::test(start_paused = true)]
async fn a_hidden_node_is_never_named() {
    let _pace = paced();
    let d = start("[mesh]\nhidden = [\"Secret Cabin\"]\n").await;
    let questions = [
        "who is around?",
        "what's the battery of the secret cabin node?",
        "which node is nearest to me?",
        "when did you last hear CABN?",
    ];
    for q in questions {
        let (req, reply) = ask_any(&d, ANN, q).await;
        let Some(req) = req else {
            // The daemon's own answer: declined exactly as for a node that does not exist,
            // or a list without it.
            for word in ["Secret", "CABN", "Cabin"] {
                assert!(!reply.contains(word), "{q}: {word} in {reply}");
            }
            continue;
        };
        let facts = facts(&req);
        assert!(!facts.is_empty(), "{q}: no facts in {}", req.body);
        for word in ["Secret", "CABN", "Cabin"] {
            assert!(!facts.contains(word), "{q}: {word} in\n{facts}");
        }
    }
    for cmd in ["!nodes", "!node secret cabin", "!node CABN"] {
        let texts = command(&d, ANN, cmd).await.join(" ");
        assert!(
            !texts.contains("Secret Cabin") && !texts.contains("CABN ("),
            "{cmd}: {texts}"
        );
    }
    // Not hidden: named like any other.
    let texts = command(&d, ANN, "!node hilltop").await.join(" ");
    assert!(texts.contains("Hilltop Relay (HILL)"), "{texts}");
    d.stop().await.0.unwrap();
}

#[tokio::test(start_paused = true)]
async fn positions_off_means_no_distance() {
    let _pace = paced();
    let d = start("[mesh]\npositions = false\n").await;
    let (req, reply) = ask_any(&d, ANN, "how far is the hilltop relay?").await;
    assert!(req.is_none(), "{req:?}");
    assert_eq!(reply, "I don't tell positions or distances.");
    for q in [
        "which node is nearest to me?",
        "tell me about the valley repeater",
    ] {
        let (req, _) = ask(&d, ANN, q).await;
        let facts = facts(&req);
        assert!(!facts.is_empty(), "{q}: no mesh facts in\n{}", req.body);
        assert!(
            !facts.contains(" km") && !facts.contains(" m ") && !facts.contains(" of you"),
            "{q}: {facts}"
        );
    }
    let texts = command(&d, ANN, "!node hilltop").await.join(" ");
    assert!(
        !texts.contains(" km") && texts.contains("Hilltop Relay"),
        "{texts}"
    );
    // On (the default), the same question gets the distance.
    let d2 = start("").await;
    let (_, reply) = ask_any(&d2, ANN, "how far is the hilltop relay?").await;
    assert!(reply.contains("km N of you"), "{reply}");
    let (req, _) = ask(&d2, ANN, "tell me about the valley repeater").await;
    assert!(req.body.contains("km SE of you"), "{}", req.body);
    d.stop().await.0.unwrap();
    d2.stop().await.0.unwrap();
}

#[tokio::test(start_paused = true)]
async fn nothing_of_one_users_dm_reaches_another_users_prompt() {
    let _pace = paced();
    let d = start("").await;
    // Bob's Base tells the bot a secret in a DM: the mesh view does not even learn that it
    // was heard (its node DB said 20 min ago).
    ask(&d, BOB, "my locker code is 4711, keep it safe").await;
    view_settled(&d.sim).await;
    for q in [
        "when did you last hear bob's base?",
        "who is around?",
        "tell me about bob's base",
    ] {
        let (req, reply) = ask_any(&d, ANN, q).await;
        assert!(
            !reply.contains("4711") && !reply.contains("locker"),
            "{q}: {reply}"
        );
        let Some(req) = req else {
            // The daemon's own answer, from the view.
            if q != "who is around?" {
                assert_eq!(reply, "Bob's Base (BOB) was last heard 20 min ago.", "{q}");
            }
            continue;
        };
        assert!(
            !req.body.contains("4711") && !req.body.contains("locker"),
            "{q}: {}",
            req.body
        );
        let facts = facts(&req);
        assert!(
            facts.contains("Bob's Base (BOB): last heard 20 min ago"),
            "{q}: {facts}"
        );
    }
    let texts = command(&d, ANN, "!node bob").await.join(" ");
    assert!(
        texts.contains("last heard 20 min ago") && !texts.contains("4711"),
        "{texts}"
    );
    d.stop().await.0.unwrap();
}

#[tokio::test(start_paused = true)]
async fn nodes_fits_one_packet_with_many_nodes() {
    let _pace = paced();
    let many: Vec<SimPeer> = (0..80u32)
        .map(|i| {
            SimPeer::new(
                0x6000_0000 + i,
                &format!("Mesh Node Number {i}"),
                &format!("N{i}"),
            )
            .heard(30 * i, 1, 1.0)
        })
        .collect();
    let cfg = SimConfig {
        peers: many,
        ..sim_config()
    };
    let d = start_on(cfg, "").await;
    let texts = command(&d, ANN, "!nodes").await;
    assert_eq!(texts.len(), 1, "{texts:?}");
    let text = &texts[0];
    assert!(text.chars().count() <= 150 && text.len() <= 200, "{text}");
    assert!(
        text.starts_with("Heard in 1h (80): Mesh Node Number 0 now, Mesh Node Number 1 now"),
        "{text}"
    );
    assert!(text.contains(" +"), "{text}");
    d.stop().await.0.unwrap();
}

/// Every question of the mesh benchmark (`benches/mesh/questions.tsv`) gets facts that
/// answer it: a known one's facts hold one of its keys, a missing one's say unknown.
#[tokio::test(start_paused = true)]
async fn the_facts_answer_every_benchmark_question() {
    let _pace = paced();
    let d = start("").await;
    let tsv = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/mesh/questions.tsv"),
    )
    .unwrap();
    let mut asked = 0;
    let mut answered_by_daemon = 0;
    for (i, line) in tsv
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .enumerate()
    {
        let cols: Vec<&str> = line.split('\t').collect();
        let node = if cols[1] == "ann" {
            ANN
        } else {
            0x5200_0000 + i as u32
        };
        let (req, reply) = ask_any(&d, node, cols[2]).await;
        let Some(req) = req else {
            // The daemon's own answer: a known one holds a key, a missing one declines.
            let reply = reply.to_lowercase();
            match cols[0] {
                "known" => {
                    let keys: Vec<&str> = cols[3].split('|').collect();
                    assert!(
                        keys.iter().any(|k| reply.contains(&k.to_lowercase())),
                        "{:?}: none of {keys:?} in {reply}",
                        cols[2]
                    );
                }
                _ => assert!(
                    reply == meshai::mesh::UNKNOWN_NODE.to_lowercase()
                        || reply.contains("has sent no")
                        || reply.contains("shares no position"),
                    "{:?}: not declined: {reply}",
                    cols[2]
                ),
            }
            answered_by_daemon += 1;
            asked += 1;
            continue;
        };
        let facts = facts(&req).to_lowercase();
        match cols[0] {
            "known" => {
                let keys: Vec<&str> = cols[3].split('|').collect();
                assert!(
                    keys.iter().any(|k| facts.contains(&k.to_lowercase())),
                    "{:?}: none of {keys:?} in\n{facts}",
                    cols[2]
                );
            }
            _ => assert!(
                facts.contains("unknown") || facts.contains("no node by that name"),
                "{:?}: not said unknown in\n{facts}",
                cols[2]
            ),
        }
        asked += 1;
    }
    assert!(asked >= 20, "{asked} questions");
    assert!(
        answered_by_daemon >= 15,
        "{answered_by_daemon} by the daemon"
    );
    d.stop().await.0.unwrap();
}

/// One field of one node, a list, "is it still around": the daemon's own sentence from the
/// view, in the asker's language — the model is not asked — stored as the bot's reply, so the
/// next prompt has it (issue 38's wrong answers: the hops, the 15 minutes, the node still
/// around, the low battery).
#[tokio::test(start_paused = true)]
async fn lookups_are_answered_by_the_daemon_and_kept_as_replies() {
    let _pace = paced();
    let d = start("").await;
    let daemon = |q: &'static str, want: &'static [&'static str], not: &'static [&'static str]| {
        (q, want, not)
    };
    let cases = [
        daemon(
            "How many hops away is the Valley Repeater?",
            &["Valley Repeater (VAL) is 3 hops away"],
            &["km"],
        ),
        daemon(
            "Which nodes have you heard in the last 15 minutes?",
            // Eight within 15 min (three sensors just broadcast), as many as fit one packet.
            &[
                "Heard in the last 15 min (8): ",
                "Harbour Gateway 2m",
                "Hilltop Relay 4m",
                " +2",
            ],
            &["Tower Relay", "Forest Camp", "Valley", "Bob"],
        ),
        daemon(
            "Is the Tower Relay still around?",
            &["Not in the last hour: Tower Relay (TWR) was last heard 5 days ago."],
            &[],
        ),
        daemon(
            "Is the Hilltop Relay still around?",
            &["Yes: Hilltop Relay (HILL) was last heard 4 min ago."],
            &[],
        ),
        daemon(
            "Is Forest Camp's battery getting low?",
            &["Yes. Forest Camp (FCMP): battery 12 % (low)"],
            &[],
        ),
    ];
    let calls = replies(&d.llm).len();
    for (q, want, not) in cases {
        let (req, reply) = ask_any(&d, ANN, q).await;
        assert!(req.is_none(), "{q}: the model was asked");
        for w in want {
            assert!(reply.contains(w), "{q}: {w:?} not in {reply:?}");
        }
        for n in not {
            assert!(!reply.contains(n), "{q}: {n:?} in {reply:?}");
        }
    }
    // In the asker's language: a German conversation gets German.
    let (req, reply) = ask_any(
        &d,
        0x5300_0001,
        "Wie viele Hops ist das Valley Repeater entfernt?",
    )
    .await;
    assert!(req.is_none(), "{req:?}");
    assert!(
        reply.starts_with("Valley Repeater (VAL) ist 3 Hops entfernt"),
        "{reply}"
    );
    assert_eq!(replies(&d.llm).len(), calls, "the model was asked");
    // Kept as the bot's replies: the next prompt has them, after their questions.
    let (next, _) = ask(&d, ANN, "thanks! anything else going on?").await;
    let assistant: Vec<&str> = next
        .messages
        .iter()
        .filter(|m| m.role == "assistant")
        .map(|m| m.content.as_str())
        .collect();
    assert!(
        assistant
            .iter()
            .any(|m| m.contains("Valley Repeater (VAL) is 3 hops away")),
        "{assistant:?}"
    );
    assert!(
        assistant.iter().any(|m| m.contains("battery 12 % (low)")),
        "{assistant:?}"
    );
    d.stop().await.0.unwrap();
}
