//! The watches set with `!watch` (`watches`): a node's owner is told once when a condition on
//! another node becomes true (it went quiet, came back, reported a low battery or a sensor
//! past a threshold). A row holds the owner, the watched node (number and name), the
//! condition as its canonical text (`responder::watcher` parses it), the owner's language,
//! and whether the condition held at the last look (`held`), so that a restart neither tells
//! again nor forgets. Bounded per owner by [`Store::add_watch`], in the insert's
//! transaction; moved with a renumbered node; an owner's deleted by its reset.

use rusqlite::{Connection, Row, TransactionBehavior, params};

use super::error::StoreError;
use super::handle::Store;
use super::sql::{limit, node_sql};
use crate::lang::Lang;
use crate::node::NodeId;

/// The most watches any read returns (the quota keeps far fewer per owner).
const READ_MAX: usize = 4000;

/// A watch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Watch {
    pub(crate) id: i64,
    pub(crate) owner: NodeId,
    pub(crate) target: NodeId,
    pub(crate) target_name: String,
    /// Its condition's canonical text.
    pub(crate) condition: String,
    /// The language its owner is told in.
    pub(crate) lang: Lang,
    pub(crate) created_at: i64,
    /// The condition held at the last look (the owner was told, or it held when set).
    pub(crate) held: bool,
}

/// A watch to set.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct NewWatch {
    pub(crate) owner: NodeId,
    pub(crate) target: NodeId,
    pub(crate) target_name: String,
    pub(crate) condition: String,
    pub(crate) lang: Lang,
    pub(crate) at: i64,
    /// Whether the condition holds already.
    pub(crate) held: bool,
}

/// What [`Store::add_watch`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Added {
    /// Added, with its id.
    New(i64),
    /// The owner watches this node for this condition already.
    Already,
    /// The owner has this many watches: nothing added.
    Full(usize),
}

impl Store {
    /// Adds `watch` unless its owner has `max` already or the same one.
    pub(crate) async fn add_watch(&self, watch: NewWatch, max: usize) -> Result<Added, StoreError> {
        self.call(move |c| add(c, &watch, max)).await
    }

    /// Every watch, oldest first.
    pub(crate) async fn watches(&self) -> Result<Vec<Watch>, StoreError> {
        self.call(|c| Ok(select(c, "1 = ?1", 1)?)).await
    }

    /// `owner`'s watches, oldest first.
    pub(crate) async fn watches_of(&self, owner: NodeId) -> Result<Vec<Watch>, StoreError> {
        self.call(move |c| Ok(select(c, "owner = ?1", node_sql(owner))?))
            .await
    }

    /// Deletes watch `id` when `owner` set it; whether it did.
    pub(crate) async fn remove_watch(&self, owner: NodeId, id: i64) -> Result<bool, StoreError> {
        self.call(move |c| {
            let n = c.execute(
                "DELETE FROM watches WHERE id = ?1 AND owner = ?2",
                params![id, node_sql(owner)],
            )?;
            Ok(n > 0)
        })
        .await
    }

    /// Notes whether watch `id`'s condition held at `at`.
    pub(crate) async fn watch_held(&self, id: i64, held: bool, at: i64) -> Result<(), StoreError> {
        self.call(move |c| {
            c.execute(
                "UPDATE watches SET held = ?2, changed_at = ?3 WHERE id = ?1",
                params![id, held, at],
            )?;
            Ok(())
        })
        .await
    }
}

fn add(c: &mut Connection, w: &NewWatch, max: usize) -> Result<Added, StoreError> {
    let tx = c.transaction_with_behavior(TransactionBehavior::Immediate)?;
    let same: bool = tx.query_row(
        "SELECT EXISTS(SELECT 1 FROM watches WHERE owner = ?1 AND target = ?2 AND condition = ?3)",
        params![node_sql(w.owner), node_sql(w.target), w.condition],
        |row| row.get(0),
    )?;
    if same {
        return Ok(Added::Already);
    }
    let n: i64 = tx.query_row(
        "SELECT count(*) FROM watches WHERE owner = ?1",
        [node_sql(w.owner)],
        |row| row.get(0),
    )?;
    let n = usize::try_from(n).unwrap_or(usize::MAX);
    if n >= max {
        return Ok(Added::Full(n));
    }
    tx.execute(
        "INSERT INTO watches(owner, target, target_name, condition, lang, created_at, held)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
        params![
            node_sql(w.owner),
            node_sql(w.target),
            w.target_name,
            w.condition,
            w.lang.code(),
            w.at,
            w.held
        ],
    )?;
    let id = tx.last_insert_rowid();
    tx.commit()?;
    Ok(Added::New(id))
}

fn select(c: &Connection, filter: &str, value: i64) -> rusqlite::Result<Vec<Watch>> {
    let mut stmt = c.prepare_cached(&format!(
        "SELECT id, owner, target, target_name, condition, lang, created_at, held
         FROM watches WHERE {filter} ORDER BY created_at, id LIMIT ?2"
    ))?;
    stmt.query_map(params![value, limit(READ_MAX)], row)?
        .filter_map(|r| r.transpose())
        .collect()
}

/// A row as a [`Watch`]; `None` for one written by hand with a number that is no node's.
fn row(r: &Row<'_>) -> rusqlite::Result<Option<Watch>> {
    let node = |i: usize| -> rusqlite::Result<Option<NodeId>> {
        Ok(u32::try_from(r.get::<_, i64>(i)?).ok().map(NodeId))
    };
    let (Some(owner), Some(target)) = (node(1)?, node(2)?) else {
        return Ok(None);
    };
    Ok(Some(Watch {
        id: r.get(0)?,
        owner,
        target,
        target_name: r.get(3)?,
        condition: r.get(4)?,
        lang: Lang::from_code(&r.get::<_, String>(5)?).unwrap_or_default(),
        created_at: r.get(6)?,
        held: r.get(7)?,
    }))
}
