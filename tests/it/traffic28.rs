//! Firmware 2.8's new traffic is harmless (PROTOCOL.md, "Firmware 2.7.14 – 2.8"): packets on
//! the new port numbers (KEY_VERIFICATION 12, REMOTE_SHELL 13, STORE_FORWARD_PLUSPLUS 35,
//! NODE_STATUS 36, MESH_BEACON 37), to us, to everyone and from our own number, are ignored
//! — never answered, never an error, the link stays up; a broadcast signed with XEdDSA
//! (`Data.xeddsa_signature` 10, `MeshPacket.xeddsa_signed` 22: fields the 2.7 protobufs do
//! not know) is read like an unsigned one: a signed mention is answered, other signed
//! channel texts are not. A DM signed that way (a licensed node's, firmware 2.8) proves its
//! sender: its memory, also when `require_pki = "all"`; from then on a DM without the
//! signature claiming that node gets none, across a restart.

use meshtastic::protobufs::{FromRadio, from_radio, mesh_packet};
use prost::Message;

use crate::harness::{Daemon, paced, replies};
use crate::support::sim_node::SentText;
use crate::support::sim_node::frame;
use crate::support::sim_node::{BROADCAST, MeshPacketSpec};
use crate::trust::{ask_with, joined, reply_after};

const PEER: u32 = 0x0bee_0001;
const NEW_PORTS: [i32; 5] = [12, 13, 35, 36, 37];
const MENTIONS: &str = "[channels]\nanswer_mentions = true\nmention = \"@ai\"\nchannels = [0]\n";

fn varint(mut v: u64, out: &mut Vec<u8>) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// A length-delimited field `num` holding `bytes`.
fn field(num: u64, bytes: &[u8], out: &mut Vec<u8>) {
    varint(num << 3 | 2, out);
    varint(bytes.len() as u64, out);
    out.extend_from_slice(bytes);
}

/// The frame of a `FromRadio.packet` (field 2) whose encoded `MeshPacket` is `packet`.
fn packet_frame(packet: &[u8]) -> Vec<u8> {
    let mut body = Vec::new();
    field(2, packet, &mut body);
    let mut out = vec![0x94, 0xc3];
    out.extend_from_slice(&u16::try_from(body.len()).expect("fits").to_be_bytes());
    out.extend_from_slice(&body);
    out
}

/// `spec` as firmware 2.8 hands over a signed broadcast: a 64-byte signature in its `Data`
/// and the packet flagged signed.
fn signed(d: &Daemon, spec: &MeshPacketSpec, id: u32) -> Vec<u8> {
    let mut p = spec.build(d.sim.node_num(), id);
    let Some(mesh_packet::PayloadVariant::Decoded(data)) = p.payload_variant.take() else {
        panic!("a decoded packet");
    };
    let mut data = data.encode_to_vec();
    field(10, &[0x5a; 64], &mut data);
    let mut packet = p.encode_to_vec();
    field(4, &data, &mut packet);
    varint(22 << 3, &mut packet);
    varint(1, &mut packet);
    packet_frame(&packet)
}

/// `spec` on raw port `port`, with `payload`.
fn on_port(d: &Daemon, spec: &MeshPacketSpec, port: i32, payload: &[u8], id: u32) -> Vec<u8> {
    let mut p = spec.build(d.sim.node_num(), id);
    if let Some(mesh_packet::PayloadVariant::Decoded(data)) = p.payload_variant.as_mut() {
        data.portnum = port;
        data.payload = payload.to_vec();
    }
    frame::encode(&FromRadio {
        id: 0,
        payload_variant: Some(from_radio::PayloadVariant::Packet(p)),
    })
}

