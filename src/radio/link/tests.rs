//! Link tests: a tiny fake node on the far end of an in-memory pipe, paused time.

use std::sync::Arc;

use bytes::Bytes;
use futures_util::{SinkExt, StreamExt};
use meshtastic::Message;
use meshtastic::protobufs::{
    Config, Data, FromRadio, MeshPacket, MyNodeInfo, NodeInfo, PortNum, QueueStatus, Routing,
    ToRadio, User, config, from_radio, mesh_packet, routing, to_radio,
};
use tokio_util::codec::Framed;

use super::serve::PROBE_TIMEOUT;
use super::*;
use crate::node::NodeId;
use crate::radio::codec::FrameCodec;
use crate::radio::transport::ConnKind;
use crate::radio::{LocalNode, OutgoingText, Transport};

const ME: u32 = 0x0a0b_0c0d;
const ALICE: u32 = 0x1122_3344;

/// The node's end of one connection.
struct FakeNode {
    frames: Framed<Connection, FrameCodec>,
}

impl FakeNode {
    /// The next message from the link, or `None` once the link hung up.
    async fn recv(&mut self) -> Option<ToRadio> {
        let frame = self.frames.next().await?.unwrap();
        Some(ToRadio::decode(frame).unwrap())
    }

    async fn send(&mut self, v: from_radio::PayloadVariant) {
        let msg = FromRadio {
            id: 0,
            payload_variant: Some(v),
        };
        self.frames
            .send(Bytes::from(msg.encode_to_vec()))
            .await
            .unwrap();
    }

    async fn expect_want_config(&mut self) -> u32 {
        match self.recv().await.and_then(|m| m.payload_variant) {
            Some(to_radio::PayloadVariant::WantConfigId(n)) => n,
            other => panic!("expected want_config, got {other:?}"),
        }
    }

    async fn expect_heartbeat(&mut self) {
        match self.recv().await.and_then(|m| m.payload_variant) {
            Some(to_radio::PayloadVariant::Heartbeat(h)) => assert_eq!(h.nonce, 0),
            other => panic!("expected heartbeat, got {other:?}"),
        }
    }

    /// Answers want_config the way firmware does, in a scrambled order.
    async fn handshake(&mut self) {
        let nonce = self.expect_want_config().await;
        self.answer_want_config(nonce).await;
    }

    async fn answer_want_config(&mut self, nonce: u32) {
        use from_radio::PayloadVariant as V;
        self.send(V::ConfigCompleteId(nonce ^ 1)).await;
        self.send(V::NodeInfo(node_info(ME, "Bot"))).await;
        self.send(V::MyInfo(MyNodeInfo {
            my_node_num: ME,
            reboot_count: 7,
            ..Default::default()
        }))
        .await;
        self.send(V::NodeInfo(node_info(ALICE, "Alice"))).await;
        self.send(V::Config(Config {
            payload_variant: Some(config::PayloadVariant::Lora(config::LoRaConfig {
                hop_limit: 5,
                ..Default::default()
            })),
        }))
        .await;
        self.send(V::ConfigCompleteId(nonce)).await;
    }

    async fn send_packet(&mut self, p: MeshPacket) {
        self.send(from_radio::PayloadVariant::Packet(p)).await;
    }
}

fn node_info(num: u32, name: &str) -> NodeInfo {
    NodeInfo {
        num,
        user: Some(user(name)),
        ..Default::default()
    }
}

fn user(name: &str) -> User {
    User {
        long_name: name.into(),
        short_name: name.chars().take(2).collect(),
        ..Default::default()
    }
}

fn data_packet(from: u32, to: u32, id: u32, data: Data) -> MeshPacket {
    MeshPacket {
        from,
        to,
        id,
        payload_variant: Some(mesh_packet::PayloadVariant::Decoded(data)),
        ..Default::default()
    }
}

