//! The simulated firmware's behaviour as a sans-IO state machine: it takes one `ToRadio`
//! (and the time) and returns what to send back. It also keeps the record tests assert on.
//!
//! Modelled on `PhoneAPI.cpp`/`MeshService.cpp` of firmware 2.7: a text sent less than
//! `min_text_gap` after the previous accepted one is refused with RATE_LIMIT_EXCEEDED (38),
//! a packet id seen in the last 10 minutes is dropped silently, every other packet gets a
//! `queueStatus`, and a heartbeat (nonce 0) is answered with one too.

use std::collections::VecDeque;
use std::time::Duration;

use meshtastic::Message;
use meshtastic::protobufs::config::lo_ra_config::RegionCode;
use meshtastic::protobufs::{
    AdminMessage, FromRadio, MeshPacket, PortNum, SharedContact, ToRadio, admin_message,
    from_radio, mesh_packet, to_radio,
};
use tokio::time::Instant;

use super::packets::{self, BROADCAST};

/// RATE_LIMIT_EXCEEDED in `Routing.Error`.
pub const RATE_LIMIT_EXCEEDED: i32 = 38;
/// PKI_FAILED in `Routing.Error`: what a node that cannot PKI-encrypt a PKI-only text answers.
pub const PKI_FAILED: i32 = 34;
/// PKI_UNKNOWN_PUBKEY in `Routing.Error`: our node holds no key for the destination.
pub const PKI_UNKNOWN_PUBKEY: i32 = 35;
/// How long the firmware remembers a packet id it was given (`FLOOD_EXPIRE_TIME`).
const SEEN_FOR: Duration = Duration::from_secs(600);
/// Bound on the remembered ids, so a flood cannot grow the sim without limit.
const SEEN_MAX: usize = 1024;

/// Another node in the simulated node DB.
#[derive(Debug, Clone, PartialEq)]
pub struct SimPeer {
    pub num: u32,
    pub long_name: String,
    pub short_name: String,
    /// `(latitude_i, longitude_i)` (degrees × 1e7) in its node info; `None`: no position.
    pub position: Option<(i32, i32)>,
    /// Its node info's `last_heard`: this many seconds before the handshake; `None`: the
    /// fixed time of old tests (2025-06-15).
    pub heard_ago: Option<u32>,
    /// Its node info's `hops_away`.
    pub hops_away: Option<u32>,
    /// Its node info's `snr`.
    pub snr: f32,
    /// `(battery_level, voltage)` in its node info's `device_metrics`.
    pub battery: Option<(u32, f32)>,
}

impl SimPeer {
    pub fn new(num: u32, long_name: &str, short_name: &str) -> Self {
        SimPeer {
            num,
            long_name: long_name.to_string(),
            short_name: short_name.to_string(),
            position: None,
            heard_ago: None,
            hops_away: None,
            snr: 0.0,
            battery: None,
        }
    }

    /// The same peer, last heard `secs` before the handshake, `hops` away (SNR `snr` dB).
    pub fn heard(self, secs: u32, hops: u32, snr: f32) -> Self {
        SimPeer {
            heard_ago: Some(secs),
            hops_away: Some(hops),
            snr,
            ..self
        }
    }

    /// The same peer, reporting its battery (0–100, 101 = powered) and voltage.
    pub fn battery(self, level: u32, voltage: f32) -> Self {
        SimPeer {
            battery: Some((level, voltage)),
            ..self
        }
    }

    /// The same peer, sharing a position (degrees × 1e7).
    pub fn at(self, latitude_i: i32, longitude_i: i32) -> Self {
        SimPeer {
            position: Some((latitude_i, longitude_i)),
            ..self
        }
    }
}

