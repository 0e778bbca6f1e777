//! Appending, the context window, retrieval and reset.

use std::path::Path;

use rusqlite::Connection;

use super::*;
use crate::memory::store::*;

#[tokio::test]
async fn context_window_boundaries() {
    let (_dir, store) = open_temp();
    let (u1, a1) = exchange(&store, A, "one", "r1", 1).await;
    let (u2, a2) = exchange(&store, A, "two", "r2", 3).await;
    exchange(&store, B, "other node", "rb", 4).await;
    let new = store.append_user(A, "three".into(), 5).await.unwrap();

    let cases: &[(i64, usize, Vec<i64>)] = &[
        (new, 2, vec![u2, a2]),
        (new, 3, vec![a1, u2, a2]),
        (new, 10, vec![u1, a1, u2, a2]),
        (new, 0, vec![]),
        (u2, 10, vec![u1, a1]),
        (u1, 10, vec![]),
    ];
    for (before, window, want) in cases {
        let ctx = store.context(A, *before, *window, "", 5).await.unwrap();
        assert_eq!(ids(&ctx.window), *want, "before {before} window {window}");
        assert!(ctx.retrieved.is_empty());
        assert_eq!(ctx.summary, None);
    }
    let ctx = store.context(A, new, 4, "", 0).await.unwrap();
    let texts: Vec<&str> = ctx.window.iter().map(|m| m.text.as_str()).collect();
    assert_eq!(texts, ["one", "r1", "two", "r2"]);
    let roles: Vec<Role> = ctx.window.iter().map(|m| m.role).collect();
    assert_eq!(
        roles,
        [Role::User, Role::Assistant, Role::User, Role::Assistant]
    );
    assert_eq!(ctx.window.first().map(|m| m.at), Some(1));
}

#[tokio::test]
async fn retrieval_is_per_node_and_outside_the_window() {
    let (_dir, store) = open_temp();
    exchange(
        &store,
        A,
        "my antenna is a dipole",
        "nice dipole antenna",
        1,
    )
    .await;
    exchange(&store, A, "solar panel on the roof", "good for power", 3).await;
    exchange(&store, B, "antenna of node B", "B's antenna", 4).await;
    // This one is inside a window of 2, so it must not be retrieved as well.
    exchange(&store, A, "new antenna arrived", "enjoy the antenna", 5).await;
    let new = store
        .append_user(A, "which antenna do I have?".into(), 7)
        .await
        .unwrap();

    let ctx = store
        .context(A, new, 2, "which antenna do I have?", 5)
        .await
        .unwrap();
    let users: Vec<&str> = ctx.retrieved.iter().map(|e| e.user.as_str()).collect();
    assert_eq!(users, ["my antenna is a dipole"]);
    assert_eq!(
        ctx.retrieved.first().map(|e| e.assistant.as_str()),
        Some("nice dipole antenna")
    );
    assert_eq!(ctx.retrieved.first().map(|e| e.at), Some(2));

    // A wider window swallows the match; no window at all lets everything of A match.
    let ctx = store.context(A, new, 8, "antenna", 5).await.unwrap();
    assert!(ctx.retrieved.is_empty());
    let ctx = store.context(A, new, 0, "antenna", 5).await.unwrap();
    assert_eq!(ctx.retrieved.len(), 2);
    let ctx = store.context(A, new, 0, "antenna", 1).await.unwrap();
    assert_eq!(ctx.retrieved.len(), 1);
    // With two or more terms an exchange must share two of them: one word is not enough.
    let ctx = store.context(A, new, 0, "dipole antenna", 5).await.unwrap();
    let users: Vec<&str> = ctx.retrieved.iter().map(|e| e.user.as_str()).collect();
    assert_eq!(users, ["my antenna is a dipole"]);
    let ctx = store.context(A, new, 0, "antenna solar", 5).await.unwrap();
    assert!(ctx.retrieved.is_empty(), "{:?}", ctx.retrieved);
    let ctx = store.context(A, new, 0, "antenna", 0).await.unwrap();
    assert!(ctx.retrieved.is_empty());
    // Only stop-words and short words: nothing to search for.
    let ctx = store.context(A, new, 0, "what is it?", 5).await.unwrap();
    assert!(ctx.retrieved.is_empty());
}

#[tokio::test]
async fn retrieval_ranks_by_relevance() {
    let (_dir, store) = open_temp();
    exchange(
        &store,
        A,
        "weather today",
        "sunny and warm all day long here",
        1,
    )
    .await;
    exchange(
        &store,
        A,
        "is the mast up",
        "the mast is up, mast guyed, mast grounded",
        3,
    )
    .await;
    exchange(&store, A, "need a new mast cable", "check the shop", 5).await;
    let new = store.append_user(A, "mast?".into(), 7).await.unwrap();
    let ctx = store.context(A, new, 0, "mast", 5).await.unwrap();
    let users: Vec<&str> = ctx.retrieved.iter().map(|e| e.user.as_str()).collect();
    assert_eq!(users, ["is the mast up", "need a new mast cable"]);
}

