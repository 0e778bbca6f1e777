//! Building and reading the protobuf messages: `ToRadio` out, `FromRadio` in.
//!
//! Only `radio` knows protobufs; this file is where they are made and taken apart. Every
//! reader tolerates missing or odd fields, since the bytes come from the radio.

use meshtastic::Message;
use meshtastic::protobufs::{
    AdminMessage, Data, FromRadio, Heartbeat, MeshPacket, PortNum, Position, Routing,
    SharedContact, ToRadio, User, admin_message, mesh_packet, routing, to_radio,
};

use super::{GeoPoint, LinkEvent, NodeNames, OutgoingContact, OutgoingText};
use crate::node::NodeId;

/// The hop limit used when the node's config does not give one.
pub(crate) const DEFAULT_HOP_LIMIT: u32 = 3;

/// `ToRadio.want_config_id`: asks the node for its config; it answers with
/// `config_complete_id == nonce` when done.
pub(crate) fn want_config(nonce: u32) -> ToRadio {
    ToRadio {
        payload_variant: Some(to_radio::PayloadVariant::WantConfigId(nonce)),
    }
}

/// `ToRadio.heartbeat` with nonce 0: keeps the API session alive. Nonce 1 would make the node
/// broadcast our NodeInfo, so it is never used.
pub(crate) fn heartbeat() -> ToRadio {
    ToRadio {
        payload_variant: Some(to_radio::PayloadVariant::Heartbeat(Heartbeat { nonce: 0 })),
    }
}

/// `ToRadio.disconnect`: tells the node we are leaving, so a serial session ends cleanly.
pub(crate) fn disconnect() -> ToRadio {
    ToRadio {
        payload_variant: Some(to_radio::PayloadVariant::Disconnect(true)),
    }
}

/// One text packet exactly as the outbox decided it: to the sender on the DM's channel,
/// at RELIABLE priority, with an ACK requested unless it goes zero-hop (a zero-hop send
/// with `want_ack` is reset to the default limit by the router); `pki_encrypted` forbids the
/// node to fall back to the channel key.
pub(crate) fn text_packet(t: &OutgoingText) -> ToRadio {
    let hop_limit = t.hop_limit;
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
        want_ack: hop_limit > 0,
        priority: mesh_packet::Priority::Reliable as i32,
        pki_encrypted: t.pki,
        payload_variant: Some(mesh_packet::PayloadVariant::Decoded(data)),
        ..MeshPacket::default()
    };
    ToRadio {
        payload_variant: Some(to_radio::PayloadVariant::Packet(packet)),
    }
}

/// `AdminMessage.add_contact` to our own node `me`: puts `c.node` with its key back into the
/// node's list (the firmware makes it a favourite, so it is not evicted again), with the
/// `names` and `hardware` (`hw_model`, `role`) the view holds for it, or the app's default
/// names. Local admin from the client needs no session passkey; neither ignored nor marked
/// verified.
pub(crate) fn contact_packet(
    me: NodeId,
    c: &OutgoingContact,
    names: Option<&NodeNames>,
    hardware: Option<(i32, i32)>,
) -> ToRadio {
    let id = format!("!{:08x}", c.node.0);
    let tail = &id[5..];
    let (hw_model, role) = hardware.unwrap_or_default();
    let user = User {
        long_name: names.map_or_else(|| format!("Meshtastic {tail}"), |n| n.long_name.clone()),
        short_name: names.map_or_else(|| tail.to_string(), |n| n.short_name.clone()),
        id,
        hw_model,
        role,
        public_key: c.key.0.to_vec(),
        ..User::default()
    };
    let admin = AdminMessage {
        payload_variant: Some(admin_message::PayloadVariant::AddContact(SharedContact {
            node_num: c.node.0,
            user: Some(user),
            should_ignore: false,
            manually_verified: false,
        })),
        ..AdminMessage::default()
    };
    local_admin(me, admin.encode_to_vec())
}

/// An encoded `AdminMessage` to our own node `me` (ADMIN_APP, no ACK asked): local admin
/// from the API client, which needs no session passkey.
pub(crate) fn local_admin(me: NodeId, admin: Vec<u8>) -> ToRadio {
    let packet = MeshPacket {
        to: me.0,
        priority: mesh_packet::Priority::Reliable as i32,
        payload_variant: Some(mesh_packet::PayloadVariant::Decoded(Data {
            portnum: PortNum::AdminApp as i32,
            payload: admin,
            ..Data::default()
        })),
        ..MeshPacket::default()
    };
    ToRadio {
        payload_variant: Some(to_radio::PayloadVariant::Packet(packet)),
    }
}

