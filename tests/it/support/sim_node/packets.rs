//! Builders for what the simulated node sends: the handshake answer, routing ACK/NAKs,
//! queue statuses and the mesh packets a test injects.

use meshtastic::Message;
use meshtastic::protobufs::{
    Channel, ChannelSettings, Config, Data, DeviceMetadata, DeviceMetrics, FromRadio,
    HardwareModel, LocalStats, MeshPacket, ModuleConfig, MyNodeInfo, NodeInfo, PortNum, Position,
    QueueStatus, Routing, Telemetry, User, channel, config, from_radio, mesh_packet, module_config,
    routing, telemetry,
};

use super::firmware::SimConfig;

/// The broadcast address.
pub const BROADCAST: u32 = 0xFFFF_FFFF;
/// The firmware's TX queue length, reported as `QueueStatus.maxlen`.
pub const QUEUE_MAXLEN: u32 = 16;
/// Channels the firmware always reports, used or not.
pub const CHANNEL_COUNT: i32 = 8;
/// `want_config_id` that asks for the config only (no other node infos).
pub const NONCE_ONLY_CONFIG: u32 = 69420;
/// `want_config_id` that asks for the node DB only (no channels, config, module config).
pub const NONCE_ONLY_NODES: u32 = 69421;

/// Everything about a packet a test injects towards the client. `Default` is a plain text
/// DM-shaped packet with `from = 0`, to our node, that took no hop.
#[derive(Debug, Clone, PartialEq)]
pub struct MeshPacketSpec {
    pub from: u32,
    /// `None` means our own node number, i.e. a DM to us.
    pub to: Option<u32>,
    /// Local channel index.
    pub channel: u32,
    /// `None` lets the sim pick a fresh id.
    pub id: Option<u32>,
    pub portnum: PortNum,
    pub payload: Vec<u8>,
    /// Non-zero makes the text a tapback reaction to `reply_id`.
    pub emoji: u32,
    pub reply_id: u32,
    pub hop_start: u32,
    pub hop_limit: u32,
    pub want_ack: bool,
    /// Sends the `encrypted` variant (the node could not decrypt it) instead of `decoded`.
    pub encrypted: bool,
    /// A PKI DM: arrives decoded, on channel 0, flagged.
    pub pki_encrypted: bool,
    /// The sender's public key, as the firmware hands it over with a PKI DM (32 bytes; empty
    /// otherwise).
    pub public_key: Vec<u8>,
    /// Came through an MQTT gateway.
    pub via_mqtt: bool,
    /// `rx_snr` in dB and `rx_rssi` in dBm; both 0 for a packet that did not come over LoRa.
    pub rx_snr: f32,
    pub rx_rssi: i32,
    /// When our radio heard it (`rx_time`, Unix seconds); `None`: now, by the wall clock, as
    /// the firmware stamps a packet it hears with its clock.
    pub rx_time: Option<u32>,
}

impl Default for MeshPacketSpec {
    fn default() -> Self {
        MeshPacketSpec {
            from: 0,
            to: None,
            channel: 0,
            id: None,
            portnum: PortNum::TextMessageApp,
            payload: Vec::new(),
            emoji: 0,
            reply_id: 0,
            hop_start: 3,
            hop_limit: 3,
            want_ack: false,
            encrypted: false,
            pki_encrypted: false,
            public_key: Vec::new(),
            via_mqtt: false,
            rx_snr: 6.25,
            rx_rssi: -87,
            rx_time: None,
        }
    }
}

impl MeshPacketSpec {
    /// A text from `from` to our node on channel 0, one hop away, with `want_ack` like the apps.
    pub fn text(from: u32, text: &str) -> Self {
        MeshPacketSpec {
            from,
            payload: text.as_bytes().to_vec(),
            hop_start: 3,
            hop_limit: 2,
            want_ack: true,
            ..Default::default()
        }
    }

    /// A PKI DM from `from` with its 32-byte `key`, decoded by our node (channel 0).
    pub fn pki(from: u32, text: &str, key: [u8; 32]) -> Self {
        MeshPacketSpec {
            pki_encrypted: true,
            public_key: key.to_vec(),
            ..MeshPacketSpec::text(from, text)
        }
    }