#[tokio::test]
async fn hostile_query_text_never_errors() {
    let (_dir, store) = open_temp();
    exchange(
        &store,
        A,
        "near the tower \"quoted\" text",
        "NEAR(tower) OR not",
        1,
    )
    .await;
    let new = store.append_user(A, "x".into(), 3).await.unwrap();
    let queries = [
        "\"",
        "\"unterminated",
        "tower*",
        "-tower",
        "NEAR(tower text)",
        "NEAR tower",
        "tower AND OR NOT",
        "user:tower",
        "assistant : near",
        "^tower",
        "(tower",
        "tower)",
        "{user assistant}: tower",
        "'; DROP TABLE messages; --",
        "tower + text",
        "\u{0}tower\u{0}",
        "🙂🙂🙂 tower 🙂",
        "",
    ];
    for q in queries {
        let ctx = store.context(A, new, 0, q, 5).await;
        assert!(ctx.is_ok(), "query {q:?}: {ctx:?}");
    }
    let ctx = store
        .context(A, new, 0, "NEAR(tower text)", 5)
        .await
        .unwrap();
    assert_eq!(ctx.retrieved.len(), 1);
    assert_eq!(store.history(A, 10).await.unwrap().len(), 3);
}

#[tokio::test]
async fn append_reply_needs_a_user_message_of_that_node() {
    let (_dir, store) = open_temp();
    let (u, a) = exchange(&store, A, "q", "r", 1).await;
    let b = store.append_user(B, "qb".into(), 1).await.unwrap();
    for bad in [a, b, 9999] {
        let err = store
            .append_reply(A, bad, "x".into(), 2, None)
            .await
            .unwrap_err();
        assert!(
            matches!(err, StoreError::NoSuchUserMessage { id, .. } if id == bad),
            "{err:?}"
        );
    }
    assert_eq!(ids(&store.history(A, 10).await.unwrap()), [u, a]);
}

/// Counts search-index entries matching `term` by querying the FTS table directly.
fn fts_hits(path: &Path, term: &str) -> i64 {
    let raw = Connection::open(path).unwrap();
    raw.query_row(
        "SELECT count(*) FROM exchanges_fts WHERE exchanges_fts MATCH ?1",
        [term],
        |r| r.get(0),
    )
    .unwrap()
}

#[tokio::test]
async fn reset_forgets_one_node_only() {
    let (_dir, path) = temp();
    let store = Store::open(&path).unwrap();
    let (_, a1) = exchange(&store, A, "antenna talk", "antenna reply", 1).await;
    exchange(&store, A, "more antenna", "ok", 3).await;
    exchange(&store, B, "antenna of B", "fine", 3).await;
    assert!(
        store
            .save_summary(A, "A summary".into(), a1, None)
            .await
            .unwrap()
    );
    let (ub, _) = exchange(&store, B, "later", "reply", 5).await;
    assert!(
        store
            .save_summary(B, "B summary".into(), ub, None)
            .await
            .unwrap()
    );
    store
        .touch_node(A, Some("Ann".into()), None, 7)
        .await
        .unwrap();
    store.record_usage(A, 10, 5).await.unwrap();
    assert_eq!(fts_hits(&path, "antenna"), 3);

    store.reset(A).await.unwrap();

    assert!(store.history(A, 100).await.unwrap().is_empty());
    assert_eq!(store.summary(A).await.unwrap(), None);
    assert_eq!(fts_hits(&path, "antenna"), 1);
    let new = store.append_user(A, "antenna?".into(), 9).await.unwrap();
    let ctx = store.context(A, new, 0, "antenna", 5).await.unwrap();
    assert!(ctx.retrieved.is_empty() && ctx.window.is_empty() && ctx.summary.is_none());

    assert_eq!(store.history(B, 100).await.unwrap().len(), 4);
    assert!(store.summary(B).await.unwrap().is_some());
    let new_b = store.append_user(B, "antenna?".into(), 9).await.unwrap();
    let ctx = store.context(B, new_b, 0, "antenna", 5).await.unwrap();
    assert_eq!(ctx.retrieved.len(), 1);

    let stats = store.stats().await.unwrap();
    let a = stats.iter().find(|s| s.node == A).unwrap();
    assert_eq!(
        (a.long_name.as_deref(), a.llm_calls, a.messages),
        (Some("Ann"), 1, 1)
    );
    assert_eq!(store.integrity_check().await.unwrap(), "ok");
}
