//! The packets that count once: every PKI DM and every command, by its sender and packet id
//! (`seen_packets`). The radio's duplicate filter keeps (from, id) in RAM for two hours and
//! 10,000 entries, which a flood of channel texts from made-up ids empties in seconds and a
//! restart empties at once; a captured PKI `!reset` sent again would then run again. This
//! table remembers them on disk instead, so a repeat is ignored however much other traffic
//! came between and across restarts.
//!
//! A PKI DM's sender is its key (only its holder can make a DM our node decrypts with it); a
//! command without PKI has only its node number. The firmware draws each packet id at random
//! (a 10-bit counter under 22 random bits, `Router.cpp`'s `generatePacketId`), so a sender's
//! own new packet repeats a remembered id only by chance (one in 2^32 per remembered id);
//! nothing reuses an id on a schedule. Rows are kept [`KEEP_SECS`] and at most [`MAX_ROWS`]
//! (the oldest go first), pruned on each write.

use rusqlite::{Connection, TransactionBehavior, params};

use super::error::StoreError;
use super::handle::Store;
use crate::node::{NodeId, PublicKey};

/// How long a packet is remembered: far beyond the two hours of the radio's filter and any
/// mesh's retransmissions; a replay older than this is not recognised (docs/security.md).
pub(crate) const KEEP_SECS: i64 = 90 * 86_400;

/// At most this many remembered packets (about 10 MB); beyond it the oldest go.
pub(crate) const MAX_ROWS: i64 = 200_000;

/// Who sent a packet that counts once.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Sender {
    /// A PKI DM: the key our node decrypted it with.
    Key(PublicKey),
    /// A command without PKI: only its claimed number.
    Node(NodeId),
}

impl Sender {
    fn bytes(self) -> Vec<u8> {
        match self {
            Sender::Key(key) => key.0.to_vec(),
            Sender::Node(node) => node.0.to_be_bytes().to_vec(),
        }
    }
}

impl Store {
    /// Remembers that `sender` sent packet `packet_id` at `at` (Unix seconds); returns
    /// whether it is the first time (false: a repeat, to be ignored). Prunes what is older
    /// than [`KEEP_SECS`] before `at`, and the oldest beyond [`MAX_ROWS`].
    pub(crate) async fn first_sighting(
        &self,
        sender: Sender,
        packet_id: u32,
        at: i64,
    ) -> Result<bool, StoreError> {
        self.call(move |c| sighting(c, sender, packet_id, at, MAX_ROWS))
            .await
    }
}

/// [`Store::first_sighting`] with at most `max_rows` kept.
fn sighting(
    c: &mut Connection,
    sender: Sender,
    packet_id: u32,
    at: i64,
    max_rows: i64,
) -> Result<bool, StoreError> {
    let tx = c.transaction_with_behavior(TransactionBehavior::Immediate)?;
    let n = tx.execute(
        "INSERT INTO seen_packets(sender, packet_id, at) VALUES (?1, ?2, ?3)
         ON CONFLICT(sender, packet_id) DO NOTHING",
        params![sender.bytes(), i64::from(packet_id), at],
    )?;
    // Row ids only grow (the newest row is never the one pruned), so the oldest beyond the
    // bound are those `max_rows` below the newest.
    tx.execute(
        "DELETE FROM seen_packets WHERE at < ?1
            OR id <= (SELECT max(id) FROM seen_packets) - ?2",
        params![at.saturating_sub(KEEP_SECS), max_rows],
    )?;
    tx.commit()?;
    Ok(n == 1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::schema;

    const K1: PublicKey = PublicKey([1; 32]);
    const K2: PublicKey = PublicKey([2; 32]);

    fn db() -> (tempfile::TempDir, Connection) {
        let dir = tempfile::tempdir().unwrap();
        let c = schema::open(&dir.path().join("meshai.db")).unwrap();
        (dir, c)
    }

    #[test]
    fn a_packet_counts_once_per_sender() {
        let (_dir, mut c) = db();
        let day = 86_400;
        // (sender, packet id, at, first time)
        let cases = [
            (Sender::Key(K1), 7, 10, true),
            (Sender::Key(K1), 7, 20, false),
            (Sender::Key(K2), 7, 20, true),
            (Sender::Node(NodeId(5)), 7, 20, true),
            (Sender::Node(NodeId(5)), 7, 30, false),
            (Sender::Node(NodeId(6)), 7, 30, true),
            (Sender::Key(K1), 8, 30, true),
            // Long after: the first row was pruned by age, so it counts again.
            (Sender::Key(K1), 9, 10 + KEEP_SECS + day, true),
            (Sender::Key(K1), 7, 10 + KEEP_SECS + day, true),
            (Sender::Key(K1), 8, 10 + KEEP_SECS + day, true),
        ];
        for (i, (sender, id, at, want)) in cases.into_iter().enumerate() {
            assert_eq!(
                sighting(&mut c, sender, id, at, 100).unwrap(),
                want,
                "case {i}"
            );
        }
    }

    #[test]
    fn beyond_the_bound_the_oldest_go() {
        let (_dir, mut c) = db();
        for id in 0..10 {
            assert!(sighting(&mut c, Sender::Key(K1), id, 100, 4).unwrap());
        }
        let rows: i64 = c
            .query_row("SELECT count(*) FROM seen_packets", [], |r| r.get(0))
            .unwrap();
        assert_eq!(rows, 4);
        // The newest are kept, the oldest count again.
        assert!(!sighting(&mut c, Sender::Key(K1), 9, 100, 4).unwrap());
        assert!(sighting(&mut c, Sender::Key(K1), 0, 100, 4).unwrap());
    }
}
