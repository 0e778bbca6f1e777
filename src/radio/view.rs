//! The mesh as our node hears it: [`MeshView`], per node the latest names, when it was last
//! heard, how many hops away, its SNR, its position and its device and environment readings,
//! each with the time it was heard. It is the link's node DB (names and positions for the DM
//! filter's `TextMessage`) and what the bot answers questions about the mesh from.
//!
//! Sans-IO: it takes the handshake's node infos and later packets, with the time they came
//! (Unix seconds), and never reads a clock. Bounded: at most [`MAX_NODES`] nodes; when full,
//! a node goes by [`NodeView::worth`]: first one heard over less than [`SETTLED_SECS`] (or
//! silent for [`STALE_SECS`]) without a reading, then one heard over less than that, then the
//! one heard longest ago; of the nodes heard over time, the one known for the shortest time.
//! A burst of fresh ids (issue 39: 20,000 NodeInfos evicted the real relay, and clones with
//! its name answered for it) so only pushes out other fresh ids: a real node is heard over
//! hours, a flood is seconds old.
//!
//! Only what nodes broadcast reaches it: node infos at the handshake (the node's own view),
//! and NODEINFO, POSITION and TELEMETRY packets. A DM to us never updates it — not even its
//! "last heard" — so the view cannot tell anyone who talked to the bot, or when. The node
//! hands over its DB at every handshake (on 2.8 thin, its readings replayed after it); the
//! daemon keeps the view across restarts (`store::mesh`, [`MeshView::restore`]), so what the
//! node's DB lacks (environment readings, or everything but names on 2.8) is still known.
//!
//! A packet counts from when our radio heard it (`rx_time`), not from when the client got
//! it: firmware 2.7 hands a client the packets queued while none was attached, and 2.8
//! replays its cached positions and telemetry after the handshake, both with their original
//! `rx_time`. So a reading is as old as its `rx_time` says (our clock when it has none or one
//! in the future), an older reading never replaces a newer one, and "last heard" never moves
//! back — nor forward past what the radio heard. [`NodeView::heard_live`] keeps apart what
//! was heard as it happened.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use meshtastic::protobufs::{
    DeviceMetrics, EnvironmentMetrics, MeshPacket, NodeInfo, PortNum, Telemetry, User, telemetry,
};

use super::packet::{self, payload_on};
use super::{ChannelMetrics, GeoPoint, NodeNames};
use crate::node::NodeId;

/// How many nodes the view keeps; a busy mesh must not grow it without bound.
pub(crate) const MAX_NODES: usize = 4096;

/// How far behind our clock a packet's `rx_time` may be and the packet still count as heard
/// live: the node's clock and ours differ a little, and a packet waits a moment in the
/// node's queue to its client. A replay, or a packet queued while no client was attached,
/// is older.
pub(crate) const LIVE_WITHIN_SECS: i64 = 120;

/// How long a node must have been heard over (from [`NodeView::first_heard`] to its last
/// heard) before fresh ids cannot push it out of a full view. A node broadcasts its node info
/// every few hours and its position and telemetry every 15–60 minutes; a flood of new ids is
/// seconds or minutes old.
pub(crate) const SETTLED_SECS: i64 = 3600;
/// A node heard over time but silent this long (3 days) before the newest node of a full view
/// was heard keeps no protection: it goes before fresh ids do (issue 39: a settled node never
/// lost its place however long it was gone, so on a mesh of more than [`MAX_NODES`] real nodes
/// new ones would push each other out before they could settle).
pub(crate) const STALE_SECS: i64 = 3 * 86_400;

/// Longest name kept, in characters: the firmware limits long names to ~40 bytes, so
/// anything longer is garbage that should not reach a prompt.
const MAX_NAME_CHARS: usize = 64;

/// A value and when it was heard, Unix seconds.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Heard<T> {
    pub(crate) value: T,
    pub(crate) at: i64,
}

/// A node's device metrics (TELEMETRY_APP `device_metrics`, or its node info's).
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub(crate) struct Device {
    /// 0–100 %; 101 means on external power.
    pub(crate) battery_level: Option<u32>,
    /// Volts.
    pub(crate) voltage: Option<f32>,
    /// Percent of the last minute it heard the channel busy.
    pub(crate) channel_utilization: Option<f32>,
    /// Percent of the last hour it spent sending.
    pub(crate) air_util_tx: Option<f32>,
    pub(crate) uptime_seconds: Option<u32>,
}

