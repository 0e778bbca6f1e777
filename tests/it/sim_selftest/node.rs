//! The simulated node, seen from a raw client.

use std::time::Duration;

use meshtastic::Message;
use meshtastic::protobufs::{
    Data, Heartbeat, MeshPacket, PortNum, QueueStatus, Routing, ToRadio, User, channel, config,
    from_radio::PayloadVariant as From, mesh_packet, routing, to_radio,
};
use tokio::net::TcpStream;
use tokio::time::Instant;

use super::RawClient;
use crate::support::sim_node::{
    AckPlan, BROADCAST, MeshPacketSpec, RATE_LIMIT_EXCEEDED, SimConfig, SimNode, SimPeer,
};

const ME: u32 = 0x1234_5678;
const PEER: u32 = 0x0A0B_0C0D;

fn config() -> SimConfig {
    SimConfig {
        node_num: ME,
        long_name: "Sim Base".into(),
        short_name: "SIMB".into(),
        hop_limit: 5,
        firmware_version: "2.7.26.sim".into(),
        ack_delay: Duration::from_millis(300),
        min_text_gap: Duration::from_secs(2),
        peers: vec![SimPeer::new(PEER, "Peer Alice", "ALI")],
        ..Default::default()
    }
}

/// A raw TCP client. `TCP_NODELAY` matters under paused time: with Nagle, a second small
/// write waits for the peer's delayed ACK (40 ms of real time) while the clock jumps ahead.
async fn connect(sim: &SimNode) -> RawClient<TcpStream> {
    let stream = TcpStream::connect(sim.addr()).await.unwrap();
    stream.set_nodelay(true).unwrap();
    RawClient::new(stream)
}

/// A client that has finished its handshake.
async fn ready(sim: &SimNode) -> RawClient<TcpStream> {
    let mut c = connect(sim).await;
    c.handshake(0x0BAD_CAFE).await;
    c
}

fn text(id: u32, to: u32, body: &str) -> ToRadio {
    ToRadio {
        payload_variant: Some(to_radio::PayloadVariant::Packet(MeshPacket {
            id,
            to,
            channel: 0,
            hop_limit: 5,
            want_ack: true,
            priority: mesh_packet::Priority::Reliable as i32,
            payload_variant: Some(mesh_packet::PayloadVariant::Decoded(Data {
                portnum: PortNum::TextMessageApp as i32,
                payload: body.as_bytes().to_vec(),
                reply_id: 0x99,
                ..Default::default()
            })),
            ..Default::default()
        })),
    }
}

fn heartbeat(nonce: u32) -> ToRadio {
    ToRadio {
        payload_variant: Some(to_radio::PayloadVariant::Heartbeat(Heartbeat { nonce })),
    }
}

fn queue_status(m: From) -> QueueStatus {
    match m {
        From::QueueStatus(q) => q,
        other => panic!("expected a queueStatus, got {other:?}"),
    }
}

fn mesh_packet(m: From) -> MeshPacket {
    match m {
        From::Packet(p) => p,
        other => panic!("expected a packet, got {other:?}"),
    }
}

fn decoded(p: &MeshPacket) -> &Data {
    match &p.payload_variant {
        Some(mesh_packet::PayloadVariant::Decoded(d)) => d,
        other => panic!("expected a decoded packet, got {other:?}"),
    }
}

/// (from, to, request_id, reason) of a routing packet.
fn routing_answer(m: From) -> (u32, u32, u32, i32) {
    let p = mesh_packet(m);
    let d = decoded(&p);
    assert_eq!(d.portnum, PortNum::RoutingApp as i32);
    let r = Routing::decode(d.payload.as_slice()).unwrap();
    let Some(routing::Variant::ErrorReason(reason)) = r.variant else {
        panic!("routing without an error reason: {r:?}");
    };
    (p.from, p.to, d.request_id, reason)
}