/// How the simulated node is set up.
#[derive(Debug, Clone)]
pub struct SimConfig {
    pub node_num: u32,
    pub long_name: String,
    pub short_name: String,
    /// Our node's `(latitude_i, longitude_i)` in its own node info; `None` is reported as
    /// 0/0, the way firmware 2.7 says "no fix".
    pub position: Option<(i32, i32)>,
    /// Reported as `config.lora.hop_limit`.
    pub hop_limit: u32,
    pub firmware_version: String,
    /// Time between accepting a `want_ack` text and its routing answer.
    pub ack_delay: Duration,
    /// The firmware's text rate limit: 2 s in 2.7.
    pub min_text_gap: Duration,
    /// Write firmware log lines between frames, as a node on USB serial does.
    pub log_text: bool,
    /// Other nodes reported in the handshake.
    pub peers: Vec<SimPeer>,
    /// Names of channels 1.. (secondary); the rest of the 8 are disabled.
    pub secondary_channels: Vec<String>,
    /// `QueueStatus.free` to report; 0 means the TX queue is full.
    pub queue_free: u32,
    /// Firmware ≥ 2.7.5 answers a heartbeat with a `queueStatus`; older ones stay silent.
    pub answer_heartbeats: bool,
    /// `(channel_utilization, air_util_tx)` in our own node info at the handshake, as once
    /// the telemetry module has ticked; `None`: not measured yet (no `device_metrics`).
    pub device_metrics: Option<(f32, f32)>,
    /// Reported as `config.lora.region`.
    pub region: RegionCode,
    /// Reported as `config.lora.override_duty_cycle`.
    pub override_duty_cycle: bool,
    /// Destinations that never answer a text: no ACK, no NAK, as a forged id (nobody has it)
    /// or a node out of range. Texts to them take no scripted ack plan.
    pub never_ack: Vec<u32>,
    /// Our node's own `User.is_licensed` at the handshake (licensed, ham, mode: PKI off).
    pub licensed: bool,
    /// Hand over the node DB as firmware 2.8 does: thin node infos for the other nodes,
    /// then their positions and device metrics replayed as broadcasts with their original
    /// `rx_time` after `config_complete_id`.
    pub firmware_28: bool,
    /// Firmware 2.8's status message (`ModuleConfig.statusmessage`): reported at each
    /// handshake of a `firmware_28` node, set by `AdminMessage.set_module_config`.
    pub node_status: String,
}

impl Default for SimConfig {
    fn default() -> Self {
        SimConfig {
            node_num: 0x1234_5678,
            long_name: "Sim Base".to_string(),
            short_name: "SIMB".to_string(),
            position: None,
            hop_limit: 3,
            firmware_version: "2.7.26.sim".to_string(),
            ack_delay: Duration::from_millis(300),
            min_text_gap: Duration::from_secs(2),
            log_text: false,
            peers: Vec::new(),
            secondary_channels: Vec::new(),
            queue_free: packets::QUEUE_MAXLEN,
            answer_heartbeats: true,
            device_metrics: None,
            region: RegionCode::Eu868,
            override_duty_cycle: false,
            never_ack: Vec::new(),
            licensed: false,
            firmware_28: false,
            node_status: String::new(),
        }
    }
}

/// What happens to the next `want_ack` text the node accepts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AckPlan {
    /// A real ACK, `from` the destination.
    Ack,
    /// An ACK `from` our own node: a relay was heard, delivery unknown.
    ImplicitAck,
    /// A NAK with this `Routing.Error` reason, from our own node.
    Nak(i32),
    /// No answer at all beyond the `queueStatus`.
    Silent,
}

/// One text the node accepted from the client.
#[derive(Debug, Clone, PartialEq)]
pub struct SentText {
    pub id: u32,
    pub to: u32,
    pub channel: u32,
    pub hop_limit: u32,
    pub want_ack: bool,
    pub priority: i32,
    /// `decoded.reply_id`, when non-zero.
    pub reply_id: Option<u32>,
    /// The payload decoded lossily; `payload` keeps the exact bytes (to check UTF-8 and size).
    pub text: String,
    pub payload: Vec<u8>,
    /// The routing answer chosen for it (`None` when it did not ask for an ACK).
    pub plan: Option<AckPlan>,
    /// The client set `pki_encrypted`: PKI or not at all.
    pub pki_encrypted: bool,
    pub at: Instant,
}

/// One `ToRadio` as received.
#[derive(Debug, Clone, PartialEq)]
pub struct ReceivedToRadio {
    pub at: Instant,
    pub msg: ToRadio,
}