/// A node's environment sensors (TELEMETRY_APP `environment_metrics`).
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub(crate) struct Environment {
    /// °C.
    pub(crate) temperature: Option<f32>,
    /// Relative humidity, %.
    pub(crate) relative_humidity: Option<f32>,
    /// hPa.
    pub(crate) barometric_pressure: Option<f32>,
    /// m/s.
    pub(crate) wind_speed: Option<f32>,
    /// Degrees, clockwise from north, where the wind comes from.
    pub(crate) wind_direction: Option<u32>,
    /// Lux.
    pub(crate) lux: Option<f32>,
}

/// Earlier names kept per node.
pub(crate) const EARLIER_NAMES_MAX: usize = 4;

/// What the view holds of one node. Kept across restarts as it serialises (`store::mesh`),
/// without what only this run can know (heard live, the update order).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct NodeView {
    pub(crate) names: Option<NodeNames>,
    /// The names it had before its current ones, oldest first, at most
    /// [`EARLIER_NAMES_MAX`]: a node the operator hid by name stays hidden after a rename
    /// broadcast (issue 39: one rename revealed it).
    pub(crate) earlier_names: Vec<NodeNames>,
    /// When our node last heard it (its node info's `last_heard`, or a broadcast's
    /// `rx_time` since); never moved back.
    pub(crate) last_heard: Option<i64>,
    /// The earliest time it was heard at (a node info's `last_heard`, a broadcast's
    /// `rx_time`); never moved forward. How long the view has known it, for eviction and for
    /// which of two nodes with one name is the one long known by it (`mesh::lens`).
    pub(crate) first_heard: Option<i64>,
    /// When a broadcast of it was last heard live: handed over as our radio heard it, not
    /// replayed from the node's cache, queued while no client was attached, or told by a
    /// handshake's node info, nor kept from an earlier run. `None` until one is.
    #[serde(skip)]
    pub(crate) heard_live: Option<i64>,
    /// Hops between it and our node, when known.
    pub(crate) hops_away: Option<u32>,
    /// SNR of the last packet heard from it directly, dB.
    pub(crate) snr: Option<f32>,
    /// Its latest position, at the precision it shared.
    pub(crate) position: Option<Heard<GeoPoint>>,
    pub(crate) device: Option<Heard<Device>>,
    pub(crate) environment: Option<Heard<Environment>>,
    /// Its node info's `hw_model` and `role`, as given: handed back with its key when our
    /// node lost it (`packet::contact_packet`).
    pub(crate) hardware: Option<(i32, i32)>,
    /// Grows with every update; breaks ties between nodes heard at the same second.
    #[serde(skip)]
    seq: u64,
}

impl NodeView {
    /// Heard at `at`: the first time it was heard moves back to `at` when earlier.
    fn heard(&mut self, at: Option<i64>) {
        self.last_heard = self.last_heard.max(at);
        if let Some(at) = at {
            self.first_heard = Some(self.first_heard.map_or(at, |f| f.min(at)));
        }
    }

    /// Heard over at least [`SETTLED_SECS`].
    pub(crate) fn settled(&self) -> bool {
        matches!((self.first_heard, self.last_heard), (Some(f), Some(l)) if l - f >= SETTLED_SECS)
    }

    /// What it is worth keeping in a full view whose newest node was heard at `newest`, least
    /// first: heard over time and not silent for [`STALE_SECS`] (the one known longest first:
    /// a flood that keeps re-sending its ids for over an hour settles them, but cannot make
    /// them older than the nodes it came to push out), then with a position or readings,
    /// then heard lately (the update order breaks ties).
    fn worth(&self, newest: i64) -> (bool, i64, bool, i64, u64) {
        let readings =
            self.position.is_some() || self.device.is_some() || self.environment.is_some();
        let last = self.last_heard.unwrap_or(i64::MIN);
        let kept = self.settled() && newest.saturating_sub(last) < STALE_SECS;
        let known_since = match (kept, self.first_heard) {
            (true, Some(first)) => first.saturating_neg(),
            _ => 0,
        };
        (kept, known_since, readings, last, self.seq)
    }

    /// Takes `names` as its names; the ones it had go to [`NodeView::earlier_names`].
    fn rename(&mut self, names: NodeNames) {
        if let Some(old) = self.names.take()
            && old != names
        {
            self.earlier_names.retain(|n| *n != old && *n != names);
            self.earlier_names.push(old);
            let extra = self.earlier_names.len().saturating_sub(EARLIER_NAMES_MAX);
            self.earlier_names.drain(..extra);
        }
        self.names = Some(names);
    }
}

