//! The radio link: everything that touches the Meshtastic node.
//!
//! Only this module knows protobufs. The rest of the daemon sees typed [`Inbound`]
//! events and talks to the node through the [`OutboxHandle`], the only thing that sends.
//!
//! Layout, along the data path:
//! - `codec`: sans-IO stream framing (`0x94 0xC3` + u16 length + protobuf).
//! - `transport`: the kinds of link (serial, TCP), chosen here only, and the connection.
//! - `session`: sans-IO handshake (`want_config_id` → `config_complete_id`).
//! - `view`: sans-IO mesh view ([`MeshView`]): per node the latest names, last heard, hops,
//!   SNR, position and readings — the link's node DB and what answers about the mesh use.
//! - `inbound`: sans-IO DM filter and the `(from, id)` dedup cache.
//! - `telemetry`: sans-IO reading of our node's channel numbers (device metrics, local stats)
//!   and the LoRa region's duty-cycle limit.
//! - `hops`: sans-IO: how far a reply goes (the firmware's rule for its own answers).
//! - `time_on_air`: the LoRa time-on-air estimate of a text packet (Semtech's formula).
//! - `packet`: builds and reads the protobuf messages (`ToRadio`, `FromRadio`).
//! - `link`: the supervisor task: connect, handshake, read, heartbeat, reconnect with backoff.
//! - `takeover`: sans-IO: whether another client keeps taking the node's TCP API, and how
//!   long to leave it alone before taking it back.
//! - `activity`: the link's counters (last frame, ready since, takeovers) for the status file
//!   and `!status`.
//! - `down`: why the link went down ([`DownReason`]), typed for the advice, shown as text.
//! - `outbox`: the paced, ACK-driven send queue (a sans-IO core plus its task).

pub(crate) mod activity;
pub(crate) mod backoff;
pub mod codec;
pub(crate) mod down;
pub(crate) mod hops;
pub(crate) mod inbound;
pub(crate) mod link;
mod node_status;
pub mod outbox;
pub(crate) mod packet;
pub(crate) mod session;
pub(crate) mod takeover;
pub(crate) mod telemetry;
pub mod time_on_air;
pub(crate) mod transport;
pub(crate) mod view;

use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime};

use crate::node::{NodeId, PublicKey};

pub use activity::{ActivitySnapshot, LinkActivity};
pub use down::DownReason;
pub(crate) use hops::HopFields;
pub use link::Radio;
pub(crate) use node_status::MAX_BYTES as NODE_STATUS_MAX_BYTES;
pub use outbox::{OutboxClosed, OutboxHandle, ReplyStream, StreamMsg};
pub use transport::Transport;
pub use view::MeshView;

/// Everything the radio link needs to know, already validated.
#[derive(Debug, Clone)]
pub struct RadioConfig {
    pub(crate) transport: Transport,
    /// Minimum time between any two texts handed to the node (firmware ≥ 2.7 refuses < 2 s).
    pub send_gap: Duration,
    /// How long a sent part waits for its ACK/NAK before it counts as lost.
    pub ack_timeout: Duration,
    /// How long the handshake may take before the link is dropped and retried.
    pub(crate) handshake_timeout: Duration,
    /// Interval between keep-alive heartbeats; the node ends an idle session after 15 minutes.
    pub(crate) heartbeat_interval: Duration,
    /// After this long without any frame from the node, probe with a heartbeat; if the probe
    /// also goes unanswered, reconnect.
    pub(crate) silence_timeout: Duration,
    /// How long sending pauses after a DUTY_CYCLE_LIMIT NAK.
    pub(crate) duty_cycle_pause: Duration,
    /// First reconnect delay; doubles up to `reconnect_max` (with jitter).
    pub(crate) reconnect_min: Duration,
    pub(crate) reconnect_max: Duration,
    /// Over TCP: when another client keeps taking the node's one API slot, wait long before
    /// taking it back (`takeover`). False: always reconnect at once (the node is ours alone).
    pub yield_to_other_clients: bool,
    /// `[radio] reply_hops`: no reply goes further than this, whatever the rule
    /// ([`hops::reply_hop_limit`]) gives; `None`: the rule alone.
    pub(crate) reply_hops: Option<u32>,
    /// `[radio] node_status`: the status message the node broadcasts (firmware 2.8), kept
    /// equal to this at each handshake ("" clears it); `None`: the node's own is left alone.
    pub(crate) node_status: Option<String>,
}

