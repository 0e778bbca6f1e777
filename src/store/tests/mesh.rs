//! The mesh view kept across restarts: saved and loaded back with each reading's time,
//! bounded, expired with retention, and a row a later build wrote that cannot be read skipped.

use std::sync::Arc;

use meshtastic::Message;
use meshtastic::protobufs::{
    Data, DeviceMetrics, MeshPacket, NodeInfo, PortNum, Telemetry, User, mesh_packet, telemetry,
};

use super::*;
use crate::radio::MeshView;
use crate::store::mesh::MAX_KEPT;

const NOW: i64 = 1_800_000_000;

fn battery(from: u32, level: u32, rx_time: i64) -> MeshPacket {
    let t = Telemetry {
        time: 0,
        variant: Some(telemetry::Variant::DeviceMetrics(DeviceMetrics {
            battery_level: Some(level),
            voltage: Some(3.8),
            ..Default::default()
        })),
    };
    MeshPacket {
        from,
        to: u32::MAX,
        rx_time: u32::try_from(rx_time).unwrap(),
        hop_start: 3,
        hop_limit: 2,
        payload_variant: Some(mesh_packet::PayloadVariant::Decoded(Data {
            portnum: PortNum::TelemetryApp as i32,
            payload: t.encode_to_vec(),
            ..Default::default()
        })),
        ..Default::default()
    }
}

fn named(num: u32, name: &str, last_heard: i64) -> NodeInfo {
    NodeInfo {
        num,
        user: Some(User {
            long_name: name.into(),
            short_name: name[..4].into(),
            ..Default::default()
        }),
        last_heard: u32::try_from(last_heard).unwrap(),
        hops_away: Some(1),
        ..Default::default()
    }
}

#[tokio::test]
async fn a_saved_view_comes_back_with_its_readings_and_their_times() {
    let (_dir, store) = open_temp();
    let mut view = MeshView::new();
    view.update_from_node_info(&named(A.0, "Hilltop Relay", NOW - 3 * 3600));
    view.on_packet(&battery(A.0, 64, NOW - 3 * 3600), NOW);
    view.update_from_node_info(&named(B.0, "Lakeside Node", NOW - 60));
    view.on_packet(&battery(B.0, 41, NOW - 30), NOW);
    assert_eq!(
        store.save_mesh(Arc::new(view.clone()), None).await.unwrap(),
        2
    );
    let back = store.load_mesh(None).await.unwrap();
    for num in [A, B] {
        let (was, is) = (view.node(num).unwrap(), back.node(num).unwrap());
        assert_eq!(is.names, was.names);
        assert_eq!(
            (is.last_heard, is.hops_away),
            (was.last_heard, was.hops_away)
        );
        assert_eq!(is.device, was.device, "the reading and its time");
        assert_eq!(is.heard_live, None, "kept is not heard live");
    }
    assert_eq!(back.node(A).unwrap().device.unwrap().at, NOW - 3 * 3600);
    // Saving again replaces, never duplicates; an expired node goes, and is not loaded.
    assert_eq!(
        store
            .save_mesh(Arc::new(view), Some(NOW - 3600))
            .await
            .unwrap(),
        1
    );
    let back = store.load_mesh(Some(NOW - 3600)).await.unwrap();
    assert!(back.node(A).is_none() && back.node(B).is_some());
}

#[tokio::test]
async fn the_kept_view_is_bounded_and_skips_what_it_cannot_read() {
    let (dir, store) = open_temp();
    let mut view = MeshView::with_capacity(MAX_KEPT + 10);
    for i in 0..(MAX_KEPT as u32 + 10) {
        view.update_from_node_info(&named(i + 1, "Node name", NOW - 100_000 + i64::from(i)));
    }
    assert_eq!(
        store.save_mesh(Arc::new(view), None).await.unwrap(),
        MAX_KEPT
    );
    store.close().await.unwrap();
    let raw = rusqlite::Connection::open(dir.path().join("meshai.db")).unwrap();
    raw.execute(
        "UPDATE mesh_nodes SET view = '{\"last_heard\": \"soon\"}' WHERE node = ?1",
        [i64::from(MAX_KEPT as u32 + 10)],
    )
    .unwrap();
    drop(raw);
    let store = Store::open(&dir.path().join("meshai.db")).unwrap();
    let back = store.load_mesh(None).await.unwrap();
    assert_eq!(back.len(), MAX_KEPT - 1);
    assert!(back.node(NodeId(1)).is_none(), "the oldest went");
    assert!(back.node(NodeId(MAX_KEPT as u32 + 9)).is_some());
}
