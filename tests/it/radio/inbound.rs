//! What comes in: DMs with every detail right, and the DM rules, each checked by a packet
//! that must be dropped followed by a DM that must still arrive (the positive control: the
//! link handles packets in order, so getting the control first proves the other was dropped).

use meshai::node::{NodeId, PublicKey};
use meshai::radio::{Inbound, NodeNames, TextMessage};
use meshtastic::protobufs::PortNum;

use super::{ALICE, BOB, CAROL, ME, Rig, sim_config};
use crate::support::sim_node::{BROADCAST, MeshPacketSpec, SimConfig};

/// The fields a test can predict (`received_at` is the wall clock).
fn summary(m: &TextMessage) -> (NodeId, NodeId, u32, u32, &str, Option<u32>, bool) {
    (
        m.from,
        m.to,
        m.channel,
        m.packet_id,
        m.text.as_str(),
        m.hops,
        m.pki,
    )
}

fn names(long: &str, short: &str) -> Option<NodeNames> {
    Some(NodeNames {
        long_name: long.into(),
        short_name: short.into(),
    })
}

#[tokio::test(start_paused = true)]
async fn a_dm_with_start_bytes_in_its_text_then_a_plain_dm_both_arrive_intact() {
    // Once without and once with firmware log text between the frames; the log text has
    // the same "—é" start-byte pair in it.
    for log_text in [false, true] {
        let mut rig = Rig::start(SimConfig {
            log_text,
            ..sim_config()
        })
        .await;
        let tricky = "caf\u{2014}\u{e9} ok?";
        assert_eq!(&tricky.as_bytes()[3..8], [0xe2, 0x80, 0x94, 0xc3, 0xa9]);
        let first = rig.sim.inject_dm(ALICE, tricky, None);
        let second = rig.sim.inject_text(MeshPacketSpec {
            channel: 1,
            hop_start: 5,
            hop_limit: 2,
            ..MeshPacketSpec::text(BOB, "plain one")
        });

        let m = rig.dm().await;
        assert_eq!(
            summary(&m),
            (NodeId(ALICE), NodeId(ME), 0, first, tricky, Some(1), false),
            "log_text {log_text}"
        );
        assert_eq!(m.names, names("Peer Alice", "ALI"));
        let m = rig.dm().await;
        assert_eq!(
            summary(&m),
            (
                NodeId(BOB),
                NodeId(ME),
                1,
                second,
                "plain one",
                Some(3),
                false
            ),
            "log_text {log_text}"
        );
        assert_eq!(m.names, names("Peer Bob", "BOB"));
    }
}

#[tokio::test(start_paused = true)]
async fn an_unknown_sender_and_a_pki_dm_arrive_with_what_is_known() {
    let mut rig = Rig::start(sim_config()).await;
    let id = rig.sim.inject_dm(CAROL, "who am I?", None);
    let m = rig.dm().await;
    assert_eq!(
        (m.from, m.packet_id, m.names.clone()),
        (NodeId(CAROL), id, None)
    );

    // A NODEINFO_APP packet teaches the link the sender's names.
    rig.sim.inject_nodeinfo(CAROL, "Carol Field", "CRL");
    let id = rig.sim.inject_text(MeshPacketSpec {
        pki_encrypted: true,
        ..MeshPacketSpec::text(CAROL, "secret hello")
    });
    let m = rig.dm().await;
    assert_eq!((m.packet_id, m.pki), (id, true));
    assert_eq!(m.names, names("Carol Field", "CRL"));
    assert_eq!(m.public_key, None, "no key, nothing proven");

    // With the sender's key, as the firmware hands over a PKI DM; and one through MQTT.
    let id = rig.sim.inject_pki_dm(CAROL, "hello with a key", [7; 32]);
    let m = rig.dm().await;
    assert_eq!(
        (m.packet_id, m.pki, m.public_key, m.via_mqtt),
        (id, true, Some(PublicKey([7; 32])), false)
    );
    let id = rig.sim.inject_text(MeshPacketSpec {
        via_mqtt: true,
        ..MeshPacketSpec::text(CAROL, "from the broker")
    });
    let m = rig.dm().await;
    assert_eq!(
        (m.packet_id, m.pki, m.public_key, m.via_mqtt),
        (id, false, None, true)
    );
}

#[tokio::test(start_paused = true)]
async fn every_dm_rule_drops_its_packet_and_a_following_dm_still_arrives() {
    let mut rig = Rig::start(sim_config()).await;
    let text = |body: &str| MeshPacketSpec::text(ALICE, body);
    // (rule, the packet that must not come out as a DM)
    let cases: Vec<(&str, MeshPacketSpec)> = vec![
        (
            "from our own node",
            MeshPacketSpec {
                from: ME,
                ..text("echo of our own")
            },
        ),
        (
            "from node 0",
            MeshPacketSpec {
                from: 0,
                ..text("from nobody")
            },
        ),
        (
            "tapback",
            MeshPacketSpec {
                emoji: 1,
                reply_id: 0x4242,
                ..text("\u{1f44d}")
            },
        ),
        (
            "not a text port",
            MeshPacketSpec {
                portnum: PortNum::PositionApp,
                ..text("not text")
            },
        ),
        (
            "encrypted variant",
            MeshPacketSpec {
                encrypted: true,
                ..text("cannot read this")
            },
        ),
        (
            "to another node",
            MeshPacketSpec {
                to: Some(CAROL),
                ..text("for carol")
            },
        ),
        ("whitespace only", text(" \n\t ")),
    ];
    for (i, (rule, spec)) in cases.into_iter().enumerate() {
        rig.sim.inject_text(spec);
        let control = format!("control {i}");
        let id = rig.sim.inject_dm(BOB, &control, None);
        let m = rig.dm().await;
        assert_eq!(
            (m.packet_id, m.text.as_str()),
            (id, control.as_str()),
            "{rule}"
        );
    }

    // A duplicate (same from and id, heard over a longer path) is dropped, also after a
    // reconnect: the dedup memory outlives the connection.
    let id = rig.dm_round_trip(ALICE, "said once").await.packet_id;
    rig.sim.inject_duplicate(id);
    rig.dm_round_trip(BOB, "control dup").await;
    rig.sim.drop_connection();
    rig.ready(2).await;
    rig.sim.inject_duplicate(id);
    rig.dm_round_trip(BOB, "control dup after reconnect").await;
    // The same id from another sender is another packet.
    let id_reused = rig.sim.inject_dm(BOB, "same id, other sender", Some(id));
    assert_eq!(rig.dm().await.packet_id, id_reused);

    // A broadcast is passed on, but as a Broadcast, never as a Dm.
    let id = rig.sim.inject_text(MeshPacketSpec {
        to: Some(BROADCAST),
        channel: 1,
        ..text("hello channel")
    });
    match rig.next().await {
        Inbound::Broadcast(m) => {
            assert_eq!(
                (m.from, m.to, m.channel, m.packet_id, m.text.as_str()),
                (NodeId(ALICE), NodeId::BROADCAST, 1, id, "hello channel")
            );
        }
        other => panic!("expected a broadcast, got {other:?}"),
    }
    rig.dm_round_trip(BOB, "last control").await;
    assert!(rig.inbound.try_recv().is_err(), "nothing else came in");
}