/// The mesh as our node hears it. See the module comment.
#[derive(Debug, Clone)]
pub struct MeshView {
    nodes: HashMap<NodeId, NodeView>,
    /// Our own node, from the last handshake.
    me: Option<NodeId>,
    /// Our node's latest channel numbers (the link's checked reading), when heard.
    channel: Option<Heard<ChannelMetrics>>,
    seq: u64,
    capacity: usize,
}

impl Default for MeshView {
    fn default() -> Self {
        MeshView::new()
    }
}

impl MeshView {
    pub fn new() -> Self {
        Self::with_capacity(MAX_NODES)
    }

    /// A view bounded to `capacity` nodes (at least one).
    pub(crate) fn with_capacity(capacity: usize) -> Self {
        MeshView {
            nodes: HashMap::new(),
            me: None,
            channel: None,
            seq: 0,
            capacity: capacity.max(1),
        }
    }

    /// Our own node's number, once a handshake said it.
    pub(crate) fn me(&self) -> Option<NodeId> {
        self.me
    }

    pub(crate) fn set_me(&mut self, me: NodeId) {
        self.me = Some(me);
    }

    /// Our node's channel numbers, as the link read them from its own telemetry at `at`.
    pub(crate) fn set_channel(&mut self, metrics: ChannelMetrics, at: i64) {
        self.channel = Some(Heard { value: metrics, at });
    }

    /// Our node's latest channel numbers.
    pub fn channel(&self) -> Option<Heard<ChannelMetrics>> {
        self.channel
    }

    /// The entry for `num`, made room for (the node least worth keeping goes when full:
    /// [`NodeView::worth`]; never ours) and marked as just updated.
    fn entry(&mut self, num: NodeId) -> &mut NodeView {
        if !self.nodes.contains_key(&num) && self.nodes.len() >= self.capacity {
            let newest = self
                .nodes
                .values()
                .filter_map(|n| n.last_heard)
                .max()
                .unwrap_or(i64::MIN);
            let least = self
                .nodes
                .iter()
                .filter(|(id, _)| Some(**id) != self.me)
                .min_by_key(|(_, n)| n.worth(newest))
                .map(|(id, _)| *id);
            if let Some(least) = least {
                self.nodes.remove(&least);
            }
        }
        self.seq += 1;
        let entry = self.nodes.entry(num).or_default();
        entry.seq = self.seq;
        entry
    }

    /// Records a node's names.
    #[cfg(test)]
    pub(crate) fn insert(&mut self, num: NodeId, names: NodeNames) {
        self.entry(num).rename(names);
    }

    /// Records a node's latest position, heard at `at`.
    #[cfg(test)]
    pub(crate) fn set_position(&mut self, num: NodeId, position: GeoPoint, at: i64) {
        self.entry(num).position = Some(Heard {
            value: position,
            at,
        });
    }

    /// Records what a handshake's node info says: names, last heard, hops, SNR, and when it
    /// has them, the position and the device metrics (as of its `last_heard`).
    pub(crate) fn update_from_node_info(&mut self, n: &NodeInfo) {
        let num = NodeId(n.num);
        let last_heard = (n.last_heard != 0).then_some(i64::from(n.last_heard));
        let at = last_heard.unwrap_or(0);
        // The fix's own time when it is plausible (not after the node was last heard, not
        // a month before); else as old as the node info.
        let position = n.position.as_ref().and_then(|p| {
            let time = i64::from(p.time);
            let time = (time != 0 && time <= at && at - time <= 30 * 86_400).then_some(time);
            packet::geo_point(p).map(|g| (g, time.unwrap_or(at)))
        });
        let device = n.device_metrics.as_ref().and_then(device);
        let e = self.entry(num);
        if let Some(user) = &n.user {
            e.rename(names_of(user));
            e.hardware = Some((user.hw_model, user.role));
        }
        e.heard(last_heard);
        if n.hops_away.is_some() {
            e.hops_away = n.hops_away;
        }
        if n.snr.is_finite() && n.snr != 0.0 {
            e.snr = Some(n.snr);
        }
        if let Some((value, at)) = position {
            e.position = Some(Heard { value, at });
        }
        if let Some(value) = device {
            e.device = Some(Heard { value, at });
        }
    }

    /// Takes back what an earlier run kept of `num` (`store::mesh`), oldest first: it
    /// counts as neither heard live nor newer than anything already held.
    pub(crate) fn restore(&mut self, num: NodeId, kept: NodeView) {
        let e = self.entry(num);
        *e = NodeView {
            seq: e.seq,
            heard_live: None,
            // Kept before the view knew first times: known since it was last heard.
            first_heard: kept.first_heard.or(kept.last_heard),
            ..kept
        };
    }

