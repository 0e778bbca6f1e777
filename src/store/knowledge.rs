//! The operator's documents as the store keeps them (`[knowledge] dir`): a row per file of
//! the folder in `knowledge_files` — indexed, or skipped with the reason —, the passages each
//! indexed file was split into (`knowledge_passages`), their full-text index (`knowledge_fts`:
//! porter stemming like the exchanges'; columns for the file's path with the headings, the
//! heading right above the passage, and its text), and when the folder was last indexed.
//!
//! Nothing here belongs to a node: a reset or expiry never touches it, and a user's message
//! never enters it. The store only runs the SQL; reading the folder, splitting files and
//! choosing which passages a turn gets is `crate::knowledge`'s. A file's passages are replaced
//! whole in one transaction, so a search sees a file's old passages or its new ones, never a
//! mix.

mod initials;
mod vectors;

use rusqlite::{Connection, OptionalExtension, Row, TransactionBehavior, params};

use crate::lang::Lang;

use super::error::StoreError;
use super::fts::{self, Query};
use super::handle::Store;
use initials::initialism;
use vectors::embed_key;
pub use vectors::{Embedded, Unembedded, embed_input, fnv1a, unit};

/// A file of the knowledge folder as last indexed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KnowledgeFile {
    /// Relative to the folder, `/`-separated (`private/wifi.md`).
    pub(crate) path: String,
    /// What the folder said when it was indexed: the change check compares these first.
    pub(crate) size: u64,
    pub(crate) mtime_ns: i64,
    /// The content hash, to confirm a change when size or time differ; `None` when the file
    /// was skipped before it was read (an unsupported format, too large).
    pub(crate) hash: Option<u64>,
    /// Used only for DMs from nodes the operator allows, never for mentions.
    pub(crate) private: bool,
    /// How many passages it has (0 when skipped).
    pub(crate) passages: usize,
    /// Why it is not indexed, as said to the operator; `None` when indexed.
    pub(crate) skipped: Option<String>,
    /// Unix seconds of the last change to this row.
    pub(crate) indexed_at: i64,
}

/// A passage to index, in the order of its file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewPassage {
    /// The headings above it, outermost first, joined with ` > ` (empty above the first).
    pub(crate) heading: String,
    pub(crate) text: String,
}

/// One change to the index.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KnowledgeChange {
    /// A new or changed file: its row (`passages` and `skipped` are taken from here:
    /// `skipped` set means the file has no passages) and its passages, replacing any old ones.
    Put {
        file: KnowledgeFile,
        passages: Vec<NewPassage>,
    },
    /// The file's size or time changed but its content did not: only those are updated.
    Touch {
        path: String,
        size: u64,
        mtime_ns: i64,
    },
    /// The file is gone from the folder: its row and passages go.
    Remove { path: String },
}

/// Which passages a search may find: private ones only for a DM the operator's rules allow
/// (`crate::knowledge::KnowledgeConfig::private_for`); the store filters them in the SQL.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Passages {
    /// Only the passages of files that are not private.
    Public,
    /// The private ones too.
    WithPrivate,
}

impl Passages {
    /// The SQL parameter `?n` in `(?n OR f.private = 0)`.
    pub(super) fn includes_private(self) -> bool {
        self == Passages::WithPrivate
    }
}

/// A passage a search found, with what the choice of passages needs.
#[derive(Debug, Clone, PartialEq)]
pub struct KnowledgeHit {
    /// The passage's row: the full-text and the vector searches find the same passage by it.
    pub(crate) id: i64,
    pub(crate) path: String,
    pub(crate) heading: String,
    pub(crate) text: String,
    pub(crate) private: bool,
    /// How well it matches (higher is better, 0 is no match): FTS5's bm25 negated, plus the
    /// weight of the query's words it has.
    pub(crate) score: f64,
    /// The share (0 to 1) of the query's weight (each term its smoothed inverse document
    /// frequency over all passages) that this passage matches.
    pub(crate) coverage: f64,
    /// The share (0 to 1) of the words of the heading right above the passage that the query
    /// names: 1 when the question names what the passage is about.
    pub(crate) topic: f64,
    /// The cosine similarity of its vector to the question's (`[knowledge.embeddings]`);
    /// `None` when the vector search did not find it.
    pub(crate) similarity: Option<f64>,
}

