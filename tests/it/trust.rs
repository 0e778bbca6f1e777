//! Trust on a shared mesh, through the daemon: a channel mention never sees a node's DM
//! memory and runs no command; only a PKI DM proves its sender, so a forged DM with the id of
//! a node that talks PKI can neither read, reset nor plant into its memory, nor run any
//! command; a new key is a new identity until the operator runs `meshai trust`; replies to
//! PKI nodes leave `pki_encrypted` and a PKI NAK is never answered with the channel key;
//! nodes that never used PKI keep their memory unless `require_pki = "all"`; MQTT DMs get no
//! memory, and `mqtt = "ignore"` answers neither an MQTT DM nor an MQTT mention.

use std::path::PathBuf;
use std::time::{Duration, SystemTime};

use meshai::chunk::strip_marker;
use meshai::cli::admin::TrustOptions;
use meshai::node::{NodeId, PublicKey};
use meshai::radio::{
    ChannelState, Inbound, LinkState, PartOutcome, ReplyReport, StreamMsg, TextMessage,
};
use meshai::responder::{ConsoleReply, RadioWatch, Responder, Sink};
use meshai::store::{Role, Store, StoredMessage};
use tokio::sync::{mpsc, watch};

use crate::harness::{
    Daemon, SOON, config_text, config_text_with, ends_reply, paced, parse_config, replies,
    sim_config,
};
use crate::support::fake_llm::{FakeLlm, FakeRequest, FakeResponse};
use crate::support::sim_node::{AckPlan, BROADCAST, MeshPacketSpec, SentText, SimNode};

const ALICE: u32 = 0xa1c1_0001;
const BOB: u32 = 0xb0b0_0002;
const ADMIN: u32 = 0xad00_0009;
/// Alice's key, and the one a reset node (or someone else) comes with.
const K1: [u8; 32] = [0x11; 32];
const K2: [u8; 32] = [0x22; 32];

/// Small memory (a fold is due above 8 unsummarised messages), an admin, mentions on.
const CONFIG: &str = "[memory]\nwindow_messages = 4\nsummarize_threshold = 4\n\
[access]\nadmins = [\"!ad000009\"]\n\
[channels]\nanswer_mentions = true\nmention = \"@ai\"\nchannels = [0]\n";

/// Sends a packet and waits for a complete reply to `to` after it; returns that reply.
pub(crate) async fn ask_with(d: &Daemon, to: u32, spec: MeshPacketSpec) -> Vec<SentText> {
    let what = String::from_utf8_lossy(&spec.payload).to_string();
    reply_after(d, to, &what, || {
        d.sim.inject_text(spec);
    })
    .await
}

/// Runs `inject` (a packet that asks `what`) and waits for a complete reply to `to` after it;
/// returns that reply.
pub(crate) async fn reply_after(
    d: &Daemon,
    to: u32,
    what: &str,
    inject: impl FnOnce(),
) -> Vec<SentText> {
    let before = d.sim.texts().len();
    inject();
    let mine = |texts: &[SentText]| -> Vec<SentText> {
        texts[before..]
            .iter()
            .filter(|t| t.to == to)
            .cloned()
            .collect()
    };
    let done = d
        .sim
        .wait_for(SOON, |l| {
            l.texts.len() > before && ends_reply(&mine(&l.texts))
        })
        .await;
    let texts = mine(&d.sim.texts());
    assert!(done, "no complete reply to {what:?}: {texts:?}");
    texts
}

/// A PKI DM from `from` with `key`; its reply.
async fn pki_ask(d: &Daemon, from: u32, text: &str, key: [u8; 32]) -> Vec<SentText> {
    ask_with(d, from, MeshPacketSpec::pki(from, text, key)).await
}

/// A DM without PKI claiming to be from `from`; its reply.
async fn plain_ask(d: &Daemon, from: u32, text: &str) -> Vec<SentText> {
    ask_with(d, from, MeshPacketSpec::text(from, text)).await
}

