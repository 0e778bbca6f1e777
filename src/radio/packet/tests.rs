use super::*;
use crate::radio::codec::tests::{HEARTBEAT, WANT_CONFIG, hex};

fn decode_to_radio(bytes: &[u8]) -> ToRadio {
    ToRadio::decode(bytes).unwrap()
}

#[test]
fn control_messages_match_vectors() {
    assert_eq!(encode(&want_config(0x1234_5678)), hex(WANT_CONFIG)[4..]);
    assert_eq!(encode(&heartbeat()), hex(HEARTBEAT)[4..]);
}

fn outgoing(hop_limit: u32, reply_id: Option<u32>, pki: bool) -> OutgoingText {
    OutgoingText {
        id: 0xdead_beef,
        to: NodeId(0x1122_3344),
        channel: 2,
        hop_limit,
        text: "ping —é".to_string(),
        reply_id,
        pki,
        generation: 1,
    }
}

#[test]
fn text_packet_fields() {
    let cases = [
        (outgoing(5, Some(77), false), 5, 77),
        // Zero-hop: as is, and without want_ack (the router resets such a send otherwise).
        (outgoing(0, None, false), 0, 0),
        (outgoing(3, None, true), 3, 0),
    ];
    for (t, want_hops, want_reply) in cases {
        let msg = decode_to_radio(&encode(&text_packet(&t)));
        let Some(to_radio::PayloadVariant::Packet(p)) = msg.payload_variant else {
            panic!("not a packet: {msg:?}");
        };
        assert_eq!(p.to, 0x1122_3344);
        assert_eq!(p.from, 0);
        assert_eq!(p.channel, 2);
        assert_eq!(p.id, 0xdead_beef);
        assert_eq!(p.hop_limit, want_hops);
        assert_eq!(p.want_ack, want_hops > 0);
        assert_eq!(p.priority, 70);
        assert_eq!(p.pki_encrypted, t.pki, "PKI or not at all");
        let d = decoded_on(&p, PortNum::TextMessageApp).unwrap();
        assert_eq!(d.payload, "ping —é".as_bytes());
        assert_eq!(d.reply_id, want_reply);
        assert_eq!(d.emoji, 0);
    }
}

#[test]
fn a_contact_goes_to_our_node_as_local_admin_with_the_views_names() {
    use crate::node::PublicKey;
    let c = OutgoingContact {
        node: NodeId(0xa1c1_0001),
        key: PublicKey([0x11; 32]),
        generation: 1,
    };
    let alice = NodeNames {
        long_name: "Alice Base".into(),
        short_name: "ALB".into(),
    };
    let cases = [
        (Some(&alice), Some((43, 2)), "Alice Base", "ALB", 43, 2),
        // Not in the view: the app's default names, hardware unset.
        (None, None, "Meshtastic 0001", "0001", 0, 0),
    ];
    for (names, hardware, long, short, hw, role) in cases {
        let msg = decode_to_radio(&encode(&contact_packet(NodeId(0x99), &c, names, hardware)));
        let Some(to_radio::PayloadVariant::Packet(p)) = msg.payload_variant else {
            panic!("not a packet: {msg:?}");
        };
        assert_eq!((p.to, p.want_ack, p.pki_encrypted), (0x99, false, false));
        let data = decoded_on(&p, PortNum::AdminApp).expect("admin");
        let admin = AdminMessage::decode(data.payload.as_slice()).expect("decodes");
        assert!(admin.session_passkey.is_empty(), "local admin needs none");
        let Some(admin_message::PayloadVariant::AddContact(sc)) = admin.payload_variant else {
            panic!("not add_contact: {admin:?}");
        };
        let u = sc.user.expect("a user");
        assert_eq!(sc.node_num, 0xa1c1_0001);
        assert!(!sc.should_ignore && !sc.manually_verified);
        assert_eq!(
            (u.id.as_str(), u.long_name.as_str(), u.short_name.as_str()),
            ("!a1c10001", long, short)
        );
        assert_eq!(
            (u.hw_model, u.role, u.public_key),
            (hw, role, vec![0x11; 32])
        );
    }
}

