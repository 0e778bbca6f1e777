use super::*;
use crate::node::NodeId;
use crate::radio::{GeoPoint, NodeNames};
use meshtastic::protobufs::User;
use meshtastic::protobufs::{
    Channel, ChannelSettings, Config, DeviceMetadata, MyNodeInfo, NodeInfo, config::LoRaConfig,
};
use rand::SeedableRng;

const NONCE: u32 = 0x1234_5678;
const ME: u32 = 0xa1b2_c3d4;

fn msg(v: from_radio::PayloadVariant) -> FromRadio {
    FromRadio {
        id: 0,
        payload_variant: Some(v),
    }
}
fn my_info() -> FromRadio {
    msg(from_radio::PayloadVariant::MyInfo(MyNodeInfo {
        my_node_num: ME,
        ..Default::default()
    }))
}
fn node(num: u32, long: &str, short: &str) -> FromRadio {
    msg(from_radio::PayloadVariant::NodeInfo(NodeInfo {
        num,
        user: Some(User {
            long_name: long.into(),
            short_name: short.into(),
            ..Default::default()
        }),
        ..Default::default()
    }))
}
fn metadata() -> FromRadio {
    msg(from_radio::PayloadVariant::Metadata(DeviceMetadata {
        firmware_version: "2.7.26.abc".into(),
        ..Default::default()
    }))
}
fn chan(index: i32, name: &str, role: channel::Role) -> FromRadio {
    msg(from_radio::PayloadVariant::Channel(Channel {
        index,
        settings: Some(ChannelSettings {
            name: name.into(),
            ..Default::default()
        }),
        role: role as i32,
    }))
}
fn lora(hop_limit: u32) -> FromRadio {
    msg(from_radio::PayloadVariant::Config(Config {
        payload_variant: Some(config::PayloadVariant::Lora(LoRaConfig {
            hop_limit,
            ..Default::default()
        })),
    }))
}
fn complete(id: u32) -> FromRadio {
    msg(from_radio::PayloadVariant::ConfigCompleteId(id))
}

/// Feeds the messages in order; returns the index at which the handshake completed.
fn check(seq: &[FromRadio], want_at: Option<usize>, want_hops: u32) {
    let mut hs = Handshake::new(NONCE);
    let mut done = None;
    for (i, m) in seq.iter().enumerate() {
        if let Some(r) = hs.on_message(m) {
            done = Some((i, r));
            break;
        }
    }
    assert_eq!(done.as_ref().map(|(i, _)| *i), want_at, "{seq:?}");
    if let Some((_, (local, db))) = done {
        assert_eq!(local.num, NodeId(ME));
        assert_eq!(local.hop_limit, want_hops);
        assert_eq!(local.names.long_name, "Bot");
        assert_eq!(local.firmware_version, "2.7.26.abc");
        assert_eq!(local.channels, vec![(0, String::new()), (1, "ops".into())]);
        assert_eq!(local.known_nodes, 2);
        assert_eq!(db.get(NodeId(7)).map(|n| n.short_name.as_str()), Some("AL"));
    }
}

#[test]
fn handshake_sequences() {
    let standard = vec![
        my_info(),
        node(ME, "Bot", "BOT"),
        node(7, "Alice", "AL"),
        metadata(),
        chan(0, "", channel::Role::Primary),
        chan(1, "ops", channel::Role::Secondary),
        chan(2, "", channel::Role::Disabled),
        lora(5),
        complete(NONCE),
    ];
    check(&standard, Some(8), 5);

    let mut reversed: Vec<_> = standard[..8].iter().rev().cloned().collect();
    reversed.push(complete(NONCE));
    check(&reversed, Some(8), 5);

    let mut stale_first = vec![complete(NONCE ^ 1)];
    stale_first.extend(standard.clone());
    check(&stale_first, Some(9), 5);

    let only_stale: Vec<_> = standard[..8]
        .iter()
        .cloned()
        .chain([complete(69420)])
        .collect();
    check(&only_stale, None, 0);

    let no_hops: Vec<_> = standard
        .iter()
        .filter(|m| *m != &lora(5))
        .cloned()
        .collect();
    check(&no_hops, Some(7), DEFAULT_HOP_LIMIT);

    let zero_hops: Vec<_> = standard
        .iter()
        .map(|m| if *m == lora(5) { lora(0) } else { m.clone() })
        .collect();
    check(&zero_hops, Some(8), DEFAULT_HOP_LIMIT);

    let no_my_info = standard[1..].to_vec();
    check(&no_my_info, None, 0);

    let empty_message = vec![FromRadio::default()];
    check(&empty_message, None, 0);
}

