//! Our node's channel numbers and its region's duty-cycle limit, read from protobufs.
//!
//! Sans-IO. The firmware measures the channel itself (`AirTime`): `channel_utilization` is
//! everything heard in the last minute, `air_util_tx` our own sending in the last hour. It
//! tells its client in three places: `device_metrics` in our own node info at the handshake
//! (once its telemetry module has ticked, ≥ 30 s after boot), a TELEMETRY_APP
//! `device_metrics` packet from our own number every ~60 s, and a `local_stats` one every
//! ~15 min. Other nodes' telemetry says nothing about our transmitter and is not read here,
//! nor is a packet with our number that came from outside our node ([`outside`]): anyone on
//! the channel (or its MQTT broker) could send one, with a busy channel to hold our replies.
//!
//! Every reader skips what is not a measurement: an absent value, NaN, one outside 0–100,
//! and the all-zero default a node info carries before the first tick.

use meshtastic::protobufs::config::LoRaConfig;
use meshtastic::protobufs::config::lo_ra_config::RegionCode;
use meshtastic::protobufs::mesh_packet::TransportMechanism;
use meshtastic::protobufs::{DeviceMetrics, LocalStats, MeshPacket, PortNum, Telemetry, telemetry};

use super::packet::payload_on;
use super::{ChannelMetrics, LoraRegion, ReadingSource};
use crate::node::NodeId;

/// A percentage the firmware could have measured.
fn percent(v: f32) -> Option<f32> {
    (v.is_finite() && (0.0..=100.0).contains(&v)).then_some(v)
}

/// The channel numbers in a `DeviceMetrics`, or `None` when it holds no measurement: no
/// (or an impossible) `channel_utilization`, or the all-zero default of a node info whose
/// telemetry module has not ticked yet (no uptime either). An `air_util_tx` that is absent
/// or impossible is left unknown.
pub(crate) fn from_device_metrics(m: &DeviceMetrics) -> Option<ChannelMetrics> {
    let channel_utilization = percent(m.channel_utilization?)?;
    let air_util_tx = m.air_util_tx.and_then(percent);
    let empty = channel_utilization == 0.0
        && air_util_tx.unwrap_or(0.0) == 0.0
        && m.uptime_seconds.unwrap_or(0) == 0;
    (!empty).then_some(ChannelMetrics {
        channel_utilization,
        air_util_tx,
    })
}

/// The channel numbers in a `LocalStats`. Its fields are plain proto3 (0 when unset): a
/// message without an uptime is not one the firmware filled in.
pub(crate) fn from_local_stats(s: &LocalStats) -> Option<ChannelMetrics> {
    if s.uptime_seconds == 0 {
        return None;
    }
    Some(ChannelMetrics {
        channel_utilization: percent(s.channel_utilization)?,
        air_util_tx: percent(s.air_util_tx),
    })
}

/// How a packet claiming our own number shows that it came from outside our node.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Outside {
    /// Our radio measured it (`rx_snr` or `rx_rssi`): it was heard over LoRa.
    Heard,
    /// It came through an MQTT gateway.
    Mqtt,
    /// It travelled hops (`hop_start` set and above `hop_limit`, or below it).
    Relayed,
    /// The firmware says it arrived over a transport (LoRa, MQTT, UDP, another client's API).
    Transport(i32),
}

/// Whether `p` came to our node from outside it. Our node's own packets never crossed the
/// air: the firmware hands them over with no signal, no MQTT flag, the internal transport,
/// and either no `hop_start` (a reading for the client only) or `hop_start == hop_limit` (the
/// copy of a reading it also broadcast: `Router::send` sets `hop_start` before the copy).
/// Anyone can put our number in a packet's `from`; none of these can be forged from outside,
/// as our own radio or firmware sets them on the way in.
pub(crate) fn outside(p: &MeshPacket) -> Option<Outside> {
    if p.rx_snr != 0.0 || p.rx_rssi != 0 {
        Some(Outside::Heard)
    } else if p.via_mqtt {
        Some(Outside::Mqtt)
    } else if p.transport_mechanism != TransportMechanism::TransportInternal as i32 {
        Some(Outside::Transport(p.transport_mechanism))
    } else if p.hop_start != 0 && p.hop_start != p.hop_limit {
        Some(Outside::Relayed)
    } else {
        None
    }
}

/// The channel numbers of a TELEMETRY_APP packet from our own node `me`, as the firmware hands
/// it to its client (see [`outside`]); `None` for any other packet, another node's telemetry,
/// one with our number from outside our node (logged at debug: someone forging our readings
/// to hold our replies), other telemetry variants and undecodable payloads.
pub(crate) fn own_telemetry(p: &MeshPacket, me: NodeId) -> Option<(ChannelMetrics, ReadingSource)> {
    if NodeId(p.from) != me {
        return None;
    }
    let t: Telemetry = payload_on(p, PortNum::TelemetryApp)?;
    if let Some(how) = outside(p) {
        tracing::debug!(
            ?how,
            id = p.id,
            snr = p.rx_snr,
            rssi = p.rx_rssi,
            hop_start = p.hop_start,
            hop_limit = p.hop_limit,
            "telemetry with our node's number from outside it: ignored"
        );
        return None;
    }
    match t.variant? {
        telemetry::Variant::DeviceMetrics(m) => {
            from_device_metrics(&m).map(|m| (m, ReadingSource::DeviceMetrics))
        }
        telemetry::Variant::LocalStats(s) => {
            from_local_stats(&s).map(|m| (m, ReadingSource::LocalStats))
        }
        _ => None,
    }
}

/// The duty cycle the firmware enforces in a region, in percent of any hour; `None` for no
/// limit. From `RadioInterface.cpp`'s region table (v2.7): EU_433, EU_868 and UA_433 10 %,
/// UA_868 1 %, every other region 100 %. (TH is 100 % there, `RDEF(TH, 920.0f, 925.0f,
/// 100, …)`, in every firmware version read; ../shared/PROTOCOL.md's list of 10 % regions
/// naming TH is wrong.)
fn duty_cycle(region: RegionCode) -> Option<u8> {
    match region {
        RegionCode::Eu433 | RegionCode::Eu868 | RegionCode::Ua433 => Some(10),
        RegionCode::Ua868 => Some(1),
        _ => None,
    }
}

/// The node's region from its `config.lora`, with the limit the firmware applies there
/// (none when `override_duty_cycle` is set).
pub(crate) fn region(lora: &LoRaConfig) -> LoraRegion {
    let code = RegionCode::try_from(lora.region).ok();
    LoraRegion {
        name: code.map_or("unknown", |c| c.as_str_name()),
        duty_cycle: code
            .and_then(duty_cycle)
            .filter(|_| !lora.override_duty_cycle),
        overridden: lora.override_duty_cycle,
    }
}

#[cfg(test)]
mod tests;