/// Everything the node saw, for assertions.
#[derive(Debug, Clone, Default)]
pub struct SimLog {
    /// Texts the node accepted and sent (or is sending).
    pub texts: Vec<SentText>,
    /// Texts a reboot took out of the node's TX queue before their routing answer: they
    /// never went out (moved here from `texts`).
    pub lost_in_reboot: Vec<SentText>,
    pub to_radio: Vec<ReceivedToRadio>,
    /// `want_config_id` nonces, in order.
    pub nonces: Vec<u32>,
    /// Heartbeats with nonce 0 (keep-alives).
    pub heartbeats: u32,
    /// Heartbeats with nonce 1, which make a real node broadcast its NodeInfo.
    pub nodeinfo_pings: u32,
    /// Client connections accepted (or streams attached).
    pub connections: u32,
    /// Clients force-closed because a newer one connected (the firmware's "Force close
    /// previous TCP connection": its TCP API serves one client).
    pub kicked: u32,
    pub rate_limit_refusals: u32,
    /// Packets dropped because their id was seen recently.
    pub duplicate_drops: u32,
    /// `ToRadio.disconnect` requests.
    pub disconnects: u32,
    /// Bytes outside frames (the serial wake-up, noise).
    pub stray_bytes: usize,
    /// Frames that did not decode as `ToRadio`.
    pub bad_frames: u32,
    /// Mesh packets for the client dropped because its queue was full (the oldest goes, as
    /// in the firmware): a DM the client never saw, or an ACK it waits for in vain.
    pub to_client_dropped: u32,
    /// `AdminMessage.add_contact`s from the client to our node: the contact's node, its
    /// `User` as given, and whether it was to be ignored or marked verified.
    pub contacts: Vec<SharedContact>,
    /// Status messages the client set (`set_module_config` with `statusmessage`), in order,
    /// and whether the node was on firmware 2.8 then (an older one would have rebooted).
    pub node_statuses: Vec<(String, bool)>,
}

impl SimLog {
    /// How many handshakes the node answered.
    pub fn handshakes(&self) -> usize {
        self.nonces.len()
    }
}

/// What the I/O side must do after a `ToRadio`.
#[derive(Debug, Clone, PartialEq)]
pub enum Action {
    /// Write at once, ahead of queued mesh packets.
    Reply(FromRadio),
    /// Write at once: firmware 2.8's status message module config (the 2.7 protobufs of the
    /// `meshtastic` crate cannot say it).
    ReplyStatus(String),
    /// The handshake answer is complete: the session may now get mesh packets.
    Ready,
    /// Queue a mesh packet for the client after `after`. `answers` is the text it is the
    /// routing answer for: that one is dropped if a reboot lost the text meanwhile.
    Deliver {
        after: Duration,
        msg: FromRadio,
        answers: Option<u32>,
    },
    /// End the session.
    Close,
}

/// The firmware state plus the record.
#[derive(Debug)]
pub struct Firmware {
    pub cfg: SimConfig,
    /// Scripted answers for the next `want_ack` texts; empty means [`AckPlan::Ack`].
    pub ack_plans: VecDeque<AckPlan>,
    /// Cut the connection right after accepting the next text, before its `queueStatus` goes
    /// out (the text is sent and its routing answer kept for the next client).
    pub cut_after_next_text: bool,
    /// Destinations our node cannot PKI-encrypt for, with the NAK reason (34, 35 or 39) a
    /// text sent to them with `pki_encrypted` gets instead of going out.
    pub pki_naks: Vec<(u32, i32)>,
    /// A contact with a key does not make its node's PKI_UNKNOWN_PUBKEY NAKs stop (a node
    /// that keeps refusing, or evicts the key at once again).
    pub keep_pki_naks: bool,
    /// When the last text was accepted: the rate limit counts from there.
    last_text_at: Option<Instant>,
    /// Ids the client used recently; the firmware drops a packet whose id it saw.
    seen: VecDeque<(u32, Instant)>,
    /// Source of fresh packet ids for what the node originates.
    next_id: u32,
    /// Texts still in the TX queue: accepted, their routing answer not yet delivered.
    unanswered: Vec<u32>,
    /// `my_info.reboot_count`, one more after each reboot (an ESP32 node counts boots).
    pub reboot_count: u32,
    pub log: SimLog,
}

impl Firmware {
    pub fn new(cfg: SimConfig) -> Self {
        Firmware {
            cfg,
            ack_plans: VecDeque::new(),
            cut_after_next_text: false,
            pki_naks: Vec::new(),
            keep_pki_naks: false,
            last_text_at: None,
            seen: VecDeque::new(),
            next_id: 0x5100_0001,
            unanswered: Vec::new(),
            reboot_count: 3,
            log: SimLog::default(),
        }
    }

    /// A fresh, non-zero packet id.
    pub fn fresh_id(&mut self) -> u32 {
        let id = self.next_id;
        self.next_id = self.next_id.wrapping_add(1).max(1);
        id
    }