    /// Records the names from a `User` (a node info or a NODEINFO_APP packet).
    pub(crate) fn update_from_user(&mut self, num: NodeId, user: &User) {
        let e = self.entry(num);
        e.rename(names_of(user));
        e.hardware = Some((user.hw_model, user.role));
    }

    /// Takes a packet the node handed over at `now` (Unix seconds): a broadcast marks its
    /// sender heard at its `rx_time` (with the hops and SNR it came with, when nothing newer
    /// was heard); a POSITION_APP packet gives its position, a NODEINFO_APP one its names, a
    /// TELEMETRY_APP one its readings, each unless a newer one is held. A packet to anyone
    /// but the broadcast address (a DM) changes nothing. Returns whether the view changed.
    pub(crate) fn on_packet(&mut self, p: &MeshPacket, now: i64) -> bool {
        if p.from == 0 {
            return false;
        }
        let from = NodeId(p.from);
        // Names are public whoever they were sent to (a node answers a NODEINFO request).
        if let Some((_, user)) = packet::node_info_user(p)
            && p.to != u32::MAX
        {
            self.update_from_user(from, &user);
            return true;
        }
        if p.to != u32::MAX {
            return false;
        }
        // Our own node is in the view as its handshake said, and its channel numbers come
        // from the link's checked reading (`set_channel`): a packet with our number may
        // come from anyone.
        if Some(from) == self.me {
            return false;
        }
        let heard = Reception::of(p, now);
        let at = heard.at;
        if let Some((_, user)) = packet::node_info_user(p) {
            self.update_from_user(from, &user);
        } else if let Some((_, value)) = packet::position_report(p) {
            let e = self.entry(from);
            e.position = newest(e.position, Some(Heard { value, at }));
        } else if let Some(t) = payload_on::<Telemetry>(p, PortNum::TelemetryApp) {
            self.on_telemetry(from, t, at);
        } else if packet::decoded_on(p, PortNum::TextMessageApp).is_none() {
            return false;
        }
        let hops =
            (p.hop_start != 0 && p.hop_start >= p.hop_limit).then(|| p.hop_start - p.hop_limit);
        let snr = packet::rx_snr(p);
        let e = self.entry(from);
        // Hops and SNR are the newest news only: a replay heard before a later packet
        // does not undo what that one said.
        let newest_news = e.last_heard.is_none_or(|last| at >= last);
        e.heard(Some(at));
        if heard.live {
            e.heard_live = e.heard_live.max(Some(at));
        }
        if !newest_news {
            return true;
        }
        if hops.is_some() {
            e.hops_away = hops;
        }
        // The SNR our radio measured is the sender's only when it came straight to us.
        if hops == Some(0)
            && let Some(snr) = snr
        {
            e.snr = Some(snr);
        }
        true
    }

    /// A TELEMETRY_APP packet's readings, heard at `at`, unless newer ones are held.
    fn on_telemetry(&mut self, from: NodeId, t: Telemetry, at: i64) {
        match t.variant {
            Some(telemetry::Variant::DeviceMetrics(m)) => {
                if let Some(value) = device(&m) {
                    let e = self.entry(from);
                    e.device = newest(e.device, Some(Heard { value, at }));
                }
            }
            Some(telemetry::Variant::EnvironmentMetrics(m)) => {
                if let Some(value) = environment(&m) {
                    let e = self.entry(from);
                    e.environment = newest(e.environment, Some(Heard { value, at }));
                }
            }
            _ => {}
        }
    }

    /// Takes in a newer handshake's view: its nodes' names, last heard, hops, SNR, position
    /// and device metrics where it has them; what it lacks (environment readings, a newer
    /// reading heard since) stays.
    pub(crate) fn absorb(&mut self, newer: MeshView) {
        if newer.me.is_some() {
            self.me = newer.me;
        }
        self.channel = newest(self.channel, newer.channel);
        let mut nodes: Vec<(NodeId, NodeView)> = newer.nodes.into_iter().collect();
        nodes.sort_by_key(|(_, n)| n.seq);
        for (num, n) in nodes {
            let e = self.entry(num);
            for earlier in n.earlier_names {
                e.rename(earlier);
            }
            if let Some(names) = n.names {
                e.rename(names);
            }
            e.heard(n.first_heard);
            e.heard(n.last_heard);
            e.heard_live = e.heard_live.max(n.heard_live);
            if n.hops_away.is_some() {
                e.hops_away = n.hops_away;
            }
            if n.snr.is_some() {
                e.snr = n.snr;
            }
            e.position = newest(e.position, n.position);
            e.device = newest(e.device, n.device);
            e.environment = newest(e.environment, n.environment);
        }
    }

