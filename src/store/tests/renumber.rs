//! A person is their key: a renumbered node's rows move to its new number in one go, the old
//! number keeps nothing and becomes an alias; a new number with memory of its own is never
//! overwritten (nothing moves until the operator forgets it), what else it held is dropped; a
//! schema 7 database (before aliases) gains the table with its rows intact.

use super::*;
use crate::node::PublicKey;
use crate::store::renumber::{Moved, Numbers};
use crate::store::types::Said;

const K1: PublicKey = PublicKey([1; 32]);
const K2: PublicKey = PublicKey([2; 32]);
const C: NodeId = NodeId(0x0000_00c3);

fn texts(history: &[StoredMessage]) -> Vec<&str> {
    history.iter().map(|m| m.text.as_str()).collect()
}

#[tokio::test]
async fn a_schema_7_database_moves_a_renumbered_node_whole() {
    let (_dir, path) = temp();
    {
        // Today's schema: A talked over PKI with K1, B has an unproven message of its own.
        let raw = at_version(&path, 7);
        raw.execute_batch(
            "INSERT INTO messages(node, role, text, at) VALUES (2712847316, 'user', 'kept', 5);
             INSERT INTO messages(node, role, text, at) VALUES (66, 'user', 'planted', 6);
             INSERT INTO nodes(node, long_name, first_seen, last_seen) VALUES (2712847316, 'Ann', 5, 5);",
        )
        .unwrap();
        raw.execute(
            "INSERT INTO node_keys(node, public_key, pinned_at) VALUES (?1, ?2, 5)",
            rusqlite::params![i64::from(A.0), K1.0.as_slice()],
        )
        .unwrap();
    }
    let store = Store::open(&path).unwrap();
    let id = store
        .append_user(A, "my gate is 12".into(), 7)
        .await
        .unwrap();
    store
        .append_reply(A, id, Said::plain("noted"), 8, None)
        .await
        .unwrap();
    assert_eq!(store.key_owner(K1).await.unwrap(), Some(A));
    let moved = |from, to, key| store.renumber(from, to, key, 9);
    assert_eq!(
        moved(A, B, K2).await.unwrap(),
        Moved::OwnerChanged,
        "not A's key"
    );
    // Issue 39: B's own message was deleted by the move. Now nothing moves, nothing goes.
    assert_eq!(moved(A, B, K1).await.unwrap(), Moved::Occupied);
    assert_eq!(texts(&store.history(B, 10).await.unwrap()), ["planted"]);
    assert_eq!(store.history(A, 10).await.unwrap().len(), 3);
    assert_eq!(store.key_owner(K1).await.unwrap(), Some(A));
    // Once the operator forgot B (`meshai forget`), the move happens; B's name row goes.
    store.reset(B).await.unwrap();
    assert_eq!(moved(A, B, K1).await.unwrap(), Moved::All);
    assert_eq!(moved(A, B, K1).await.unwrap(), Moved::OwnerChanged, "once");

    assert_eq!(
        texts(&store.history(B, 10).await.unwrap()),
        ["kept", "my gate is 12", "noted"],
        "moved"
    );
    assert!(
        store.history(A, 10).await.unwrap().is_empty(),
        "A keeps nothing"
    );
    assert_eq!(store.node_key(A).await.unwrap(), None);
    assert_eq!(store.node_key(B).await.unwrap().map(|k| k.pinned), Some(K1));
    assert_eq!(store.key_owner(K1).await.unwrap(), Some(B));
    let stats = store.stats().await.unwrap();
    assert!(stats.iter().all(|s| s.node != A));
    let b = stats.iter().find(|s| s.node == B).expect("B's row");
    assert_eq!(b.long_name.as_deref(), Some("Ann"));
    let both = Numbers {
        current: B,
        earlier: vec![A],
    };
    assert_eq!(store.numbers(A).await.unwrap(), both);
    assert_eq!(store.numbers(B).await.unwrap(), both);
    assert_eq!(store.renumbered().await.unwrap(), [(A, B)]);
    let pki = store.pki_nodes().await.unwrap();
    let mut nodes: Vec<NodeId> = pki.nodes().collect();
    nodes.sort();
    assert_eq!(nodes, [B, A], "the old number stays a PKI node");
    // The memory reads under the new number.
    let ctx = store.context(B, i64::MAX, 10, "gate", 2).await.unwrap();
    assert_eq!(ctx.window.len(), 3);

    // Again, to C: the chain collapses onto the newest number.
    assert_eq!(store.renumber(B, C, K1, 10).await.unwrap(), Moved::All);
    assert_eq!(
        store.numbers(A).await.unwrap(),
        Numbers {
            current: C,
            earlier: vec![A, B],
        }
    );
    assert_eq!(store.history(C, 10).await.unwrap().len(), 3);
    assert_eq!(store.integrity_check().await.unwrap(), "ok");
    store.close().await.unwrap();
    assert_eq!(user_version(&path), crate::store::schema::VERSION);
}