fn routing_packet(request_id: u32, routing: Routing, port: PortNum) -> MeshPacket {
    MeshPacket {
        from: 0x0a0b_0c0d,
        to: 0x1122_3344,
        payload_variant: Some(mesh_packet::PayloadVariant::Decoded(Data {
            portnum: port as i32,
            payload: routing.encode_to_vec(),
            request_id,
            ..Data::default()
        })),
        ..MeshPacket::default()
    }
}

#[test]
fn routing_events() {
    let err = |e: routing::Error| Routing {
        variant: Some(routing::Variant::ErrorReason(e as i32)),
    };
    let ev = |error| {
        Some(LinkEvent::Routing {
            request_id: 9,
            from: NodeId(0x0a0b_0c0d),
            error,
        })
    };
    let cases = [
        (
            routing_packet(9, err(routing::Error::None), PortNum::RoutingApp),
            ev(0),
        ),
        (
            routing_packet(9, Routing::default(), PortNum::RoutingApp),
            ev(0),
        ),
        (
            routing_packet(9, err(routing::Error::TooLarge), PortNum::RoutingApp),
            ev(7),
        ),
        (
            routing_packet(0, err(routing::Error::None), PortNum::RoutingApp),
            None,
        ),
        (
            routing_packet(9, err(routing::Error::None), PortNum::TextMessageApp),
            None,
        ),
        (
            routing_packet(
                9,
                Routing {
                    variant: Some(routing::Variant::RouteReply(Default::default())),
                },
                PortNum::RoutingApp,
            ),
            None,
        ),
    ];
    for (p, want) in cases {
        assert_eq!(routing_event(&p), want, "{p:?}");
    }
}

#[test]
fn node_info_packets() {
    let user = User {
        long_name: "Alice".into(),
        short_name: "AL".into(),
        ..User::default()
    };
    let p = MeshPacket {
        from: 5,
        payload_variant: Some(mesh_packet::PayloadVariant::Decoded(Data {
            portnum: PortNum::NodeinfoApp as i32,
            payload: user.encode_to_vec(),
            ..Data::default()
        })),
        ..MeshPacket::default()
    };
    assert_eq!(node_info_user(&p), Some((NodeId(5), user)));
    let garbage = MeshPacket {
        payload_variant: Some(mesh_packet::PayloadVariant::Decoded(Data {
            portnum: PortNum::NodeinfoApp as i32,
            payload: vec![0xff, 0xff, 0xff],
            ..Data::default()
        })),
        ..p.clone()
    };
    assert_eq!(node_info_user(&garbage), None);
}

fn position(lat: Option<i32>, lon: Option<i32>) -> Position {
    Position {
        latitude_i: lat,
        longitude_i: lon,
        ..Position::default()
    }
}