impl RadioConfig {
    /// Defaults that match the firmware facts in PROTOCOL.md, for a given transport.
    pub fn new(transport: Transport) -> Self {
        RadioConfig {
            transport,
            send_gap: Duration::from_millis(2000),
            ack_timeout: Duration::from_secs(45),
            handshake_timeout: Duration::from_secs(30),
            heartbeat_interval: Duration::from_secs(300),
            silence_timeout: Duration::from_secs(900),
            duty_cycle_pause: Duration::from_secs(300),
            reconnect_min: Duration::from_secs(1),
            reconnect_max: Duration::from_secs(60),
            yield_to_other_clients: true,
            reply_hops: None,
            node_status: None,
        }
    }
}

/// Long and short name of a node, from the node DB or a NODEINFO_APP packet.
#[derive(Debug, Clone, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub struct NodeNames {
    pub long_name: String,
    pub short_name: String,
}

/// A position on the globe in degrees (WGS84), from a node info or a POSITION_APP packet.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct GeoPoint {
    /// Degrees north, -90..=90.
    pub(crate) lat: f64,
    /// Degrees east, -180..=180.
    pub(crate) lon: f64,
    /// How far off the point may be, in km: 0 for a full-precision position, more when the
    /// sender shares a reduced one (`precision_bits` < 32, e.g. ~2.9 km at 13 bits).
    pub(crate) uncertainty_km: f64,
}

/// What the handshake learned about the node we are attached to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LocalNode {
    pub num: NodeId,
    pub(crate) names: NodeNames,
    pub(crate) firmware_version: String,
    /// `lora.hop_limit` from the node's config; never 0 (defaults to 3 when unset).
    pub(crate) hop_limit: u32,
    /// Channel names by index (index 0 is the primary); empty name = default channel.
    pub(crate) channels: Vec<(u32, String)>,
    /// How many nodes the node DB held after the handshake.
    pub(crate) known_nodes: usize,
    /// `my_info.reboot_count`: grows with every boot on ESP32 firmware; 0 where the
    /// firmware does not count (nRF52, RP2040), so only a change between two non-zero
    /// values means anything.
    pub(crate) reboot_count: u32,
    /// Our own `User.is_licensed` (licensed, ham, mode): the node then never uses PKI, in
    /// either direction, so no DM can be proven (PROTOCOL.md, "Firmware 2.7.14 – 2.8").
    pub(crate) licensed: bool,
}

/// The link's state, published on a `watch` channel. Each change is logged once by the link.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LinkState {
    /// Opening the serial port or TCP connection.
    Connecting,
    /// Connected, waiting for `config_complete_id`.
    Handshaking,
    /// Configured; `generation` grows by one with each successful handshake.
    Ready {
        generation: u64,
        local: Arc<LocalNode>,
    },
    /// Lost; the link retries after `retry_in`.
    Down {
        reason: DownReason,
        retry_in: Duration,
    },
    /// Closed for good (shutdown).
    Closed,
}

impl LinkState {
    pub fn is_ready(&self) -> bool {
        matches!(self, LinkState::Ready { .. })
    }
}

/// What our node measured of its radio channel (`DeviceMetrics` or `LocalStats`), in percent.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ChannelMetrics {
    /// Share of the last minute the node heard the channel busy: its own sending, everything
    /// it received and noise (`channelUtilizationPercent()`), 0–100.
    pub(crate) channel_utilization: f32,
    /// Share of the last hour our node spent sending (`utilizationTXPercent()`), 0–100;
    /// `None` when the node did not report it.
    pub(crate) air_util_tx: Option<f32>,
}

/// Where a reading came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ReadingSource {
    /// Our node's own node info at the handshake (as fresh as the node's last telemetry tick).
    Handshake,
    /// A TELEMETRY_APP `device_metrics` packet from our node (every ~60 s).
    DeviceMetrics,
    /// A TELEMETRY_APP `local_stats` packet from our node (every ~15 min).
    LocalStats,
}

