use meshtastic::Message;
use meshtastic::protobufs::{Data, Position, mesh_packet};

use super::*;

const ME: u32 = 0x1000;
const RELAY: u32 = 0x2000;
const WX: u32 = 0x3000;
const BROADCAST: u32 = u32::MAX;

fn packet(from: u32, to: u32, port: PortNum, payload: Vec<u8>) -> MeshPacket {
    MeshPacket {
        from,
        to,
        hop_start: 3,
        hop_limit: 1,
        rx_snr: -4.5,
        rx_rssi: -110,
        payload_variant: Some(mesh_packet::PayloadVariant::Decoded(Data {
            portnum: port as i32,
            payload,
            ..Default::default()
        })),
        ..Default::default()
    }
}

fn telemetry_packet(from: u32, variant: telemetry::Variant) -> MeshPacket {
    let t = Telemetry {
        time: 0,
        variant: Some(variant),
    };
    packet(from, BROADCAST, PortNum::TelemetryApp, t.encode_to_vec())
}

fn env(temperature: f32, humidity: f32, pressure: f32) -> telemetry::Variant {
    telemetry::Variant::EnvironmentMetrics(EnvironmentMetrics {
        temperature: Some(temperature),
        relative_humidity: Some(humidity),
        barometric_pressure: Some(pressure),
        ..Default::default()
    })
}

fn battery(level: u32, voltage: f32) -> telemetry::Variant {
    telemetry::Variant::DeviceMetrics(DeviceMetrics {
        battery_level: Some(level),
        voltage: Some(voltage),
        channel_utilization: Some(12.5),
        air_util_tx: Some(1.5),
        uptime_seconds: Some(600),
    })
}

fn view() -> MeshView {
    let mut v = MeshView::new();
    v.set_me(NodeId(ME));
    v.update_from_node_info(&NodeInfo {
        num: RELAY,
        user: Some(User {
            long_name: "Hilltop Relay".into(),
            short_name: "HILL".into(),
            ..Default::default()
        }),
        position: Some(Position {
            latitude_i: Some(473_769_000),
            longitude_i: Some(85_417_000),
            precision_bits: 32,
            ..Default::default()
        }),
        snr: 6.0,
        last_heard: 1_000,
        hops_away: Some(2),
        device_metrics: Some(DeviceMetrics {
            battery_level: Some(87),
            voltage: Some(3.9),
            ..Default::default()
        }),
        ..Default::default()
    });
    v
}

#[test]
fn a_node_info_gives_names_last_heard_hops_snr_position_and_battery() {
    let v = view();
    let n = v.node(NodeId(RELAY)).unwrap();
    assert_eq!(n.names.as_ref().unwrap().long_name, "Hilltop Relay");
    assert_eq!(n.last_heard, Some(1_000));
    assert_eq!(n.hops_away, Some(2));
    assert_eq!(n.snr, Some(6.0));
    let p = n.position.unwrap();
    assert!((p.value.lat - 47.3769).abs() < 1e-9 && p.at == 1_000);
    let d = n.device.unwrap();
    assert_eq!((d.value.battery_level, d.at), (Some(87), 1_000));
    assert_eq!(v.position(NodeId(RELAY)), Some(p.value));
}

#[test]
fn broadcasts_update_readings_and_last_heard_but_a_dm_does_not() {
    let mut v = view();
    // An environment broadcast from a node the view did not know yet.
    assert!(v.on_packet(&telemetry_packet(WX, env(3.5, 81.0, 1012.0)), 2_000));
    let wx = v.node(NodeId(WX)).unwrap();
    let e = wx.environment.unwrap();
    assert_eq!(e.value.temperature, Some(3.5));
    assert_eq!(e.value.barometric_pressure, Some(1012.0));
    assert_eq!(
        (wx.last_heard, wx.hops_away, wx.snr),
        (Some(2_000), Some(2), None)
    );
    // A new battery reading replaces the node info's.
    assert!(v.on_packet(&telemetry_packet(RELAY, battery(64, 3.7)), 2_100));
    let relay = v.node(NodeId(RELAY)).unwrap();
    assert_eq!(relay.device.unwrap().value.battery_level, Some(64));
    assert_eq!(relay.device.unwrap().at, 2_100);
    // A DM to us, even a telemetry one, tells the view nothing: not even when it was sent.
    let dm = packet(RELAY, ME, PortNum::TextMessageApp, b"hi".to_vec());
    assert!(!v.on_packet(&dm, 3_000));
    let private = MeshPacket {
        to: ME,
        ..telemetry_packet(RELAY, battery(5, 3.1))
    };
    assert!(!v.on_packet(&private, 3_000));
    let relay = v.node(NodeId(RELAY)).unwrap();
    assert_eq!(relay.last_heard, Some(2_100));
    assert_eq!(relay.device.unwrap().value.battery_level, Some(64));
    // A broadcast text from a direct neighbour marks it heard, with its SNR.
    let direct = MeshPacket {
        hop_start: 3,
        hop_limit: 3,
        ..packet(RELAY, BROADCAST, PortNum::TextMessageApp, b"cq".to_vec())
    };
    assert!(v.on_packet(&direct, 3_100));
    let relay = v.node(NodeId(RELAY)).unwrap();
    assert_eq!(
        (relay.last_heard, relay.hops_away, relay.snr),
        (Some(3_100), Some(0), Some(-4.5))
    );
}

