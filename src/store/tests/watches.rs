//! Watches set with `!watch`: bounded per owner, one of a kind, removed only by their owner,
//! what held kept, moved with a renumbered node, an owner's deleted by its reset.

use super::{A, B, open_temp};
use crate::lang::Lang;
use crate::node::{NodeId, PublicKey};
use crate::store::watches::{Added, NewWatch};

const HILL: NodeId = NodeId(0x0000_0b0b);

fn watch(owner: NodeId, target: NodeId, condition: &str) -> NewWatch {
    NewWatch {
        owner,
        target,
        target_name: "Hilltop".into(),
        condition: condition.into(),
        lang: Lang::Nl,
        at: 100,
        held: false,
    }
}

#[tokio::test]
async fn watches_are_bounded_one_of_a_kind_and_their_owners_own() {
    let (_dir, store) = open_temp();
    let add = |o, c: &str| store.add_watch(watch(o, HILL, c), 2);
    let Added::New(first) = add(A, "battery < 20").await.unwrap() else {
        panic!("added")
    };
    assert_eq!(add(A, "battery < 20").await.unwrap(), Added::Already);
    assert!(matches!(add(A, "back").await.unwrap(), Added::New(_)));
    assert_eq!(add(A, "quiet 2h").await.unwrap(), Added::Full(2));
    assert!(matches!(add(B, "quiet 2h").await.unwrap(), Added::New(_)));
    assert!(!store.remove_watch(B, first).await.unwrap(), "not B's");
    store.watch_held(first, true, 200).await.unwrap();
    let mine = store.watches_of(A).await.unwrap();
    assert_eq!(
        mine.iter()
            .map(|w| (w.condition.as_str(), w.held))
            .collect::<Vec<_>>(),
        [("battery < 20", true), ("back", false)]
    );
    assert_eq!(mine[0].lang, Lang::Nl);
    assert!(store.remove_watch(A, first).await.unwrap());
    assert_eq!(store.watches().await.unwrap().len(), 2);
    store.reset(A).await.unwrap();
    let left: Vec<NodeId> = store
        .watches()
        .await
        .unwrap()
        .iter()
        .map(|w| w.owner)
        .collect();
    assert_eq!(left, [B]);
}

#[tokio::test]
async fn a_renumbered_node_keeps_its_watches_and_those_on_it() {
    let (_dir, store) = open_temp();
    let key = PublicKey([3; 32]);
    let new = key.node();
    store.pin_key(A, key, 10).await.unwrap();
    store.add_watch(watch(A, HILL, "back"), 5).await.unwrap();
    store
        .add_watch(watch(B, A, "battery < 20"), 5)
        .await
        .unwrap();
    store.renumber(A, new, key, 20).await.unwrap();
    let all = store.watches().await.unwrap();
    assert_eq!(all[0].owner, new);
    assert_eq!(all[1].target, new);
}
