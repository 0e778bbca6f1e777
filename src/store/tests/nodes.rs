//! The `nodes` row: names and last-heard times as heard, the LLM calls and tokens counted with
//! each stored reply, and `meshai stats`' numbers over every node.

use rusqlite::Connection;

use super::*;
use crate::llm::Usage;
use crate::store::error::StoreError;
use crate::store::types::NodeStats;

#[tokio::test]
async fn a_heard_message_and_its_reply_each_land_whole() {
    let (_dir, path) = temp();
    let store = Store::open(&path).unwrap();
    let names = (Some("Alpha".to_string()), Some("ALP".to_string()));
    let u = store
        .append_heard(A, names, "hello".into(), 10)
        .await
        .unwrap();
    // Unknown names keep the known ones; the time moves on.
    let u2 = store
        .append_heard(A, (None, None), "again".into(), 20)
        .await
        .unwrap();
    let usage = Some(Usage {
        prompt_tokens: 30,
        completion_tokens: 7,
    });
    store
        .append_reply(A, u, "hi".into(), 11, usage)
        .await
        .unwrap();
    // A reply that cannot be stored counts no usage either: one transaction.
    let err = store
        .append_reply(A, 9999, "lost".into(), 12, usage)
        .await
        .unwrap_err();
    assert!(
        matches!(err, StoreError::NoSuchUserMessage { .. }),
        "{err:?}"
    );
    store
        .append_reply(A, u2, "hi again".into(), 21, None)
        .await
        .unwrap();

    let stats = store.stats().await.unwrap();
    let a = stats.first().unwrap();
    assert_eq!(
        (
            a.long_name.as_deref(),
            a.last_seen,
            a.messages,
            a.llm_calls,
            a.prompt_tokens,
            a.completion_tokens
        ),
        // The reply without usage (a streamed answer cut at the budget) is a call too.
        (Some("Alpha"), Some(20), 4, 2, 30, 7)
    );
}

#[tokio::test]
async fn stats_numbers() {
    let (_dir, path) = temp();
    let store = Store::open(&path).unwrap();
    let c = NodeId(7);
    store
        .touch_node(A, Some("Alpha Long".into()), Some("ALP".into()), 100)
        .await
        .unwrap();
    store.touch_node(A, None, None, 300).await.unwrap();
    store
        .touch_node(A, None, Some("AL".into()), 200)
        .await
        .unwrap();
    store
        .touch_node(B, Some("Bravo".into()), None, 150)
        .await
        .unwrap();
    store.record_usage(A, 100, 20).await.unwrap();
    store.record_usage(A, 50, 5).await.unwrap();
    // A node that only ever recorded usage, and one that only has messages.
    store.record_usage(NodeId(9), 1, 1).await.unwrap();
    let (_, a) = exchange(&store, A, "q", "r", 1).await;
    exchange(&store, c, "q", "r", 1).await;
    assert!(
        store
            .save_summary(A, save("Ünïcode summary", a, None))
            .await
            .unwrap()
    );

    let stats = store.stats().await.unwrap();
    let nodes: Vec<NodeId> = stats.iter().map(|s| s.node).collect();
    assert_eq!(
        nodes,
        [A, B, c, NodeId(9)],
        "most recently seen first, unseen by node"
    );
    let a = stats.first().unwrap();
    assert_eq!(
        a,
        &NodeStats {
            node: A,
            long_name: Some("Alpha Long".into()),
            messages: 2,
            last_seen: Some(300),
            summary_chars: 15,
            // Two recorded calls and the stored reply (whose usage was not known).
            llm_calls: 3,
            prompt_tokens: 150,
            completion_tokens: 25,
        }
    );
    let b = stats.get(1).unwrap();
    assert_eq!(
        (b.messages, b.llm_calls, b.summary_chars, b.last_seen),
        (0, 0, 0, Some(150))
    );
    let cs = stats.get(2).unwrap();
    assert_eq!(
        (cs.messages, cs.long_name.as_deref(), cs.last_seen),
        (2, None, None)
    );
    let n9 = stats.get(3).unwrap();
    assert_eq!((n9.messages, n9.llm_calls, n9.prompt_tokens), (0, 1, 1));

    let raw = Connection::open(&path).unwrap();
    let (first, short): (i64, String) = raw
        .query_row(
            "SELECT first_seen, short_name FROM nodes WHERE node = ?1",
            [i64::from(A.0)],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    assert_eq!((first, short.as_str()), (100, "AL"));
}
