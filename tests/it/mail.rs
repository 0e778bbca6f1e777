//! `!tell` end to end (issue 42): a message for a node heard three hours ago waits until that
//! node is heard live — a replayed reading does not count — then goes as a DM naming its
//! sender, and the sender is told once the ACK came. From a known or proven sender only
//! (never a fresh id, never a DM that cannot use the memory); quotas and `!mail cancel`; kept
//! across a restart; delivered at the number a renumbered recipient's key implies; held
//! while the airtime policy holds replies; never in a prompt. In paused time
//! (`harness::paced`).

use std::sync::Arc;
use std::time::Duration;

use meshai::node::{NodeId, PublicKey};
use meshai::store::Store;

use crate::harness::{
    Daemon, SOON, VIEW_SETTLES, db_dir, know_before, paced, sim_config, view_settled,
};
use crate::support::fake_llm::FakeLlm;
use crate::support::sim_node::{MeshPacketSpec, SentText, SimConfig, SimNode, SimPeer};
use crate::trust::{ask_with, joined};

const ANN: u32 = 0x0a11_0001;
const CAROL: u32 = 0x0a11_0002;
const STRANGER: u32 = 0x0a11_0009;
const THREE_HOURS: u32 = 3 * 3600;
const ANN_KEY: [u8; 32] = [0x41; 32];
const CAROL_KEY: [u8; 32] = [0x43; 32];

/// Ann, heard a minute ago; Carol, two hops away, last heard three hours ago.
fn peers() -> Vec<SimPeer> {
    vec![
        SimPeer::new(ANN, "Ann Smith", "ANN").heard(60, 1, 5.0),
        SimPeer::new(CAROL, "Carol Jones", "CARO")
            .heard(THREE_HOURS, 2, -3.0)
            .battery(50, 3.8)
            .at(474_100_000, 85_500_000),
    ]
}

/// A daemon on a firmware 2.8 node (thin node infos, then the cached readings replayed with
/// their old `rx_time`) with `peers()`, Ann known from before, and `extra` config.
async fn daemon(sim: SimConfig, extra: &str) -> Daemon {
    let dir = db_dir();
    know_before(&dir.path().join("meshai.db"), [ANN]).await;
    let sim = Arc::new(SimNode::start(sim).await);
    let d = Daemon::start_with(sim, FakeLlm::start_echo().await, dir, extra).await;
    view_settled(&d.sim).await;
    d
}

fn node_28() -> SimConfig {
    SimConfig {
        peers: peers(),
        firmware_28: true,
        ..sim_config()
    }
}

fn to(texts: &[SentText], node: u32) -> Vec<SentText> {
    texts.iter().filter(|t| t.to == node).cloned().collect()
}

/// Waits for a text to `node` that starts with `start`; panics without one.
async fn wait_text(d: &Daemon, node: u32, start: &str) -> SentText {
    let found = d
        .sim
        .wait_for(SOON, |l| {
            l.texts
                .iter()
                .any(|t| t.to == node && t.text.starts_with(start))
        })
        .await;
    let texts = d.sim.texts();
    assert!(found, "no {start:?} to {node:x}: {texts:#?}");
    texts
        .into_iter()
        .find(|t| t.to == node && t.text.starts_with(start))
        .expect("found")
}

/// Carol's position, heard `ago` seconds ago as the radio says.
fn carol_heard(d: &Daemon, num: u32, ago: u32) {
    d.sim
        .inject_position_heard(num, 474_100_000, 85_500_000, ago);
}

/// Waits until the wall clock's second is past `at`: the store's times are its seconds, which
/// paused time does not move (a blocking task, during which the paused clock stands still).
async fn wall_second_after(at: i64) {
    tokio::task::spawn_blocking(move || {
        while meshai::clock::unix_now() <= at {
            std::thread::sleep(Duration::from_millis(10));
        }
    })
    .await
    .expect("the wait");
}

/// What waits in the database of a stopped daemon.
async fn waiting(dir: &tempfile::TempDir) -> Vec<meshai::store::Mail> {
    let store = Store::open(&dir.path().join("meshai.db")).expect("opens");
    let w = store.waiting_mail().await.expect("reads");
    store.close().await.expect("closes");
    w
}

