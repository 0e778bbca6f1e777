//! How the store's values are written to SQLite and read back: node numbers, counts as
//! `LIMIT`s, saturating counters, and the `messages` row every query of messages maps.

use rusqlite::Row;

use super::types::StoredMessage;
use crate::node::NodeId;

/// A node number as stored: SQLite integers are i64, a u32 always fits.
pub(super) fn node_sql(node: NodeId) -> i64 {
    i64::from(node.0)
}

/// The node numbers `stmt` selects (one column) with `params`, in its order; a number that is
/// not a u32 (written by hand) is skipped.
pub(super) fn nodes(
    stmt: &mut rusqlite::Statement<'_>,
    params: impl rusqlite::Params,
) -> rusqlite::Result<Vec<NodeId>> {
    stmt.query_map(params, |row| row.get::<_, i64>(0))?
        .filter_map(|n| match n {
            Ok(n) => u32::try_from(n).ok().map(NodeId).map(Ok),
            Err(e) => Some(Err(e)),
        })
        .collect()
}

/// A count from the API as a SQL `LIMIT`; anything beyond i64 means "no limit" anyway.
pub(super) fn limit(n: usize) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

/// A counter as stored; a count too large for i64 saturates rather than wrapping.
pub(super) fn counter_sql(n: u64) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

/// A stored counter read back; a negative value can only come from outside tampering.
pub(super) fn counter(n: i64) -> u64 {
    u64::try_from(n).unwrap_or(0)
}

/// Maps `SELECT id, role, text, at, prompt`.
pub(super) fn message(row: &Row<'_>) -> rusqlite::Result<StoredMessage> {
    Ok(StoredMessage {
        id: row.get(0)?,
        role: row.get(1)?,
        text: row.get(2)?,
        at: row.get(3)?,
        prompt: row.get(4)?,
    })
}