#[test]
fn packets_with_our_number_and_empty_readings_are_not_taken() {
    let mut v = view();
    // Anyone can put our number in `from`: our node's readings come from the link's checks.
    assert!(!v.on_packet(&telemetry_packet(ME, battery(1, 3.0)), 2_000));
    assert!(v.node(NodeId(ME)).is_none());
    // An all-default environment message, and values no sensor reports.
    let empty = telemetry::Variant::EnvironmentMetrics(EnvironmentMetrics::default());
    v.on_packet(&telemetry_packet(WX, empty), 2_000);
    v.on_packet(&telemetry_packet(WX, env(f32::NAN, 140.0, 5.0)), 2_000);
    assert_eq!(v.node(NodeId(WX)).and_then(|n| n.environment), None);
    // Other ports say nothing; encrypted packets neither.
    let other = packet(WX, BROADCAST, PortNum::RangeTestApp, vec![1]);
    assert!(!v.on_packet(&other, 2_000));
}

#[test]
fn a_later_handshake_keeps_what_its_node_db_lacks() {
    let mut v = view();
    v.on_packet(&telemetry_packet(RELAY, env(3.5, 80.0, 1012.0)), 2_000);
    v.set_channel(
        ChannelMetrics {
            channel_utilization: 22.0,
            air_util_tx: Some(2.0),
        },
        2_000,
    );
    let mut again = MeshView::new();
    again.set_me(NodeId(ME));
    again.update_from_node_info(&NodeInfo {
        num: RELAY,
        last_heard: 1_500,
        hops_away: Some(1),
        ..Default::default()
    });
    v.absorb(again);
    let relay = v.node(NodeId(RELAY)).unwrap();
    assert_eq!(relay.environment.unwrap().value.temperature, Some(3.5));
    assert_eq!(relay.names.as_ref().unwrap().short_name, "HILL");
    assert_eq!(
        relay.last_heard,
        Some(2_000),
        "the broadcast heard since is newer"
    );
    assert_eq!(relay.hops_away, Some(1));
    assert_eq!(v.channel().map(|c| c.value.channel_utilization), Some(22.0));
}

#[test]
fn when_full_the_node_heard_longest_ago_goes_but_never_ours() {
    let mut v = MeshView::with_capacity(3);
    v.set_me(NodeId(ME));
    v.update_from_node_info(&NodeInfo {
        num: ME,
        ..Default::default()
    });
    let heard = |v: &mut MeshView, num: u32, at: i64| {
        let p = packet(num, BROADCAST, PortNum::TextMessageApp, b"x".to_vec());
        v.on_packet(&p, at);
    };
    heard(&mut v, 1, 500);
    heard(&mut v, 2, 100);
    heard(&mut v, 3, 300);
    assert_eq!(v.len(), 3);
    assert!(v.node(NodeId(2)).is_none(), "node 1 was heard later than 2");
    assert!(v.node(NodeId(ME)).is_some() && v.node(NodeId(1)).is_some());
}