pub(crate) fn joined(texts: &[SentText]) -> String {
    texts
        .iter()
        .map(|t| strip_marker(&t.text))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Everything a request said, for "does it mention X" checks.
pub(crate) fn said(req: &FakeRequest) -> String {
    req.messages
        .iter()
        .map(|m| m.content.as_str())
        .collect::<Vec<_>>()
        .join("\n")
}

fn db(d: &Daemon) -> PathBuf {
    d.dir.path().join("meshai.db")
}

/// `node`'s stored messages, read through a second connection while the daemon runs.
pub(crate) async fn stored(d: &Daemon, node: u32) -> Vec<StoredMessage> {
    let path = db(d);
    let store = tokio::task::spawn_blocking(move || Store::open(&path))
        .await
        .expect("open task")
        .expect("the database opens");
    let history = store.history(NodeId(node), 100).await.expect("history");
    store.close().await.expect("close");
    history
}

/// The node's stored history once it holds at least `n` messages (or after 10 s).
async fn stored_at_least(d: &Daemon, node: u32, n: usize) -> Vec<StoredMessage> {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    loop {
        let history = stored(d, node).await;
        if history.len() >= n || tokio::time::Instant::now() >= deadline {
            return history;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// How many texts went to `node` so far.
fn texts_to(d: &Daemon, node: u32) -> usize {
    d.sim.texts().iter().filter(|t| t.to == node).count()
}

/// Sends `text` without PKI as `node` (a node that talked PKI) and checks that the reply is
/// the warning line alone, PKI-encrypted; returns [`texts_to`] after it.
async fn only_the_warning(d: &Daemon, node: u32, text: &str) -> usize {
    let warning = plain_ask(d, node, text).await;
    assert_eq!(
        joined(&warning),
        "I only answer this node over encrypted DMs. If this was you, check your app's keys."
    );
    assert!(warning.iter().all(|t| t.pki_encrypted), "{warning:?}");
    texts_to(d, node)
}

/// A reply from `BOB`: once it is in, everything injected before it went through the intake.
async fn control(d: &Daemon) {
    let reply = plain_ask(d, BOB, "control question").await;
    assert_eq!(joined(&reply), "echo: control question");
}

/// The regression test for the mention leak: Alice's facts and summary are in her DM memory;
/// the same node id on the channel asks for them and for `!summary`.
#[tokio::test(start_paused = true)]
async fn a_mention_sees_no_dm_memory_and_runs_no_command() {
    let _pace = paced();
    let d = Daemon::start(CONFIG).await;
    d.llm.set_behaviour(|req| {
        if crate::harness::is_summary(req) {
            FakeResponse::Text("Alice lives at 12 Elm Street, door code 4711.".into())
        } else {
            FakeResponse::Text(format!("echo: {}", req.last_user()))
        }
    });
    let dms = [
        "My door code is 4711.",
        "I live at 12 Elm Street.",
        "what is lora?",
        "how far does it reach?",
        "which antenna is best?",
        "what is a hop?",
    ];
    for text in dms {
        plain_ask(&d, ALICE, text).await;
    }
    // Wait until the fold kept her facts and summary.
    let mut remembered = String::new();
    for _ in 0..50 {
        remembered = joined(&plain_ask(&d, ALICE, "!summary").await);
        if remembered.contains("You told me: My door code is 4711.") {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(
        remembered.contains("12 Elm Street") && remembered.contains("My door code is 4711."),
        "{remembered}"
    );
    let stored_before = stored(&d, ALICE).await;
    let requests_before = replies(&d.llm).len();

    let mention = |text: &str| MeshPacketSpec {
        to: Some(BROADCAST),
        ..MeshPacketSpec::text(ALICE, text)
    };
    let answer = ask_with(&d, BROADCAST, mention("@ai what is my door code?")).await;
    assert_eq!(joined(&answer), "echo: what is my door code?");
    let hint = ask_with(&d, BROADCAST, mention("@ai !summary")).await;
    assert_eq!(
        joined(&hint),
        "Commands work only in a direct message to me."
    );

    let reqs = replies(&d.llm);
    assert_eq!(
        reqs.len(),
        requests_before + 1,
        "one LLM call: the question"
    );
    let req = reqs.last().expect("the mention's request");
    let text = said(req);
    for secret in [
        "4711",
        "Elm",
        "how far does it reach",
        "antenna",
        meshai::memory::layout::MEMORY_INTRO,
    ] {
        assert!(
            !text.contains(secret),
            "the mention's prompt has {secret:?}: {text}"
        );
    }
    assert!(
        text.contains("public channel"),
        "the model is told the answer is public: {text}"
    );
    for t in d.sim.texts().iter().filter(|t| t.to == BROADCAST) {
        assert!(!t.text.contains("4711") && !t.text.contains("Elm"), "{t:?}");
        assert!(!t.pki_encrypted);
    }
    assert_eq!(
        stored(&d, ALICE).await,
        stored_before,
        "nothing stored under the sender of a mention"
    );

    // The next mention on the channel sees the public thread, still no DM memory.
    ask_with(&d, BROADCAST, mention("@ai and in winter?")).await;
    let req = replies(&d.llm).pop().expect("request");
    let text = said(&req);
    assert!(
        text.contains("what is my door code?") && !text.contains("4711"),
        "{text}"
    );
}

/// Nothing on the mention path calls the store, streamed or not: see [`mentions_on_a_held_store`].
#[tokio::test]
async fn the_mention_path_never_calls_the_store() {
    for llm in ["timeout_secs = 3", "timeout_secs = 3\nstream = false"] {
        mentions_on_a_held_store(llm).await;
    }
}

/// How long a mention may take to be answered here: far less than the store's 5 s wait for a
/// lock, so an answer that waited on the held store cannot come in time.
const UNHELD: Duration = Duration::from_secs(3);

/// The responder (no radio: replies come to the console sink) on a store whose one database
/// thread is held up: a call of the test's own waits behind a write lock another connection
/// holds, and the store's later calls queue behind it. Mentions — a question with the
/// channel's thread, a command — are still answered; a DM, whose path uses the store, only
/// once the lock goes.
async fn mentions_on_a_held_store(llm_lines: &str) {
    // The simulated node only names the config's radio: nothing connects to it.
    let sim = SimNode::start(sim_config()).await;
    let llm = FakeLlm::start_echo().await;
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join("meshai.db");
    let config = parse_config(&config_text_with(
        &sim,
        &llm.base_url(),
        &db,
        CONFIG,
        llm_lines,
    ));
    let path = db.clone();
    let store = tokio::task::spawn_blocking(move || Store::open(&path))
        .await
        .expect("open task")
        .expect("the database opens");
    let (inbound, inbound_rx) = mpsc::channel(16);
    let (console_tx, mut console) = mpsc::channel(16);
    let (_link, link) = watch::channel(LinkState::Connecting);
    let (_channel, channel) = watch::channel(ChannelState::default());
    let responder = Responder::spawn(
        meshai::responder_settings(&config),
        store.clone(),
        meshai::llm_pool(&config).expect("the LLM pool"),
        Sink::Console(console_tx),
        RadioWatch {
            link,
            channel,
            activity: Default::default(),
            mesh: watch::channel(std::sync::Arc::new(meshai::radio::MeshView::new())).1,
        },
        inbound_rx,
    );
    let send = |msg: Inbound| {
        let inbound = inbound.clone();
        async move { inbound.send(msg).await.expect("the intake runs") }
    };
    let mention = |id: u32, text: &str| Inbound::Broadcast(heard(ALICE, BROADCAST, id, text));
    // Once a first mention is answered, the intake has read what it needs at start.
    send(mention(1, "@ai what is lora?")).await;
    let first = console_reply(&mut console, SOON).await;
    assert_eq!(first.as_deref(), Some("echo: what is lora?"));

    let lock = rusqlite::Connection::open(&db).expect("a second connection");
    lock.execute_batch("BEGIN IMMEDIATE")
        .expect("the write lock");
    let holder = store.clone();
    let held = holder.append_user(NodeId(BOB), "held".into(), 0);
    tokio::pin!(held);
    let waited = tokio::time::timeout(Duration::from_millis(100), &mut held).await;
    assert!(waited.is_err(), "the store's thread waits on the lock");

    send(mention(2, "@ai and in winter?")).await;
    send(mention(3, "@ai !summary")).await;
    let answer = console_reply(&mut console, UNHELD).await;
    let hint = console_reply(&mut console, UNHELD).await;
    assert_eq!(answer.as_deref(), Some("echo: and in winter?"));
    assert_eq!(
        hint.as_deref(),
        Some("Commands work only in a direct message to me.")
    );
    // The hold is real: a DM's path uses the store, so its answer waits for the lock.
    send(Inbound::Dm(heard(BOB, 0x1234_5678, 4, "hello?"))).await;
    let early = console_reply(&mut console, Duration::from_millis(500)).await;
    assert_eq!(early, None, "a DM is not answered past a held store");
    lock.execute_batch("COMMIT").expect("the lock goes");
    held.await.expect("the test's own call");
    let dm = console_reply(&mut console, SOON).await;
    assert_eq!(dm.as_deref(), Some("echo: hello?"));

    responder.stop(Duration::from_secs(5)).await;
    store.close().await.expect("the store closes");
}

/// A text heard from `from` to `to` (the broadcast address: a channel message on channel 0).
fn heard(from: u32, to: u32, packet_id: u32, text: &str) -> TextMessage {
    TextMessage {
        from: NodeId(from),
        to: NodeId(to),
        channel: 0,
        packet_id,
        text: text.to_string(),
        hops: Some(0),
        hop_fields: Default::default(),
        snr: None,
        position: None,
        local_position: None,
        received_at: SystemTime::now(),
        names: None,
        pki: false,
        public_key: None,
        via_mqtt: false,
        signed: false,
    }
}

/// The next reply the console sink gets within `within`, its parts' texts joined (a streamed
/// one once its last part came); reported delivered.
async fn console_reply(
    console: &mut mpsc::Receiver<ConsoleReply>,
    within: Duration,
) -> Option<String> {
    let read = async {
        let reply = console.recv().await?;
        let parts = match reply.parts {
            None => reply.request.parts.clone(),
            Some(mut stream) => {
                let mut got = Vec::new();
                while let Some(msg) = stream.recv().await {
                    match msg {
                        StreamMsg::Parts { bodies, last } => {
                            got.extend(bodies);
                            if last {
                                break;
                            }
                        }
                        StreamMsg::Retract(taken) => {
                            let _ = taken.send(got.is_empty());
                        }
                    }
                }
                got
            }
        };
        let _ = reply.report.send(ReplyReport {
            parts: vec![PartOutcome::Delivered; parts.len()],
        });
        Some(
            parts
                .iter()
                .map(|p| strip_marker(p))
                .collect::<Vec<_>>()
                .join(" "),
        )
    };
    tokio::time::timeout(within, read).await.ok().flatten()
}

/// After Alice talked over PKI, DMs without PKI carrying her id reach nothing of hers: a
/// forged `!reset` wipes nothing, a forged text is not stored, sees no memory and costs no
/// LLM call; her node gets one warning, PKI-encrypted.
#[tokio::test(start_paused = true)]
async fn a_forged_dm_cannot_reset_read_or_plant_into_a_pki_nodes_memory() {
    let _pace = paced();
    let d = Daemon::start(CONFIG).await;
    let reply = pki_ask(&d, ALICE, "My callsign is KD9XYZ.", K1).await;
    assert_eq!(joined(&reply), "echo: My callsign is KD9XYZ.");
    assert!(reply.iter().all(|t| t.pki_encrypted), "{reply:?}");
    let before = stored_at_least(&d, ALICE, 2).await;
    assert_eq!(before.len(), 2);

    let sent = only_the_warning(&d, ALICE, "!reset").await;
    d.sim.inject_dm(ALICE, "My callsign is FAKE1.", None);
    d.sim.inject_dm(ALICE, "what is my callsign?", None);
    d.sim.inject_dm(ALICE, "!summary", None);
    control(&d).await;
    assert_eq!(
        texts_to(&d, ALICE),
        sent,
        "one warning per hour, then silence"
    );
    assert!(
        !d.llm
            .requests()
            .iter()
            .any(|r| said(r).contains("FAKE1") || said(r).contains("what is my callsign")),
        "no LLM call for a forged DM"
    );
    assert_eq!(
        stored(&d, ALICE).await,
        before,
        "nothing reset, nothing planted"
    );

    // Alice herself, over PKI: her memory is whole, without the forged text.
    let reply = pki_ask(&d, ALICE, "what is my callsign?", K1).await;
    assert!(reply.iter().all(|t| t.pki_encrypted));
    let req = replies(&d.llm).pop().expect("request");
    assert!(said(&req).contains("KD9XYZ") && !said(&req).contains("FAKE1"));
    let summary = joined(&pki_ask(&d, ALICE, "!status", K1).await);
    assert!(summary.contains("I hold 4 messages of ours"), "{summary}");

    // A node that never used PKI is answered as before, from its memory, without PKI.
    plain_ask(&d, BOB, "My boat is the Blue Heron.").await;
    let reply = plain_ask(&d, BOB, "what is my boat called?").await;
    assert!(reply.iter().all(|t| !t.pki_encrypted));
    let req = replies(&d.llm).pop().expect("request");
    assert!(said(&req).contains("Blue Heron"), "memory by default");
}

/// A DM without PKI carrying the id of an admin who talks PKI runs no command: a forged
/// `!status` gets only the warning line (no uptime, no admin counters), and a forged `!help`
/// after it nothing at all; the admin's own `!status`, over PKI, shows the counters.
#[tokio::test]
async fn a_forged_command_from_a_pki_admin_runs_nothing() {
    let d = Daemon::start(CONFIG).await;
    let own = joined(&pki_ask(&d, ADMIN, "!status", K1).await);
    assert!(own.contains("Admin:"), "{own}");
    let sent = only_the_warning(&d, ADMIN, "!status").await;
    d.sim.inject_dm(ADMIN, "!help", None);
    d.sim.inject_dm(ADMIN, "!status", None);
    control(&d).await;
    assert_eq!(texts_to(&d, ADMIN), sent, "then silence");
}

/// A PKI DM with another key than the pinned one is a new identity: answered without the
/// old memory, storing nothing into it, no memory commands — until `meshai trust`.
#[tokio::test(start_paused = true)]
async fn a_new_key_is_a_new_identity_until_the_operator_trusts_it() {
    let _pace = paced();
    let d = Daemon::start(CONFIG).await;
    pki_ask(&d, ALICE, "My boat is the Blue Heron.", K1).await;
    // The reply's row is settled once the radio's report is in, a moment after the parts.
    let before = stored_at_least(&d, ALICE, 2).await;

    let reply = pki_ask(&d, ALICE, "what is my boat called?", K2).await;
    assert_eq!(joined(&reply), "echo: what is my boat called?");
    assert!(reply.iter().all(|t| t.pki_encrypted));
    let req = replies(&d.llm).pop().expect("request");
    assert!(!said(&req).contains("Blue Heron"), "{}", said(&req));
    let refused = joined(&pki_ask(&d, ALICE, "!summary", K2).await);
    assert!(refused.contains("key changed"), "{refused}");
    let refused = joined(&pki_ask(&d, ALICE, "!reset", K2).await);
    assert!(refused.contains("key changed"), "{refused}");
    assert_eq!(stored(&d, ALICE).await, before, "the old memory untouched");

    // The operator accepts the new key, the daemon still running.
    let config = parse_config(&config_text(&d.sim, &d.llm.base_url(), &db(&d), CONFIG));
    let mut out = Vec::new();
    let compared = TrustOptions {
        key: Some(PublicKey(K2)),
        yes: false,
        follow: false,
    };
    meshai::cli::admin::trust(&config, NodeId(ALICE), &compared, None, &mut out)
        .await
        .expect("meshai trust");
    let out = String::from_utf8(out).expect("utf-8");
    assert!(out.contains("now trusting its new key"), "{out}");

    pki_ask(&d, ALICE, "what is my boat called?", K2).await;
    let req = replies(&d.llm).pop().expect("request");
    assert!(
        said(&req).contains("Blue Heron"),
        "memory back: {}",
        said(&req)
    );
    // And now the old key is the stranger.
    pki_ask(&d, ALICE, "and my name?", K1).await;
    let req = replies(&d.llm).pop().expect("request");
    assert!(!said(&req).contains("Blue Heron"));
}

/// Our node cannot PKI-encrypt for Alice (NAK PKI_UNKNOWN_PUBKEY): the reply ends there,
/// nothing goes with the channel key, and her next DM is tried again over PKI. The answer
/// never went on air, so it leaves the conversation (docs/security.md): the stored reply is
/// deleted, and the next turn's prompt does not have it. Streamed and not.
#[tokio::test(start_paused = true)]
async fn a_pki_nak_ends_the_reply_without_the_channel_key() {
    let _pace = paced();
    for llm in ["timeout_secs = 3", "timeout_secs = 3\nstream = false"] {
        let d = Daemon::start_llm(CONFIG, llm).await;
        a_pki_nak_on(&d).await;
    }
}

/// The NAK case on the daemon `d`.
async fn a_pki_nak_on(d: &Daemon) {
    let long = "Antennas matter more than power on a mesh like this one. ".repeat(5);
    let want = long.clone();
    d.answer_with(move |_| FakeResponse::Text(want.clone()));
    // PKI_SEND_FAIL_PUBLIC_KEY: no contact mends it (PKI_UNKNOWN_PUBKEY's re-key is below).
    d.sim.nak_pki_to(ALICE, 39);
    d.sim.inject_pki_dm(ALICE, "tell me about antennas", K1);
    let first = d
        .sim
        .wait_for(SOON, |l| l.texts.iter().any(|t| t.to == ALICE))
        .await;
    assert!(first);
    d.answer_with(|req| FakeResponse::Text(format!("echo: {}", req.last_user())));
    control(d).await;
    let to_alice: Vec<SentText> = d
        .sim
        .texts()
        .into_iter()
        .filter(|t| t.to == ALICE)
        .collect();
    assert_eq!(to_alice.len(), 1, "no resend, no fallback: {to_alice:?}");
    assert!(to_alice[0].pki_encrypted);
    // The report comes back after the NAK; the reply's row goes then.
    let deadline = tokio::time::Instant::now() + SOON;
    let history = loop {
        let history = stored(d, ALICE).await;
        if history.len() == 1 || tokio::time::Instant::now() >= deadline {
            break history;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    };
    let rows: Vec<(Role, &str)> = history.iter().map(|m| (m.role, m.text.as_str())).collect();
    assert_eq!(
        rows,
        [(Role::User, "tell me about antennas")],
        "the NAKed answer is not kept"
    );

    d.sim.inject_pki_dm(ALICE, "still there?", K1);
    let again = d
        .sim
        .wait_for(SOON, |l| {
            l.texts.iter().filter(|t| t.to == ALICE).count() == 2
        })
        .await;
    assert!(again, "the next DM is tried again");
    let texts = d.sim.texts();
    let last = texts.iter().rev().find(|t| t.to == ALICE).expect("a text");
    assert!(last.pki_encrypted);
    let req = replies(&d.llm).pop().expect("request");
    assert!(
        !said(&req).contains("Antennas matter"),
        "the next prompt does not have the NAKed answer: {}",
        said(&req)
    );
}

/// Our node lost Alice's key (firmware 2.8 evicts keys from a full node list): the part it
/// refused with PKI_UNKNOWN_PUBKEY is resent PKI after her key went back to the node as a
/// contact (with her names, not ignored, not marked verified), and delivered.
#[tokio::test(start_paused = true)]
async fn a_lost_key_goes_back_to_the_node_and_the_part_is_resent() {
    let _pace = paced();
    let d = Daemon::start(CONFIG).await;
    d.answer_with(|_| FakeResponse::Text("Use a good antenna.".into()));
    d.sim.nak_pki_to(ALICE, 35);
    d.sim.inject_pki_dm(ALICE, "tell me about antennas", K1);
    let delivered = d
        .sim
        .wait_for(SOON, |l| {
            l.texts
                .iter()
                .any(|t| t.to == ALICE && t.plan == Some(AckPlan::Ack))
        })
        .await;
    assert!(delivered, "resent and delivered: {:?}", d.sim.texts());
    let to_alice: Vec<(bool, Option<AckPlan>, String)> = d
        .sim
        .texts()
        .into_iter()
        .filter(|t| t.to == ALICE)
        .map(|t| (t.pki_encrypted, t.plan, t.text))
        .collect();
    let answer = "Use a good antenna.".to_string();
    assert_eq!(
        to_alice,
        [
            (true, Some(AckPlan::Nak(35)), answer.clone()),
            (true, Some(AckPlan::Ack), answer)
        ],
        "the same part twice, PKI both times"
    );
    let contacts = d.sim.contacts();
    assert_eq!(contacts.len(), 1, "{contacts:?}");
    let c = &contacts[0];
    let user = c.user.clone().unwrap_or_default();
    assert_eq!(
        (c.node_num, user.id.as_str(), user.public_key.as_slice()),
        (ALICE, "!a1c10001", K1.as_slice())
    );
    assert!(!c.should_ignore && !c.manually_verified);
    assert!(!user.long_name.is_empty() && !user.short_name.is_empty());
    let history = stored_at_least(&d, ALICE, 2).await;
    assert_eq!(history.len(), 2, "the delivered answer is kept");
}

/// A node that refuses the key again (it evicts it at once, or will not take it): the part
/// is resent once, then the reply ends as a NAK does, never with the channel key.
#[tokio::test(start_paused = true)]
async fn a_key_the_node_refuses_again_is_handed_back_once() {
    let _pace = paced();
    let d = Daemon::start(CONFIG).await;
    d.answer_with(|req| FakeResponse::Text(format!("echo: {}", req.last_user())));
    d.sim.nak_pki_to(ALICE, 35);
    d.sim.keep_pki_naks();
    d.sim.inject_pki_dm(ALICE, "tell me about antennas", K1);
    let twice = d
        .sim
        .wait_for(SOON, |l| {
            l.texts.iter().filter(|t| t.to == ALICE).count() >= 2
        })
        .await;
    assert!(twice);
    control(&d).await;
    let to_alice: Vec<(bool, Option<AckPlan>)> = d
        .sim
        .texts()
        .into_iter()
        .filter(|t| t.to == ALICE)
        .map(|t| (t.pki_encrypted, t.plan))
        .collect();
    assert_eq!(
        to_alice,
        [
            (true, Some(AckPlan::Nak(35))),
            (true, Some(AckPlan::Nak(35)))
        ],
        "one resend, no fallback"
    );
    assert_eq!(d.sim.contacts().len(), 1);
}

/// `require_pki = "all"`: a DM without PKI from a node that never used PKI is answered
/// without memory and not stored, and runs no command but `!help`.
#[tokio::test]
async fn require_pki_all_answers_plain_dms_without_memory() {
    let d = Daemon::start("[access]\nrequire_pki = \"all\"\n").await;
    plain_ask(&d, BOB, "My boat is the Blue Heron.").await;
    let reply = plain_ask(&d, BOB, "what is my boat called?").await;
    assert_eq!(joined(&reply), "echo: what is my boat called?");
    let req = replies(&d.llm).pop().expect("request");
    assert!(!said(&req).contains("Blue Heron"));
    assert!(stored(&d, BOB).await.is_empty(), "nothing stored");
    let refused = joined(&plain_ask(&d, BOB, "!summary").await);
    assert!(refused.contains("need an encrypted DM"), "{refused}");
    let help = joined(&plain_ask(&d, BOB, "!help").await);
    assert!(help.starts_with("Ask me anything."), "{help}");
    // Over PKI, the same node has a memory.
    pki_ask(&d, BOB, "My dog is Rex.", K2).await;
    pki_ask(&d, BOB, "what is my dog called?", K2).await;
    let req = replies(&d.llm).pop().expect("request");
    assert!(said(&req).contains("My dog is Rex."));
}

/// A DM that came through MQTT without PKI is answered without memory and not stored
/// (`[access] mqtt = "no_memory"`, the default).
#[tokio::test]
async fn an_mqtt_dm_gets_no_memory() {
    let d = Daemon::start("").await;
    plain_ask(&d, BOB, "My boat is the Blue Heron.").await;
    let reply = ask_with(
        &d,
        BOB,
        MeshPacketSpec {
            via_mqtt: true,
            ..MeshPacketSpec::text(BOB, "what is my boat called?")
        },
    )
    .await;
    assert_eq!(joined(&reply), "echo: what is my boat called?");
    let req = replies(&d.llm).pop().expect("request");
    assert!(!said(&req).contains("Blue Heron"));
    assert_eq!(stored(&d, BOB).await.len(), 2, "only the DM over the air");
}

/// Mentions have their own worker and rate limit, per channel: over it they are dropped
/// without a word, while the sender's DMs are still answered; the "DMs only" line goes
/// once per channel, not once per command.
#[tokio::test]
async fn mentions_have_their_own_rate_limit_and_one_dm_line() {
    let d = Daemon::start(
        "[limits]\nnode_messages = 8\n\
         [channels]\nanswer_mentions = true\nmention = \"@ai\"\nchannels = [0]\n",
    )
    .await;
    let mention = |from: u32, text: &str| MeshPacketSpec {
        to: Some(BROADCAST),
        ..MeshPacketSpec::text(from, text)
    };
    let public = |d: &Daemon| -> Vec<String> {
        d.sim
            .texts()
            .iter()
            .filter(|t| t.to == BROADCAST)
            .map(|t| t.text.clone())
            .collect()
    };
    ask_with(&d, BROADCAST, mention(ALICE, "@ai !reset")).await;
    ask_with(&d, BROADCAST, mention(BOB, "@ai first question")).await;
    // A second command within the 10 minutes gets no second line; the fourth mention (all
    // count, commands too) is the last the channel's share for never-heard ids (half its
    // limit) answers.
    d.sim.inject_text(mention(ALICE, "@ai !status"));
    ask_with(&d, BROADCAST, mention(ALICE, "@ai second question")).await;
    d.sim.inject_text(mention(BOB, "@ai over the limit"));
    // The sender's DMs have their own limit: still answered.
    let reply = plain_ask(&d, ALICE, "a direct question").await;
    assert_eq!(joined(&reply), "echo: a direct question");
    control(&d).await;
    assert_eq!(
        public(&d),
        [
            "Commands work only in a direct message to me.",
            "echo: first question",
            "echo: second question",
        ]
    );
    assert!(
        !d.llm
            .requests()
            .iter()
            .any(|r| said(r).contains("over the limit")),
        "no LLM call over the limit"
    );
}

/// `[access] mqtt = "ignore"`: neither a DM nor a channel mention that came through MQTT is
/// answered (broker access buys no airtime), while the same mention heard over the air is;
/// under the default `"no_memory"` the MQTT mention is answered as a public mention.
#[tokio::test]
async fn mqtt_ignore_ignores_mqtt_mentions_too() {
    let mentions = "[channels]\nanswer_mentions = true\nmention = \"@ai\"\nchannels = [0]\n";
    let mention = |text: &str, via_mqtt: bool| MeshPacketSpec {
        to: Some(BROADCAST),
        via_mqtt,
        ..MeshPacketSpec::text(ALICE, text)
    };
    let d = Daemon::start(&format!("[access]\nmqtt = \"ignore\"\n{mentions}")).await;
    d.sim.inject_text(mention("@ai via the broker?", true));
    d.sim.inject_text(MeshPacketSpec {
        via_mqtt: true,
        ..MeshPacketSpec::text(ALICE, "a DM via the broker")
    });
    let aired = ask_with(&d, BROADCAST, mention("@ai over the air?", false)).await;
    assert_eq!(joined(&aired), "echo: over the air?");
    control(&d).await;
    let public: Vec<String> = d
        .sim
        .texts()
        .iter()
        .filter(|t| t.to == BROADCAST)
        .map(|t| strip_marker(&t.text).to_string())
        .collect();
    assert_eq!(public, ["echo: over the air?"]);
    assert_eq!(texts_to(&d, ALICE), 0, "the MQTT DM is not answered");
    assert!(
        !d.llm
            .requests()
            .iter()
            .any(|r| said(r).contains("via the broker")),
        "no LLM call for what came through MQTT"
    );

    let d = Daemon::start(mentions).await;
    let answer = ask_with(&d, BROADCAST, mention("@ai via the broker?", true)).await;
    assert_eq!(joined(&answer), "echo: via the broker?");
}