fn text(from: u32, to: u32, id: u32, body: &str) -> MeshPacket {
    data_packet(
        from,
        to,
        id,
        Data {
            portnum: PortNum::TextMessageApp as i32,
            payload: body.as_bytes().to_vec(),
            ..Default::default()
        },
    )
}

/// The link with its channels, started on fake connections.
struct Harness {
    state: watch::Receiver<LinkState>,
    channel: watch::Receiver<ChannelState>,
    mesh: watch::Receiver<Arc<MeshView>>,
    inbound: mpsc::Receiver<Inbound>,
    events: mpsc::Receiver<LinkEvent>,
    writes: mpsc::Sender<Outgoing>,
    /// Each connect attempt hands the node's end here.
    nodes: mpsc::Receiver<FakeNode>,
    cancel: CancellationToken,
    task: JoinHandle<()>,
}

fn start(cfg: RadioConfig, inbound_capacity: usize) -> Harness {
    let (node_tx, nodes) = mpsc::channel(8);
    let connector = move || {
        let (ours, theirs) = tokio::io::duplex(16 * 1024);
        let node = FakeNode {
            frames: Framed::new(Connection::new(theirs, ConnKind::Tcp), FrameCodec::new()),
        };
        let conn = node_tx
            .try_send(node)
            .map(|()| Connection::new(ours, ConnKind::Tcp))
            .map_err(|_| io::Error::from(io::ErrorKind::ConnectionRefused));
        async move { conn }
    };
    let (state_tx, state) = watch::channel(LinkState::Connecting);
    let (channel_tx, channel) = watch::channel(ChannelState::default());
    let (mesh_tx, mesh) = watch::channel(Arc::new(MeshView::new()));
    let (inbound_tx, inbound) = mpsc::channel(inbound_capacity);
    let (events_tx, events) = mpsc::channel(8);
    let (writes, writes_rx) = mpsc::channel(8);
    let cancel = CancellationToken::new();
    let channels = Channels {
        state: state_tx,
        channel: channel_tx,
        mesh: mesh_tx,
        inbound: inbound_tx,
        events: events_tx,
        writes: writes_rx,
    };
    let link = Link::new(cfg, connector, channels, cancel.clone());
    Harness {
        state,
        channel,
        mesh,
        inbound,
        events,
        writes,
        nodes,
        cancel,
        task: tokio::spawn(link.run()),
    }
}

fn cfg() -> RadioConfig {
    RadioConfig::new(Transport::tcp("meshnode", 4403))
}

impl Harness {
    async fn wait_for(&mut self, pred: impl FnMut(&LinkState) -> bool) -> LinkState {
        self.state.wait_for(pred).await.unwrap().clone()
    }

    /// Accepts the next connection, handshakes, and waits for Ready.
    async fn ready(&mut self) -> (FakeNode, u64, Arc<LocalNode>) {
        let mut node = self.nodes.recv().await.unwrap();
        node.handshake().await;
        match self.wait_for(LinkState::is_ready).await {
            LinkState::Ready { generation, local } => (node, generation, local),
            other => panic!("not ready: {other:?}"),
        }
    }

    async fn wait_down(&mut self) -> (DownReason, Duration) {
        match self.wait_for(|s| matches!(s, LinkState::Down { .. })).await {
            LinkState::Down { reason, retry_in } => (reason, retry_in),
            other => panic!("not down: {other:?}"),
        }
    }

    async fn next_text(&mut self) -> (bool, String) {
        match self.inbound.recv().await.unwrap() {
            Inbound::Dm(m) => (true, m.text),
            Inbound::Broadcast(m) => (false, m.text),
        }
    }
}

#[tokio::test(start_paused = true)]
async fn handshake_makes_the_link_ready() {
    let mut h = start(cfg(), 8);
    let (_node, generation, local) = h.ready().await;
    assert_eq!(generation, 1);
    assert_eq!(local.num, NodeId(ME));
    assert_eq!(local.names.long_name, "Bot");
    assert_eq!(local.hop_limit, 5);
    assert_eq!(local.known_nodes, 2);
    assert_eq!(local.reboot_count, 7);
}