/// Issue 39: 20,000 fresh NodeInfos evicted the real relay. Fresh ids push out fresh ids:
/// a node heard over an hour, or one with a reading, stays.
#[test]
fn a_burst_of_fresh_ids_pushes_out_only_fresh_ids() {
    let mut v = MeshView::with_capacity(8);
    v.set_me(NodeId(ME));
    let text = |num: u32, at: i64| {
        let p = packet(num, BROADCAST, PortNum::TextMessageApp, b"x".to_vec());
        heard_at(p, u32::try_from(at).unwrap())
    };
    // The relay heard over two hours, long ago; the weather station once, with a reading.
    v.on_packet(&text(RELAY, NOW - 3 * 3600), NOW);
    v.on_packet(&text(RELAY, NOW - 3600 + 1), NOW);
    v.on_packet(
        &heard_at(telemetry_packet(WX, env(3.5, 81.0, 1012.0)), at(1800)),
        NOW,
    );
    assert!(v.node(NodeId(RELAY)).unwrap().settled());
    assert!(!v.node(NodeId(WX)).unwrap().settled());
    for (i, id) in (0x9000_0000u32..0x9000_0000 + 20_000).enumerate() {
        let now = NOW + i64::try_from(i / 100).unwrap();
        let user = User {
            long_name: "Hilltop Relay".into(),
            short_name: "HILL".into(),
            ..Default::default()
        };
        let p = packet(id, BROADCAST, PortNum::NodeinfoApp, user.encode_to_vec());
        v.on_packet(&p, now);
    }
    assert_eq!(v.len(), 8);
    assert!(
        v.node(NodeId(RELAY)).is_some(),
        "the relay heard over time stays"
    );
    assert!(
        v.node(NodeId(WX)).is_some(),
        "the station with a reading stays"
    );
    // The newest fresh ids hold the other places.
    assert!(v.node(NodeId(0x9000_0000 + 19_999)).is_some());
    assert!(v.node(NodeId(0x9000_0000)).is_none());
}

/// Issue 39, noticed after the fix above: a node heard over time kept its place however long
/// it had been silent, and a flood re-sending its ids for over an hour settled them and then
/// pushed out the real node heard longest ago.
#[test]
fn a_long_silent_node_loses_its_protection_and_a_settled_flood_goes_before_older_nodes() {
    let text = |num: u32, at: i64| {
        let p = packet(num, BROADCAST, PortNum::TextMessageApp, b"x".to_vec());
        heard_at(p, u32::try_from(at).unwrap())
    };
    // Heard over a day, but silent for four: fresh ids push it out.
    let mut v = MeshView::with_capacity(3);
    v.set_me(NodeId(ME));
    v.on_packet(&text(RELAY, NOW - 5 * 86_400), NOW);
    v.on_packet(&text(RELAY, NOW - 4 * 86_400), NOW);
    assert!(v.node(NodeId(RELAY)).unwrap().settled());
    for id in 0x9000_0000u32..0x9000_0003 {
        v.on_packet(&text(id, NOW), NOW);
    }
    assert!(v.node(NodeId(RELAY)).is_none(), "silent for 4 days");

    // Heard over five hours, quiet for two; six ids re-sent every 10 minutes for two hours
    // settle in the full view, then one more id comes: one of the flood's goes, not the relay.
    let mut v = MeshView::with_capacity(7);
    v.set_me(NodeId(ME));
    v.on_packet(&text(RELAY, NOW - 5 * 3600), NOW);
    v.on_packet(&text(RELAY, NOW - 2 * 3600), NOW);
    let flood = 0x9000_0000u32..0x9000_0006;
    for round in 0..=12 {
        let at = NOW + round * 600;
        for id in flood.clone() {
            v.on_packet(&text(id, at), at);
        }
    }
    assert!(
        flood
            .clone()
            .all(|id| v.node(NodeId(id)).is_some_and(|n| n.settled()))
    );
    let later = NOW + 2 * 3600 + 60;
    v.on_packet(&text(0x9100_0000, later), later);
    assert!(
        v.node(NodeId(RELAY)).is_some(),
        "the node known longest stays"
    );
    assert_eq!(
        flood.filter(|id| v.node(NodeId(*id)).is_some()).count(),
        5,
        "a settled flood id went"
    );
}

#[test]
fn the_first_time_heard_only_moves_back_and_survives_a_restart() {
    let mut v = MeshView::new();
    let text = |at: i64| {
        let p = packet(RELAY, BROADCAST, PortNum::TextMessageApp, b"x".to_vec());
        heard_at(p, u32::try_from(at).unwrap())
    };
    v.on_packet(&text(NOW - 600), NOW);
    v.on_packet(&text(NOW - 7200), NOW);
    v.on_packet(&text(NOW), NOW);
    let relay = v.node(NodeId(RELAY)).unwrap().clone();
    assert_eq!(
        (relay.first_heard, relay.last_heard),
        (Some(NOW - 7200), Some(NOW))
    );
    let kept: NodeView = serde_json::from_str(&serde_json::to_string(&relay).unwrap()).unwrap();
    let mut after = MeshView::new();
    after.restore(NodeId(RELAY), kept);
    assert!(after.node(NodeId(RELAY)).unwrap().settled());
    // Kept by a daemon before first times were: known since it was last heard.
    let mut old = relay;
    old.first_heard = None;
    let mut after = MeshView::new();
    after.restore(NodeId(RELAY), old);
    assert_eq!(after.node(NodeId(RELAY)).unwrap().first_heard, Some(NOW));
}

