//! What the store does about a damaged database file: the start check (`PRAGMA
//! quick_check`, which runs the index's own check), and the full-text indexes written
//! best-effort and rebuilt from what they index (the stored messages, the knowledge passages).
//! Which part SQLite found damaged (`Damage`) and the one log line per kind that says what to
//! do live with `StoreError` in `error`.
//!
//! The store keeps working on a damaged file: every call is still tried (a part that works, or
//! was repaired, keeps serving), a failure comes back as `StoreError::Damaged`, and the
//! responder answers without memory. The full-text index only serves retrieval and holds
//! nothing the messages do not, so a damaged index costs retrieval alone: a reply is stored
//! without its index entry, and the index can be rebuilt from the messages at any time.

use rusqlite::{Connection, Transaction, TransactionBehavior, params};

use super::error::{Damage, StoreError, damage_of};
use super::handle::Store;

/// What the start check found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Health {
    /// `quick_check` and the index's check passed.
    Ok,
    /// The file passed `quick_check`, but the full-text index is damaged (what FTS5 said).
    IndexDamaged(String),
    /// `quick_check` found damage, or could not read the file: its first problems.
    Damaged(String),
}

/// At most this many characters of `quick_check`'s problems are kept for the log.
const PROBLEMS_CHARS: usize = 300;

/// How FTS5 words the problems it reports to `quick_check` (its `xIntegrity`, SQLite 3.44
/// and later; the bundled SQLite is newer). `quick_check` gives its findings only as text,
/// so the index's are told apart by this wording.
const INDEX_PROBLEM: &str = "FTS5 table";

/// `PRAGMA quick_check`: the pages and records (O(N), without `integrity_check`'s slower
/// comparison of each index with its table), and the search index's own check. Changes
/// nothing.
pub(super) fn quick_check(c: &Connection) -> Result<Health, StoreError> {
    let rows = c.prepare("PRAGMA quick_check(10)").and_then(|mut stmt| {
        stmt.query_map([], |row| row.get::<_, String>(0))?
            .collect::<rusqlite::Result<Vec<_>>>()
    });
    let rows = match rows {
        Ok(rows) => rows,
        Err(e) => match damage_of(&e) {
            Some(Damage::Index) => return Ok(Health::IndexDamaged(e.to_string())),
            Some(Damage::File) => vec![e.to_string()],
            None => return Err(e.into()),
        },
    };
    let (index, file): (Vec<String>, Vec<String>) = rows
        .into_iter()
        .filter(|r| r != "ok")
        .map(|r| r.replace('\n', " "))
        .partition(|r| r.contains(INDEX_PROBLEM));
    let problems = |rows: Vec<String>| crate::text::cap(&rows.join("; "), PROBLEMS_CHARS);
    Ok(if !file.is_empty() {
        Health::Damaged(problems(file))
    } else if !index.is_empty() {
        Health::IndexDamaged(problems(index))
    } else {
        Health::Ok
    })
}

/// Empties the full-text indexes and fills them again, the exchanges' from the stored
/// messages and the knowledge passages' from the passages, in one transaction; returns how
/// many exchanges it holds. `delete-all` drops an index's segments without reading them, so
/// it works on a damaged index.
pub(super) fn rebuild_index(c: &mut Connection) -> Result<usize, StoreError> {
    let tx = c.transaction_with_behavior(TransactionBehavior::Immediate)?;
    tx.execute(
        "INSERT INTO exchanges_fts(exchanges_fts) VALUES ('delete-all')",
        [],
    )?;
    let n = tx.execute(
        "INSERT INTO exchanges_fts(rowid, user, assistant)
         SELECT e.id, u.text, a.text
         FROM exchanges e
         JOIN messages u ON u.id = e.user_id
         JOIN messages a ON a.id = e.assistant_id",
        [],
    )?;
    super::knowledge::rebuild_index(&tx)?;
    tx.commit()?;
    Ok(n)
}

/// Whether an exchange already has an index entry that a new one replaces.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Entry {
    /// A new exchange: no entry yet.
    New,
    /// A rewritten reply: its old entry goes first.
    Replacing,
}

/// Whether a write that stores an exchange also writes its index entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Indexing {
    /// With its entry, through [`index_exchange`].
    WithEntry,
    /// Without it: a damaged index rolled the first try back.
    WithoutEntry,
}