#[tokio::test(start_paused = true)]
async fn dms_come_out_even_with_a_start_marker_in_the_text() {
    let mut h = start(cfg(), 8);
    let (mut node, _, _) = h.ready().await;
    node.send_packet(text(ALICE, ME, 1, "ping —é")).await;
    let mut tapback = text(ALICE, ME, 2, "👍");
    if let Some(mesh_packet::PayloadVariant::Decoded(d)) = &mut tapback.payload_variant {
        d.emoji = 1;
    }
    node.send_packet(tapback).await;
    node.send_packet(text(ALICE, 0x999, 3, "not ours")).await;
    node.send_packet(text(ALICE, ME, 1, "ping —é")).await;
    node.send_packet(text(ALICE, ME, 4, "plain")).await;
    node.send_packet(text(ALICE, u32::MAX, 5, "hello all"))
        .await;
    assert_eq!(h.next_text().await, (true, "ping —é".to_string()));
    assert_eq!(h.next_text().await, (true, "plain".to_string()));
    assert_eq!(h.next_text().await, (false, "hello all".to_string()));
    assert!(h.inbound.try_recv().is_err());
}

#[tokio::test(start_paused = true)]
async fn eof_reconnects_with_the_next_generation_and_keeps_dedup() {
    let mut h = start(cfg(), 8);
    let (mut node, _, _) = h.ready().await;
    node.send_packet(text(ALICE, ME, 10, "first")).await;
    assert_eq!(h.next_text().await.1, "first");
    drop(node);
    let (reason, retry_in) = h.wait_down().await;
    assert_eq!(reason, DownReason::ClosedByNode);
    assert!(retry_in <= Duration::from_millis(1200), "{retry_in:?}");
    let (mut node, generation, _) = h.ready().await;
    assert_eq!(generation, 2);
    node.send_packet(text(ALICE, ME, 10, "first")).await;
    node.send_packet(text(ALICE, ME, 11, "second")).await;
    assert_eq!(h.next_text().await.1, "second");
}

#[tokio::test(start_paused = true)]
async fn rebooted_runs_a_new_handshake() {
    let mut h = start(cfg(), 8);
    let (mut node, _, _) = h.ready().await;
    node.send(from_radio::PayloadVariant::Rebooted(true)).await;
    let (reason, retry_in) = h.wait_down().await;
    assert_eq!(reason, DownReason::Rebooted);
    assert_eq!(
        h.events.try_recv().ok(),
        Some(LinkEvent::Rebooted),
        "told the outbox first"
    );
    assert!(retry_in <= Duration::from_millis(1200), "{retry_in:?}");
    assert_eq!(node.recv().await, None, "old connection dropped");
    let (_node, generation, _) = h.ready().await;
    assert_eq!(generation, 2);
}

#[tokio::test(start_paused = true)]
async fn rebooted_during_the_handshake_asks_again() {
    let mut h = start(cfg(), 8);
    let mut node = h.nodes.recv().await.unwrap();
    let first = node.expect_want_config().await;
    node.send(from_radio::PayloadVariant::Rebooted(true)).await;
    assert_eq!(node.expect_want_config().await, first);
    assert_eq!(h.events.recv().await, Some(LinkEvent::Rebooted));
    node.answer_want_config(first).await;
    match h.wait_for(LinkState::is_ready).await {
        LinkState::Ready { generation, .. } => assert_eq!(generation, 1),
        other => panic!("not ready: {other:?}"),
    }
}

#[tokio::test(start_paused = true)]
async fn unanswered_handshake_times_out_and_retries() {
    let mut h = start(cfg(), 8);
    let mut node = h.nodes.recv().await.unwrap();
    let t0 = Instant::now();
    node.expect_want_config().await;
    let (reason, _) = h.wait_down().await;
    assert_eq!(reason, DownReason::HandshakeTimeout);
    assert_eq!(t0.elapsed(), cfg().handshake_timeout);
    let (_node, generation, _) = h.ready().await;
    assert_eq!(generation, 1);
}

