//! Bulletins from the drop folder end to end (issue 42): a file a local script writes goes as
//! a DM to the users who asked with `!subscribe`, once per content, within the daily cap,
//! held while the channel is busy, never to a stranger, and broadcast only the topics the
//! operator chose, on the channel chosen, at the node's own hop limit. In paused time
//! (`harness::paced`): the folder's looks are virtual.

use std::sync::Arc;
use std::time::Duration;

use crate::harness::{Daemon, SOON, db_dir, know_before, paced, sim_config};
use crate::support::fake_llm::FakeLlm;
use crate::support::sim_node::{BROADCAST, SentText, SimConfig, SimLog, SimNode, SimPeer};
use crate::trust::joined;

const ANN: u32 = 0x0a33_0001;
const STRANGER: u32 = 0x0a33_0009;
/// Longer than the folder's 5 s between two looks, and the 2 s gap between texts.
const FOLDER_LOOKED: Duration = Duration::from_secs(8);

fn node() -> SimConfig {
    SimConfig {
        peers: vec![SimPeer::new(ANN, "Ann Smith", "ANN").heard(60, 1, 5.0)],
        ..sim_config()
    }
}

/// A daemon with a bulletins folder holding `weather.txt` ("Storm tonight") from before.
async fn daemon(sim: SimConfig) -> (Daemon, tempfile::TempDir) {
    daemon_with(sim, "").await
}

/// The same, with `more` added to `[bulletins]`.
async fn daemon_with(sim: SimConfig, more: &str) -> (Daemon, tempfile::TempDir) {
    let folder = tempfile::tempdir().expect("tempdir");
    std::fs::write(folder.path().join("weather.txt"), "Storm tonight").unwrap();
    let dir = db_dir();
    know_before(&dir.path().join("meshai.db"), [ANN]).await;
    let extra = format!(
        "[bulletins]\ndir = \"{}\"\nper_day = 2\n{more}",
        folder.path().display()
    );
    let sim = Arc::new(SimNode::start(sim).await);
    let d = Daemon::start_with(sim, FakeLlm::start_echo().await, dir, &extra).await;
    (d, folder)
}

fn bulletins(texts: &[SentText], to: u32) -> Vec<String> {
    texts
        .iter()
        .filter(|t| t.to == to && t.text.starts_with("[weather] "))
        .map(|t| t.text.clone())
        .collect()
}

/// Waits until the node's record satisfies `went` (a bulletin went); panics if it does not.
async fn until_sent(d: &Daemon, went: impl Fn(&SimLog) -> bool) {
    let sent = d.sim.wait_for(SOON, went).await;
    assert!(sent, "not sent: {:#?}", d.sim.texts());
}