#[test]
fn region_and_own_channel_numbers() {
    use meshtastic::protobufs::DeviceMetrics;
    use meshtastic::protobufs::config::lo_ra_config::RegionCode;
    let info = |num: u32, cu: Option<f32>| {
        msg(from_radio::PayloadVariant::NodeInfo(NodeInfo {
            num,
            device_metrics: Some(DeviceMetrics {
                channel_utilization: cu,
                air_util_tx: Some(4.5),
                uptime_seconds: Some(300),
                ..Default::default()
            }),
            ..Default::default()
        }))
    };
    let eu = msg(from_radio::PayloadVariant::Config(Config {
        payload_variant: Some(config::PayloadVariant::Lora(LoRaConfig {
            region: RegionCode::Eu868 as i32,
            ..Default::default()
        })),
    }));
    let run = |seq: &[FromRadio]| {
        let mut hs = Handshake::new(NONCE);
        let done = seq.iter().any(|m| hs.on_message(m).is_some());
        assert!(done, "{seq:?}");
        (
            hs.region().map(|r| (r.name, r.duty_cycle)),
            hs.own_metrics().map(|m| m.channel_utilization),
        )
    };
    let cases = [
        (
            vec![
                my_info(),
                info(ME, Some(31.0)),
                info(7, Some(60.0)),
                eu.clone(),
            ],
            (Some(("EU_868", Some(10))), Some(31.0)),
        ),
        // Not measured yet; and a node info before my_info cannot be known as ours.
        (
            vec![my_info(), info(ME, None), eu.clone()],
            (Some(("EU_868", Some(10))), None),
        ),
        (vec![info(ME, Some(31.0)), my_info()], (None, None)),
    ];
    for (mut seq, want) in cases {
        seq.push(complete(NONCE));
        assert_eq!(run(&seq), want);
    }
}

#[test]
fn nonce_is_never_special() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(1);
    for _ in 0..10_000 {
        let n = new_nonce(&mut rng);
        assert!(n != 0 && n != 69420 && n != 69421);
    }
}

#[test]
fn the_view_is_bounded_and_evicts_least_recently_updated_among_never_heard() {
    let mut db = MeshView::with_capacity(3);
    let names = |s: &str| NodeNames {
        long_name: s.into(),
        short_name: s.into(),
    };
    db.insert(NodeId(1), names("a"));
    db.insert(NodeId(2), names("b"));
    db.insert(NodeId(3), names("c"));
    db.insert(NodeId(1), names("a2"));
    db.insert(NodeId(4), names("d"));
    assert_eq!(db.len(), 3);
    assert_eq!(db.get(NodeId(2)), None);
    assert_eq!(db.get(NodeId(1)), Some(&names("a2")));
    assert!(db.get(NodeId(4)).is_some());
}