#[tokio::test(start_paused = true)]
async fn new_ports_and_signed_broadcasts_are_harmless() {
    let _pace = paced();
    let d = Daemon::start(MENTIONS).await;
    let handshakes = d.sim.handshakes();
    let me = d.sim.node_num();
    let to_us = MeshPacketSpec::text(PEER, "");
    let to_all = MeshPacketSpec {
        to: Some(BROADCAST),
        ..MeshPacketSpec::text(PEER, "")
    };
    let from_us = MeshPacketSpec {
        to: Some(BROADCAST),
        hop_start: 0,
        hop_limit: 0,
        ..MeshPacketSpec::text(me, "")
    };
    let mut id = 0x2800_0000;
    for port in NEW_PORTS {
        for spec in [&to_us, &to_all, &from_us] {
            for payload in [&b"!reset"[..], &[0xff, 0x00, 0x94, 0xc3, 0x01][..], &[][..]] {
                id += 1;
                assert!(d.sim.inject_raw(&on_port(&d, spec, port, payload, id)));
            }
        }
    }
    // Signed channel texts: not a mention (not answered), and a mention (answered).
    id += 1;
    let chatter = MeshPacketSpec {
        to: Some(BROADCAST),
        ..MeshPacketSpec::text(PEER, "signed hello")
    };
    assert!(d.sim.inject_raw(&signed(&d, &chatter, id)));
    id += 1;
    let mention = MeshPacketSpec {
        to: Some(BROADCAST),
        ..MeshPacketSpec::text(PEER, "@ai are you signed?")
    };
    let before = d.sim.texts().len();
    assert!(d.sim.inject_raw(&signed(&d, &mention, id)));
    let answered = d
        .sim
        .wait_for(crate::harness::SOON, |l| {
            l.texts[before..].iter().any(|t| t.to == BROADCAST)
        })
        .await;
    assert!(answered, "the signed mention is answered");

    let control = ask_with(&d, PEER, MeshPacketSpec::text(PEER, "control question")).await;
    assert_eq!(joined(&control), "echo: control question");
    let texts: Vec<(u32, String)> = d
        .sim
        .texts()
        .iter()
        .map(|t| (t.to, meshai::chunk::strip_marker(&t.text).to_string()))
        .collect();
    assert_eq!(
        texts,
        [
            (BROADCAST, "echo: are you signed?".to_string()),
            (PEER, "echo: control question".to_string()),
        ]
    );
    let asked: Vec<String> = replies(&d.llm)
        .iter()
        .map(|r| r.last_user().to_string())
        .collect();
    assert_eq!(asked.len(), 2, "{asked:?}");
    assert_eq!(d.sim.handshakes(), handshakes, "the link never dropped");
}

/// A licensed node (firmware 2.8 signs its plaintext DMs).
const HAM: u32 = 0x0a4a_0001;

/// Injects `frame`, a DM from HAM, and returns the reply to it.
async fn ask_raw(d: &Daemon, frame: &[u8]) -> Vec<SentText> {
    reply_after(d, HAM, "a signed DM", || assert!(d.sim.inject_raw(frame))).await
}

/// Everything the last request to the model said.
fn last_request(d: &Daemon) -> String {
    replies(&d.llm)
        .last()
        .map(crate::trust::said)
        .unwrap_or_default()
}

/// Issue 40: "A signed DM from a licensed node gets its memory; an unsigned one claiming
/// that node does not."
#[tokio::test(start_paused = true)]
async fn a_signed_dm_proves_its_licensed_sender() {
    let _pace = paced();
    // The defaults (a DM without PKI is its number's own), and where only a DM that proves
    // its sender gets memory.
    for config in ["", "[access]\nrequire_pki = \"all\"\n"] {
        signed_and_unsigned(config).await;
    }
}

async fn signed_and_unsigned(config: &str) {
    let d = Daemon::start(config).await;
    let mut id = 0x2801_0000;
    let mut signed_dm = |d: &Daemon, text: &str| {
        id += 1;
        signed(d, &MeshPacketSpec::text(HAM, text), id)
    };
    ask_raw(&d, &signed_dm(&d, "My callsign is DL1ABC.")).await;
    ask_raw(&d, &signed_dm(&d, "What is my callsign?")).await;
    assert!(last_request(&d).contains("DL1ABC"), "{}", last_request(&d));
    // The same number without the signature: answered from the message alone, not stored.
    let reply = ask_with(
        &d,
        HAM,
        MeshPacketSpec::text(HAM, "Unsigned: what is my callsign?"),
    )
    .await;
    assert!(!reply.is_empty());
    assert!(!last_request(&d).contains("DL1ABC"), "{}", last_request(&d));
    let refused = ask_with(&d, HAM, MeshPacketSpec::text(HAM, "!summary")).await;
    assert!(joined(&refused).contains("signature"), "{refused:?}");
    let (result, sim, llm, dir) = d.stop().await;
    result.expect("a clean stop");

    // After a restart the node still signs: without the signature, still no memory; with
    // it, the memory, and nothing of the unsigned DMs.
    let d = Daemon::start_with(sim, llm, dir, config).await;
    ask_with(
        &d,
        HAM,
        MeshPacketSpec::text(HAM, "Unsigned again: my callsign?"),
    )
    .await;
    assert!(!last_request(&d).contains("DL1ABC"), "{}", last_request(&d));
    ask_raw(&d, &signed_dm(&d, "Signed: my callsign?")).await;
    let seen = last_request(&d);
    assert!(
        seen.contains("DL1ABC") && !seen.contains("Unsigned"),
        "{seen}"
    );
}