#[tokio::test(start_paused = true)]
async fn a_dropped_file_goes_to_its_subscribers_once_within_the_daily_cap() {
    let _pace = paced();
    let (d, folder) = daemon(node()).await;
    let listed = joined(&d.ask(ANN, "!subscribe", SOON).await);
    assert_eq!(
        listed,
        "Topics: weather. Yours: -. !subscribe TOPIC, !unsubscribe TOPIC."
    );
    let refused = joined(&d.ask(STRANGER, "!subscribe weather", SOON).await);
    assert!(
        refused.starts_with("I pass on messages only for people I know"),
        "{refused}"
    );
    let none = joined(&d.ask(ANN, "!subscribe pollen", SOON).await);
    assert_eq!(none, "No topic \"pollen\" here. !subscribe lists them.");
    let set = joined(&d.ask(ANN, "!subscribe Weather", SOON).await);
    assert!(set.starts_with("Subscribed to weather: "), "{set}");
    // The bulletin there before is not news.
    tokio::time::sleep(FOLDER_LOOKED).await;
    assert!(bulletins(&d.sim.texts(), ANN).is_empty());
    let file = folder.path().join("weather.txt");
    std::fs::write(&file, "Storm warning\nlifted").unwrap();
    until_sent(&d, |l| !bulletins(&l.texts, ANN).is_empty()).await;
    assert_eq!(
        bulletins(&d.sim.texts(), ANN),
        ["[weather] Storm warning lifted"]
    );
    // Written again with the same text: nothing new.
    std::fs::write(&file, "Storm warning\nlifted").unwrap();
    tokio::time::sleep(FOLDER_LOOKED).await;
    assert_eq!(
        bulletins(&d.sim.texts(), ANN).len(),
        1,
        "the same text twice"
    );
    // Two a day (the one at start and this one): a third waits.
    std::fs::write(&file, "Frost at dawn").unwrap();
    tokio::time::sleep(FOLDER_LOOKED).await;
    assert_eq!(
        bulletins(&d.sim.texts(), ANN).len(),
        1,
        "past the daily cap"
    );
    let texts = d.sim.texts();
    assert!(bulletins(&texts, STRANGER).is_empty());
    assert!(bulletins(&texts, BROADCAST).is_empty(), "broadcast");
    let gone = joined(&d.ask(ANN, "!unsubscribe weather", SOON).await);
    assert_eq!(gone, "Unsubscribed from weather.");
    assert!(d.llm.requests().is_empty(), "the model was asked");
    d.stop().await.0.unwrap();
}

#[tokio::test(start_paused = true)]
async fn a_busy_channel_holds_a_bulletin_until_it_calms_down() {
    let _pace = paced();
    let (d, folder) = daemon(SimConfig {
        device_metrics: Some((45.0, 1.0)),
        ..node()
    })
    .await;
    let set = joined(&d.ask(ANN, "!subscribe weather", SOON).await);
    assert!(set.starts_with("Subscribed to weather: "), "{set}");
    std::fs::write(folder.path().join("weather.txt"), "Gale warning").unwrap();
    tokio::time::sleep(FOLDER_LOOKED).await;
    assert!(
        bulletins(&d.sim.texts(), ANN).is_empty(),
        "sent on a busy channel"
    );
    d.sim.inject_telemetry(15.0, 1.0);
    until_sent(&d, |l| !bulletins(&l.texts, ANN).is_empty()).await;
    assert_eq!(bulletins(&d.sim.texts(), ANN), ["[weather] Gale warning"]);
    d.stop().await.0.unwrap();
}

#[tokio::test(start_paused = true)]
async fn only_the_topics_the_operator_chose_are_broadcast_and_on_their_channel() {
    let _pace = paced();
    let (d, folder) = daemon_with(node(), "channel = 2\nbroadcast = [\"weather\"]\n").await;
    // The first look found the text there at start.
    until_sent(&d, |l| !bulletins(&l.texts, BROADCAST).is_empty()).await;
    std::fs::write(folder.path().join("club.txt"), "Meeting moved to Friday").unwrap();
    std::fs::write(folder.path().join("weather.txt"), "Frost at dawn").unwrap();
    until_sent(&d, |l| bulletins(&l.texts, BROADCAST).len() >= 2).await;
    // A look more: the club's notice would be on air by now.
    tokio::time::sleep(FOLDER_LOOKED).await;
    let texts = d.sim.texts();
    let on_air: Vec<_> = texts.iter().filter(|t| t.to == BROADCAST).collect();
    // The text there at start, then its change; the club's notice is never broadcast.
    let said: Vec<&str> = on_air.iter().map(|t| t.text.as_str()).collect();
    assert_eq!(said, ["[weather] Storm tonight", "[weather] Frost at dawn"]);
    for t in on_air {
        assert_eq!(t.channel, 2, "{t:?}");
        assert_eq!(t.hop_limit, 3, "the node's own limit: {t:?}");
        assert!(!t.pki_encrypted, "{t:?}");
    }
    assert!(d.llm.requests().is_empty(), "the model was asked");
    d.stop().await.0.unwrap();
}