    pub(crate) fn get(&self, num: NodeId) -> Option<&NodeNames> {
        self.nodes.get(&num).and_then(|e| e.names.as_ref())
    }

    /// The node's latest known position.
    pub(crate) fn position(&self, num: NodeId) -> Option<GeoPoint> {
        self.nodes
            .get(&num)
            .and_then(|e| e.position.map(|p| p.value))
    }

    /// Everything the view holds of `num`.
    pub fn node(&self, num: NodeId) -> Option<&NodeView> {
        self.nodes.get(&num)
    }

    /// Every node, in no particular order.
    pub(crate) fn nodes(&self) -> impl Iterator<Item = (NodeId, &NodeView)> {
        self.nodes.iter().map(|(id, n)| (*id, n))
    }

    pub(crate) fn len(&self) -> usize {
        self.nodes.len()
    }
}

/// When our radio heard a packet, and whether the client got it as it happened.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Reception {
    /// Its `rx_time`; `now` when it has none (a node without a clock) or one in the future
    /// (a node whose clock runs ahead).
    at: i64,
    /// Heard within [`LIVE_WITHIN_SECS`] of `now`: not a replay, not queued for long.
    live: bool,
}

impl Reception {
    fn of(p: &MeshPacket, now: i64) -> Reception {
        let at = packet::rx_time(p).map_or(now, |t| t.min(now));
        Reception {
            at,
            live: now - at <= LIVE_WITHIN_SECS,
        }
    }
}

/// The newer of two readings (the second on a tie).
fn newest<T: Copy>(a: Option<Heard<T>>, b: Option<Heard<T>>) -> Option<Heard<T>> {
    match (a, b) {
        (Some(a), Some(b)) if a.at > b.at => Some(a),
        (a, None) => a,
        (_, b) => b,
    }
}

fn names_of(user: &User) -> NodeNames {
    NodeNames {
        long_name: clean_name(&user.long_name),
        short_name: clean_name(&user.short_name),
    }
}

/// Drops control characters and caps the length: names are chosen by strangers.
pub(super) fn clean_name(s: &str) -> String {
    s.chars()
        .filter(|c| !c.is_control())
        .take(MAX_NAME_CHARS)
        .collect::<String>()
        .trim()
        .to_string()
}

/// A percentage a node could have measured.
fn percent(v: f32) -> Option<f32> {
    (v.is_finite() && (0.0..=100.0).contains(&v)).then_some(v)
}

/// A finite value within `range`.
fn within(v: Option<f32>, range: std::ops::RangeInclusive<f32>) -> Option<f32> {
    v.filter(|v| v.is_finite() && range.contains(v))
}

/// The readings in a `DeviceMetrics` that are measurements; `None` when none is (the
/// all-zero default of a node whose telemetry has not ticked).
fn device(m: &DeviceMetrics) -> Option<Device> {
    let d = Device {
        battery_level: m.battery_level.filter(|&b| b > 0 && b <= 101),
        voltage: within(m.voltage, 0.01..=60.0),
        channel_utilization: m.channel_utilization.and_then(percent),
        air_util_tx: m.air_util_tx.and_then(percent),
        uptime_seconds: m.uptime_seconds.filter(|&u| u > 0),
    };
    let nothing = d.battery_level.is_none()
        && d.voltage.is_none()
        && d.uptime_seconds.is_none()
        && d.channel_utilization.unwrap_or(0.0) == 0.0
        && d.air_util_tx.unwrap_or(0.0) == 0.0;
    (!nothing).then_some(d)
}

/// The readings in an `EnvironmentMetrics` within what a sensor can report; `None` when
/// none is.
fn environment(m: &EnvironmentMetrics) -> Option<Environment> {
    let e = Environment {
        temperature: within(m.temperature, -90.0..=70.0),
        relative_humidity: within(m.relative_humidity, 0.0..=100.0),
        barometric_pressure: within(m.barometric_pressure, 300.0..=1100.0),
        wind_speed: within(m.wind_speed, 0.0..=120.0),
        wind_direction: m.wind_direction.filter(|&d| d <= 360),
        lux: within(m.lux, 0.0..=200_000.0),
    };
    (e != Environment::default()).then_some(e)
}

#[cfg(test)]
mod tests;