#[test]
fn positions() {
    let cases = [
        (
            position(Some(515_000_000), Some(-1_234_567)),
            Some((51.5, -0.1234567)),
        ),
        (position(Some(0), Some(0)), None),
        (position(Some(0), Some(100)), Some((0.0, 0.00001))),
        (position(None, Some(100)), None),
        (position(Some(515_000_000), None), None),
        (position(Some(950_000_000), Some(0)), None),
        (position(Some(10), Some(1_900_000_000)), None),
    ];
    for (pos, want) in cases {
        let got = geo_point(&pos).map(|g| (g.lat, g.lon));
        assert_eq!(geo_point(&pos).map(|g| g.uncertainty_km), want.map(|_| 0.0));
        match (got, want) {
            (Some((lat, lon)), Some((wlat, wlon))) => {
                assert!(
                    (lat - wlat).abs() < 1e-9 && (lon - wlon).abs() < 1e-9,
                    "{pos:?}"
                );
            }
            (got, want) => assert_eq!(got, want, "{pos:?}"),
        }
    }
    let packet = |from, port: PortNum, payload: Vec<u8>| MeshPacket {
        from,
        payload_variant: Some(mesh_packet::PayloadVariant::Decoded(Data {
            portnum: port as i32,
            payload,
            ..Data::default()
        })),
        ..MeshPacket::default()
    };
    let good = position(Some(10_000_000), Some(20_000_000)).encode_to_vec();
    let report = position_report(&packet(5, PortNum::PositionApp, good.clone()));
    assert_eq!(report.map(|(n, g)| (n, g.lat)), Some((NodeId(5), 1.0)));
    assert_eq!(
        position_report(&packet(0, PortNum::PositionApp, good.clone())),
        None
    );
    assert_eq!(
        position_report(&packet(5, PortNum::TextMessageApp, good)),
        None
    );
    assert_eq!(
        position_report(&packet(5, PortNum::PositionApp, vec![0xff; 3])),
        None
    );
}

#[test]
fn reduced_precision_positions_are_uncertain() {
    let cases = [
        (0, 0.0),
        (32, 0.0),
        (33, 0.0),
        (13, 2.91),
        (16, 0.364),
        (31, 0.0000111),
    ];
    for (bits, km) in cases {
        let pos = Position {
            precision_bits: bits,
            ..position(Some(10), Some(10))
        };
        let got = geo_point(&pos).map(|g| g.uncertainty_km).unwrap();
        assert!((got - km).abs() <= km * 0.01, "{bits} bits: {got} km");
    }
}

#[test]
fn snr_only_for_packets_heard_over_lora() {
    let cases = [
        (6.25, -87, Some(6.25)),
        (0.0, -90, Some(0.0)),
        (0.0, 0, None),
        (-7.5, 0, Some(-7.5)),
        (f32::NAN, -80, None),
    ];
    for (snr, rssi, want) in cases {
        let p = MeshPacket {
            rx_snr: snr,
            rx_rssi: rssi,
            ..MeshPacket::default()
        };
        assert_eq!(rx_snr(&p), want, "{snr} {rssi}");
    }
}

/// Firmware 2.8's `MeshPacket.xeddsa_signed` (22) read from the raw frame; the crate's
/// `MeshPacket` itself drops it.
#[test]
fn the_signed_flag_is_read_from_the_frame() {
    use meshtastic::protobufs::{NodeInfo, from_radio};
    let packet = MeshPacket {
        from: 0x0a0b_0c0d,
        to: 0x0102_0304,
        id: 7,
        ..MeshPacket::default()
    };
    let from_radio = |extra: &[u8]| {
        let mut p = packet.encode_to_vec();
        p.extend_from_slice(extra);
        // FromRadio.packet (2), length-delimited.
        let mut f = vec![0x12, u8::try_from(p.len()).unwrap()];
        f.extend_from_slice(&p);
        f
    };
    // Field 22, varint: tag (22 << 3) = 176 = b0 01.
    assert!(xeddsa_signed(&from_radio(&[0xb0, 0x01, 0x01])));
    assert!(!xeddsa_signed(&from_radio(&[0xb0, 0x01, 0x00])));
    assert!(!xeddsa_signed(&from_radio(&[])));
    // The crate still reads the packet, without the flag.
    let decoded = decode_from_radio(&from_radio(&[0xb0, 0x01, 0x01])).unwrap();
    assert!(matches!(
        decoded.payload_variant,
        Some(from_radio::PayloadVariant::Packet(p)) if p.id == 7
    ));
    // Not a packet, or not a frame at all.
    let node_info = FromRadio {
        id: 1,
        payload_variant: Some(from_radio::PayloadVariant::NodeInfo(NodeInfo::default())),
    };
    assert!(!xeddsa_signed(&node_info.encode_to_vec()));
    assert!(!xeddsa_signed(&[0xff, 0xff, 0xff]));
}