/// What the index holds, for `!status`, `meshai check` and `meshai knowledge list`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct KnowledgeIndex {
    /// The folder last indexed, and when (Unix seconds); `None` before the first indexing.
    pub(crate) last: Option<(String, i64)>,
    /// The version of the splitter that made the passages (`None` before the first indexing).
    pub(crate) splitter: Option<u32>,
    /// Indexed files (skipped ones not counted) and their passages.
    pub(crate) documents: usize,
    pub passages: usize,
    pub(crate) private_passages: usize,
    /// Files of the folder that are not indexed.
    pub(crate) skipped: usize,
}

/// Column weights for bm25 (source, topic, text): a word of the heading right above a
/// passage counts most — it says what the passage is about ("What time does club night
/// begin?" finds "Monthly club night" before "The rota", which says "at all times" and "club
/// night"); the file name and the headings above count as much as the text.
const BM25_WEIGHTS: &str = "bm25(knowledge_fts, 1.0, 4.0, 1.0)";

impl Store {
    /// Every file of the knowledge folder as last indexed, by path.
    pub(crate) async fn knowledge_files(&self) -> Result<Vec<KnowledgeFile>, StoreError> {
        self.call(|c| files(c)).await
    }

    /// Applies `changes` at `at` (Unix seconds) in one transaction.
    pub(crate) async fn knowledge_apply(
        &self,
        changes: Vec<KnowledgeChange>,
        at: i64,
    ) -> Result<(), StoreError> {
        self.call(move |c| apply(c, &changes, at)).await
    }

    /// Records that `dir` was indexed at `at` by version `splitter` of the splitter.
    pub(crate) async fn knowledge_indexed(
        &self,
        dir: String,
        at: i64,
        splitter: u32,
    ) -> Result<(), StoreError> {
        self.call(move |c| {
            c.execute(
                "INSERT INTO knowledge_state(id, dir, indexed_at, splitter) VALUES (1, ?1, ?2, ?3)
                 ON CONFLICT(id) DO UPDATE SET dir = excluded.dir,
                     indexed_at = excluded.indexed_at, splitter = excluded.splitter",
                params![dir, at, splitter],
            )?;
            Ok(())
        })
        .await
    }

    /// What the index holds.
    pub async fn knowledge_index(&self) -> Result<KnowledgeIndex, StoreError> {
        self.call(index).await
    }

    /// Up to `limit` passages that match `text`, best first, private ones only with
    /// [`Passages::WithPrivate`]; each with its score and the share of the query it covers. The text is
    /// reduced to safe terms like a memory search (no terms, no passages), and neighbouring
    /// words are searched as phrases too, each word as `lang` inflects it
    /// (`fts::Query::with_phrases`).
    pub(crate) async fn knowledge_search(
        &self,
        text: &str,
        lang: Lang,
        passages: Passages,
        limit: usize,
    ) -> Result<Vec<KnowledgeHit>, StoreError> {
        let text = text.to_string();
        self.call(move |c| {
            let text = spelled_out(c, &text, passages)?;
            let Some(query) = Query::with_phrases(&text, lang) else {
                return Ok(Vec::new());
            };
            search(c, &query, passages, limit)
        })
        .await
    }
}

/// At most this many passages that have an abbreviation are read for its definition.
const DEFINING: i64 = 16;

/// `text` with each abbreviation it asks with ([`initials::asked`]) written out as the
/// passages define it ([`initials::defined`]): "An welchem Datum ist die JHV?" is searched as
/// "… die Jahreshauptversammlung?", the heading the date stands under, where the handbook
/// says "auf der Jahreshauptversammlung (JHV)". A private passage defines one only for a
/// search that may see it. An abbreviation no passage defines stays as it is.
fn spelled_out(c: &Connection, text: &str, passages: Passages) -> Result<String, StoreError> {
    let mut out = text.to_string();
    for abbreviation in initials::asked(text) {
        // Letters only (`asked`), so the quoted term cannot escape its quotes.
        let term = format!("text : \"{}\"", abbreviation.to_lowercase());
        let texts = c
            .prepare_cached(
                "SELECT p.text FROM knowledge_fts
                 JOIN knowledge_passages p ON p.id = knowledge_fts.rowid
                 JOIN knowledge_files f ON f.id = p.file_id
                 WHERE knowledge_fts MATCH ?1 AND (?2 OR f.private = 0)
                 ORDER BY p.id LIMIT ?3",
            )?
            .query_map(
                params![term, passages.includes_private(), DEFINING],
                |row| row.get::<_, String>(0),
            )?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        if let Some(long) = texts
            .iter()
            .find_map(|t| initials::defined(t, abbreviation))
        {
            out = initials::spelled_out(&out, abbreviation, &long);
        }
    }
    Ok(out)
}

