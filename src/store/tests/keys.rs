//! The pinned public keys: first use pins, a different key waits as pending, accepting it
//! keeps the memory, `!reset` keeps the pin, expiry of a silent node removes it, and a
//! schema 3 database gains the empty table.

use super::*;
use crate::node::PublicKey;
use crate::store::keys::{KeyAccepted, NodeKey, PkiNodes};

const K1: PublicKey = PublicKey([1; 32]);
const K2: PublicKey = PublicKey([2; 32]);
const K3: PublicKey = PublicKey([3; 32]);

#[tokio::test]
async fn the_first_key_is_pinned_and_a_different_one_waits() {
    let (_dir, store) = open_temp();
    assert_eq!(store.node_key(A).await.unwrap(), None);
    assert_eq!(store.pki_nodes().await.unwrap(), PkiNodes::default());
    assert_eq!(
        store.accept_pending_key(A).await.unwrap(),
        KeyAccepted::NotPki
    );

    assert!(store.pin_key(A, K1, 10).await.unwrap(), "first use pins");
    assert!(!store.pin_key(A, K2, 11).await.unwrap(), "never re-pins");
    assert!(
        !store.note_pending_key(A, K1, 12).await.unwrap(),
        "the pinned key is not pending"
    );
    assert_eq!(
        store.node_key(A).await.unwrap(),
        Some(NodeKey {
            pinned: K1,
            pinned_at: 10,
            pending: None
        })
    );
    assert_eq!(
        store.accept_pending_key(A).await.unwrap(),
        KeyAccepted::NothingPending { pinned: K1 }
    );

    assert!(
        store.note_pending_key(A, K2, 20).await.unwrap(),
        "a new key"
    );
    assert!(
        !store.note_pending_key(A, K2, 21).await.unwrap(),
        "told once"
    );
    assert!(
        store.note_pending_key(A, K3, 22).await.unwrap(),
        "the latest one waits"
    );
    assert!(
        !store.note_pending_key(B, K3, 22).await.unwrap(),
        "no row, no pending"
    );
    assert_eq!(
        store.node_key(A).await.unwrap().and_then(|k| k.pending),
        Some((K3, 22))
    );
    let pki = store.pki_nodes().await.unwrap();
    assert_eq!(pki.nodes().collect::<Vec<_>>(), [A]);

    store.append_user(A, "kept".into(), 30).await.unwrap();
    assert_eq!(
        store.accept_pending_key(A).await.unwrap(),
        KeyAccepted::Pinned { old: K1, new: K3 }
    );
    assert_eq!(
        store.node_key(A).await.unwrap(),
        Some(NodeKey {
            pinned: K3,
            pinned_at: 22,
            pending: None
        })
    );
    assert_eq!(store.history(A, 5).await.unwrap().len(), 1, "memory kept");
    store.close().await.unwrap();
}

/// A's pinned key and its pending one (with when it was seen).
async fn pinned_and_pending(store: &Store) -> Option<(PublicKey, Option<(PublicKey, i64)>)> {
    let key = store.node_key(A).await.unwrap();
    key.map(|k| (k.pinned, k.pending))
}

#[tokio::test]
async fn a_named_key_is_pinned_only_if_it_is_the_pending_one() {
    let (_dir, store) = open_temp();
    assert_eq!(store.accept_key(A, K2).await.unwrap(), KeyAccepted::NotPki);
    store.pin_key(A, K1, 10).await.unwrap();
    let cases = [
        // Nothing pending: the pinned key is already trusted; any other is refused.
        (K1, KeyAccepted::NothingPending { pinned: K1 }),
        (
            K2,
            KeyAccepted::Mismatch {
                given: K2,
                pending: None,
                pinned: K1,
            },
        ),
    ];
    for (given, want) in cases {
        assert_eq!(store.accept_key(A, given).await.unwrap(), want);
    }
    store.note_pending_key(A, K2, 20).await.unwrap();
    for given in [K1, K3] {
        assert_eq!(
            store.accept_key(A, given).await.unwrap(),
            KeyAccepted::Mismatch {
                given,
                pending: Some(K2),
                pinned: K1,
            }
        );
    }
    assert_eq!(
        pinned_and_pending(&store).await,
        Some((K1, Some((K2, 20)))),
        "a refusal changes nothing"
    );
    assert_eq!(
        store.accept_key(A, K2).await.unwrap(),
        KeyAccepted::Pinned { old: K1, new: K2 }
    );
    assert_eq!(pinned_and_pending(&store).await, Some((K2, None)));
    store.close().await.unwrap();
}

