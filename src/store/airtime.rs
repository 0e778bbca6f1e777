//! The radio channel as the daemon last saw it, for `meshai stats`: one row in `airtime`,
//! replaced at each reading (about one a minute), so the offline command can show the channel
//! and what the airtime policy did while the daemon ran.

use rusqlite::{Connection, OptionalExtension, params};

use super::error::StoreError;
use super::handle::Store;
use super::sql::{counter, counter_sql};

/// The row: the latest reading of our node's channel numbers and the policy's counters.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct AirtimeRecord {
    /// When the daemon that wrote it started (unix seconds): the counters count from then.
    pub(crate) started_at: i64,
    /// When the reading arrived (unix seconds).
    pub(crate) read_at: i64,
    /// Percent of the last minute the channel was busy.
    pub(crate) channel_utilization: f64,
    /// Percent of the last hour our node sent, when it said.
    pub(crate) air_util_tx: Option<f64>,
    /// The node's region (`EU_868`), when known.
    pub(crate) region: Option<String>,
    /// The duty-cycle limit in force, in percent; `None`: no limit.
    pub(crate) duty_cycle: Option<f64>,
    /// Answers sent with fewer parts because of the channel.
    pub(crate) shortened: u64,
    /// Replies that waited for a calmer channel.
    pub(crate) held: u64,
    /// How long they waited in all, in seconds.
    pub(crate) waited_secs: u64,
}

impl Store {
    /// Replaces the stored channel reading and counters.
    pub(crate) async fn save_airtime(&self, record: AirtimeRecord) -> Result<(), StoreError> {
        self.call(move |c| save(c, &record)).await
    }

    /// The stored channel reading and counters, if a daemon ever saved one.
    pub(crate) async fn airtime(&self) -> Result<Option<AirtimeRecord>, StoreError> {
        self.call(|c| load(c)).await
    }
}

fn save(c: &Connection, r: &AirtimeRecord) -> Result<(), StoreError> {
    c.execute(
        "INSERT INTO airtime(id, started_at, read_at, channel_utilization, air_util_tx, region,
                             duty_cycle, shortened, held, waited_secs)
         VALUES (1, ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)
         ON CONFLICT(id) DO UPDATE SET
             started_at = excluded.started_at, read_at = excluded.read_at,
             channel_utilization = excluded.channel_utilization,
             air_util_tx = excluded.air_util_tx, region = excluded.region,
             duty_cycle = excluded.duty_cycle, shortened = excluded.shortened,
             held = excluded.held, waited_secs = excluded.waited_secs",
        params![
            r.started_at,
            r.read_at,
            r.channel_utilization,
            r.air_util_tx,
            r.region,
            r.duty_cycle,
            counter_sql(r.shortened),
            counter_sql(r.held),
            counter_sql(r.waited_secs),
        ],
    )?;
    Ok(())
}

fn load(c: &Connection) -> Result<Option<AirtimeRecord>, StoreError> {
    let row = c
        .query_row(
            "SELECT started_at, read_at, channel_utilization, air_util_tx, region, duty_cycle,
                    shortened, held, waited_secs
             FROM airtime WHERE id = 1",
            [],
            |row| {
                Ok(AirtimeRecord {
                    started_at: row.get(0)?,
                    read_at: row.get(1)?,
                    channel_utilization: row.get(2)?,
                    air_util_tx: row.get(3)?,
                    region: row.get(4)?,
                    duty_cycle: row.get(5)?,
                    shortened: counter(row.get(6)?),
                    held: counter(row.get(7)?),
                    waited_secs: counter(row.get(8)?),
                })
            },
        )
        .optional()?;
    Ok(row)
}
