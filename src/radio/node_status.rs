//! The node's status message (firmware 2.8, NODE_STATUS_APP): the operator's opt-in way to
//! tell the mesh there is a bot here, instead of any broadcast text.
//!
//! The node itself broadcasts its status, on the primary channel at BACKGROUND priority, once
//! at boot and then every 12 hours (`StatusMessageModule`); the apps show it under the node's
//! name. meshai only keeps the node's setting equal to `[radio] node_status`: at each
//! handshake it reads the status the node reports (`ModuleConfig.statusmessage`, sent by 2.8
//! only) and writes it (`AdminMessage.set_module_config`, local admin, no reboot) only when it
//! differs. Firmware before 2.8 reports none and is never written to: one from before the
//! status message (January 2026) would take the unknown module config for one that needs a
//! reboot, and 2.7 does not say which it is.
//!
//! The `meshtastic` crate's protobufs predate the status message, so the fields it needs are
//! declared here, wire-compatible with mesh.proto, module_config.proto and admin.proto.

use meshtastic::Message;
use meshtastic::protobufs::ToRadio;

use crate::node::NodeId;

/// The longest status the firmware keeps (`StatusMessageConfig.node_status` max_size 80, with
/// its terminating NUL).
pub(crate) const MAX_BYTES: usize = 79;

/// `FromRadio` as far as its module config goes (`moduleConfig`, 9).
#[derive(Clone, PartialEq, prost::Message)]
struct StatusFromRadio {
    #[prost(message, optional, tag = "9")]
    module_config: Option<StatusModuleConfig>,
}

/// `ModuleConfig` as far as its `statusmessage` variant goes (14).
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

/// `AdminMessage` as far as `set_module_config` goes (35).
#[derive(Clone, PartialEq, prost::Message)]
struct StatusAdmin {
    #[prost(message, optional, tag = "35")]
    set_module_config: Option<StatusModuleConfig>,
}

/// The status a handshake's `FromRadio` frame `payload` reports, when it is the status
/// message's module config (empty: none set); `None` for every other frame.
pub(crate) fn reported(payload: &[u8]) -> Option<String> {
    StatusFromRadio::decode(payload)
        .ok()?
        .module_config?
        .statusmessage
        .map(|s| s.node_status)
}

/// What a handshake means for the node's status.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Step {
    /// Nothing configured, or the node already has it.
    Keep,
    /// Write this status to the node.
    Set(String),
    /// A status is configured, but the node reported none: its firmware predates 2.8.
    Unsupported,
}

/// Whether to write `want` (`[radio] node_status`; `None`: leave the node's alone) to a node
/// that reported `have` at its handshake (`None`: firmware before 2.8).
pub(crate) fn step(want: Option<&str>, have: Option<&str>) -> Step {
    match (want, have) {
        (None, _) => Step::Keep,
        (Some(_), None) => Step::Unsupported,
        (Some(want), Some(have)) if want == have => Step::Keep,
        (Some(want), Some(_)) => Step::Set(want.to_string()),
    }
}

/// `AdminMessage.set_module_config` with the status message `status` ("" clears it), to our
/// own node `me`: local admin from the API client needs no session passkey.
pub(crate) fn set_packet(me: NodeId, status: &str) -> ToRadio {
    let admin = StatusAdmin {
        set_module_config: Some(StatusModuleConfig {
            statusmessage: Some(StatusMessageConfig {
                node_status: status.to_string(),
            }),
        }),
    };
    super::packet::local_admin(me, admin.encode_to_vec())
}

#[cfg(test)]
mod tests {
    use super::*;
    use meshtastic::protobufs::{
        FromRadio, ModuleConfig, PortNum, from_radio, mesh_packet, module_config, to_radio,
    };

    #[test]
    fn the_status_is_read_only_from_its_module_config() {
        let status = StatusFromRadio {
            module_config: Some(StatusModuleConfig {
                statusmessage: Some(StatusMessageConfig {
                    node_status: "AI bot: DM me".into(),
                }),
            }),
        }
        .encode_to_vec();
        let mqtt = FromRadio {
            payload_variant: Some(from_radio::PayloadVariant::ModuleConfig(ModuleConfig {
                payload_variant: Some(module_config::PayloadVariant::Mqtt(
                    module_config::MqttConfig::default(),
                )),
            })),
            ..FromRadio::default()
        }
        .encode_to_vec();
        let empty = StatusFromRadio {
            module_config: Some(StatusModuleConfig {
                statusmessage: Some(StatusMessageConfig::default()),
            }),
        }
        .encode_to_vec();
        let cases: [(&[u8], Option<&str>); 4] = [
            (&status, Some("AI bot: DM me")),
            (&mqtt, None),
            (&empty, Some("")),
            (&[0xff, 0x01], None),
        ];
        for (payload, want) in cases {
            assert_eq!(reported(payload).as_deref(), want, "{payload:02x?}");
        }
        // The crate still reads the frame as a module config (of no variant it knows).
        let known = FromRadio::decode(status.as_slice()).expect("decodes");
        assert!(matches!(
            known.payload_variant,
            Some(from_radio::PayloadVariant::ModuleConfig(_))
        ));
    }

    #[test]
    fn the_status_is_written_only_when_it_differs_on_a_node_that_has_one() {
        let set = |s: &str| Step::Set(s.to_string());
        let cases = [
            (None, Some("old"), Step::Keep),
            (None, None, Step::Keep),
            (Some("bot"), Some("bot"), Step::Keep),
            (Some("bot"), Some(""), set("bot")),
            (Some("bot"), Some("old"), set("bot")),
            (Some(""), Some("old"), set("")),
            (Some(""), Some(""), Step::Keep),
            (Some("bot"), None, Step::Unsupported),
        ];
        for (want, have, expect) in cases {
            assert_eq!(step(want, have), expect, "{want:?} on {have:?}");
        }
    }

    #[test]
    fn the_write_is_local_admin_to_our_node() {
        let msg = ToRadio::decode(
            set_packet(NodeId(0x99), "AI bot")
                .encode_to_vec()
                .as_slice(),
        )
        .expect("decodes");
        let Some(to_radio::PayloadVariant::Packet(p)) = msg.payload_variant else {
            panic!("not a packet");
        };
        assert_eq!((p.to, p.want_ack, p.channel), (0x99, false, 0));
        let Some(mesh_packet::PayloadVariant::Decoded(d)) = p.payload_variant else {
            panic!("not decoded");
        };
        assert_eq!(d.portnum, PortNum::AdminApp as i32);
        let admin = StatusAdmin::decode(d.payload.as_slice()).expect("admin");
        let status = admin
            .set_module_config
            .and_then(|m| m.statusmessage)
            .map(|s| s.node_status);
        assert_eq!(status.as_deref(), Some("AI bot"));
    }
}