#[tokio::test(start_paused = true)]
async fn silent_node_is_probed_then_dropped() {
    let mut c = cfg();
    c.silence_timeout = Duration::from_secs(100);
    let mut h = start(c, 8);
    let (mut node, _, _) = h.ready().await;
    let t0 = Instant::now();
    node.expect_heartbeat().await;
    assert_eq!(t0.elapsed(), Duration::from_secs(100));
    // An answered probe keeps the link up and resets the silence clock.
    node.send(from_radio::PayloadVariant::QueueStatus(
        QueueStatus::default(),
    ))
    .await;
    assert!(matches!(
        h.events.recv().await,
        Some(LinkEvent::QueueStatus { .. })
    ));
    let t1 = Instant::now();
    node.expect_heartbeat().await;
    assert_eq!(t1.elapsed(), Duration::from_secs(100));
    assert_eq!(node.recv().await, None);
    assert_eq!(t1.elapsed(), Duration::from_secs(100) + PROBE_TIMEOUT);
    assert_eq!(h.wait_down().await.0, DownReason::Silent);
}

#[tokio::test(start_paused = true)]
async fn heartbeat_is_written_every_interval() {
    let mut h = start(cfg(), 8);
    let (mut node, _, _) = h.ready().await;
    let t0 = Instant::now();
    for n in 1..=3 {
        node.expect_heartbeat().await;
        assert_eq!(t0.elapsed(), cfg().heartbeat_interval * n);
        node.send(from_radio::PayloadVariant::QueueStatus(
            QueueStatus::default(),
        ))
        .await;
    }
    assert!(h.state.borrow().is_ready());
}

fn outgoing(id: u32, generation: u64) -> Outgoing {
    Outgoing::Text(OutgoingText {
        id,
        to: NodeId(ALICE),
        channel: 0,
        hop_limit: 5,
        text: "reply".into(),
        reply_id: Some(1),
        pki: false,
        generation,
    })
}

#[tokio::test(start_paused = true)]
async fn writes_only_texts_of_the_current_generation() {
    let mut h = start(cfg(), 8);
    let (mut node, generation, _) = h.ready().await;
    h.writes.send(outgoing(50, generation)).await.unwrap();
    match node.recv().await.and_then(|m| m.payload_variant) {
        Some(to_radio::PayloadVariant::Packet(p)) => {
            assert_eq!((p.id, p.to, p.hop_limit, p.want_ack), (50, ALICE, 5, true));
        }
        other => panic!("expected a packet, got {other:?}"),
    }
    h.writes.send(outgoing(51, generation - 1)).await.unwrap();
    h.writes.send(Outgoing::Probe).await.unwrap();
    node.expect_heartbeat().await;
}

#[tokio::test(start_paused = true)]
async fn answers_go_to_the_outbox_and_names_to_the_db() {
    let mut h = start(cfg(), 8);
    let (mut node, _, _) = h.ready().await;
    let ack = Data {
        portnum: PortNum::RoutingApp as i32,
        payload: Routing {
            variant: Some(routing::Variant::ErrorReason(
                routing::Error::RateLimitExceeded as i32,
            )),
        }
        .encode_to_vec(),
        request_id: 77,
        ..Default::default()
    };
    node.send_packet(data_packet(ME, ME, 1, ack)).await;
    let want = LinkEvent::Routing {
        request_id: 77,
        from: NodeId(ME),
        error: 38,
    };
    assert_eq!(h.events.recv().await, Some(want));

    let bob = 0x0b0b;
    let info = Data {
        portnum: PortNum::NodeinfoApp as i32,
        payload: user("Bob").encode_to_vec(),
        ..Default::default()
    };
    node.send_packet(data_packet(bob, u32::MAX, 2, info)).await;
    node.send_packet(text(bob, ME, 3, "hi")).await;
    match h.inbound.recv().await {
        Some(Inbound::Dm(m)) => assert_eq!(m.names.map(|n| n.long_name).as_deref(), Some("Bob")),
        other => panic!("expected a dm, got {other:?}"),
    }
}