/// Maps `SELECT path, size, mtime_ns, hash, private, skipped, indexed_at, passages`.
fn file_row(row: &Row<'_>) -> rusqlite::Result<KnowledgeFile> {
    Ok(KnowledgeFile {
        path: row.get(0)?,
        size: u64::try_from(row.get::<_, i64>(1)?).unwrap_or(0),
        mtime_ns: row.get(2)?,
        // Stored as the same 64 bits in SQLite's signed integer.
        hash: row.get::<_, Option<i64>>(3)?.map(|h| h as u64),
        private: row.get(4)?,
        skipped: row.get(5)?,
        indexed_at: row.get(6)?,
        passages: usize::try_from(row.get::<_, i64>(7)?).unwrap_or(0),
    })
}

fn files(c: &Connection) -> Result<Vec<KnowledgeFile>, StoreError> {
    let rows = c
        .prepare_cached(
            "SELECT f.path, f.size, f.mtime_ns, f.hash, f.private, f.skipped, f.indexed_at,
                    (SELECT count(*) FROM knowledge_passages p WHERE p.file_id = f.id)
             FROM knowledge_files f ORDER BY f.path",
        )?
        .query_map([], file_row)?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    Ok(rows)
}

/// A size as stored; a file too large for i64 cannot exist, but saturates all the same.
fn size_sql(size: u64) -> i64 {
    i64::try_from(size).unwrap_or(i64::MAX)
}

fn apply(c: &mut Connection, changes: &[KnowledgeChange], at: i64) -> Result<(), StoreError> {
    let tx = c.transaction_with_behavior(TransactionBehavior::Immediate)?;
    for change in changes {
        match change {
            KnowledgeChange::Put { file, passages } => {
                // Deleting the row takes its passages (and their index entries) with it.
                tx.prepare_cached("DELETE FROM knowledge_files WHERE path = ?1")?
                    .execute([&file.path])?;
                tx.prepare_cached(
                    "INSERT INTO knowledge_files(path, size, mtime_ns, hash, private, skipped,
                                                 indexed_at)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
                )?
                .execute(params![
                    file.path,
                    size_sql(file.size),
                    file.mtime_ns,
                    file.hash.map(|h| h as i64),
                    file.private,
                    file.skipped,
                    at
                ])?;
                let file_id = tx.last_insert_rowid();
                if file.skipped.is_some() {
                    continue;
                }
                for (seq, p) in passages.iter().enumerate() {
                    tx.prepare_cached(
                        "INSERT INTO knowledge_passages(file_id, seq, heading, text, embed_key)
                         VALUES (?1, ?2, ?3, ?4, ?5)",
                    )?
                    .execute(params![
                        file_id,
                        seq as i64,
                        p.heading,
                        p.text,
                        embed_key(&p.heading, &p.text)
                    ])?;
                    let id = tx.last_insert_rowid();
                    index_passage(&tx, id, &file.path, &p.heading, &p.text)?;
                }
            }
            KnowledgeChange::Touch {
                path,
                size,
                mtime_ns,
            } => {
                tx.prepare_cached(
                    "UPDATE knowledge_files SET size = ?2, mtime_ns = ?3 WHERE path = ?1",
                )?
                .execute(params![path, size_sql(*size), mtime_ns])?;
            }
            KnowledgeChange::Remove { path } => {
                tx.prepare_cached("DELETE FROM knowledge_files WHERE path = ?1")?
                    .execute([path])?;
            }
        }
    }
    tx.commit()?;
    Ok(())
}

/// Writes passage `id`'s index entry: its source (the file's path and every heading above
/// it), its topic (the heading right above it: what the passage is about, weighted most) and
/// its text.
fn index_passage(
    tx: &Connection,
    id: i64,
    path: &str,
    heading: &str,
    text: &str,
) -> rusqlite::Result<()> {
    let topic = heading.rsplit(" > ").next().unwrap_or_default();
    let topic = match initialism(topic) {
        Some(short) => format!("{topic} {short}"),
        None => topic.to_string(),
    };
    tx.prepare_cached(
        "INSERT INTO knowledge_fts(rowid, source, topic, text) VALUES (?1, ?2, ?3, ?4)",
    )?
    .execute(params![id, format!("{path} {heading}"), topic, text])?;
    Ok(())
}