#[tokio::test(start_paused = true)]
async fn a_message_waits_for_its_recipient_to_be_heard_live_and_its_sender_gets_the_receipt() {
    let _pace = paced();
    let d = daemon(node_28(), "").await;
    let kept = joined(
        &d.ask(ANN, "!tell carol jones: see you at the hut at 6", SOON)
            .await,
    );
    assert!(kept.starts_with("Kept for Carol Jones: "), "{kept}");
    // A quiet while: nothing may go.
    tokio::time::sleep(VIEW_SETTLES).await;
    assert!(
        to(&d.sim.texts(), CAROL).is_empty(),
        "sent before Carol was heard"
    );
    // Carol's reading from three hours ago, replayed: not heard now.
    carol_heard(&d, CAROL, THREE_HOURS);
    view_settled(&d.sim).await;
    assert!(
        to(&d.sim.texts(), CAROL).is_empty(),
        "a replay counted as heard"
    );
    // Heard now: the message goes, naming its sender, as far as an answer to Carol would.
    carol_heard(&d, CAROL, 0);
    let sent = wait_text(&d, CAROL, "From Ann Smith: ").await;
    assert_eq!(sent.text, "From Ann Smith: see you at the hut at 6");
    assert!(sent.want_ack, "a delivery waits for its ACK");
    assert!(sent.hop_limit <= 4, "two hops away: {}", sent.hop_limit);
    let receipt = wait_text(&d, ANN, "Delivered to Carol Jones at ").await;
    assert!(receipt.text.ends_with('.'), "{}", receipt.text);
    assert_eq!(to(&d.sim.texts(), CAROL).len(), 1, "delivered once");
    let mail = joined(&d.ask(ANN, "!mail", SOON).await);
    assert!(mail.starts_with("Nothing of yours is waiting."), "{mail}");
    // Nothing of it reached the model.
    assert!(
        d.llm.requests().iter().all(|r| !r.body.contains("hut")),
        "the message went into a prompt"
    );
    let (result, _, _, dir) = d.stop().await;
    result.unwrap();
    assert!(
        waiting(&dir).await.is_empty(),
        "a delivered message is deleted"
    );
}

#[tokio::test(start_paused = true)]
async fn a_stranger_or_a_dm_that_cannot_use_the_memory_leaves_no_message() {
    let _pace = paced();
    let d = daemon(node_28(), "").await;
    let refused = joined(&d.ask(STRANGER, "!tell Carol Jones hi", SOON).await);
    assert!(
        refused.starts_with("I pass on messages only for people I know"),
        "{refused}"
    );
    // Ann talks over PKI; a DM without PKI in her name proves nothing.
    ask_with(&d, ANN, MeshPacketSpec::pki(ANN, "hello", ANN_KEY)).await;
    // Its answer (the warning) shows the intake has taken it.
    let answers = d.ask(ANN, "!tell Carol Jones forged words", SOON).await;
    assert!(
        answers.iter().all(|t| !t.text.starts_with("Kept for")),
        "{answers:#?}"
    );
    // Over PKI, Ann's own message is kept.
    let kept = joined(
        &ask_with(
            &d,
            ANN,
            MeshPacketSpec::pki(ANN, "!tell Carol Jones real words", ANN_KEY),
        )
        .await,
    );
    assert!(kept.starts_with("Kept for Carol Jones"), "{kept}");
    let (result, _, _, dir) = d.stop().await;
    result.unwrap();
    let w = waiting(&dir).await;
    let texts: Vec<&str> = w.iter().map(|m| m.text.as_str()).collect();
    assert_eq!(texts, ["real words"]);
    assert_eq!(w[0].recipient, NodeId(CAROL));
}

#[tokio::test(start_paused = true)]
async fn quotas_hold_and_a_sender_lists_and_cancels_its_own() {
    let _pace = paced();
    let d = daemon(node_28(), "[mail]\nper_sender = 2\n").await;
    for text in ["!tell Carol Jones alpha", "!tell CARO bravo"] {
        let kept = joined(&d.ask(ANN, text, SOON).await);
        assert!(kept.starts_with("Kept for Carol Jones"), "{kept}");
    }
    let full = joined(&d.ask(ANN, "!tell Carol Jones charlie", SOON).await);
    assert_eq!(
        full,
        "You have 2 messages waiting already. !mail shows them; !mail cancel N deletes one."
    );
    let listed = joined(&d.ask(ANN, "!mail", SOON).await);
    assert!(
        listed.starts_with("2 waiting (!mail cancel N): 1 Carol Jones "),
        "{listed}"
    );
    assert!(
        !listed.contains("alpha") && !listed.contains("bravo"),
        "{listed}"
    );
    let gone = joined(&d.ask(ANN, "!mail cancel 1", SOON).await);
    assert_eq!(gone, "Cancelled: your message to Carol Jones is deleted.");
    let none = joined(&d.ask(ANN, "!mail cancel 5", SOON).await);
    assert_eq!(none, "No message 5 of yours is waiting. !mail lists them.");
    let unknown = joined(&d.ask(ANN, "!tell Bob hi", SOON).await);
    assert!(unknown.starts_with("No node named \"Bob\""), "{unknown}");
    let (result, _, _, dir) = d.stop().await;
    result.unwrap();
    let texts: Vec<String> = waiting(&dir).await.into_iter().map(|m| m.text).collect();
    assert_eq!(texts, ["bravo"]);
}