#[test]
fn positions_from_node_infos_and_updates() {
    use meshtastic::protobufs::Position;
    let at = |lat: i32, lon: i32| Position {
        latitude_i: Some(lat),
        longitude_i: Some(lon),
        ..Default::default()
    };
    let info = |num: u32, user: Option<User>, position: Option<Position>| NodeInfo {
        num,
        user,
        position,
        ..Default::default()
    };
    let mut hs = Handshake::new(NONCE);
    let seq = [
        my_info(),
        msg(from_radio::PayloadVariant::NodeInfo(info(
            ME,
            Some(User {
                long_name: "Bot".into(),
                ..Default::default()
            }),
            Some(at(473_769_000, 85_417_000)),
        ))),
        // A node with no fix (0/0) and a thin node info with a position only.
        msg(from_radio::PayloadVariant::NodeInfo(info(
            7,
            None,
            Some(at(0, 0)),
        ))),
        msg(from_radio::PayloadVariant::NodeInfo(info(
            8,
            None,
            Some(at(474_500_000, 86_500_000)),
        ))),
        complete(NONCE),
    ];
    let (_, mut db) = seq.iter().find_map(|m| hs.on_message(m)).unwrap();
    let me = db.position(NodeId(ME)).unwrap();
    assert!((me.lat - 47.3769).abs() < 1e-9 && (me.lon - 8.5417).abs() < 1e-9);
    assert_eq!(
        db.get(NodeId(ME)).map(|n| n.long_name.as_str()),
        Some("Bot")
    );
    assert_eq!(db.position(NodeId(7)), None);
    assert_eq!(db.get(NodeId(8)), None, "no names known");
    assert!(db.position(NodeId(8)).is_some());

    // Later updates keep the other half of the entry; the latest position wins.
    let names = NodeNames {
        long_name: "Eve".into(),
        short_name: "EV".into(),
    };
    db.insert(NodeId(8), names.clone());
    let moved = GeoPoint {
        lat: 1.0,
        lon: 2.0,
        uncertainty_km: 0.0,
    };
    db.set_position(NodeId(8), moved, 5);
    assert_eq!(db.get(NodeId(8)), Some(&names));
    assert_eq!(db.position(NodeId(8)), Some(moved));

    // Bounded: a position update counts as an update for eviction.
    let mut small = MeshView::with_capacity(2);
    small.insert(NodeId(1), names.clone());
    small.set_position(NodeId(2), moved, 0);
    small.set_position(NodeId(1), moved, 0);
    small.set_position(NodeId(3), moved, 0);
    assert_eq!(small.len(), 2);
    assert_eq!(small.position(NodeId(2)), None);
    assert_eq!(small.get(NodeId(1)), Some(&names));
}

#[test]
fn names_are_cleaned() {
    let mut db = MeshView::new();
    let user = User {
        long_name: format!(" Al\u{7}ice\n{}", "x".repeat(200)),
        short_name: "AL".into(),
        ..Default::default()
    };
    db.update_from_user(NodeId(1), &user);
    let got = db.get(NodeId(1)).unwrap();
    assert!(got.long_name.starts_with("Alicexxx"));
    assert!(got.long_name.chars().count() <= 64);
}

#[test]
fn our_own_licensed_flag_is_read_after_my_info() {
    let licensed = |num: u32, on: bool| {
        msg(from_radio::PayloadVariant::NodeInfo(NodeInfo {
            num,
            user: Some(User {
                is_licensed: on,
                ..Default::default()
            }),
            ..Default::default()
        }))
    };
    // (messages, our node licensed)
    let cases = [
        (vec![my_info(), licensed(ME, true), complete(NONCE)], true),
        (vec![my_info(), licensed(ME, false), complete(NONCE)], false),
        // Another node's licence is not ours.
        (
            vec![my_info(), licensed(0x42, true), complete(NONCE)],
            false,
        ),
        // Before my_info, nothing says whose it is.
        (vec![licensed(ME, true), my_info(), complete(NONCE)], false),
    ];
    for (i, (seq, want)) in cases.into_iter().enumerate() {
        let mut hs = Handshake::new(NONCE);
        let local = seq.iter().find_map(|m| hs.on_message(m)).map(|(l, _)| l);
        assert_eq!(local.map(|l| l.licensed), Some(want), "case {i}");
    }
}
