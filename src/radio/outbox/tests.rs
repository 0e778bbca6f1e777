//! Tests of the outbox task with plain channels standing in for the link, in paused time.

use std::sync::Arc;
use std::time::Duration;

use tokio::sync::{mpsc, watch};
use tokio::time::{Instant, timeout};

use super::*;
use crate::node::{NodeId, Standing};
use crate::radio::{FailReason, LocalNode, NodeNames, OutgoingText, PartOutcome, Transport};

const LOCAL: NodeId = NodeId(1);
/// Replies to a proven node: held until their ACK, like every part in these tests.
const PROVEN: Standing = Standing::Proven;

/// The link's side of the outbox's channels.
struct FakeLink {
    state: watch::Sender<LinkState>,
    events: mpsc::Sender<LinkEvent>,
    writes: mpsc::Receiver<Outgoing>,
}

impl FakeLink {
    async fn next_text(&mut self) -> OutgoingText {
        loop {
            match self.writes.recv().await {
                Some(Outgoing::Text(text)) => return text,
                Some(Outgoing::Probe | Outgoing::Contact(_)) => continue,
                None => panic!("outbox closed its writes"),
            }
        }
    }

    async fn ack(&self, text: &OutgoingText) {
        let ack = LinkEvent::Routing {
            request_id: text.id,
            from: text.to,
            error: 0,
        };
        self.events.send(ack).await.unwrap();
    }
}

fn ready(generation: u64) -> LinkState {
    LinkState::Ready {
        generation,
        local: Arc::new(LocalNode {
            num: LOCAL,
            names: NodeNames::default(),
            firmware_version: "2.7.26".into(),
            hop_limit: 3,
            channels: vec![(0, String::new())],
            known_nodes: 1,
            reboot_count: 0,
            licensed: false,
        }),
    }
}

fn start(state: LinkState) -> (OutboxHandle, OutboxTask, FakeLink) {
    let cfg = RadioConfig::new(Transport::tcp("127.0.0.1", 0));
    let (state_tx, state_rx) = watch::channel(state);
    let (events_tx, events_rx) = mpsc::channel(16);
    let (writes_tx, writes_rx) = mpsc::channel(16);
    let (handle, task) = spawn(&cfg, state_rx, events_rx, writes_tx);
    let link = FakeLink {
        state: state_tx,
        events: events_tx,
        writes: writes_rx,
    };
    (handle, task, link)
}

fn reply(to: u32, parts: &[&str]) -> ReplyRequest {
    ReplyRequest {
        to: NodeId(to),
        channel: 0,
        reply_to: Some(9),
        parts: parts.iter().map(|p| p.to_string()).collect(),
        pki: false,
        asked: Default::default(),
        receipt: false,
        pinned: None,
    }
}

#[tokio::test(start_paused = true)]
async fn waits_for_the_link_then_sends_paced_and_reports() {
    let (handle, task, mut link) = start(LinkState::Connecting);
    let a = handle.send(reply(2, &["a1", "a2"]), PROVEN).await.unwrap();
    let b = handle.send(reply(3, &["b1"]), PROVEN).await.unwrap();

    let quiet = timeout(Duration::from_secs(30), link.writes.recv()).await;
    assert!(quiet.is_err(), "wrote while the link was down: {quiet:?}");
    link.state.send(ready(4)).unwrap();

    let mut sent = Vec::new();
    for _ in 0..3 {
        let text = link.next_text().await;
        sent.push((Instant::now(), text.text.clone(), text.generation));
        link.ack(&text).await;
    }
    let texts: Vec<_> = sent.iter().map(|(_, t, g)| (t.as_str(), *g)).collect();
    assert_eq!(texts, [("a1", 4), ("a2", 4), ("b1", 4)]);
    for pair in sent.windows(2) {
        assert!(pair[1].0 - pair[0].0 >= Duration::from_secs(2), "{sent:?}");
    }
    let delivered = |n| ReplyReport {
        parts: vec![PartOutcome::Delivered; n],
    };
    assert_eq!(a.await.unwrap(), delivered(2));
    assert_eq!(b.await.unwrap(), delivered(1));
    task.drain_and_stop(Duration::from_secs(5)).await;
}

#[tokio::test(start_paused = true)]
async fn drain_lets_the_part_in_flight_finish() {
    let (handle, task, mut link) = start(ready(1));
    let report = handle.send(reply(2, &["a1"]), PROVEN).await.unwrap();
    let text = link.next_text().await;

    let started = Instant::now();
    let drain = tokio::spawn(task.drain_and_stop(Duration::from_secs(30)));
    link.ack(&text).await;
    drain.await.unwrap();
    assert!(Instant::now() - started < Duration::from_secs(30));
    assert!(handle.send(reply(2, &["late"]), PROVEN).await.is_err());
    assert_eq!(
        report.await.unwrap(),
        ReplyReport {
            parts: vec![PartOutcome::Delivered]
        }
    );
}

#[tokio::test(start_paused = true)]
async fn drain_reports_unsent_parts_as_shutdown() {
    let (handle, task, _link) = start(LinkState::Connecting);
    let report = handle.send(reply(2, &["a1", "a2"]), PROVEN).await.unwrap();
    let started = Instant::now();
    task.drain_and_stop(Duration::from_secs(5)).await;
    assert!(Instant::now() - started >= Duration::from_secs(5));
    let shutdown = PartOutcome::Failed(FailReason::Shutdown);
    assert_eq!(
        report.await.unwrap(),
        ReplyReport {
            parts: vec![shutdown.clone(), shutdown]
        }
    );
    assert!(handle.send(reply(2, &["a1"]), PROVEN).await.is_err());
}

#[tokio::test(start_paused = true)]
async fn the_gauge_counts_the_replies_held_by_standing() {
    let (handle, task, mut link) = start(ready(1));
    let a = handle.send(reply(2, &["a1"]), PROVEN).await.unwrap();
    let _b = handle.send(reply(3, &["b1"]), Standing::New).await.unwrap();
    let _c = handle
        .send(reply(3, &["c1"]), Standing::Known)
        .await
        .unwrap();
    let text = link.next_text().await;
    assert_eq!(text.text, "a1");
    assert_eq!(handle.queued(), [1, 1, 1]);
    // Each node once, at the highest standing of its replies.
    let mut holders = handle.holders();
    holders.sort_by_key(|(n, _)| n.0);
    assert_eq!(holders, [(NodeId(2), PROVEN), (NodeId(3), Standing::Known)]);
    link.ack(&text).await;
    a.await.unwrap();
    tokio::task::yield_now().await;
    assert_eq!(handle.queued(), [1, 1, 0]);
    assert_eq!(handle.holders(), [(NodeId(3), Standing::Known)]);
    task.drain_and_stop(Duration::from_secs(0)).await;
    assert_eq!(handle.queued(), [0, 0, 0]);
    assert!(handle.holders().is_empty());
}