/// The latest channel numbers and when they arrived.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct ChannelReading {
    pub(crate) metrics: ChannelMetrics,
    /// When the link read them (tokio's clock, so paused-time tests age them too).
    pub(crate) at: Instant,
    pub(crate) source: ReadingSource,
}

/// The node's LoRa region and the duty-cycle limit the firmware enforces there.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct LoraRegion {
    /// The region as the apps name it (`EU_868`, `US`, `UNSET`); `unknown` for a code this
    /// build does not know.
    pub(crate) name: &'static str,
    /// Percent of any hour the node may send: `None` where the region has no limit, or the
    /// node's `override_duty_cycle` lifts it.
    pub(crate) duty_cycle: Option<u8>,
    /// The node's `lora.override_duty_cycle`: the firmware ignores the region's limit.
    pub(crate) overridden: bool,
}

/// The radio channel as the link last heard of it, published on a `watch` channel.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct ChannelState {
    /// The latest reading of our own node; `None` until the first one (the node sends its
    /// first telemetry ≥ 30 s after booting).
    pub(crate) reading: Option<ChannelReading>,
    /// From the last handshake; `None` before the first.
    pub(crate) region: Option<LoraRegion>,
    /// Grows by one with each reading, so a watcher can tell a new reading from a region
    /// update.
    pub(crate) readings: u64,
}

/// A text message that passed the filter.
#[derive(Debug, Clone, PartialEq)]
pub struct TextMessage {
    pub from: NodeId,
    pub to: NodeId,
    /// Local channel index the packet came in on; replies go out on the same one.
    pub channel: u32,
    pub packet_id: u32,
    /// Decoded lossily; never empty or whitespace-only.
    pub text: String,
    /// Hops taken (`hop_start - hop_limit`) when the firmware reports `hop_start`.
    pub hops: Option<u32>,
    /// Its hop fields as they came: how far its reply goes ([`hops::reply_hop_limit`]).
    pub hop_fields: HopFields,
    /// `rx_snr` in dB; `None` when the packet did not come over LoRa (SNR and RSSI both 0).
    pub snr: Option<f32>,
    /// The sender's last known position, when the node DB has one.
    pub position: Option<GeoPoint>,
    /// Our own node's last known position, when the node DB has one.
    pub local_position: Option<GeoPoint>,
    pub received_at: SystemTime,
    /// The sender's names when the node DB knows them.
    pub names: Option<NodeNames>,
    /// Arrived PKI-encrypted (decoded by the node).
    pub pki: bool,
    /// The sender's public key the node decrypted it with: only for a PKI DM whose
    /// `public_key` is 32 bytes. Only such a DM proves its `from` (PROTOCOL.md, "Who really
    /// sent it").
    pub public_key: Option<PublicKey>,
    /// Came through an MQTT gateway (`via_mqtt`), not over the air.
    pub via_mqtt: bool,
    /// Not PKI-encrypted but XEdDSA-signed, as our node checked (firmware 2.8's
    /// `xeddsa_signed`: a licensed node signs its plaintext DMs): its `from` is the holder of
    /// the key our node keeps for that number.
    pub signed: bool,
}

/// An event from the radio for the rest of the daemon.
#[derive(Debug, Clone, PartialEq)]
pub enum Inbound {
    /// A direct message to our node: to be answered.
    Dm(TextMessage),
    /// A channel broadcast: answered only in the opt-in mention mode.
    Broadcast(TextMessage),
}

/// A reply to send: one or more parts, already within the byte budget.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReplyRequest {
    pub to: NodeId,
    pub channel: u32,
    /// The packet id being answered; set as `reply_id` on the first part.
    pub reply_to: Option<u32>,
    pub parts: Vec<String>,
    /// Every part must go PKI-encrypted (`MeshPacket.pki_encrypted`): the node fails a part
    /// it cannot encrypt for `to` with a Routing NAK instead of falling back to the channel
    /// key. Set for replies to nodes that talk to us over PKI.
    pub pki: bool,
    /// The hop fields of the message it answers: the reply goes as far as the firmware's
    /// rule says ([`hops::reply_hop_limit`]); the default (unknown) is our node's limit.
    pub asked: HopFields,
    /// Its sender is told when it arrives (a `!tell` delivery): every part waits for its ACK
    /// and is retried like a proven node's, whoever the destination is.
    pub receipt: bool,
    /// The key the bot holds for `to` when the reply goes PKI: should our node answer a part
    /// with PKI_UNKNOWN_PUBKEY (firmware 2.8 evicts keys from a full node list), the outbox
    /// hands it this key as a contact once ([`Outgoing::Contact`]) and resends the part.
    pub pinned: Option<PublicKey>,
}