    /// Builds the packet; `our_node` fills `to: None`, `id` is used when the spec has none.
    pub fn build(&self, our_node: u32, id: u32) -> MeshPacket {
        let data = Data {
            portnum: self.portnum as i32,
            payload: self.payload.clone(),
            reply_id: self.reply_id,
            emoji: self.emoji,
            // Set by every sender since 2.5: `hop_start` 0 then means a zero-hop packet.
            bitfield: Some(0),
            ..Default::default()
        };
        let payload_variant = if self.encrypted {
            // Not real ciphertext, just bytes the client cannot read: the point is the variant.
            let mut junk = data.encode_to_vec();
            junk.iter_mut().for_each(|b| *b ^= 0x5A);
            mesh_packet::PayloadVariant::Encrypted(junk)
        } else {
            mesh_packet::PayloadVariant::Decoded(data)
        };
        MeshPacket {
            from: self.from,
            to: self.to.unwrap_or(our_node),
            channel: self.channel,
            id: self.id.unwrap_or(id),
            rx_time: self.rx_time.unwrap_or_else(|| wall_clock_ago(0)),
            rx_snr: self.rx_snr,
            rx_rssi: self.rx_rssi,
            hop_start: self.hop_start,
            hop_limit: self.hop_limit,
            want_ack: self.want_ack,
            pki_encrypted: self.pki_encrypted,
            public_key: self.public_key.clone(),
            via_mqtt: self.via_mqtt,
            payload_variant: Some(payload_variant),
            ..Default::default()
        }
    }
}

/// Wraps a payload variant into a `FromRadio`.
pub fn from_radio(v: from_radio::PayloadVariant) -> FromRadio {
    FromRadio {
        id: 0,
        payload_variant: Some(v),
    }
}

/// Wraps a mesh packet into a `FromRadio`.
pub fn packet(p: MeshPacket) -> FromRadio {
    from_radio(from_radio::PayloadVariant::Packet(p))
}

/// The `QueueStatus` the firmware sends after a `ToRadio.packet` (or a heartbeat, id 0).
pub fn queue_status(free: u32, mesh_packet_id: u32) -> FromRadio {
    from_radio(from_radio::PayloadVariant::QueueStatus(QueueStatus {
        res: 0,
        free,
        maxlen: QUEUE_MAXLEN,
        mesh_packet_id,
    }))
}

/// A ROUTING_APP packet answering `request_id`: `reason == 0` is an ACK, anything else a NAK.
pub fn routing(
    from: u32,
    to: u32,
    channel: u32,
    id: u32,
    request_id: u32,
    reason: i32,
) -> FromRadio {
    let body = Routing {
        variant: Some(routing::Variant::ErrorReason(reason)),
    };
    packet(MeshPacket {
        from,
        to,
        channel,
        id,
        priority: mesh_packet::Priority::Ack as i32,
        payload_variant: Some(mesh_packet::PayloadVariant::Decoded(Data {
            portnum: PortNum::RoutingApp as i32,
            payload: body.encode_to_vec(),
            request_id,
            ..Default::default()
        })),
        ..Default::default()
    })
}

/// The `User` record for a node, with the id spelled as the apps do.
pub fn user(num: u32, long_name: &str, short_name: &str) -> User {
    User {
        id: format!("!{num:08x}"),
        long_name: long_name.to_string(),
        short_name: short_name.to_string(),
        hw_model: HardwareModel::Portduino as i32,
        ..Default::default()
    }
}

/// A NODEINFO_APP broadcast from `num` carrying its names.
pub fn nodeinfo_packet(num: u32, id: u32, long_name: &str, short_name: &str) -> MeshPacket {
    MeshPacket {
        from: num,
        to: BROADCAST,
        id,
        hop_start: 3,
        hop_limit: 3,
        payload_variant: Some(mesh_packet::PayloadVariant::Decoded(Data {
            portnum: PortNum::NodeinfoApp as i32,
            payload: user(num, long_name, short_name).encode_to_vec(),
            ..Default::default()
        })),
        ..Default::default()
    }
}

/// A `Position` at `(latitude_i, longitude_i)`, degrees × 1e7.
pub fn position(latitude_i: i32, longitude_i: i32) -> Position {
    Position {
        latitude_i: Some(latitude_i),
        longitude_i: Some(longitude_i),
        altitude: Some(420),
        time: 1_750_000_000,
        precision_bits: 32,
        ..Default::default()
    }
}

