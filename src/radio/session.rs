//! The handshake (`want_config_id` → `config_complete_id`) and the mesh view it fills.
//!
//! Sans-IO: [`Handshake`] takes each `FromRadio` as it arrives and says when the node is
//! configured. The firmware sends `my_info`, node infos, metadata, channels and configs in
//! an order that varies by version, so every variant is handled whenever it comes.

use std::collections::BTreeMap;

use meshtastic::protobufs::{FromRadio, channel, config, from_radio};

use super::packet::DEFAULT_HOP_LIMIT;
use super::view::{MeshView, clean_name};
use super::{ChannelMetrics, LocalNode, LoraRegion, telemetry};
use crate::node::NodeId;

/// Nonces the firmware treats specially (`SPECIAL_NONCE_ONLY_CONFIG`/`_ONLY_NODES`).
const SPECIAL_NONCES: [u32; 2] = [69420, 69421];

/// A random `want_config_id`: never 0 and never one of the special nonces.
pub(crate) fn new_nonce<R: rand::Rng + ?Sized>(rng: &mut R) -> u32 {
    loop {
        let n: u32 = rng.random();
        if n != 0 && !SPECIAL_NONCES.contains(&n) {
            return n;
        }
    }
}

/// The handshake in progress: collects what the node sends until `config_complete_id`.
#[derive(Debug)]
pub(crate) struct Handshake {
    nonce: u32,
    /// From `my_info`; the handshake is not complete without it.
    my_num: Option<NodeId>,
    /// The node DB as the node hands it over: the mesh view's start.
    db: MeshView,
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
            db: MeshView::new(),
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
    pub(crate) fn nonce(&self) -> u32 {
        self.nonce
    }

    /// The node's region and its duty-cycle limit, once `config.lora` came.
    pub(crate) fn region(&self) -> Option<LoraRegion> {
        self.region
    }

    /// The channel numbers our own node info carried, when it carried a measurement.
    pub(crate) fn own_metrics(&self) -> Option<ChannelMetrics> {
        self.own_metrics
    }

    /// Takes one message; returns the local node and the mesh view once the node has sent
    /// `config_complete_id` with our nonce (a stale id from an earlier request is ignored)
    /// and `my_info` has been seen.
    pub(crate) fn on_message(&mut self, msg: &FromRadio) -> Option<(LocalNode, MeshView)> {
        use from_radio::PayloadVariant as V;
        match msg.payload_variant.as_ref()? {
            V::MyInfo(info) => {
                self.my_num = Some(NodeId(info.my_node_num));
                self.db.set_me(NodeId(info.my_node_num));
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

    fn finish(&mut self) -> Option<(LocalNode, MeshView)> {
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
