//! The channel's last reading: saved, replaced, and the migration that adds its table.

use rusqlite::Connection;

use super::*;
use crate::store::airtime::AirtimeRecord;

fn record(read_at: i64, cu: f64, held: u64) -> AirtimeRecord {
    AirtimeRecord {
        started_at: 1_750_000_000,
        read_at,
        channel_utilization: cu,
        air_util_tx: Some(4.25),
        region: Some("EU_868".into()),
        duty_cycle: Some(10.0),
        shortened: 3,
        held,
        waited_secs: 95,
    }
}

#[tokio::test]
async fn the_latest_reading_replaces_the_one_before() {
    let (_dir, store) = open_temp();
    assert_eq!(store.airtime().await.unwrap(), None);
    store.save_airtime(record(100, 31.5, 1)).await.unwrap();
    assert_eq!(store.airtime().await.unwrap(), Some(record(100, 31.5, 1)));
    let unknown = AirtimeRecord {
        air_util_tx: None,
        region: None,
        duty_cycle: None,
        ..record(160, 12.0, 2)
    };
    store.save_airtime(unknown.clone()).await.unwrap();
    assert_eq!(store.airtime().await.unwrap(), Some(unknown));
    // Counters beyond i64 saturate instead of wrapping.
    let huge = AirtimeRecord {
        held: u64::MAX,
        ..record(200, 1.0, 0)
    };
    store.save_airtime(huge).await.unwrap();
    let back = store.airtime().await.unwrap().unwrap();
    assert_eq!(back.held, i64::MAX as u64);
    store.close().await.unwrap();
}

/// A database of the previous release (schema 2) gains the empty table, nothing else changes.
#[tokio::test]
async fn migrates_a_schema_2_database() {
    let (_dir, path) = temp();
    old_database(&path, 2);

    let store = Store::open(&path).unwrap();
    assert_eq!(store.airtime().await.unwrap(), None);
    assert_eq!(
        store
            .history(A, 5)
            .await
            .unwrap()
            .first()
            .map(|m| m.text.clone()),
        Some("kept".to_string())
    );
    store.save_airtime(record(300, 45.0, 2)).await.unwrap();
    assert_eq!(store.integrity_check().await.unwrap(), "ok");
    store.close().await.unwrap();

    assert_eq!(user_version(&path), crate::store::schema::VERSION);
    let raw = Connection::open(&path).unwrap();
    // One row at most.
    let second = raw.execute(
        "INSERT INTO airtime(id, started_at, read_at, channel_utilization, shortened, held, \
         waited_secs) VALUES (2, 0, 0, 0, 0, 0, 0)",
        [],
    );
    assert!(second.is_err(), "{second:?}");
}