    /// A reboot forgets the rate limiter, the seen ids and the TX queue, like a real restart:
    /// texts still waiting for their routing answer never go out.
    pub fn reboot(&mut self) {
        self.last_text_at = None;
        self.seen.clear();
        self.reboot_count += 1;
        for id in std::mem::take(&mut self.unanswered) {
            if let Some(i) = self.log.texts.iter().rposition(|t| t.id == id) {
                let lost = self.log.texts.remove(i);
                self.log.lost_in_reboot.push(lost);
            }
        }
    }

    /// Whether every text the node took has had its routing answer (an ACK, NAK or
    /// nothing for a silent plan) produced.
    pub fn all_answered(&self) -> bool {
        self.unanswered.is_empty()
    }

    /// Whether a delivery may still happen: a routing answer only while its text is still
    /// queued (a reboot lost it otherwise); everything else always.
    pub fn take_answer(&mut self, answers: Option<u32>) -> bool {
        let Some(id) = answers else {
            return true;
        };
        match self.unanswered.iter().position(|&u| u == id) {
            Some(i) => {
                self.unanswered.remove(i);
                true
            }
            None => false,
        }
    }

    /// Handles one frame's payload.
    pub fn on_frame(&mut self, payload: &[u8], now: Instant) -> Vec<Action> {
        match ToRadio::decode(payload) {
            Ok(msg) => self.on_to_radio(msg, now),
            Err(e) => {
                tracing::warn!(error = %e, len = payload.len(), "sim: undecodable ToRadio");
                self.log.bad_frames += 1;
                Vec::new()
            }
        }
    }

    fn on_to_radio(&mut self, msg: ToRadio, now: Instant) -> Vec<Action> {
        self.log.to_radio.push(ReceivedToRadio {
            at: now,
            msg: msg.clone(),
        });
        match msg.payload_variant {
            Some(to_radio::PayloadVariant::WantConfigId(nonce)) => {
                self.log.nonces.push(nonce);
                let mut out: Vec<Action> = packets::handshake(&self.cfg, nonce, self.reboot_count)
                    .into_iter()
                    .map(Action::Reply)
                    .collect();
                // 2.8 sends the status message's module config with the other module
                // configs, before `config_complete_id`.
                let complete = out.iter().position(|a| {
                    matches!(a, Action::Reply(m) if matches!(m.payload_variant, Some(from_radio::PayloadVariant::ConfigCompleteId(_))))
                });
                if let (true, Some(at), false) = (
                    self.cfg.firmware_28,
                    complete,
                    nonce == packets::NONCE_ONLY_NODES,
                ) {
                    out.insert(at, Action::ReplyStatus(self.cfg.node_status.clone()));
                }
                out.push(Action::Ready);
                out
            }
            Some(to_radio::PayloadVariant::Packet(p)) => self.on_packet(p, now),
            Some(to_radio::PayloadVariant::Heartbeat(hb)) if hb.nonce == 1 => {
                self.log.nodeinfo_pings += 1;
                Vec::new()
            }
            Some(to_radio::PayloadVariant::Heartbeat(_)) => {
                self.log.heartbeats += 1;
                if self.cfg.answer_heartbeats {
                    vec![Action::Reply(packets::queue_status(self.cfg.queue_free, 0))]
                } else {
                    Vec::new()
                }
            }
            Some(to_radio::PayloadVariant::Disconnect(_)) => {
                self.log.disconnects += 1;
                vec![Action::Close]
            }
            _ => Vec::new(),
        }
    }

    /// Records `id` as seen; true if it already was (then the firmware drops the packet).
    fn seen_before(&mut self, id: u32, now: Instant) -> bool {
        while let Some(&(_, at)) = self.seen.front() {
            if now.duration_since(at) < SEEN_FOR && self.seen.len() < SEEN_MAX {
                break;
            }
            self.seen.pop_front();
        }
        if self.seen.iter().any(|&(s, _)| s == id) {
            return true;
        }
        self.seen.push_back((id, now));
        false
    }

