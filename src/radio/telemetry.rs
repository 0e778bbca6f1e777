//! Our node's channel numbers and its region's duty-cycle limit, read from protobufs.
//!
//! Sans-IO. The firmware measures the channel itself (`AirTime`): `channel_utilization` is
//! everything heard in the last minute, `air_util_tx` our own sending in the last hour. It
//! tells its client in three places: `device_metrics` in our own node info at the handshake
//! (once its telemetry module has ticked, ≥ 30 s after boot), a TELEMETRY_APP
//! `device_metrics` packet from our own number every ~60 s, and a `local_stats` one every
//! ~15 min. Other nodes' telemetry says nothing about our transmitter and is not read here.
//!
//! Every reader skips what is not a measurement: an absent value, NaN, one outside 0–100,
//! and the all-zero default a node info carries before the first tick.

use meshtastic::protobufs::config::LoRaConfig;
use meshtastic::protobufs::config::lo_ra_config::RegionCode;
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
pub fn from_device_metrics(m: &DeviceMetrics) -> Option<ChannelMetrics> {
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
pub fn from_local_stats(s: &LocalStats) -> Option<ChannelMetrics> {
    if s.uptime_seconds == 0 {
        return None;
    }
    Some(ChannelMetrics {
        channel_utilization: percent(s.channel_utilization)?,
        air_util_tx: percent(s.air_util_tx),
    })
}

/// The channel numbers of a TELEMETRY_APP packet from our own node `me`; `None` for any other
/// packet, another node's telemetry, other telemetry variants and undecodable payloads.
pub fn own_telemetry(p: &MeshPacket, me: NodeId) -> Option<(ChannelMetrics, ReadingSource)> {
    if NodeId(p.from) != me {
        return None;
    }
    let t: Telemetry = payload_on(p, PortNum::TelemetryApp)?;
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
pub fn region(lora: &LoRaConfig) -> LoraRegion {
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