#[tokio::test(start_paused = true)]
async fn a_message_survives_a_restart() {
    let _pace = paced();
    let d = daemon(node_28(), "").await;
    let kept = joined(
        &d.ask(ANN, "!tell Carol Jones after the restart", SOON)
            .await,
    );
    assert!(kept.starts_with("Kept for"), "{kept}");
    let (result, _, llm, dir) = d.stop().await;
    result.unwrap();
    let sim = Arc::new(SimNode::start(node_28()).await);
    let d = Daemon::start_with(sim, llm, dir, "").await;
    view_settled(&d.sim).await;
    assert!(to(&d.sim.texts(), CAROL).is_empty(), "the replay counted");
    carol_heard(&d, CAROL, 0);
    let sent = wait_text(&d, CAROL, "From Ann Smith: ").await;
    assert_eq!(sent.text, "From Ann Smith: after the restart");
    wait_text(&d, ANN, "Delivered to Carol Jones at ").await;
    d.stop().await.0.unwrap();
}

#[tokio::test(start_paused = true)]
async fn a_renumbered_recipient_gets_it_at_the_number_its_key_implies() {
    let _pace = paced();
    let d = daemon(node_28(), "").await;
    // Carol talked to the bot over PKI: her key is pinned.
    ask_with(&d, CAROL, MeshPacketSpec::pki(CAROL, "hello", CAROL_KEY)).await;
    // Later than that DM (the same second would count as hearing her now, at the old number).
    wall_second_after(meshai::clock::unix_now()).await;
    let kept = joined(&d.ask(ANN, "!tell Carol Jones sealed", SOON).await);
    assert!(kept.starts_with("Kept for"), "{kept}");
    // Firmware 2.8 gave her the number her key implies; she is heard there.
    let new = PublicKey(CAROL_KEY).node().0;
    carol_heard(&d, new, 0);
    let sent = wait_text(&d, new, "From Ann Smith: ").await;
    assert!(sent.pki_encrypted, "sealed with her pinned key");
    assert!(
        to(&d.sim.texts(), CAROL)
            .iter()
            .all(|t| !t.text.contains("sealed"))
    );
    wait_text(&d, ANN, "Delivered to Carol Jones at ").await;
    d.stop().await.0.unwrap();
}

#[tokio::test(start_paused = true)]
async fn a_busy_channel_holds_the_delivery_until_it_calms_down() {
    let _pace = paced();
    let sim = SimConfig {
        device_metrics: Some((45.0, 1.0)),
        ..node_28()
    };
    let d = daemon(sim, "").await;
    let kept = joined(&d.ask(ANN, "!tell Carol Jones when it is quiet", SOON).await);
    assert!(
        kept.starts_with("Kept for"),
        "commands are never held: {kept}"
    );
    carol_heard(&d, CAROL, 0);
    // The view has her, then a quiet while: nothing may go.
    view_settled(&d.sim).await;
    tokio::time::sleep(VIEW_SETTLES).await;
    assert!(
        to(&d.sim.texts(), CAROL).is_empty(),
        "sent on a busy channel"
    );
    d.sim.inject_telemetry(15.0, 1.0);
    let sent = wait_text(&d, CAROL, "From Ann Smith: ").await;
    assert_eq!(sent.text, "From Ann Smith: when it is quiet");
    d.stop().await.0.unwrap();
}

#[tokio::test(start_paused = true)]
async fn an_expired_message_is_deleted_and_its_sender_told() {
    let _pace = paced();
    // A message Ann left eight days ago, kept seven: the daemon finds it past its expiry.
    let dir = db_dir();
    let db = dir.path().join("meshai.db");
    know_before(&db, [ANN]).await;
    let store = Store::open(&db).expect("opens");
    let now = meshai::clock::unix_now();
    let mail = meshai::store::NewMail {
        sender: NodeId(ANN),
        sender_name: "Ann Smith".into(),
        recipient: NodeId(CAROL),
        recipient_name: "Carol Jones".into(),
        recipient_key: None,
        text: "too late".into(),
        sender_lang: meshai::lang::Lang::De,
        at: now - 8 * 86_400,
        expires_at: now - 86_400,
    };
    let quota = meshai::store::MailQuota {
        per_sender: 5,
        per_recipient: 10,
    };
    store.post_mail(mail, quota).await.expect("kept");
    store.close().await.expect("closes");
    let sim = Arc::new(SimNode::start(node_28()).await);
    let d = Daemon::start_with(sim, FakeLlm::start_echo().await, dir, "").await;
    // In the language Ann left it in; Carol gets nothing, even when heard.
    let told = wait_text(&d, ANN, "Nicht zugestellt: ").await;
    assert_eq!(
        told.text,
        "Nicht zugestellt: Carol Jones war 7 Tage nicht zu hören. Deine Nachricht ist gelöscht."
    );
    carol_heard(&d, CAROL, 0);
    view_settled(&d.sim).await;
    assert!(to(&d.sim.texts(), CAROL).is_empty());
    let (result, _, _, dir) = d.stop().await;
    result.unwrap();
    assert!(waiting(&dir).await.is_empty());
}