/// (Re)writes exchange `id`'s index entry inside `tx`, in a savepoint: when the index is
/// damaged the entry is left out, the rest of the transaction goes on, and the damage comes
/// back as `Ok(Some(..))` for the caller to report.
///
/// When the damage made SQLite roll the whole transaction back (it does on SQLITE_NOMEM),
/// nothing of the caller's is left to go on with: the damage comes back as
/// `Err(StoreError::Damaged)`, for [`without_entry_if_rolled_back`] to write it all again
/// without the entry.
pub(super) fn index_exchange(
    tx: &mut Transaction<'_>,
    id: i64,
    (user, assistant): (&str, &str),
    entry: Entry,
) -> Result<Option<StoreError>, StoreError> {
    let mut sp = tx.savepoint()?;
    let written = (|| {
        if entry == Entry::Replacing {
            sp.execute("DELETE FROM exchanges_fts WHERE rowid = ?1", [id])?;
        }
        sp.prepare_cached("INSERT INTO exchanges_fts(rowid, user, assistant) VALUES (?1, ?2, ?3)")?
            .execute(params![id, user, assistant])?;
        // FTS5 keeps new entries in memory until the commit, or until a savepoint opens:
        // this one makes it write them now, inside ours, so a damaged index fails here.
        sp.savepoint()?.commit()
    })();
    match written {
        Ok(_) => {
            sp.commit()?;
            Ok(None)
        }
        // Dropping the savepoint rolls the index back to where it was.
        Err(source) => match damage_of(&source) {
            Some(part) if sp.is_autocommit() => Err(StoreError::Damaged { part, source }),
            Some(part) => Ok(Some(StoreError::Damaged { part, source })),
            None => Err(source.into()),
        },
    }
}

/// Runs `write`, a transaction that writes an exchange's index entry with [`index_exchange`]
/// when told to ([`Indexing::WithEntry`]), and once more without the entry when a damaged
/// index made SQLite roll the first one back; the damage comes back beside the result as from
/// `index_exchange`, so a reply is stored whatever state the index is in.
pub(super) fn without_entry_if_rolled_back<T>(
    c: &mut Connection,
    mut write: impl FnMut(&mut Connection, Indexing) -> Result<(T, Option<StoreError>), StoreError>,
) -> Result<(T, Option<StoreError>), StoreError> {
    match write(c, Indexing::WithEntry) {
        Err(damage @ StoreError::Damaged { .. }) => {
            let (done, _) = write(c, Indexing::WithoutEntry)?;
            Ok((done, Some(damage)))
        }
        result => result,
    }
}

impl Store {
    /// Runs SQLite's and FTS5's integrity checks; returns `"ok"` when both pass, otherwise
    /// the problems, one per line.
    #[cfg(test)]
    pub(crate) async fn integrity_check(&self) -> Result<String, StoreError> {
        self.call(|c| integrity_check(c)).await
    }

    /// Checks the file with `PRAGMA quick_check` (the search index's own check included).
    /// Reports only; [`Store::note_damage`] and [`Store::rebuild_index`] act on what it found.
    pub(crate) async fn check(&self) -> Result<Health, StoreError> {
        self.call(|c| quick_check(c)).await
    }

    /// Empties the search index and fills it again from the stored exchanges (nothing is
    /// lost: it holds only their words); returns how many it holds.
    pub(crate) async fn rebuild_index(&self) -> Result<usize, StoreError> {
        self.call(rebuild_index).await
    }

    /// Records damage found outside a call (the start check): logged once per kind, shown by
    /// [`Store::damage`].
    pub(crate) fn note_damage(&self, damage: Damage, detail: &dyn std::fmt::Display) {
        self.seen.note(damage, &self.path, detail);
    }

    /// The worst damage met since the store opened, for `!status`.
    pub(crate) fn damage(&self) -> Option<Damage> {
        self.seen.worst()
    }
}

#[cfg(test)]
pub(super) fn integrity_check(c: &Connection) -> Result<String, StoreError> {
    let mut problems: Vec<String> = c
        .prepare("PRAGMA integrity_check")?
        .query_map([], |row| row.get::<_, String>(0))?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    problems.retain(|p| p != "ok");
    for table in ["exchanges_fts", "knowledge_fts"] {
        let check = format!("INSERT INTO {table}({table}) VALUES ('integrity-check')");
        if let Err(e) = c.execute(&check, []) {
            problems.push(format!("full-text index {table}: {e}"));
        }
    }
    if problems.is_empty() {
        Ok("ok".to_string())
    } else {
        Ok(problems.join("\n"))
    }
}