/// A POSITION_APP broadcast from `num`, as the firmware passes a remote one to its client.
pub fn position_packet(num: u32, id: u32, latitude_i: i32, longitude_i: i32) -> MeshPacket {
    MeshPacket {
        from: num,
        to: BROADCAST,
        id,
        hop_start: 3,
        hop_limit: 2,
        rx_snr: 4.5,
        rx_rssi: -95,
        payload_variant: Some(mesh_packet::PayloadVariant::Decoded(Data {
            portnum: PortNum::PositionApp as i32,
            payload: position(latitude_i, longitude_i).encode_to_vec(),
            ..Default::default()
        })),
        ..Default::default()
    }
}

/// `DeviceMetrics` as the firmware's telemetry module fills them: on external power, with
/// the channel numbers and an uptime.
pub fn device_metrics(channel_utilization: f32, air_util_tx: f32) -> DeviceMetrics {
    DeviceMetrics {
        battery_level: Some(101),
        voltage: Some(4.2),
        channel_utilization: Some(channel_utilization),
        air_util_tx: Some(air_util_tx),
        uptime_seconds: Some(3600),
    }
}

/// A TELEMETRY_APP packet from our node `num` to the client (broadcast address), as the
/// firmware sends one every minute (`device_metrics`) or every 15 (`local_stats`).
pub fn telemetry_packet(num: u32, id: u32, variant: telemetry::Variant) -> MeshPacket {
    let t = Telemetry {
        time: 1_750_000_000,
        variant: Some(variant),
    };
    MeshPacket {
        from: num,
        to: BROADCAST,
        id,
        payload_variant: Some(mesh_packet::PayloadVariant::Decoded(Data {
            portnum: PortNum::TelemetryApp as i32,
            payload: t.encode_to_vec(),
            ..Default::default()
        })),
        ..Default::default()
    }
}

/// `LocalStats` with these channel numbers and plausible counters.
pub fn local_stats(channel_utilization: f32, air_util_tx: f32) -> LocalStats {
    LocalStats {
        uptime_seconds: 3600,
        channel_utilization,
        air_util_tx,
        num_packets_tx: 40,
        num_packets_rx: 900,
        num_online_nodes: 12,
        num_total_nodes: 30,
        ..Default::default()
    }
}

fn node_info(num: u32, long_name: &str, short_name: &str, at: Option<(i32, i32)>) -> NodeInfo {
    NodeInfo {
        num,
        user: Some(user(num, long_name, short_name)),
        position: at.map(|(lat, lon)| position(lat, lon)),
        last_heard: 1_750_000_000,
        ..Default::default()
    }
}

/// The wall clock `ago` seconds back, in Unix seconds as a packet's `rx_time` holds them.
pub fn wall_clock_ago(ago: u32) -> u32 {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    u32::try_from(now.saturating_sub(u64::from(ago))).unwrap_or(u32::MAX)
}

/// A peer's last heard as its node info says it.
fn peer_last_heard(p: &super::firmware::SimPeer) -> u32 {
    p.heard_ago.map_or(1_750_000_000, wall_clock_ago)
}

/// A peer's node info as firmware 2.7 hands it over: names, position, last heard (epoch
/// seconds, from the wall clock), hops away, SNR and device metrics.
fn peer_info(p: &super::firmware::SimPeer) -> NodeInfo {
    let base = node_info(p.num, &p.long_name, &p.short_name, p.position);
    NodeInfo {
        last_heard: peer_last_heard(p),
        hops_away: p.hops_away,
        snr: p.snr,
        device_metrics: p.battery.map(|(level, voltage)| DeviceMetrics {
            battery_level: Some(level),
            voltage: Some(voltage),
            uptime_seconds: Some(86_400),
            ..Default::default()
        }),
        ..base
    }
}

/// A peer's node info as firmware 2.8 hands it over: thin, its names, last heard, hops and
/// SNR, no position and no device metrics (firmware #10413).
fn thin_peer_info(p: &super::firmware::SimPeer) -> NodeInfo {
    NodeInfo {
        position: None,
        device_metrics: None,
        ..peer_info(p)
    }
}

