//! The handshake (`want_config_id` → `config_complete_id`) and the node DB it fills.
//!
//! Sans-IO: [`Handshake`] takes each `FromRadio` as it arrives and says when the node is
//! configured. The firmware sends `my_info`, node infos, metadata, channels and configs in
//! an order that varies by version, so every variant is handled whenever it comes.

use std::collections::{BTreeMap, HashMap};

use meshtastic::protobufs::{FromRadio, NodeInfo, User, channel, config, from_radio};

use super::packet::{self, DEFAULT_HOP_LIMIT};
use super::{ChannelMetrics, GeoPoint, LocalNode, LoraRegion, NodeNames, telemetry};
use crate::node::NodeId;

/// How many nodes the DB keeps; a busy mesh must not grow it without bound.
pub const MAX_NODES: usize = 4096;

/// Longest name kept, in characters: the firmware limits long names to ~40 bytes, so
/// anything longer is garbage that should not reach a prompt.
const MAX_NAME_CHARS: usize = 64;

/// Nonces the firmware treats specially (`SPECIAL_NONCE_ONLY_CONFIG`/`_ONLY_NODES`).
const SPECIAL_NONCES: [u32; 2] = [69420, 69421];

/// A random `want_config_id`: never 0 and never one of the special nonces.
pub fn new_nonce<R: rand::Rng + ?Sized>(rng: &mut R) -> u32 {
    loop {
        let n: u32 = rng.random();
        if n != 0 && !SPECIAL_NONCES.contains(&n) {
            return n;
        }
    }
}

/// What the DB keeps about one node.
#[derive(Debug, Clone, Default)]
struct NodeEntry {
    names: Option<NodeNames>,
    /// The latest position heard (node info or POSITION_APP packet).
    position: Option<GeoPoint>,
    /// The update sequence number, used to evict the least recently updated node when full.
    seq: u64,
}

/// Names and positions of the nodes the radio knows, from the handshake and later
/// NODEINFO_APP and POSITION_APP packets: only the latest of each per node, bounded.
#[derive(Debug, Clone, Default)]
pub struct NodeDb {
    nodes: HashMap<NodeId, NodeEntry>,
    /// Grows by one with every update.
    seq: u64,
    /// At most this many nodes are kept.
    capacity: usize,
}

impl NodeDb {
    pub fn new() -> Self {
        Self::with_capacity(MAX_NODES)
    }

    /// A DB bounded to `capacity` nodes (at least one).
    pub fn with_capacity(capacity: usize) -> Self {
        NodeDb {
            nodes: HashMap::new(),
            seq: 0,
            capacity: capacity.max(1),
        }
    }

    /// The entry for `num`, made room for (evicting the least recently updated node when
    /// full) and marked as just updated.
    fn entry(&mut self, num: NodeId) -> &mut NodeEntry {
        if !self.nodes.contains_key(&num) && self.nodes.len() >= self.capacity.max(1) {
            let oldest = self
                .nodes
                .iter()
                .min_by_key(|(_, e)| e.seq)
                .map(|(id, _)| *id);
            if let Some(oldest) = oldest {
                self.nodes.remove(&oldest);
            }
        }
        self.seq += 1;
        let entry = self.nodes.entry(num).or_default();
        entry.seq = self.seq;
        entry
    }

    /// Records a node's names, evicting the least recently updated node when full.
    pub fn insert(&mut self, num: NodeId, names: NodeNames) {
        self.entry(num).names = Some(names);
    }

    /// Records a node's latest position.
    pub fn set_position(&mut self, num: NodeId, position: GeoPoint) {
        self.entry(num).position = Some(position);
    }

    /// Records what a node info says: names and, when it has one, the position.
    pub fn update_from_node_info(&mut self, n: &NodeInfo) {
        let num = NodeId(n.num);
        if let Some(user) = &n.user {
            self.update_from_user(num, user);
        }
        if let Some(point) = n.position.as_ref().and_then(packet::geo_point) {
            self.set_position(num, point);
        }
    }

    /// Records the names from a `User` (a node info or a NODEINFO_APP packet).
    pub fn update_from_user(&mut self, num: NodeId, user: &User) {
        self.insert(
            num,
            NodeNames {
                long_name: clean_name(&user.long_name),
                short_name: clean_name(&user.short_name),
            },
        );
    }

    pub fn get(&self, num: NodeId) -> Option<&NodeNames> {
        self.nodes.get(&num).and_then(|e| e.names.as_ref())
    }

    /// The node's latest known position.
    pub fn position(&self, num: NodeId) -> Option<GeoPoint> {
        self.nodes.get(&num).and_then(|e| e.position)
    }

    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }
}