/// The index rebuilt from the passages (they hold everything it does), inside `tx`; returns
/// how many passages it holds.
pub(super) fn rebuild_index(tx: &Connection) -> rusqlite::Result<usize> {
    tx.execute(
        "INSERT INTO knowledge_fts(knowledge_fts) VALUES ('delete-all')",
        [],
    )?;
    let rows = tx
        .prepare(
            "SELECT p.id, f.path, p.heading, p.text
             FROM knowledge_passages p JOIN knowledge_files f ON f.id = p.file_id",
        )?
        .query_map([], |row| {
            Ok((
                row.get::<_, i64>(0)?,
                row.get::<_, String>(1)?,
                row.get::<_, String>(2)?,
                row.get::<_, String>(3)?,
            ))
        })?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    for (id, path, heading, text) in &rows {
        index_passage(tx, *id, path, heading, text)?;
    }
    Ok(rows.len())
}

fn index(c: &mut Connection) -> Result<KnowledgeIndex, StoreError> {
    let tx = c.transaction()?;
    let state = tx
        .prepare_cached("SELECT dir, indexed_at, splitter FROM knowledge_state WHERE id = 1")?
        .query_row([], |row| {
            Ok(((row.get(0)?, row.get(1)?), row.get::<_, u32>(2)?))
        })
        .optional()?;
    let (last, splitter) = state.unzip();
    let count = |sql: &str| -> Result<usize, StoreError> {
        let n: i64 = tx.prepare_cached(sql)?.query_row([], |row| row.get(0))?;
        Ok(usize::try_from(n).unwrap_or(0))
    };
    let index = KnowledgeIndex {
        last,
        splitter,
        documents: count("SELECT count(*) FROM knowledge_files WHERE skipped IS NULL")?,
        passages: count("SELECT count(*) FROM knowledge_passages")?,
        private_passages: count(
            "SELECT count(*) FROM knowledge_passages p
             JOIN knowledge_files f ON f.id = p.file_id WHERE f.private = 1",
        )?,
        skipped: count("SELECT count(*) FROM knowledge_files WHERE skipped IS NOT NULL")?,
    };
    Ok(index)
}

fn search(
    c: &mut Connection,
    query: &Query,
    passages: Passages,
    limit: usize,
) -> Result<Vec<KnowledgeHit>, StoreError> {
    // One read transaction: the passages and the weights come from the same snapshot.
    let tx = c.transaction()?;
    let sql = format!(
        "SELECT p.id, f.path, p.heading, p.text, f.private, {BM25_WEIGHTS}
         FROM knowledge_fts
         JOIN knowledge_passages p ON p.id = knowledge_fts.rowid
         JOIN knowledge_files f ON f.id = p.file_id
         WHERE knowledge_fts MATCH ?1 AND (?2 OR f.private = 0)
         ORDER BY {BM25_WEIGHTS} LIMIT ?3"
    );
    let found = tx
        .prepare_cached(&sql)?
        .query_map(
            params![
                query.expression,
                passages.includes_private(),
                i64::try_from(limit).unwrap_or(i64::MAX)
            ],
            |row| {
                Ok(KnowledgeHit {
                    id: row.get(0)?,
                    path: row.get(1)?,
                    heading: row.get(2)?,
                    text: row.get(3)?,
                    private: row.get(4)?,
                    score: -row.get::<_, f64>(5)?,
                    coverage: 0.0,
                    topic: 0.0,
                    similarity: None,
                })
            },
        )?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    if found.is_empty() {
        return Ok(Vec::new());
    }
    let total: i64 = tx
        .prepare_cached("SELECT count(*) FROM knowledge_passages")?
        .query_row([], |row| row.get(0))?;
    let weights = fts::smoothed_weights(&tx, "knowledge_fts", total as f64, query)?;
    let whole: f64 = weights.iter().sum();
    let mut hits = Vec::with_capacity(found.len());
    for hit in found {
        let id = hit.id;
        let matched = fts::matched(&tx, "knowledge_fts", id, query, &weights, 0.0)?.weight;
        let coverage = if whole > 0.0 { matched / whole } else { 0.0 };
        // FTS5's bm25 weighs a word found in half the passages or more as nothing, which
        // leaves a small folder with no scores at all: the matched words' smoothed weight
        // is added, so a match always counts for what its words are worth.
        let score = hit.score + matched;
        let heading = hit.heading.rsplit(" > ").next().unwrap_or_default();
        let topic = fts::column_share(&tx, "knowledge_fts", "topic", id, query, heading)?;
        hits.push(KnowledgeHit {
            score,
            coverage,
            topic,
            ..hit
        });
    }
    Ok(hits)
}