fn telemetry(from: u32, id: u32, cu: f32) -> MeshPacket {
    use meshtastic::protobufs::{DeviceMetrics, Telemetry, telemetry};
    let t = Telemetry {
        time: 0,
        variant: Some(telemetry::Variant::DeviceMetrics(DeviceMetrics {
            channel_utilization: Some(cu),
            air_util_tx: Some(2.5),
            uptime_seconds: Some(600),
            ..Default::default()
        })),
    };
    let data = Data {
        portnum: PortNum::TelemetryApp as i32,
        payload: t.encode_to_vec(),
        ..Default::default()
    };
    data_packet(from, u32::MAX, id, data)
}

#[tokio::test(start_paused = true)]
async fn our_telemetry_is_published_and_outlives_a_reconnect() {
    let mut h = start(cfg(), 8);
    let (mut node, _, _) = h.ready().await;
    let state = *h.channel.borrow_and_update();
    // The fake node's lora config has no region: UNSET, no limit; no metrics yet.
    assert_eq!(
        state.region.map(|r| (r.name, r.duty_cycle)),
        Some(("UNSET", None))
    );
    assert_eq!(state.reading, None);

    // Another node's telemetry is not ours; ours comes after it, before the DM.
    node.send_packet(telemetry(ALICE, 20, 80.0)).await;
    node.send_packet(telemetry(ME, 21, 31.5)).await;
    node.send_packet(text(ALICE, ME, 22, "hi")).await;
    assert_eq!(h.next_text().await.1, "hi");
    let state = *h.channel.borrow_and_update();
    let reading = state.reading.expect("a reading");
    assert_eq!(reading.metrics.channel_utilization, 31.5);
    assert_eq!(reading.metrics.air_util_tx, Some(2.5));
    assert_eq!(reading.source, crate::radio::ReadingSource::DeviceMetrics);
    assert_eq!(state.readings, 1);

    drop(node);
    h.wait_down().await;
    let (_node, _, _) = h.ready().await;
    let state = *h.channel.borrow();
    assert_eq!(state.reading, Some(reading), "kept across the reconnect");
    assert_eq!(state.readings, 1);
}

#[tokio::test(start_paused = true)]
async fn a_full_inbound_queue_never_blocks_the_reader() {
    let mut h = start(cfg(), 1);
    let (mut node, _, _) = h.ready().await;
    for id in 1..=3 {
        node.send_packet(text(ALICE, ME, id, "spam")).await;
    }
    node.send(from_radio::PayloadVariant::QueueStatus(
        QueueStatus::default(),
    ))
    .await;
    assert!(matches!(
        h.events.recv().await,
        Some(LinkEvent::QueueStatus { .. })
    ));
    assert!(h.inbound.try_recv().is_ok());
    assert!(h.inbound.try_recv().is_err());
}

#[tokio::test(start_paused = true)]
async fn close_says_goodbye_and_ends_closed() {
    let mut h = start(cfg(), 8);
    let (mut node, _, _) = h.ready().await;
    h.cancel.cancel();
    let bye = node.recv().await.and_then(|m| m.payload_variant);
    assert_eq!(bye, Some(to_radio::PayloadVariant::Disconnect(true)));
    (&mut h.task).await.unwrap();
    assert_eq!(*h.state.borrow(), LinkState::Closed);
}