/// Drops control characters and caps the length: names are chosen by strangers.
fn clean_name(s: &str) -> String {
    s.chars()
        .filter(|c| !c.is_control())
        .take(MAX_NAME_CHARS)
        .collect::<String>()
        .trim()
        .to_string()
}

/// The handshake in progress: collects what the node sends until `config_complete_id`.
#[derive(Debug)]
pub struct Handshake {
    nonce: u32,
    /// From `my_info`; the handshake is not complete without it.
    my_num: Option<NodeId>,
    db: NodeDb,
    firmware_version: String,
    /// Enabled channels by index; a later message for the same index replaces the earlier.
    channels: BTreeMap<u32, String>,
    /// From `config.lora`; `None` or 0 means the default.
    hop_limit: Option<u32>,
    /// From `my_info`; 0 when the firmware does not count boots.
    reboot_count: u32,
    /// From `config.lora`.
    region: Option<LoraRegion>,
    /// The channel numbers in our own node info. Only a node info after `my_info` can be
    /// known as ours; the firmware always sends `my_info` first.
    own_metrics: Option<ChannelMetrics>,
    /// Our own node info's `user.is_licensed` (the same rule: only after `my_info`).
    licensed: bool,
}

impl Handshake {
    pub fn new(nonce: u32) -> Self {
        Handshake {
            nonce,
            my_num: None,
            db: NodeDb::new(),
            firmware_version: String::new(),
            channels: BTreeMap::new(),
            hop_limit: None,
            reboot_count: 0,
            region: None,
            own_metrics: None,
            licensed: false,
        }
    }

    /// The nonce sent in `want_config_id`.
    pub fn nonce(&self) -> u32 {
        self.nonce
    }

    /// The node's region and its duty-cycle limit, once `config.lora` came.
    pub fn region(&self) -> Option<LoraRegion> {
        self.region
    }

    /// The channel numbers our own node info carried, when it carried a measurement.
    pub fn own_metrics(&self) -> Option<ChannelMetrics> {
        self.own_metrics
    }

    /// Takes one message; returns the local node and the node DB once the node has sent
    /// `config_complete_id` with our nonce (a stale id from an earlier request is ignored)
    /// and `my_info` has been seen.
    pub fn on_message(&mut self, msg: &FromRadio) -> Option<(LocalNode, NodeDb)> {
        use from_radio::PayloadVariant as V;
        match msg.payload_variant.as_ref()? {
            V::MyInfo(info) => {
                self.my_num = Some(NodeId(info.my_node_num));
                self.reboot_count = info.reboot_count;
            }
            V::NodeInfo(n) => {
                if self.my_num == Some(NodeId(n.num)) {
                    self.own_metrics = n
                        .device_metrics
                        .as_ref()
                        .and_then(telemetry::from_device_metrics);
                    self.licensed = n.user.as_ref().is_some_and(|u| u.is_licensed);
                }
                self.db.update_from_node_info(n);
            }
            V::Metadata(m) => self.firmware_version = clean_name(&m.firmware_version),
            V::Channel(c) => {
                if let Ok(index) = u32::try_from(c.index) {
                    if c.role == channel::Role::Disabled as i32 {
                        self.channels.remove(&index);
                    } else {
                        let name = c.settings.as_ref().map(|s| s.name.as_str());
                        self.channels.insert(index, clean_name(name.unwrap_or("")));
                    }
                }
            }
            V::Config(c) => {
                if let Some(config::PayloadVariant::Lora(lora)) = &c.payload_variant {
                    self.hop_limit = Some(lora.hop_limit);
                    self.region = Some(telemetry::region(lora));
                }
            }
            V::ConfigCompleteId(id) if *id == self.nonce => return self.finish(),
            V::ConfigCompleteId(id) => {
                tracing::debug!(id, nonce = self.nonce, "stale config_complete_id ignored");
            }
            _ => {}
        }
        None
    }

    fn finish(&mut self) -> Option<(LocalNode, NodeDb)> {
        let Some(num) = self.my_num else {
            tracing::warn!("config complete without my_info; waiting");
            return None;
        };
        let db = std::mem::take(&mut self.db);
        let local = LocalNode {
            num,
            names: db.get(num).cloned().unwrap_or_default(),
            firmware_version: self.firmware_version.clone(),
            hop_limit: self
                .hop_limit
                .filter(|&h| h != 0)
                .unwrap_or(DEFAULT_HOP_LIMIT),
            channels: self.channels.iter().map(|(i, n)| (*i, n.clone())).collect(),
            known_nodes: db.len(),
            reboot_count: self.reboot_count,
            licensed: self.licensed,
        };
        Some((local, db))
    }
}

#[cfg(test)]
mod tests;