/// What firmware 2.8 replays of a peer after `config_complete_id` (PhoneAPI
/// `sendConfigComplete`, `makeReplay*Packet`): its cached position and device metrics as
/// broadcasts from it, with its original `rx_time` (its last heard), hop fields rebuilt
/// from `hops_away`, priority BACKGROUND.
fn replays(p: &super::firmware::SimPeer, id: &mut u32) -> Vec<MeshPacket> {
    let full = peer_info(p);
    let hops = p.hops_away.unwrap_or(0).min(7);
    let mut out = Vec::new();
    let mut replay = |port: PortNum, payload: Vec<u8>| {
        *id += 1;
        out.push(MeshPacket {
            from: p.num,
            to: BROADCAST,
            id: *id,
            rx_time: full.last_heard,
            hop_start: 7,
            hop_limit: 7 - hops,
            priority: mesh_packet::Priority::Background as i32,
            payload_variant: Some(mesh_packet::PayloadVariant::Decoded(Data {
                portnum: port as i32,
                payload,
                ..Default::default()
            })),
            ..Default::default()
        });
    };
    if let Some(position) = full.position {
        replay(PortNum::PositionApp, position.encode_to_vec());
    }
    if let Some(m) = full.device_metrics {
        let t = Telemetry {
            time: full.last_heard,
            variant: Some(telemetry::Variant::DeviceMetrics(m)),
        };
        replay(PortNum::TelemetryApp, t.encode_to_vec());
    }
    out
}

/// A TELEMETRY_APP broadcast from another node `num`, relayed `hops` times.
pub fn peer_telemetry_packet(
    num: u32,
    id: u32,
    hops: u32,
    variant: telemetry::Variant,
) -> MeshPacket {
    MeshPacket {
        hop_start: 3,
        hop_limit: 3u32.saturating_sub(hops),
        rx_snr: 2.5,
        rx_rssi: -100,
        ..telemetry_packet(num, id, variant)
    }
}

fn channels(cfg: &SimConfig) -> Vec<FromRadio> {
    (0..CHANNEL_COUNT)
        .map(|index| {
            let (role, name) = if index == 0 {
                (channel::Role::Primary, String::new())
            } else {
                let name = usize::try_from(index - 1)
                    .ok()
                    .and_then(|i| cfg.secondary_channels.get(i));
                match name {
                    Some(n) => (channel::Role::Secondary, n.clone()),
                    None => (channel::Role::Disabled, String::new()),
                }
            };
            let settings = (role != channel::Role::Disabled).then(|| ChannelSettings {
                psk: vec![1],
                name,
                ..Default::default()
            });
            from_radio(from_radio::PayloadVariant::Channel(Channel {
                index,
                settings,
                role: role as i32,
            }))
        })
        .collect()
}

fn configs(cfg: &SimConfig) -> Vec<FromRadio> {
    let lora = config::LoRaConfig {
        use_preset: true,
        modem_preset: config::lo_ra_config::ModemPreset::LongFast as i32,
        region: cfg.region as i32,
        override_duty_cycle: cfg.override_duty_cycle,
        hop_limit: cfg.hop_limit,
        tx_enabled: true,
        ..Default::default()
    };
    [
        config::PayloadVariant::Device(config::DeviceConfig::default()),
        config::PayloadVariant::Lora(lora),
        config::PayloadVariant::Bluetooth(config::BluetoothConfig::default()),
    ]
    .into_iter()
    .map(|v| {
        from_radio(from_radio::PayloadVariant::Config(Config {
            payload_variant: Some(v),
        }))
    })
    .collect()
}

fn module_configs() -> Vec<FromRadio> {
    [
        module_config::PayloadVariant::Mqtt(module_config::MqttConfig::default()),
        module_config::PayloadVariant::Telemetry(module_config::TelemetryConfig {
            device_update_interval: 1800,
            ..Default::default()
        }),
    ]
    .into_iter()
    .map(|v| {
        from_radio(from_radio::PayloadVariant::ModuleConfig(ModuleConfig {
            payload_variant: Some(v),
        }))
    })
    .collect()
}