#[tokio::test(start_paused = true)]
async fn failed_connects_back_off_and_close_interrupts_the_wait() {
    let mut h = start(cfg(), 8);
    h.nodes.close();
    let mut delays = Vec::new();
    // A failed connect publishes Connecting and Down in one go, so only each Down is seen.
    for _ in 0..4 {
        h.state.changed().await.unwrap();
        match h.state.borrow_and_update().clone() {
            LinkState::Down { reason, retry_in } => {
                assert!(reason.to_string().contains("meshnode:4403"), "{reason}");
                delays.push(retry_in);
            }
            other => panic!("expected down, got {other:?}"),
        }
    }
    for (i, d) in delays.iter().enumerate() {
        let base = 1u64 << i;
        let (lo, hi) = (base * 800, base * 1200);
        assert!((lo..=hi).contains(&(d.as_millis() as u64)), "{delays:?}");
    }
    h.cancel.cancel();
    (&mut h.task).await.unwrap();
    assert_eq!(*h.state.borrow(), LinkState::Closed);
}

/// The real `Radio` over TCP on 127.0.0.1, with the real transport and outbox.
#[tokio::test]
async fn radio_over_tcp() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let mut c = RadioConfig::new(Transport::tcp("127.0.0.1", port));
    c.handshake_timeout = Duration::from_secs(5);
    let (inbound_tx, mut inbound) = mpsc::channel(8);
    let radio = Radio::spawn(c, inbound_tx);
    let (sock, _) = listener.accept().await.unwrap();
    let mut node = FakeNode {
        frames: Framed::new(Connection::new(sock, ConnKind::Tcp), FrameCodec::new()),
    };
    node.handshake().await;
    let mut state = radio.state();
    state.wait_for(LinkState::is_ready).await.unwrap();
    node.send_packet(text(ALICE, ME, 1, "over tcp")).await;
    match inbound.recv().await {
        Some(Inbound::Dm(m)) => assert_eq!(m.text, "over tcp"),
        other => panic!("expected a dm, got {other:?}"),
    }
    let _outbox = radio.outbox();
    radio.close(Duration::from_millis(100)).await;
    assert_eq!(*state.borrow(), LinkState::Closed);
    let bye = node.recv().await.and_then(|m| m.payload_variant);
    assert_eq!(bye, Some(to_radio::PayloadVariant::Disconnect(true)));
}

#[tokio::test(start_paused = true)]
async fn the_mesh_view_is_published_at_the_handshake_then_at_most_every_two_seconds() {
    let mut h = start(cfg(), 8);
    let (mut node, _, _) = h.ready().await;
    let view = h.mesh.borrow_and_update().clone();
    assert_eq!(view.len(), 2, "our node and Alice from the handshake");
    assert_eq!(view.me(), Some(NodeId(ME)));
    let names = |n: &str| {
        let payload = user(n).encode_to_vec();
        let data = Data {
            portnum: PortNum::NodeinfoApp as i32,
            payload,
            ..Default::default()
        };
        data_packet(0x77, u32::MAX, 9, data)
    };
    // The first change goes out at once (nothing was published for 2 s)...
    tokio::time::sleep(VIEW_EVERY).await;
    node.send_packet(names("Bob")).await;
    h.mesh.changed().await.unwrap();
    let at = tokio::time::Instant::now();
    assert_eq!(
        h.mesh
            .borrow_and_update()
            .get(NodeId(0x77))
            .unwrap()
            .long_name,
        "Bob"
    );
    // ...the next two within 2 s go together, once the 2 s are over.
    node.send_packet(names("Bobby")).await;
    node.send_packet(text(0x78, u32::MAX, 10, "hello all"))
        .await;
    assert_eq!(h.next_text().await.1, "hello all");
    h.mesh.changed().await.unwrap();
    assert!(at.elapsed() >= VIEW_EVERY, "{:?}", at.elapsed());
    let view = h.mesh.borrow_and_update().clone();
    assert_eq!(view.get(NodeId(0x77)).unwrap().long_name, "Bobby");
    assert!(
        view.node(NodeId(0x78))
            .is_some_and(|n| n.last_heard.is_some())
    );
    // A DM to us is not in the view.
    node.send_packet(text(0x79, ME, 11, "secret")).await;
    assert_eq!(h.next_text().await.1, "secret");
    tokio::time::sleep(VIEW_EVERY * 2).await;
    assert!(h.mesh.borrow().node(NodeId(0x79)).is_none());
}
