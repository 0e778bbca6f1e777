//! Bulletins: a text is news once per topic, within the daily cap; subscriptions bounded,
//! moved with a renumbered node, a node's deleted by its reset.

use super::{A, B, open_temp};
use crate::lang::Lang;
use crate::node::PublicKey;
use crate::store::bulletins::{News, Subscribed};

#[tokio::test]
async fn a_text_is_news_once_and_a_topic_keeps_to_its_daily_cap() {
    let (_dir, store) = open_temp();
    let news = |text: &str, at| {
        store.bulletin_news(
            "wx".into(),
            crate::store::knowledge::fnv1a(text.as_bytes()),
            text.into(),
            at,
            2,
        )
    };
    assert_eq!(news("storm", 1000).await.unwrap(), News::New);
    assert_eq!(news("storm", 1010).await.unwrap(), News::Seen);
    assert_eq!(news("calm", 1020).await.unwrap(), News::New);
    assert_eq!(news("frost", 1030).await.unwrap(), News::OverCap);
    // A day after the first, one place is free again.
    assert_eq!(news("frost", 1000 + 86_400).await.unwrap(), News::New);
}

#[tokio::test]
async fn subscriptions_are_bounded_and_follow_their_node() {
    let (_dir, store) = open_temp();
    let sub = |n, t: &str| store.subscribe(n, t.into(), Lang::Fr, 5, (2, 2));
    assert_eq!(sub(A, "wx").await.unwrap(), Subscribed::New);
    assert_eq!(sub(A, "wx").await.unwrap(), Subscribed::Already);
    assert_eq!(sub(A, "club").await.unwrap(), Subscribed::New);
    assert_eq!(sub(A, "pollen").await.unwrap(), Subscribed::NodeFull(2));
    assert_eq!(sub(B, "wx").await.unwrap(), Subscribed::New);
    assert_eq!(
        sub(crate::node::NodeId(7), "wx").await.unwrap(),
        Subscribed::TopicFull(2)
    );
    let subs = store.subscribers("wx".into()).await.unwrap();
    // Subscribed in the same second: by number.
    assert_eq!(subs.iter().map(|s| s.node).collect::<Vec<_>>(), [B, A]);
    assert_eq!(subs[1].lang, Lang::Fr);
    let key = PublicKey([4; 32]);
    store.pin_key(A, key, 1).await.unwrap();
    store.renumber(A, key.node(), key, 9).await.unwrap();
    assert_eq!(
        store.subscriptions_of(key.node()).await.unwrap(),
        ["club", "wx"]
    );
    store.reset(key.node()).await.unwrap();
    assert!(store.subscriptions_of(key.node()).await.unwrap().is_empty());
    assert!(store.unsubscribe(B, "wx".into()).await.unwrap());
    assert!(!store.unsubscribe(B, "wx".into()).await.unwrap());
}
