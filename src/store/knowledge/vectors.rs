//! Passage embeddings (`[knowledge.embeddings]`, see `crate::knowledge::embed`): one vector
//! per distinct passage input ([`embed_input`]: its heading and text) and model, keyed by
//! the input's hash — so a passage is embedded once, and again only when its text or the
//! model changes: a changed file's unchanged passages keep theirs. A vector is stored as
//! little-endian `f32`s of unit length, so a dot product is the cosine similarity.
//!
//! The nearest passages to a question are found by reading every vector of the model once
//! on the store's thread and keeping the best few: a 1,000-passage index of 384-dimension
//! vectors is 1.5 MB read per search and nothing held in memory between searches (the
//! daemon's idle budget is 15 MiB). Vectors of passages no longer in the folder are pruned
//! after each round of embedding.

use rusqlite::{Connection, params};

use super::{KnowledgeHit, Passages};
use crate::store::error::StoreError;
use crate::store::handle::Store;

/// FNV-1a, 64 bits: a content hash that only has to tell one text from another (a file's
/// content, a passage's input). Written here rather than taken from std, whose
/// `DefaultHasher` may change between Rust releases (the hash is stored), or from a crate: it
/// is four lines, and nothing here needs a cryptographic hash.
pub fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(*b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// What is embedded for a passage: its heading path (what the passage is about, often the
/// words a question uses) above its text.
pub fn embed_input(heading: &str, text: &str) -> String {
    if heading.is_empty() {
        text.to_string()
    } else {
        format!("{heading}\n\n{text}")
    }
}

/// The key a passage's vector is stored under (the same 64 bits in SQLite's signed integer).
pub(super) fn embed_key(heading: &str, text: &str) -> i64 {
    fnv1a(embed_input(heading, text).as_bytes()) as i64
}

/// A passage input without a vector for the model yet.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unembedded {
    pub key: i64,
    pub input: String,
}

/// How many passages have a vector for a model, of all.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Embedded {
    pub(crate) embedded: usize,
    pub(crate) passages: usize,
}

impl Store {
    /// Up to `limit` passage inputs without a vector from `model`.
    pub async fn knowledge_unembedded(
        &self,
        model: String,
        limit: usize,
    ) -> Result<Vec<Unembedded>, StoreError> {
        self.call(move |c| unembedded(c, &model, limit)).await
    }

    /// Stores `vectors` (key, vector) from `model`, each scaled to unit length. The caller
    /// has checked them ([`unit`]); one that cannot be scaled (zero, not finite) is left out
    /// and stays unembedded.
    pub async fn knowledge_put_vectors(
        &self,
        model: String,
        vectors: Vec<(i64, Vec<f32>)>,
    ) -> Result<(), StoreError> {
        self.call(move |c| put(c, &model, &vectors)).await
    }

    /// Removes the vectors of other models and of passages no longer indexed; returns how
    /// many went. Then hands SQLite's page cache back (`PRAGMA shrink_memory`): a round of
    /// embedding reads and writes every vector once, which would leave the cache full for an
    /// idle daemon (docs/benchmarks.md has the RSS with and without).
    pub(crate) async fn knowledge_prune_vectors(&self, model: String) -> Result<usize, StoreError> {
        self.call(move |c| {
            let n = c.execute(
                "DELETE FROM knowledge_vectors WHERE model <> ?1 OR key NOT IN
                     (SELECT embed_key FROM knowledge_passages WHERE embed_key IS NOT NULL)",
                [model],
            )?;
            c.execute_batch("PRAGMA shrink_memory")?;
            Ok(n)
        })
        .await
    }

    /// How many passages have a vector from `model`.
    pub(crate) async fn knowledge_embedded(&self, model: String) -> Result<Embedded, StoreError> {
        self.call(move |c| {
            let (embedded, passages): (i64, i64) = c
                .prepare_cached(
                    "SELECT count(v.key), count(*) FROM knowledge_passages p
                     LEFT JOIN knowledge_vectors v ON v.model = ?1 AND v.key = p.embed_key",
                )?
                .query_row([model], |row| Ok((row.get(0)?, row.get(1)?)))?;
            Ok(Embedded {
                embedded: usize::try_from(embedded).unwrap_or(0),
                passages: usize::try_from(passages).unwrap_or(0),
            })
        })
        .await
    }

    /// The `limit` passages whose vectors from `model` are nearest to `query` (any length:
    /// it is scaled here), best first, private ones only with [`Passages::WithPrivate`]; each with its
    /// cosine similarity in `similarity` (full-text scores 0). Vectors of another length
    /// than `query`'s are passed over.
    pub async fn knowledge_nearest(
        &self,
        model: String,
        query: Vec<f32>,
        passages: Passages,
        limit: usize,
    ) -> Result<Vec<KnowledgeHit>, StoreError> {
        self.call(move |c| nearest(c, &model, &query, passages, limit))
            .await
    }
}

/// `v` scaled to unit length; `None` for a zero or non-finite vector.
pub fn unit(v: &[f32]) -> Option<Vec<f32>> {
    let norm = v
        .iter()
        .map(|x| f64::from(*x) * f64::from(*x))
        .sum::<f64>()
        .sqrt();
    (norm.is_finite() && norm > 0.0)
        .then(|| v.iter().map(|x| (f64::from(*x) / norm) as f32).collect())
}