/// Serialises a `ToRadio` for the frame codec.
pub(crate) fn encode(msg: &ToRadio) -> Vec<u8> {
    msg.encode_to_vec()
}

/// Parses one frame's payload as a `FromRadio`.
pub(crate) fn decode_from_radio(payload: &[u8]) -> Result<FromRadio, prost::DecodeError> {
    FromRadio::decode(payload)
}

/// `FromRadio` as far as firmware 2.8's `MeshPacket.xeddsa_signed` goes: its `packet` (2).
/// The `meshtastic` crate's protobufs predate the field and prost drops what it does not
/// know, so the frame is read a second time for it alone (PROTOCOL.md, "Licensed nodes sign").
#[derive(Clone, PartialEq, prost::Message)]
struct SignedFromRadio {
    #[prost(message, optional, tag = "2")]
    packet: Option<SignedPacket>,
}

/// `MeshPacket.xeddsa_signed` (22): our node checked the packet's XEdDSA signature against
/// the key it holds for the sender (the firmware clears any flag a packet came with).
#[derive(Clone, PartialEq, prost::Message)]
struct SignedPacket {
    #[prost(bool, tag = "22")]
    xeddsa_signed: bool,
}

/// Whether the `FromRadio` frame `payload` carries a packet our node found XEdDSA-signed
/// (firmware 2.8: a licensed node signs its plaintext DMs). False for older firmware, for
/// anything but a packet, and for a frame that does not decode.
pub(crate) fn xeddsa_signed(payload: &[u8]) -> bool {
    SignedFromRadio::decode(payload)
        .ok()
        .and_then(|f| f.packet)
        .is_some_and(|p| p.xeddsa_signed)
}

/// The decoded payload of a packet on a given port, or `None` if it is encrypted or on
/// another port.
pub(crate) fn decoded_on(p: &MeshPacket, port: PortNum) -> Option<&Data> {
    match &p.payload_variant {
        Some(mesh_packet::PayloadVariant::Decoded(d)) if d.portnum == port as i32 => Some(d),
        _ => None,
    }
}

/// The payload of a packet on `port`, decoded as `M`; `None` when the packet is on another
/// port or encrypted, or its payload does not decode (logged at debug: radio bytes).
pub(crate) fn payload_on<M: Message + Default>(p: &MeshPacket, port: PortNum) -> Option<M> {
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
pub(crate) fn routing_event(p: &MeshPacket) -> Option<LinkEvent> {
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
pub(crate) fn node_info_user(p: &MeshPacket) -> Option<(NodeId, User)> {
    let user: User = payload_on(p, PortNum::NodeinfoApp)?;
    (p.from != 0).then_some((NodeId(p.from), user))
}

/// The point a `Position` gives, or `None` when it has none: missing fields, 0/0 (how the
/// firmware spells "no fix") or values off the globe.
pub(crate) fn geo_point(p: &Position) -> Option<GeoPoint> {
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
pub(crate) fn position_report(p: &MeshPacket) -> Option<(NodeId, GeoPoint)> {
    if p.from == 0 {
        return None;
    }
    let pos: Position = payload_on(p, PortNum::PositionApp)?;
    geo_point(&pos).map(|g| (NodeId(p.from), g))
}

/// When our radio heard a packet (`rx_time`, Unix seconds); `None` when the node had no
/// time to stamp it with (0).
pub(crate) fn rx_time(p: &MeshPacket) -> Option<i64> {
    (p.rx_time != 0).then_some(i64::from(p.rx_time))
}

/// The SNR of a received packet in dB; `None` when it did not come over LoRa (the firmware
/// leaves `rx_snr` and `rx_rssi` both 0 for local, API and MQTT packets).
pub(crate) fn rx_snr(p: &MeshPacket) -> Option<f32> {
    (p.rx_snr.is_finite() && (p.rx_snr != 0.0 || p.rx_rssi != 0)).then_some(p.rx_snr)
}

#[cfg(test)]
mod tests;