#[tokio::test]
async fn reset_keeps_the_pin_and_expiry_of_a_silent_node_removes_it() {
    let (_dir, store) = open_temp();
    store.pin_key(A, K1, 10).await.unwrap();
    store.pin_key(B, K2, 10).await.unwrap();
    store.append_user(A, "hello".into(), 10).await.unwrap();
    store.append_user(B, "hello".into(), 100).await.unwrap();
    store.reset(A).await.unwrap();
    assert_eq!(store.node_key(A).await.unwrap().map(|k| k.pinned), Some(K1));
    store.touch_node(A, None, None, 10).await.unwrap();
    let expired = store.expire(50).await.unwrap();
    assert_eq!(expired.nodes, 1);
    assert_eq!(store.node_key(A).await.unwrap(), None, "went with the node");
    assert_eq!(store.node_key(B).await.unwrap().map(|k| k.pinned), Some(K2));
    store.close().await.unwrap();
}

#[tokio::test]
async fn migrates_a_schema_3_database() {
    let (_dir, path) = temp();
    old_database(&path, 3);
    let store = Store::open(&path).unwrap();
    assert_eq!(store.node_key(A).await.unwrap(), None);
    assert_eq!(store.history(A, 5).await.unwrap().len(), 1);
    store.pin_key(A, K1, 10).await.unwrap();
    assert_eq!(store.integrity_check().await.unwrap(), "ok");
    store.close().await.unwrap();
    assert_eq!(user_version(&path), crate::store::schema::VERSION);
    let raw = rusqlite::Connection::open(&path).unwrap();
    let short = raw.execute(
        "INSERT INTO node_keys(node, public_key, pinned_at) VALUES (2, x'0102', 0)",
        [],
    );
    assert!(short.is_err(), "only 32-byte keys: {short:?}");
}

#[tokio::test]
async fn migrates_a_schema_7_database_to_remember_packets() {
    use crate::store::replay::Sender;
    let (_dir, path) = temp();
    old_database(&path, 7);
    let store = Store::open(&path).unwrap();
    assert_eq!(store.history(A, 5).await.unwrap().len(), 1, "kept");
    assert!(store.first_sighting(Sender::Key(K1), 42, 10).await.unwrap());
    assert!(!store.first_sighting(Sender::Key(K1), 42, 11).await.unwrap());
    assert!(store.first_sighting(Sender::Node(A), 42, 11).await.unwrap());
    assert_eq!(store.integrity_check().await.unwrap(), "ok");
    store.close().await.unwrap();
    assert!(user_version(&path) >= 8);
}

/// Issue 39: `meshai trust --yes` pinned Alice's key for Dave; her next renumbering then
/// carried Dave's memory to her. A key pinned for one number is never pinned for another.
#[tokio::test]
async fn a_key_pinned_for_one_node_is_not_accepted_for_another() {
    let (_dir, store) = open_temp();
    assert!(store.pin_key(A, K1, 10).await.unwrap());
    assert!(store.pin_key(B, K2, 11).await.unwrap());
    // B's DMs come with A's key: pending, and not to be accepted.
    assert!(store.note_pending_key(B, K1, 12).await.unwrap());
    assert_eq!(
        store.accept_key(B, K1).await.unwrap(),
        KeyAccepted::PinnedElsewhere { key: K1, other: A }
    );
    let b = store.node_key(B).await.unwrap().unwrap();
    assert_eq!(b.pinned, K2, "nothing changed");
    assert_eq!(store.key_owner(K1).await.unwrap(), Some(A));
    store.close().await.unwrap();
}

/// A node that sent a signed DM (firmware 2.8, licensed) is a signer from then on, across a
/// reopen, until the operator forgets it (`meshai forget`).
#[tokio::test]
async fn a_signer_is_kept_until_forgotten() {
    let (_dir, path) = temp();
    let store = Store::open(&path).unwrap();
    store.note_signer(A, 10).await.unwrap();
    store.note_signer(A, 20).await.unwrap();
    store.close().await.unwrap();
    let store = Store::open(&path).unwrap();
    assert_eq!(store.pki_nodes().await.unwrap().signers, [A]);
    assert!(store.forget_signer(A).await.unwrap());
    assert!(!store.forget_signer(A).await.unwrap(), "once");
    assert!(store.pki_nodes().await.unwrap().signers.is_empty());
    store.close().await.unwrap();
}