fn to_blob(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// The dot product of a stored vector with `query`; `None` when their lengths differ.
fn dot(blob: &[u8], query: &[f32]) -> Option<f64> {
    if blob.len() != query.len() * 4 {
        return None;
    }
    let sum = blob
        .chunks_exact(4)
        .zip(query)
        .map(|(b, q)| f64::from(f32::from_le_bytes([b[0], b[1], b[2], b[3]])) * f64::from(*q))
        .sum();
    Some(sum)
}

fn unembedded(c: &Connection, model: &str, limit: usize) -> Result<Vec<Unembedded>, StoreError> {
    // In passage order, without grouping (no temporary b-tree over the whole index): a text
    // that two passages share comes twice at most once per batch, and not again once stored.
    let mut out: Vec<Unembedded> = Vec::with_capacity(limit);
    let mut stmt = c.prepare_cached(
        "SELECT p.embed_key, p.heading, p.text FROM knowledge_passages p
         WHERE p.embed_key IS NOT NULL AND NOT EXISTS (SELECT 1 FROM knowledge_vectors v
               WHERE v.model = ?1 AND v.key = p.embed_key)
         ORDER BY p.id",
    )?;
    let mut rows = stmt.query([model])?;
    while out.len() < limit
        && let Some(row) = rows.next()?
    {
        let key: i64 = row.get(0)?;
        if out.iter().any(|u| u.key == key) {
            continue;
        }
        let heading: String = row.get(1)?;
        let text: String = row.get(2)?;
        out.push(Unembedded {
            key,
            input: embed_input(&heading, &text),
        });
    }
    Ok(out)
}

fn put(c: &mut Connection, model: &str, vectors: &[(i64, Vec<f32>)]) -> Result<(), StoreError> {
    let tx = c.transaction()?;
    for (key, blob) in vectors
        .iter()
        .filter_map(|(key, v)| unit(v).map(|u| (*key, to_blob(&u))))
    {
        tx.prepare_cached(
            "INSERT INTO knowledge_vectors(model, key, vector) VALUES (?1, ?2, ?3)
             ON CONFLICT(model, key) DO UPDATE SET vector = excluded.vector",
        )?
        .execute(params![model, key, blob])?;
    }
    tx.commit()?;
    Ok(())
}

fn nearest(
    c: &mut Connection,
    model: &str,
    query: &[f32],
    passages: Passages,
    limit: usize,
) -> Result<Vec<KnowledgeHit>, StoreError> {
    let Some(query) = unit(query) else {
        return Ok(Vec::new());
    };
    let mut best: Vec<(f64, i64)> = Vec::with_capacity(limit + 1);
    let tx = c.transaction()?;
    {
        let mut stmt = tx.prepare_cached(
            "SELECT p.id, v.vector FROM knowledge_vectors v
             JOIN knowledge_passages p ON p.embed_key = v.key
             JOIN knowledge_files f ON f.id = p.file_id
             WHERE v.model = ?1 AND (?2 OR f.private = 0)",
        )?;
        let mut rows = stmt.query(params![model, passages.includes_private()])?;
        while let Some(row) = rows.next()? {
            let id: i64 = row.get(0)?;
            let rusqlite::types::ValueRef::Blob(blob) = row.get_ref(1)? else {
                continue;
            };
            let Some(similarity) = dot(blob, &query) else {
                continue;
            };
            if best.len() == limit && best.last().is_some_and(|(s, _)| *s >= similarity) {
                continue;
            }
            let at = best.partition_point(|(s, _)| *s >= similarity);
            best.insert(at, (similarity, id));
            best.truncate(limit);
        }
    }
    let mut hits = Vec::with_capacity(best.len());
    for (similarity, id) in best {
        let hit = tx
            .prepare_cached(
                "SELECT f.path, p.heading, p.text, f.private FROM knowledge_passages p
                 JOIN knowledge_files f ON f.id = p.file_id WHERE p.id = ?1",
            )?
            .query_row([id], |row| {
                Ok(KnowledgeHit {
                    id,
                    path: row.get(0)?,
                    heading: row.get(1)?,
                    text: row.get(2)?,
                    private: row.get(3)?,
                    score: 0.0,
                    coverage: 0.0,
                    topic: 0.0,
                    similarity: Some(similarity),
                })
            })?;
        hits.push(hit);
    }
    Ok(hits)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vectors_are_unit_length_and_compared_by_dot_product() {
        assert_eq!(unit(&[3.0, 4.0]), Some(vec![0.6, 0.8]));
        assert_eq!(unit(&[0.0, 0.0]), None);
        assert_eq!(unit(&[f32::NAN, 1.0]), None);
        assert_eq!(unit(&[f32::INFINITY, 1.0]), None);
        let blob = to_blob(&[0.6, 0.8]);
        assert_eq!(blob.len(), 8);
        let same = dot(&blob, &[0.6, 0.8]).unwrap();
        assert!((same - 1.0).abs() < 1e-6, "{same}");
        let across = dot(&blob, &[0.8, -0.6]).unwrap();
        assert!(across.abs() < 1e-6, "{across}");
        // Another model's length is passed over, not misread.
        assert_eq!(dot(&blob, &[1.0, 0.0, 0.0]), None);
    }

    #[test]
    fn a_passage_is_keyed_by_its_heading_and_text() {
        assert_eq!(embed_input("", "Fees are £20."), "Fees are £20.");
        assert_eq!(embed_input("Club > Fees", "£20."), "Club > Fees\n\n£20.");
        assert_eq!(embed_key("a", "b"), embed_key("a", "b"));
        assert_ne!(embed_key("a", "b"), embed_key("a", "c"));
    }

    #[test]
    fn the_hash_is_fnv1a_and_tells_texts_apart() {
        // The published FNV-1a 64 test vectors.
        assert_eq!(fnv1a(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a(b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(fnv1a(b"foobar"), 0x8594_4171_f739_67e8);
        assert_ne!(fnv1a(b"145.650 MHz"), fnv1a(b"145.675 MHz"));
    }
}
