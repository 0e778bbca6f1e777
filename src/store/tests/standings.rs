//! Standing earned: a completed exchange is kept (the first time counts), over PKI with the
//! pinned key; one `known_after` or more after the first makes the node known, a burst of
//! them does not; the operator's pin vouches for a key; a schema 9 database counts the nodes
//! it answered as having completed an exchange (and as known, schema 13), and nothing only
//! stored.

use super::*;
use crate::node::PublicKey;
use crate::store::keys::KeyAccepted;
use crate::store::standings::{Earned, Noted, Over, PinnedKey};

const K1: PublicKey = PublicKey([1; 32]);
const K2: PublicKey = PublicKey([2; 32]);

/// Half a day, as `responder::schedule::standing::KNOWN_AFTER`.
const AFTER: i64 = 12 * 3600;

const UNKNOWN: Noted = Noted {
    known: false,
    key: None,
};

#[tokio::test]
async fn a_completed_exchange_is_kept_and_only_the_first_counts() {
    let (_dir, store) = open_temp();
    assert_eq!(store.earned().await.unwrap(), Earned::default());
    // Only stored, or only answered: nothing earned.
    exchange(&store, A, "hi", "hello", 10).await;
    assert_eq!(store.earned().await.unwrap(), Earned::default());
    assert_eq!(
        store
            .note_exchange(A, Over::Channel, 20, AFTER)
            .await
            .unwrap(),
        UNKNOWN
    );
    // A burst of exchanges (forged ACKs cost nothing) earns nothing more.
    for at in 21..40 {
        assert_eq!(
            store
                .note_exchange(A, Over::Channel, at, AFTER)
                .await
                .unwrap(),
            UNKNOWN
        );
    }
    assert_eq!(store.earned().await.unwrap().known, []);
    // Half a day after the first: known, and known it stays.
    let known = Noted {
        known: true,
        key: None,
    };
    for at in [20 + AFTER, 30 + AFTER, 25] {
        assert_eq!(
            store
                .note_exchange(A, Over::Channel, at, AFTER)
                .await
                .unwrap(),
            known
        );
    }
    store.pin_key(B, K1, 5).await.unwrap();
    let pinned = PinnedKey {
        node: B,
        key: K1,
        exchanged_at: Some(40),
        vouched: false,
    };
    assert_eq!(
        store.note_exchange(B, Over::Pki, 40, AFTER).await.unwrap(),
        Noted {
            known: false,
            key: Some(pinned)
        }
    );
    assert_eq!(
        store
            .note_exchange(B, Over::Pki, 40 + AFTER, AFTER)
            .await
            .unwrap(),
        Noted {
            known: true,
            key: Some(pinned)
        }
    );
    let earned = store.earned().await.unwrap();
    let mut known = earned.known.clone();
    known.sort_by_key(|n| n.0);
    assert_eq!(known, [B, A]);
    assert_eq!(earned.keys, [pinned]);
    // The operator accepts a new key: vouched, and its exchanges start again.
    store.note_pending_key(B, K2, 60).await.unwrap();
    assert!(matches!(
        store.accept_key(B, K2).await.unwrap(),
        KeyAccepted::Pinned { .. }
    ));
    let vouched = PinnedKey {
        node: B,
        key: K2,
        exchanged_at: None,
        vouched: true,
    };
    assert_eq!(store.earned().await.unwrap().keys, [vouched]);
    // Naming the pinned key itself vouches for it too.
    store.pin_key(A, K1, 70).await.unwrap();
    assert!(matches!(
        store.accept_key(A, K1).await.unwrap(),
        KeyAccepted::NothingPending { .. }
    ));
    let keys = store.earned().await.unwrap().keys;
    assert!(keys.iter().any(|k| k.node == A && k.vouched), "{keys:?}");
    store.close().await.unwrap();
}

#[tokio::test]
async fn migrates_a_schema_9_database_counting_the_answered_nodes() {
    let (_dir, path) = temp();
    let raw = at_version(&path, 9);
    raw.execute_batch(&format!(
        "INSERT INTO messages(node, role, text, at) VALUES ({a}, 'user', 'hi', 5);
         INSERT INTO messages(node, role, text, at) VALUES ({a}, 'assistant', 'hello', 6);
         INSERT INTO messages(node, role, text, at) VALUES ({b}, 'user', 'flood', 7);
         INSERT INTO node_keys(node, public_key, pinned_at) VALUES ({a}, x'{k}', 4);
         INSERT INTO node_keys(node, public_key, pinned_at) VALUES ({b}, x'{k}', 4);",
        a = i64::from(A.0),
        b = i64::from(B.0),
        k = "01".repeat(32),
    ))
    .unwrap();
    drop(raw);
    let store = Store::open(&path).unwrap();
    let earned = store.earned().await.unwrap();
    assert_eq!(earned.known, [A], "the node only stored earned nothing");
    assert_eq!(
        earned.keys,
        [PinnedKey {
            node: A,
            key: K1,
            exchanged_at: Some(4),
            vouched: false
        }]
    );
    assert_eq!(store.history(A, 5).await.unwrap().len(), 2);
    store.close().await.unwrap();
    assert_eq!(user_version(&path), crate::store::schema::VERSION);
}
