//! Building and reading the protobuf messages: `ToRadio` out, `FromRadio` in.
//!
//! Only `radio` knows protobufs; this file is where they are made and taken apart. Every
//! reader tolerates missing or odd fields, since the bytes come from the radio.

use meshtastic::Message;
use meshtastic::protobufs::{
    Data, FromRadio, Heartbeat, MeshPacket, PortNum, Position, Routing, ToRadio, User, mesh_packet,
    routing, to_radio,
};

use super::{GeoPoint, LinkEvent, OutgoingText};
use crate::node::NodeId;

/// The hop limit used when the node's config does not give one.
pub const DEFAULT_HOP_LIMIT: u32 = 3;

/// `ToRadio.want_config_id`: asks the node for its config; it answers with
/// `config_complete_id == nonce` when done.
pub fn want_config(nonce: u32) -> ToRadio {
    ToRadio {
        payload_variant: Some(to_radio::PayloadVariant::WantConfigId(nonce)),
    }
}

/// `ToRadio.heartbeat` with nonce 0: keeps the API session alive. Nonce 1 would make the node
/// broadcast our NodeInfo, so it is never used.
pub fn heartbeat() -> ToRadio {
    ToRadio {
        payload_variant: Some(to_radio::PayloadVariant::Heartbeat(Heartbeat { nonce: 0 })),
    }
}

/// `ToRadio.disconnect`: tells the node we are leaving, so a serial session ends cleanly.
pub fn disconnect() -> ToRadio {
    ToRadio {
        payload_variant: Some(to_radio::PayloadVariant::Disconnect(true)),
    }
}

/// One text packet exactly as the outbox decided it: to the sender on the DM's channel,
/// with an ACK requested at RELIABLE priority; `pki_encrypted` forbids the node to fall back
/// to the channel key.
pub fn text_packet(t: &OutgoingText) -> ToRadio {
    let hop_limit = if t.hop_limit == 0 {
        DEFAULT_HOP_LIMIT
    } else {
        t.hop_limit
    };
    let data = Data {
        portnum: PortNum::TextMessageApp as i32,
        payload: t.text.as_bytes().to_vec(),
        reply_id: t.reply_id.unwrap_or(0),
        ..Data::default()
    };
    let packet = MeshPacket {
        to: t.to.0,
        channel: t.channel,
        id: t.id,
        hop_limit,
        want_ack: true,
        priority: mesh_packet::Priority::Reliable as i32,
        pki_encrypted: t.pki,
        payload_variant: Some(mesh_packet::PayloadVariant::Decoded(data)),
        ..MeshPacket::default()
    };
    ToRadio {
        payload_variant: Some(to_radio::PayloadVariant::Packet(packet)),
    }
}

/// Serialises a `ToRadio` for the frame codec.
pub fn encode(msg: &ToRadio) -> Vec<u8> {
    msg.encode_to_vec()
}

/// Parses one frame's payload as a `FromRadio`.
pub fn decode_from_radio(payload: &[u8]) -> Result<FromRadio, prost::DecodeError> {
    FromRadio::decode(payload)
}

/// The decoded payload of a packet on a given port, or `None` if it is encrypted or on
/// another port.
pub fn decoded_on(p: &MeshPacket, port: PortNum) -> Option<&Data> {
    match &p.payload_variant {
        Some(mesh_packet::PayloadVariant::Decoded(d)) if d.portnum == port as i32 => Some(d),
        _ => None,
    }
}

/// The payload of a packet on `port`, decoded as `M`; `None` when the packet is on another
/// port or encrypted, or its payload does not decode (logged at debug: radio bytes).
pub fn payload_on<M: Message + Default>(p: &MeshPacket, port: PortNum) -> Option<M> {
    let data = decoded_on(p, port)?;
    match M::decode(data.payload.as_slice()) {
        Ok(m) => Some(m),
        Err(e) => {
            let port = port.as_str_name();
            tracing::debug!(error = %e, from = %NodeId(p.from), port, "undecodable payload");
            None
        }
    }
}