    /// Local admin (no session passkey needed from the API client): `add_contact` puts the
    /// node and its key in the node list (NodeDB::addFromContact), so PKI_UNKNOWN_PUBKEY for
    /// it ends unless `keep_pki_naks`. Other admin messages are ignored.
    fn on_admin(&mut self, payload: &[u8]) {
        let Ok(admin) = AdminMessage::decode(payload) else {
            self.log.bad_frames += 1;
            return;
        };
        if let Some(status) = packets::set_status(payload) {
            let on_28 = self.cfg.firmware_28;
            if on_28 {
                self.cfg.node_status = status.clone();
            }
            self.log.node_statuses.push((status, on_28));
            return;
        }
        if let Some(admin_message::PayloadVariant::AddContact(c)) = admin.payload_variant {
            let has_key = c.user.as_ref().is_some_and(|u| u.public_key.len() == 32);
            if has_key && !self.keep_pki_naks {
                self.pki_naks
                    .retain(|&(to, reason)| !(to == c.node_num && reason == PKI_UNKNOWN_PUBKEY));
            }
            self.log.contacts.push(c);
        }
    }

    fn on_packet(&mut self, mut p: MeshPacket, now: Instant) -> Vec<Action> {
        if p.id != 0 && self.seen_before(p.id, now) {
            tracing::debug!(id = p.id, "sim: packet id seen recently, dropped");
            self.log.duplicate_drops += 1;
            return Vec::new();
        }
        if p.id == 0 {
            p.id = self.fresh_id();
        }
        let me = self.cfg.node_num;
        let status = Action::Reply(packets::queue_status(self.cfg.queue_free, p.id));
        let data = match &p.payload_variant {
            Some(mesh_packet::PayloadVariant::Decoded(d))
                if d.portnum == PortNum::TextMessageApp as i32 =>
            {
                d.clone()
            }
            Some(mesh_packet::PayloadVariant::Decoded(d))
                if d.portnum == PortNum::AdminApp as i32 && p.to == me =>
            {
                self.on_admin(&d.payload);
                return vec![status];
            }
            _ => return vec![status],
        };
        let too_soon = self
            .last_text_at
            .is_some_and(|last| now.duration_since(last) < self.cfg.min_text_gap);
        if too_soon {
            tracing::debug!(id = p.id, "sim: text rate limited");
            self.log.rate_limit_refusals += 1;
            let nak_id = self.fresh_id();
            let nak = packets::routing(me, me, p.channel, nak_id, p.id, RATE_LIMIT_EXCEEDED);
            return vec![
                status,
                Action::Deliver {
                    after: Duration::ZERO,
                    msg: nak,
                    answers: None,
                },
            ];
        }
        self.last_text_at = Some(now);
        // Router.cpp: a client's zero-hop send that asks for an ACK goes at the node's limit.
        if p.want_ack && p.hop_limit == 0 {
            p.hop_limit = self.cfg.hop_limit;
        }
        // The firmware refuses a PKI-only text it cannot encrypt with a NAK of its own.
        let pki_nak = self
            .pki_naks
            .iter()
            .find(|(to, _)| p.pki_encrypted && *to == p.to)
            .map(|&(_, reason)| AckPlan::Nak(reason))
            .or_else(|| (self.cfg.licensed && p.pki_encrypted).then_some(AckPlan::Nak(PKI_FAILED)));
        let plan = match (pki_nak, p.want_ack) {
            (Some(nak), _) => Some(nak),
            (None, false) => None,
            (None, true) if self.cfg.never_ack.contains(&p.to) => Some(AckPlan::Silent),
            (None, true) => Some(self.ack_plans.pop_front().unwrap_or(AckPlan::Ack)),
        };
        self.log.texts.push(SentText {
            id: p.id,
            to: p.to,
            channel: p.channel,
            hop_limit: p.hop_limit,
            want_ack: p.want_ack,
            priority: p.priority,
            reply_id: (data.reply_id != 0).then_some(data.reply_id),
            text: String::from_utf8_lossy(&data.payload).into_owned(),
            payload: data.payload,
            plan,
            pki_encrypted: p.pki_encrypted,
            at: now,
        });
        let answer = match plan {
            None | Some(AckPlan::Silent) => None,
            // A broadcast is never ACKed by a destination: only the implicit ACK exists.
            Some(AckPlan::Ack) if p.to != BROADCAST => Some((p.to, 0)),
            Some(AckPlan::Ack | AckPlan::ImplicitAck) => Some((me, 0)),
            Some(AckPlan::Nak(reason)) => Some((me, reason)),
        };
        let mut out = if std::mem::take(&mut self.cut_after_next_text) {
            vec![Action::Close]
        } else {
            vec![status]
        };
        if let Some((from, reason)) = answer {
            let id = self.fresh_id();
            self.unanswered.push(p.id);
            out.push(Action::Deliver {
                after: self.cfg.ack_delay,
                msg: packets::routing(from, me, p.channel, id, p.id, reason),
                answers: Some(p.id),
            });
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use meshtastic::protobufs::{Data, Heartbeat, Routing, from_radio, routing};

    fn text(id: u32, to: u32, want_ack: bool) -> Vec<u8> {
        ToRadio {
            payload_variant: Some(to_radio::PayloadVariant::Packet(MeshPacket {
                id,
                to,
                hop_limit: 3,
                want_ack,
                payload_variant: Some(mesh_packet::PayloadVariant::Decoded(Data {
                    portnum: PortNum::TextMessageApp as i32,
                    payload: b"hi".to_vec(),
                    ..Default::default()
                })),
                ..Default::default()
            })),
        }
        .encode_to_vec()
    }

    /// Summarises actions as (kind, from, request_id, reason, delay ms) for table checks.
    fn summary(actions: &[Action]) -> Vec<String> {
        actions
            .iter()
            .map(|a| match a {
                Action::Reply(m) => match &m.payload_variant {
                    Some(from_radio::PayloadVariant::QueueStatus(q)) => {
                        format!("queue {} {}", q.free, q.mesh_packet_id)
                    }
                    Some(from_radio::PayloadVariant::ConfigCompleteId(n)) => {
                        format!("complete {n}")
                    }
                    _ => "reply".to_string(),
                },
                Action::ReplyStatus(_) => "status".to_string(),
                Action::Ready => "ready".to_string(),
                Action::Close => "close".to_string(),
                Action::Deliver { after, msg, .. } => {
                    let Some(from_radio::PayloadVariant::Packet(p)) = &msg.payload_variant else {
                        return "deliver ?".to_string();
                    };
                    let Some(mesh_packet::PayloadVariant::Decoded(d)) = &p.payload_variant else {
                        return "deliver ?".to_string();
                    };
                    let r = Routing::decode(d.payload.as_slice()).unwrap();
                    let Some(routing::Variant::ErrorReason(reason)) = r.variant else {
                        return "deliver ?".to_string();
                    };
                    format!(
                        "routing from {:x} req {} reason {} after {}ms",
                        p.from,
                        d.request_id,
                        reason,
                        after.as_millis()
                    )
                }
            })
            .collect()
    }

    #[test]
    fn answers_packets_like_the_firmware() {
        let t0 = Instant::now();
        let ms = |n: u64| t0 + Duration::from_millis(n);
        let heartbeat = ToRadio {
            payload_variant: Some(to_radio::PayloadVariant::Heartbeat(Heartbeat { nonce: 0 })),
        }
        .encode_to_vec();
        // (input, time, ack plan to push first, expected actions)
        type Step = (Vec<u8>, Instant, Option<AckPlan>, Vec<&'static str>);
        let steps: Vec<Step> = vec![
            (
                text(7, 0xAA, true),
                ms(0),
                None,
                vec!["queue 16 7", "routing from aa req 7 reason 0 after 300ms"],
            ),
            (
                text(8, 0xAA, true),
                ms(1999),
                None,
                vec![
                    "queue 16 8",
                    "routing from 12345678 req 8 reason 38 after 0ms",
                ],
            ),
            (text(8, 0xAA, true), ms(5000), None, vec![]),
            (
                text(9, 0xAA, true),
                ms(5000),
                Some(AckPlan::ImplicitAck),
                vec![
                    "queue 16 9",
                    "routing from 12345678 req 9 reason 0 after 300ms",
                ],
            ),
            (
                text(10, 0xAA, true),
                ms(7000),
                Some(AckPlan::Nak(5)),
                vec![
                    "queue 16 10",
                    "routing from 12345678 req 10 reason 5 after 300ms",
                ],
            ),
            (
                text(11, 0xAA, true),
                ms(9000),
                Some(AckPlan::Silent),
                vec!["queue 16 11"],
            ),
            (text(12, 0xAA, false), ms(11000), None, vec!["queue 16 12"]),
            (
                text(13, BROADCAST, true),
                ms(13000),
                None,
                vec![
                    "queue 16 13",
                    "routing from 12345678 req 13 reason 0 after 300ms",
                ],
            ),
            (heartbeat, ms(13000), None, vec!["queue 16 0"]),
            (vec![0xFF, 0xFF], ms(13000), None, vec![]),
        ];
        let mut fw = Firmware::new(SimConfig::default());
        for (i, (input, now, plan, expect)) in steps.into_iter().enumerate() {
            fw.ack_plans.extend(plan);
            let got = summary(&fw.on_frame(&input, now));
            assert_eq!(got, expect, "step {i}");
        }
        let ids: Vec<u32> = fw.log.texts.iter().map(|t| t.id).collect();
        assert_eq!(ids, [7, 9, 10, 11, 12, 13]);
        assert_eq!(fw.log.rate_limit_refusals, 1);
        assert_eq!(fw.log.duplicate_drops, 1);
        assert_eq!(fw.log.heartbeats, 1);
        assert_eq!(fw.log.bad_frames, 1);
    }

    #[test]
    fn a_reboot_loses_the_texts_still_waiting_for_their_answer() {
        let t0 = Instant::now();
        let mut fw = Firmware::new(SimConfig::default());
        fw.on_frame(&text(7, 0xAA, true), t0);
        assert!(fw.take_answer(Some(7)), "7 answered before the reboot");
        fw.on_frame(&text(8, 0xAA, true), t0 + Duration::from_secs(3));
        fw.reboot();
        assert!(!fw.take_answer(Some(8)), "8's answer never comes");
        assert!(fw.take_answer(None), "other deliveries go on");
        let ids = |texts: &[SentText]| texts.iter().map(|t| t.id).collect::<Vec<_>>();
        assert_eq!(ids(&fw.log.texts), [7]);
        assert_eq!(ids(&fw.log.lost_in_reboot), [8]);
        assert_eq!(fw.reboot_count, 4);
    }

    #[test]
    fn a_pki_text_it_cannot_encrypt_gets_its_nak() {
        let t0 = Instant::now();
        let mut fw = Firmware::new(SimConfig::default());
        fw.pki_naks.push((0xAA, 35));
        let pki_text = |id: u32, to: u32| {
            let mut msg = ToRadio::decode(text(id, to, true).as_slice()).unwrap();
            if let Some(to_radio::PayloadVariant::Packet(p)) = &mut msg.payload_variant {
                p.pki_encrypted = true;
            }
            msg.encode_to_vec()
        };
        let s = Duration::from_secs;
        let steps = [
            (
                pki_text(1, 0xAA),
                t0,
                "routing from 12345678 req 1 reason 35 after 300ms",
            ),
            (
                text(2, 0xAA, true),
                t0 + s(3),
                "routing from aa req 2 reason 0 after 300ms",
            ),
            (
                pki_text(3, 0xBB),
                t0 + s(6),
                "routing from bb req 3 reason 0 after 300ms",
            ),
        ];
        for (input, now, want) in steps {
            let got = summary(&fw.on_frame(&input, now));
            assert_eq!(got[1], want);
        }
        let flags: Vec<bool> = fw.log.texts.iter().map(|t| t.pki_encrypted).collect();
        assert_eq!(flags, [true, false, true]);
    }

    #[test]
    fn a_node_that_never_acks_gets_no_answer_and_takes_no_plan() {
        let mut fw = Firmware::new(SimConfig {
            never_ack: vec![0xBB],
            ..SimConfig::default()
        });
        fw.ack_plans.push_back(AckPlan::Nak(5));
        let t0 = Instant::now();
        let got = summary(&fw.on_frame(&text(7, 0xBB, true), t0));
        assert_eq!(got, ["queue 16 7"]);
        let got = summary(&fw.on_frame(&text(8, 0xAA, true), t0 + Duration::from_secs(2)));
        assert_eq!(
            got,
            [
                "queue 16 8",
                "routing from 12345678 req 8 reason 5 after 300ms"
            ]
        );
        assert_eq!(fw.log.texts[0].plan, Some(AckPlan::Silent));
    }

    #[test]
    fn handshake_ends_with_the_nonce_then_ready() {
        let mut fw = Firmware::new(SimConfig::default());
        let want = ToRadio {
            payload_variant: Some(to_radio::PayloadVariant::WantConfigId(42)),
        }
        .encode_to_vec();
        let got = summary(&fw.on_frame(&want, Instant::now()));
        assert_eq!(got[got.len() - 2..], ["complete 42", "ready"]);
        assert_eq!(fw.log.nonces, [42]);
    }
}