/// `p` as our radio heard it at `rx_time` (0: a node without a clock).
fn heard_at(p: MeshPacket, rx_time: u32) -> MeshPacket {
    MeshPacket { rx_time, ..p }
}

const NOW: i64 = 1_800_000_000;

fn at(ago: i64) -> u32 {
    u32::try_from(NOW - ago).unwrap()
}

#[test]
fn a_packet_counts_from_its_rx_time_never_the_future_and_live_only_when_recent() {
    // (rx_time, the time taken, heard live)
    let cases = [
        (0, NOW, true),
        (at(0), NOW, true),
        (at(30), NOW - 30, true),
        (at(LIVE_WITHIN_SECS), NOW - LIVE_WITHIN_SECS, true),
        (at(LIVE_WITHIN_SECS + 1), NOW - LIVE_WITHIN_SECS - 1, false),
        (at(3 * 3600), NOW - 3 * 3600, false),
        (at(-600), NOW, true),
    ];
    for (rx_time, taken, live) in cases {
        let mut v = MeshView::new();
        let p = heard_at(telemetry_packet(WX, env(3.5, 81.0, 1012.0)), rx_time);
        assert!(v.on_packet(&p, NOW));
        let wx = v.node(NodeId(WX)).unwrap();
        assert_eq!(wx.environment.unwrap().at, taken, "{rx_time}");
        assert_eq!(wx.last_heard, Some(taken), "{rx_time}");
        assert_eq!(wx.heard_live, live.then_some(taken), "{rx_time}");
    }
}

#[test]
fn a_replay_keeps_its_time_and_never_undoes_newer_news() {
    // Firmware 2.8: a thin node info (names, last heard 3 h ago, no readings), then the
    // node's cached position and battery replayed with their original rx_time.
    let mut v = MeshView::new();
    v.update_from_node_info(&NodeInfo {
        num: RELAY,
        last_heard: at(3 * 3600),
        hops_away: Some(2),
        ..Default::default()
    });
    let position = Position {
        latitude_i: Some(473_769_000),
        longitude_i: Some(85_417_000),
        ..Default::default()
    };
    let replayed = heard_at(
        packet(
            RELAY,
            BROADCAST,
            PortNum::PositionApp,
            position.encode_to_vec(),
        ),
        at(3 * 3600),
    );
    assert!(v.on_packet(&replayed, NOW));
    assert!(v.on_packet(
        &heard_at(telemetry_packet(RELAY, battery(64, 3.7)), at(3 * 3600)),
        NOW
    ));
    let relay = v.node(NodeId(RELAY)).unwrap();
    assert_eq!(relay.last_heard, Some(NOW - 3 * 3600), "not heard now");
    assert_eq!(relay.position.unwrap().at, NOW - 3 * 3600);
    assert_eq!(relay.device.unwrap().at, NOW - 3 * 3600);
    assert_eq!(relay.heard_live, None, "a replay is not heard live");

    // A live battery reading, one hop away; then an older one replayed (2.7's queue after a
    // reconnect, or a 2.8 replay) neither replaces it nor moves the node back.
    let live = MeshPacket {
        hop_start: 3,
        hop_limit: 2,
        ..heard_at(telemetry_packet(RELAY, battery(41, 3.6)), at(5))
    };
    assert!(v.on_packet(&live, NOW));
    let older = MeshPacket {
        hop_start: 3,
        hop_limit: 0,
        ..heard_at(telemetry_packet(RELAY, battery(90, 4.0)), at(1800))
    };
    assert!(v.on_packet(&older, NOW + 60));
    let relay = v.node(NodeId(RELAY)).unwrap();
    assert_eq!(relay.device.unwrap().value.battery_level, Some(41));
    assert_eq!(relay.device.unwrap().at, NOW - 5);
    assert_eq!(relay.last_heard, Some(NOW - 5));
    assert_eq!(relay.heard_live, Some(NOW - 5));
    assert_eq!(
        relay.hops_away,
        Some(1),
        "the older packet's hops are not taken"
    );
    // A handshake's node info with an older last heard does not move it back either.
    v.update_from_node_info(&NodeInfo {
        num: RELAY,
        last_heard: at(3 * 3600),
        ..Default::default()
    });
    assert_eq!(v.node(NodeId(RELAY)).unwrap().last_heard, Some(NOW - 5));
}