/// A ROUTING_APP packet that answers one of our packets (`request_id` set): an ACK when
/// `error == 0`, else a NAK. Route requests/replies and undecodable payloads give `None`.
pub fn routing_event(p: &MeshPacket) -> Option<LinkEvent> {
    let data = decoded_on(p, PortNum::RoutingApp)?;
    if data.request_id == 0 {
        return None;
    }
    let routing: Routing = payload_on(p, PortNum::RoutingApp)?;
    let error = match routing.variant {
        Some(routing::Variant::ErrorReason(e)) => e,
        // An empty Routing is how proto3 spells `error_reason = NONE` on some encoders.
        None => 0,
        Some(routing::Variant::RouteRequest(_) | routing::Variant::RouteReply(_)) => return None,
    };
    Some(LinkEvent::Routing {
        request_id: data.request_id,
        from: NodeId(p.from),
        error,
    })
}

/// A NODEINFO_APP packet: the sender's `User`, announcing its names.
pub fn node_info_user(p: &MeshPacket) -> Option<(NodeId, User)> {
    let user: User = payload_on(p, PortNum::NodeinfoApp)?;
    (p.from != 0).then_some((NodeId(p.from), user))
}

/// The point a `Position` gives, or `None` when it has none: missing fields, 0/0 (how the
/// firmware spells "no fix") or values off the globe.
pub fn geo_point(p: &Position) -> Option<GeoPoint> {
    let (lat_i, lon_i) = (p.latitude_i?, p.longitude_i?);
    if lat_i == 0 && lon_i == 0 {
        return None;
    }
    let point = GeoPoint {
        lat: f64::from(lat_i) * 1e-7,
        lon: f64::from(lon_i) * 1e-7,
        uncertainty_km: uncertainty_km(p.precision_bits),
    };
    ((-90.0..=90.0).contains(&point.lat) && (-180.0..=180.0).contains(&point.lon)).then_some(point)
}

/// Half the size of the grid cell a reduced-precision position is snapped to, in km: the
/// firmware keeps the top `precision_bits` bits of `latitude_i`/`longitude_i` (units of
/// 1e-7°). 0 and 32 mean full precision (2.7's node DB stores 0).
fn uncertainty_km(precision_bits: u32) -> f64 {
    match precision_bits {
        1..=31 => {
            let cell_deg = f64::from(1u32 << (32 - precision_bits)) * 1e-7;
            cell_deg * 111.195 / 2.0
        }
        _ => 0.0,
    }
}

/// A POSITION_APP packet: where its sender is. Packets without a usable point give `None`.
pub fn position_report(p: &MeshPacket) -> Option<(NodeId, GeoPoint)> {
    if p.from == 0 {
        return None;
    }
    let pos: Position = payload_on(p, PortNum::PositionApp)?;
    geo_point(&pos).map(|g| (NodeId(p.from), g))
}

/// The SNR of a received packet in dB; `None` when it did not come over LoRa (the firmware
/// leaves `rx_snr` and `rx_rssi` both 0 for local, API and MQTT packets).
pub fn rx_snr(p: &MeshPacket) -> Option<f32> {
    (p.rx_snr.is_finite() && (p.rx_snr != 0.0 || p.rx_rssi != 0)).then_some(p.rx_snr)
}

#[cfg(test)]
mod tests {
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
            (outgoing(0, None, false), DEFAULT_HOP_LIMIT, 0),
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
            assert!(p.want_ack);
            assert_eq!(p.priority, 70);
            assert_eq!(p.pki_encrypted, t.pki, "PKI or not at all");
            let d = decoded_on(&p, PortNum::TextMessageApp).unwrap();
            assert_eq!(d.payload, "ping —é".as_bytes());
            assert_eq!(d.reply_id, want_reply);
            assert_eq!(d.emoji, 0);
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
}