/// The answer to `want_config_id = nonce`, in the firmware 2.7 order (`PhoneAPI.cpp`):
/// my_info, own node info, metadata, channels, configs, module configs, other node infos,
/// then `config_complete_id`. The special nonces skip parts as the firmware does. As
/// firmware 2.8 (`SimConfig::firmware_28`): the other node infos thin, and their positions
/// and device metrics replayed after `config_complete_id`.
pub fn handshake(cfg: &SimConfig, nonce: u32, reboot_count: u32) -> Vec<FromRadio> {
    let mut out = vec![
        from_radio(from_radio::PayloadVariant::MyInfo(MyNodeInfo {
            my_node_num: cfg.node_num,
            reboot_count,
            min_app_version: 30200,
            nodedb_count: u32::try_from(cfg.peers.len() + 1).unwrap_or(u32::MAX),
            ..Default::default()
        })),
        // Firmware 2.7 always sends its own position; 0/0 when it has no fix. Its device
        // metrics only once the telemetry module has ticked.
        from_radio(from_radio::PayloadVariant::NodeInfo({
            let mut own = NodeInfo {
                device_metrics: cfg.device_metrics.map(|(cu, tx)| device_metrics(cu, tx)),
                ..node_info(
                    cfg.node_num,
                    &cfg.long_name,
                    &cfg.short_name,
                    Some(cfg.position.unwrap_or((0, 0))),
                )
            };
            if let Some(user) = own.user.as_mut() {
                user.is_licensed = cfg.licensed;
            }
            own
        })),
    ];
    if nonce != NONCE_ONLY_NODES {
        out.push(from_radio(from_radio::PayloadVariant::Metadata(
            DeviceMetadata {
                firmware_version: cfg.firmware_version.clone(),
                device_state_version: 24,
                can_shutdown: true,
                has_wifi: true,
                hw_model: HardwareModel::Portduino as i32,
                has_pkc: true,
                ..Default::default()
            },
        )));
        out.extend(channels(cfg));
        out.extend(configs(cfg));
        out.extend(module_configs());
    }
    let info = if cfg.firmware_28 {
        thin_peer_info
    } else {
        peer_info
    };
    if nonce != NONCE_ONLY_CONFIG {
        out.extend(
            cfg.peers
                .iter()
                .map(info)
                .map(|n| from_radio(from_radio::PayloadVariant::NodeInfo(n))),
        );
    }
    out.push(from_radio(from_radio::PayloadVariant::ConfigCompleteId(
        nonce,
    )));
    if cfg.firmware_28 && nonce != NONCE_ONLY_CONFIG {
        let mut id = 0x2800_0000;
        out.extend(
            cfg.peers
                .iter()
                .flat_map(|p| replays(p, &mut id))
                .map(packet),
        );
    }
    out
}

/// `FromRadio` as firmware 2.8 sends its status message's module config (`moduleConfig` 9,
/// `ModuleConfig.statusmessage` 14): fields the `meshtastic` crate's protobufs do not have.
#[derive(Clone, PartialEq, prost::Message)]
pub struct StatusFromRadio {
    #[prost(message, optional, tag = "9")]
    module_config: Option<StatusModuleConfig>,
}

/// `ModuleConfig` as far as `statusmessage` (14) goes.
#[derive(Clone, PartialEq, prost::Message)]
struct StatusModuleConfig {
    #[prost(message, optional, tag = "14")]
    statusmessage: Option<StatusMessageConfig>,
}

/// `ModuleConfig.StatusMessageConfig`.
#[derive(Clone, PartialEq, prost::Message)]
struct StatusMessageConfig {
    #[prost(string, tag = "1")]
    node_status: String,
}

/// `AdminMessage` as far as `set_module_config` (35) goes.
#[derive(Clone, PartialEq, prost::Message)]
struct StatusAdmin {
    #[prost(message, optional, tag = "35")]
    set_module_config: Option<StatusModuleConfig>,
}

/// The handshake's status message module config reporting `status`.
pub fn status_config(status: &str) -> StatusFromRadio {
    StatusFromRadio {
        module_config: Some(StatusModuleConfig {
            statusmessage: Some(StatusMessageConfig {
                node_status: status.to_string(),
            }),
        }),
    }
}

/// The status an `AdminMessage` payload sets (`set_module_config` with `statusmessage`).
pub fn set_status(admin: &[u8]) -> Option<String> {
    StatusAdmin::decode(admin)
        .ok()?
        .set_module_config?
        .statusmessage
        .map(|s| s.node_status)
}