/// Routing error reasons the outbox branches on (`Routing.Error` in mesh.proto).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NakReason {
    MaxRetransmit,
    NoChannel,
    TooLarge,
    DutyCycleLimit,
    PkiFailed,
    PkiUnknownPubkey,
    RateLimitExceeded,
    PkiSendFailPublicKey,
    /// Any other non-zero reason, with its number.
    Other(i32),
}

/// Why a part was not delivered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FailReason {
    Nak(NakReason),
    /// No ACK/NAK within the ACK timeout, after the retries.
    AckTimeout,
    /// An earlier part of the same reply failed, so this one was not sent.
    EarlierPartFailed,
    /// The daemon shut down before the part could go out.
    Shutdown,
}

/// What happened to one part.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PartOutcome {
    /// ACKed by the destination.
    Delivered,
    /// Only an implicit ACK from our own node: a relay was heard, delivery not confirmed.
    Relayed,
    /// The node confirmed queueing it (`queueStatus` for its id), then the link went down
    /// and its ACK/NAK never came: the node kept it and most likely sent it, so it is not
    /// resent (that is how a part arrives twice). Resent instead when the node rebooted.
    Unconfirmed,
    /// Sent once without waiting for its ACK, because the destination never ACKed a part of
    /// ours (a forged id never does): it did not hold the radio, and it is not resent. An ACK
    /// that comes later still marks the node as one that ACKs.
    Sent,
    Failed(FailReason),
}

/// The outcome of each part of a reply, in order; reported to whoever queued it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReplyReport {
    pub parts: Vec<PartOutcome>,
}

/// What the link passes to the outbox: the node's answers to what the outbox sent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum LinkEvent {
    /// `FromRadio.queueStatus`: sent after each `ToRadio.packet` (and, since ~2.7.5, heartbeat).
    QueueStatus {
        res: i32,
        free: u32,
        maxlen: u32,
        mesh_packet_id: u32,
    },
    /// A ROUTING_APP packet: `error == 0` is an ACK, anything else a NAK (`Routing.Error`).
    Routing {
        request_id: u32,
        from: NodeId,
        error: i32,
    },
    /// `FromRadio.rebooted`: the node restarted and its TX queue is gone.
    Rebooted,
}

/// What the outbox asks the link to write.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Outgoing {
    Text(OutgoingText),
    /// A heartbeat (nonce 0): answered with a `queueStatus` by firmware ≥ ~2.7.5.
    Probe,
    /// A node's key for our node's node list (`AdminMessage.add_contact`), before a PKI part
    /// its node no longer had the key for is resent.
    Contact(OutgoingContact),
}

/// A key our node lost, handed back: the link adds the node's names from the view.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct OutgoingContact {
    pub(crate) node: NodeId,
    pub(crate) key: PublicKey,
    /// The link generation this was decided for; the link drops writes from an older one.
    pub(crate) generation: u64,
}

/// One text packet, fully decided by the outbox; the link only encodes and writes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct OutgoingText {
    /// Fresh, non-zero; a resend gets a new one.
    pub(crate) id: u32,
    pub(crate) to: NodeId,
    pub(crate) channel: u32,
    /// By [`hops::reply_hop_limit`], from `LocalNode::hop_limit`; 0 is a zero-hop packet,
    /// sent without `want_ack` (the router would reset it to the default limit otherwise).
    pub(crate) hop_limit: u32,
    pub(crate) text: String,
    pub(crate) reply_id: Option<u32>,
    /// Sent with `pki_encrypted = true`: PKI or not at all (see [`ReplyRequest::pki`]).
    pub(crate) pki: bool,
    /// The link generation this was decided for; the link drops writes from an older one.
    pub(crate) generation: u64,
}