#[tokio::test(start_paused = true)]
async fn handshake_answers_the_nonce_with_names_channels_and_hop_limit() {
    let sim = SimNode::start(config()).await;
    let mut c = connect(&sim).await;
    let got = c.handshake(0xDEAD_BEEF).await;

    assert!(matches!(got.first(), Some(From::MyInfo(i)) if i.my_node_num == ME));
    assert!(matches!(
        got.last(),
        Some(From::ConfigCompleteId(0xDEAD_BEEF))
    ));
    let names: Vec<(u32, String, String)> = got
        .iter()
        .filter_map(|m| match m {
            From::NodeInfo(n) => {
                let u = n.user.clone().unwrap();
                Some((n.num, u.long_name, u.short_name))
            }
            _ => None,
        })
        .collect();
    assert_eq!(
        names,
        [
            (ME, "Sim Base".into(), "SIMB".into()),
            (PEER, "Peer Alice".into(), "ALI".into())
        ]
    );
    let firmware: Vec<&str> = got
        .iter()
        .filter_map(|m| match m {
            From::Metadata(md) => Some(md.firmware_version.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(firmware, ["2.7.26.sim"]);
    let channels: Vec<(i32, i32)> = got
        .iter()
        .filter_map(|m| match m {
            From::Channel(ch) => Some((ch.index, ch.role)),
            _ => None,
        })
        .collect();
    assert_eq!(channels.len(), 8);
    assert_eq!(channels[0], (0, channel::Role::Primary as i32));
    let hop_limits: Vec<u32> = got
        .iter()
        .filter_map(|m| match m {
            From::Config(cfg) => match &cfg.payload_variant {
                Some(config::PayloadVariant::Lora(l)) => Some(l.hop_limit),
                _ => None,
            },
            _ => None,
        })
        .collect();
    assert_eq!(hop_limits, [5]);
    assert!(got.iter().any(|m| matches!(m, From::ModuleConfig(_))));
    assert_eq!(sim.handshakes(), 1);
    assert_eq!(sim.log().nonces, [0xDEAD_BEEF]);
}

/// Our node info carries the channel numbers once set, and telemetry comes from our own
/// number to the broadcast address, as the firmware sends its client.
#[tokio::test(start_paused = true)]
async fn channel_numbers_at_the_handshake_and_as_telemetry() {
    use meshtastic::protobufs::{Telemetry, config::lo_ra_config::RegionCode, telemetry};
    let sim = SimNode::start(SimConfig {
        device_metrics: Some((31.5, 4.0)),
        region: RegionCode::Ua868,
        ..config()
    })
    .await;
    let mut c = connect(&sim).await;
    let got = c.handshake(11).await;
    let own = got.iter().find_map(|m| match m {
        From::NodeInfo(n) if n.num == ME => n.device_metrics,
        _ => None,
    });
    let own = own.expect("device metrics in our node info");
    assert_eq!(
        (own.channel_utilization, own.air_util_tx),
        (Some(31.5), Some(4.0))
    );
    let peer_metrics = got
        .iter()
        .any(|m| matches!(m, From::NodeInfo(n) if n.num == PEER && n.device_metrics.is_some()));
    assert!(!peer_metrics);
    let region = got.iter().find_map(|m| match m {
        From::Config(cfg) => match &cfg.payload_variant {
            Some(config::PayloadVariant::Lora(l)) => Some(l.region),
            _ => None,
        },
        _ => None,
    });
    assert_eq!(region, Some(RegionCode::Ua868 as i32));

    sim.inject_telemetry(45.0, 2.5);
    sim.inject_local_stats(12.0, 0.5);
    let mut variants = Vec::new();
    for _ in 0..2 {
        let p = mesh_packet(c.recv().await);
        assert_eq!((p.from, p.to), (ME, BROADCAST));
        let d = decoded(&p);
        assert_eq!(d.portnum, PortNum::TelemetryApp as i32);
        variants.push(Telemetry::decode(d.payload.as_slice()).unwrap().variant);
    }
    match variants.as_slice() {
        [
            Some(telemetry::Variant::DeviceMetrics(m)),
            Some(telemetry::Variant::LocalStats(s)),
        ] => {
            assert_eq!(m.channel_utilization, Some(45.0));
            assert_eq!((s.channel_utilization, s.air_util_tx), (12.0, 0.5));
        }
        other => panic!("{other:?}"),
    }
}

#[tokio::test(start_paused = true)]
async fn log_text_comes_between_frames_and_frames_still_decode() {
    let sim = SimNode::start(SimConfig {
        log_text: true,
        ..config()
    })
    .await;
    let mut c = connect(&sim).await;
    let got = c.handshake(7).await;
    assert!(matches!(got.last(), Some(From::ConfigCompleteId(7))));
    let log = String::from_utf8_lossy(&c.stray).into_owned();
    assert!(log.contains("INFO  | ??:??:?? "), "log text: {log:?}");
    assert!(
        log.contains("[Router]") && log.contains("\r\n"),
        "log text: {log:?}"
    );
    // A logged message with "—é" puts a start-byte pair inside the log text.
    assert!(c.stray.windows(2).any(|w| w == [0x94, 0xC3]));
}

#[tokio::test(start_paused = true)]
async fn a_text_gets_a_queue_status_then_the_ack_after_the_delay() {
    let sim = SimNode::start(config()).await;
    let mut c = ready(&sim).await;
    let sent_at = Instant::now();
    c.send(text(100, PEER, "hello —é")).await;

    let q = queue_status(c.recv().await);
    assert_eq!(
        (q.res, q.free, q.maxlen, q.mesh_packet_id),
        (0, 16, 16, 100)
    );
    assert_eq!(routing_answer(c.recv().await), (PEER, ME, 100, 0));
    assert_eq!(sent_at.elapsed(), Duration::from_millis(300));

    let texts = sim.wait_texts(1, Duration::from_secs(1)).await;
    let t = &texts[0];
    assert_eq!((t.id, t.to, t.channel, t.hop_limit), (100, PEER, 0, 5));
    assert!(t.want_ack);
    assert_eq!(t.priority, mesh_packet::Priority::Reliable as i32);
    assert_eq!(t.reply_id, Some(0x99));
    assert_eq!(t.text, "hello —é");
    assert_eq!(t.plan, Some(AckPlan::Ack));
}

#[tokio::test(start_paused = true)]
async fn a_text_within_two_seconds_is_refused_with_rate_limit_exceeded() {
    let sim = SimNode::start(config()).await;
    let mut c = ready(&sim).await;
    c.send(text(1, PEER, "one")).await;
    assert_eq!(queue_status(c.recv().await).mesh_packet_id, 1);
    assert_eq!(routing_answer(c.recv().await), (PEER, ME, 1, 0));

    tokio::time::sleep(Duration::from_millis(1500)).await;
    c.send(text(2, PEER, "two")).await;
    assert_eq!(queue_status(c.recv().await).mesh_packet_id, 2);
    assert_eq!(
        routing_answer(c.recv().await),
        (ME, ME, 2, RATE_LIMIT_EXCEEDED)
    );
    assert_eq!(sim.rate_limit_refusals(), 1);

    // The gap counts from the last accepted text: 2 s after "one" the next one goes.
    tokio::time::sleep(Duration::from_millis(500)).await;
    c.send(text(3, PEER, "three")).await;
    assert_eq!(queue_status(c.recv().await).mesh_packet_id, 3);
    assert_eq!(routing_answer(c.recv().await), (PEER, ME, 3, 0));
    let ids: Vec<u32> = sim.texts().iter().map(|t| t.id).collect();
    assert_eq!(ids, [1, 3]);
}

#[tokio::test(start_paused = true)]
async fn ack_plans_are_honoured_in_order() {
    let sim = SimNode::start(config()).await;
    sim.push_ack_plans([AckPlan::Nak(5), AckPlan::ImplicitAck, AckPlan::Silent]);
    let mut c = ready(&sim).await;
    let gap = Duration::from_secs(2);

    c.send(text(11, PEER, "a")).await;
    assert_eq!(queue_status(c.recv().await).mesh_packet_id, 11);
    assert_eq!(routing_answer(c.recv().await), (ME, ME, 11, 5));

    tokio::time::sleep(gap).await;
    c.send(text(12, PEER, "b")).await;
    assert_eq!(queue_status(c.recv().await).mesh_packet_id, 12);
    assert_eq!(routing_answer(c.recv().await), (ME, ME, 12, 0));

    tokio::time::sleep(gap).await;
    c.send(text(13, PEER, "c")).await;
    assert_eq!(queue_status(c.recv().await).mesh_packet_id, 13);
    assert!(
        c.try_recv(Duration::from_secs(10)).await.is_none(),
        "silent plan answered"
    );

    // The script is used up: back to real ACKs from the destination.
    c.send(text(14, PEER, "d")).await;
    assert_eq!(queue_status(c.recv().await).mesh_packet_id, 14);
    assert_eq!(routing_answer(c.recv().await), (PEER, ME, 14, 0));
    let plans: Vec<Option<AckPlan>> = sim.texts().iter().map(|t| t.plan).collect();
    let want = [
        AckPlan::Nak(5),
        AckPlan::ImplicitAck,
        AckPlan::Silent,
        AckPlan::Ack,
    ];
    assert_eq!(plans, want.map(Some));
}

#[tokio::test(start_paused = true)]
async fn a_reused_packet_id_is_dropped_silently() {
    let sim = SimNode::start(config()).await;
    let mut c = ready(&sim).await;
    c.send(text(21, PEER, "a")).await;
    assert_eq!(queue_status(c.recv().await).mesh_packet_id, 21);
    assert_eq!(routing_answer(c.recv().await), (PEER, ME, 21, 0));
    tokio::time::sleep(Duration::from_secs(3)).await;
    c.send(text(21, PEER, "a again")).await;
    assert!(c.try_recv(Duration::from_secs(5)).await.is_none());
    assert_eq!(sim.log().duplicate_drops, 1);
    assert_eq!(sim.texts().len(), 1);
}

#[tokio::test(start_paused = true)]
async fn heartbeats_get_a_queue_status_unless_configured_silent() {
    let sim = SimNode::start(config()).await;
    sim.set_queue_free(0);
    let mut c = ready(&sim).await;
    c.send(heartbeat(0)).await;
    let q = queue_status(c.recv().await);
    assert_eq!((q.free, q.mesh_packet_id), (0, 0));
    sim.wait_heartbeats(1, Duration::from_secs(1)).await;

    sim.set_answer_heartbeats(false);
    c.send(heartbeat(0)).await;
    c.send(heartbeat(1)).await;
    assert!(c.try_recv(Duration::from_secs(5)).await.is_none());
    let log = sim.log();
    assert_eq!((log.heartbeats, log.nodeinfo_pings), (2, 1));
}

#[tokio::test(start_paused = true)]
async fn injected_packets_decode_and_wait_for_the_handshake() {
    let sim = SimNode::start(config()).await;
    // Injected before anyone is connected: held until a client has finished its handshake.
    let dm = sim.inject_dm(PEER, "ping —é 🙂", Some(0x77));
    assert_eq!(dm, 0x77);
    let mut c = connect(&sim).await;
    let got = c.handshake(3).await;
    assert!(got.iter().all(|m| !matches!(m, From::Packet(_))));

    let p = mesh_packet(c.recv().await);
    assert_eq!((p.from, p.to, p.id, p.channel), (PEER, ME, 0x77, 0));
    assert_eq!((p.hop_start, p.hop_limit), (3, 2));
    let d = decoded(&p);
    assert_eq!(d.portnum, PortNum::TextMessageApp as i32);
    assert_eq!(d.payload, "ping —é 🙂".as_bytes());

    let tapback = sim.inject_text(MeshPacketSpec {
        to: Some(BROADCAST),
        channel: 1,
        emoji: 1,
        reply_id: 0x77,
        ..MeshPacketSpec::text(PEER, "👍")
    });
    let p = mesh_packet(c.recv().await);
    assert_eq!((p.id, p.to, p.channel), (tapback, BROADCAST, 1));
    assert_eq!((decoded(&p).emoji, decoded(&p).reply_id), (1, 0x77));

    sim.inject_text(MeshPacketSpec {
        encrypted: true,
        ..MeshPacketSpec::text(PEER, "secret")
    });
    let p = mesh_packet(c.recv().await);
    assert!(matches!(
        p.payload_variant,
        Some(mesh_packet::PayloadVariant::Encrypted(_))
    ));

    let info = sim.inject_nodeinfo(PEER, "Alice Renamed", "AL2");
    let p = mesh_packet(c.recv().await);
    assert_eq!((p.id, p.from, p.to), (info, PEER, BROADCAST));
    assert_eq!(decoded(&p).portnum, PortNum::NodeinfoApp as i32);
    let u = User::decode(decoded(&p).payload.as_slice()).unwrap();
    assert_eq!(
        (u.long_name.as_str(), u.short_name.as_str()),
        ("Alice Renamed", "AL2")
    );

    assert!(sim.inject_raw(b"DEBUG | ??:??:?? 9 [Router] noise\r\n\xff\x94"));
    sim.inject_duplicate(0x77);
    let p = mesh_packet(c.recv().await);
    assert_eq!((p.from, p.id, p.hop_limit), (PEER, 0x77, 1));
    assert!(String::from_utf8_lossy(&c.stray).contains("noise"));
}

#[tokio::test(start_paused = true)]
async fn a_dropped_connection_closes_and_the_next_one_is_served() {
    let sim = SimNode::start(config()).await;
    let mut first = ready(&sim).await;
    sim.drop_connection();
    assert!(first.closed().await);

    let mut second = ready(&sim).await;
    // A new connection replaces the current one, as on the firmware.
    let mut third = ready(&sim).await;
    assert!(second.closed().await);
    third.send(text(5, PEER, "still here")).await;
    assert_eq!(queue_status(third.recv().await).mesh_packet_id, 5);
    sim.wait_connections(3, Duration::from_secs(1)).await;
    assert_eq!(sim.handshakes(), 3);
}

#[tokio::test(start_paused = true)]
async fn one_client_mode_a_new_client_force_closes_the_previous_one() {
    let sim = SimNode::start(config()).await;
    let mut first = ready(&sim).await;
    assert_eq!(sim.kicked(), 0);
    let _second = ready(&sim).await;
    assert!(
        first.closed().await,
        "kicked, as the firmware's TCP API does"
    );
    assert_eq!(sim.kicked(), 1);
    // A client that left by itself is not kicked by the next one.
    sim.drop_connection();
    let _third = ready(&sim).await;
    assert_eq!((sim.kicked(), sim.connections()), (1, 3));
}

#[tokio::test(start_paused = true)]
async fn rebooted_unconfigures_the_session_until_the_next_handshake() {
    let sim = SimNode::start(config()).await;
    let mut c = ready(&sim).await;
    assert!(sim.send_rebooted());
    assert!(matches!(c.recv().await, From::Rebooted(true)));
    assert!(!sim.is_ready());
    sim.inject_dm(PEER, "after reboot", None);
    assert!(c.try_recv(Duration::from_secs(5)).await.is_none());
    let got = c.handshake(9).await;
    assert!(matches!(got.last(), Some(From::ConfigCompleteId(9))));
    let p = mesh_packet(c.recv().await);
    assert_eq!(decoded(&p).payload, b"after reboot");
}

#[tokio::test(start_paused = true)]
async fn garbage_from_the_client_is_skipped() {
    let sim = SimNode::start(config()).await;
    let mut c = connect(&sim).await;
    c.send_raw(&[0xC3; 32]).await;
    c.send_raw(&[0x94, 0xC3, 0x00, 0x02, 0xFF, 0xFF]).await;
    c.send_raw(&[0x94, 0xC3, 0x7F, 0xFF]).await;
    let got = c.handshake(4).await;
    assert!(matches!(got.last(), Some(From::ConfigCompleteId(4))));
    let log = sim.log();
    assert_eq!(log.bad_frames, 1);
    assert_eq!(log.stray_bytes, 32 + 4);
}

#[cfg(unix)]
#[tokio::test]
async fn the_pty_pair_carries_the_stream_api() {
    use tokio_serial::SerialPortBuilderExt;

    let (sim, pty) = SimNode::start_pty(config());
    let port = tokio_serial::new(pty.path.as_str(), 115_200)
        .open_native_async()
        .unwrap();
    let mut c = RawClient::new(port);
    c.send_raw(&[0xC3; 32]).await;
    let got = c.handshake(0x005E_41A1).await;
    assert!(matches!(
        got.last(),
        Some(From::ConfigCompleteId(0x005E_41A1))
    ));
    c.send(text(31, PEER, "over serial")).await;
    assert_eq!(queue_status(c.recv().await).mesh_packet_id, 31);
    assert_eq!(routing_answer(c.recv().await), (PEER, ME, 31, 0));
    assert_eq!(sim.log().stray_bytes, 32);
    assert_eq!(sim.texts()[0].text, "over serial");
}
