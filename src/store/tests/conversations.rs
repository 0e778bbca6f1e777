//! Appending, the context window, retrieval and reset.

use std::path::Path;

use rusqlite::Connection;

use super::*;
use crate::store::error::StoreError;
use crate::store::types::{Context, Role};

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

/// Ordinary chat between the facts, so the index has the spread of a real conversation.
const FILLER: &[(&str, &str)] = &[
    ("What is LoRa?", "A long-range, low-power radio modulation."),
    (
        "How far does it reach?",
        "Kilometres with line of sight, less in towns.",
    ),
    (
        "Which antenna is best?",
        "A tuned antenna up high beats more power.",
    ),
    (
        "Is the weather good for a hike?",
        "Check the forecast before you go.",
    ),
    (
        "How do I save battery?",
        "Lower the screen timeout and GPS updates.",
    ),
    (
        "What is a hop?",
        "One relay of your message by another node.",
    ),
    (
        "Why is my antenna warm?",
        "It should not be; check the SWR of the antenna.",
    ),
    (
        "Any tips for soldering?",
        "Clean tip, flux, and a steady hand.",
    ),
];

/// Stores the filler exchanges for `node`, from time `at` on.
async fn filler(store: &Store, node: NodeId, at: i64) {
    for (i, (q, a)) in FILLER.iter().enumerate() {
        exchange(store, node, q, a, at + 2 * i as i64).await;
    }
}

/// The user sides of the retrieved exchanges.
fn users(ctx: &Context) -> Vec<&str> {
    ctx.retrieved.iter().map(|e| e.user.as_str()).collect()
}

#[tokio::test]
async fn retrieval_stems_needs_one_rare_word_and_skips_common_ones() {
    let (_dir, store) = open_temp();
    exchange(&store, A, "My dog is called Rex", "Hello Rex!", 1).await;
    exchange(
        &store,
        A,
        "our swap meets are every second Saturday",
        "Noted, second Saturdays.",
        3,
    )
    .await;
    exchange(&store, A, "I drive an old blue Land Rover", "A classic.", 5).await;
    filler(&store, A, 10).await;
    filler(&store, B, 100).await;
    let new = store.append_user(A, "?".into(), 200).await.unwrap();

    let cases: &[(&str, &[&str])] = &[
        // Stemming: "meet" finds "meets".
        (
            "When is the swap meet?",
            &["our swap meets are every second Saturday"],
        ),
        // One shared word is enough when it is rare; the user's own words come first.
        ("What's my dog's name?", &["My dog is called Rex"]),
        ("Which car do I drive?", &["I drive an old blue Land Rover"]),
        ("Do you remember Rex?", &["My dog is called Rex"]),
        ("Tell me a joke", &[]),
        ("", &[]),
    ];
    for (query, want) in cases {
        let ctx = store.context(A, new, 0, query, 2).await.unwrap();
        assert_eq!(users(&ctx), *want, "{query:?}");
    }
    // A question of three words or more must share two: "node" alone is not enough.
    exchange(
        &store,
        A,
        "Why do packets hop between nodes?",
        "To go further.",
        7,
    )
    .await;
    let later = store.append_user(A, "?".into(), 300).await.unwrap();
    let ctx = store
        .context(
            A,
            later,
            0,
            "What is the difference between a router and a client node?",
            2,
        )
        .await
        .unwrap();
    assert!(ctx.retrieved.is_empty(), "{:?}", ctx.retrieved);
    let ctx = store
        .context(A, later, 0, "Do packets hop between nodes a lot?", 2)
        .await
        .unwrap();
    assert_eq!(
        users(&ctx).first(),
        Some(&"Why do packets hop between nodes?")
    );
    // An exchange must cover half the query's weight: one of three rare words is not enough.
    let ctx = store.context(A, new, 0, "dog swap drive", 2).await.unwrap();
    assert!(ctx.retrieved.is_empty(), "{:?}", ctx.retrieved);
    let ctx = store
        .context(A, new, 0, "my dog at the swap meet", 2)
        .await
        .unwrap();
    assert_eq!(users(&ctx), ["our swap meets are every second Saturday"]);
    // At most `retrieve`, and none when it is 0.
    for (n, want) in [(0, 0), (1, 1), (2, 2), (5, 2)] {
        let ctx = store.context(A, new, 0, "antenna", n).await.unwrap();
        assert_eq!(ctx.retrieved.len(), want, "retrieve {n}");
    }
}

/// Two words most of a conversation's messages have are not two shared words: in German
/// the English stop words let "ist" and "ein" through, and "Was ist ein Dipol?" brought back
/// "Was ist LoRa, in einem Satz?" and with it its block and the next turn's re-read.
#[tokio::test]
async fn function_words_of_another_language_retrieve_nothing() {
    let (_dir, store) = open_temp();
    // "ist" and "ein" each in 4 of the 12 exchanges: they weigh something, but little.
    let chat = [
        ("Was ist ein Hop?", "Ein Sprung über einen anderen Knoten."),
        (
            "Welche Antenne ist gut?",
            "Eine abgestimmte Antenne, hoch montiert.",
        ),
        (
            "Wie weit reicht ein Knoten?",
            "Einige Kilometer, mit Sicht viel mehr.",
        ),
        (
            "Ist das Wetter gut zum Wandern?",
            "Schau in die Vorhersage.",
        ),
        ("Wie spare ich Akku?", "Bildschirm und GPS seltener."),
        ("Mein Akku hat 3000 mAh.", "Gut zu wissen."),
        ("Wo steht ein guter Knoten?", "Hoch und frei, auf dem Dach."),
        ("Was bedeutet SNR?", "Signal zu Rauschen, in dB."),
        ("Wann trifft sich der Verein?", "Jeden zweiten Donnerstag."),
        ("Wie heißt mein Hund?", "Pepper."),
        ("Was ist MQTT?", "Ein Weg über das Internet."),
        ("Welche Frequenz nutze ich?", "869,525 MHz."),
    ];
    for (i, (q, a)) in chat.iter().enumerate() {
        exchange(&store, A, q, a, 1 + 2 * i as i64).await;
    }
    let new = store.append_user(A, "?".into(), 100).await.unwrap();
    let ctx = store
        .context(A, new, 0, "Was ist ein Dipol?", 2)
        .await
        .unwrap();
    assert!(ctx.retrieved.is_empty(), "{:?}", users(&ctx));
    // Two words the conversation rarely has still bring their exchange back.
    let ctx = store
        .context(A, new, 0, "Wie groß ist mein Akku in mAh?", 2)
        .await
        .unwrap();
    assert_eq!(users(&ctx).first(), Some(&"Mein Akku hat 3000 mAh."));
}

#[tokio::test]
async fn a_word_most_exchanges_share_retrieves_nothing_on_its_own() {
    let (_dir, store) = open_temp();
    for i in 0..10 {
        let q = format!("radio question {i}");
        exchange(&store, A, &q, "a radio answer", i * 2).await;
    }
    exchange(&store, A, "my radio dog barks", "odd", 50).await;
    let new = store.append_user(A, "?".into(), 60).await.unwrap();
    let ctx = store.context(A, new, 0, "radio", 2).await.unwrap();
    assert!(ctx.retrieved.is_empty(), "{:?}", ctx.retrieved);
    let ctx = store.context(A, new, 0, "radio dog", 2).await.unwrap();
    assert_eq!(users(&ctx), ["my radio dog barks"]);
}

#[tokio::test]
async fn retrieval_is_per_node_and_outside_the_prompt() {
    let (_dir, store) = open_temp();
    exchange(&store, A, "my antenna is a dipole", "nice dipole", 1).await;
    filler(&store, A, 10).await;
    exchange(&store, B, "my dipole of node B", "B's dipole", 50).await;
    filler(&store, B, 100).await;
    // The newest exchange of A also mentions a dipole.
    let (u, _) = exchange(&store, A, "new dipole arrived", "enjoy the dipole", 200).await;
    let new = store
        .append_user(A, "which dipole?".into(), 300)
        .await
        .unwrap();

    // The last exchange is in the prompt (2 messages): not retrieved again; B's never.
    let ctx = store.context(A, new, 2, "which dipole?", 5).await.unwrap();
    assert_eq!(ids(&ctx.window).first(), Some(&u));
    assert_eq!(users(&ctx), ["my antenna is a dipole"]);
    assert_eq!(ctx.retrieved.first().map(|e| e.at), Some(2));
    // With nothing in the prompt, both of A's match; with everything, none is left.
    let ctx = store.context(A, new, 0, "dipole", 5).await.unwrap();
    assert_eq!(
        users(&ctx),
        ["new dipole arrived", "my antenna is a dipole"]
    );
    let ctx = store.context(A, new, 100, "dipole", 5).await.unwrap();
    assert!(ctx.retrieved.is_empty());
}

#[tokio::test]
async fn retrieval_ranks_by_relevance() {
    let (_dir, store) = open_temp();
    filler(&store, A, 100).await;
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
    let new = store.append_user(A, "mast?".into(), 700).await.unwrap();
    let ctx = store.context(A, new, 0, "mast", 5).await.unwrap();
    assert_eq!(users(&ctx), ["is the mast up", "need a new mast cable"]);
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
    filler(&store, B, 100).await;
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
    filler(&store, B, 20).await;
    assert!(
        store
            .save_summary(A, save("A summary", a1, None))
            .await
            .unwrap()
    );
    let (ub, _) = exchange(&store, B, "later", "reply", 5).await;
    assert!(
        store
            .save_summary(B, save("B summary", ub, None))
            .await
            .unwrap()
    );
    store
        .touch_node(A, Some("Ann".into()), None, 7)
        .await
        .unwrap();
    store.record_usage(A, 10, 5).await.unwrap();
    assert_eq!(fts_hits(&path, "antenna"), 5);

    store.reset(A).await.unwrap();

    assert!(store.history(A, 100).await.unwrap().is_empty());
    assert_eq!(store.summary(A).await.unwrap(), None);
    assert_eq!(fts_hits(&path, "antenna"), 3);
    let new = store.append_user(A, "antenna?".into(), 9).await.unwrap();
    let ctx = store.context(A, new, 0, "antenna", 5).await.unwrap();
    assert!(ctx.retrieved.is_empty() && ctx.window.is_empty() && ctx.summary.is_none());

    assert_eq!(
        store.history(B, 100).await.unwrap().len(),
        4 + 2 * FILLER.len()
    );
    assert!(store.summary(B).await.unwrap().is_some());
    let new_b = store.append_user(B, "antenna?".into(), 9).await.unwrap();
    let ctx = store.context(B, new_b, 0, "antenna of B", 5).await.unwrap();
    assert_eq!(users(&ctx).first(), Some(&"antenna of B"));

    let stats = store.stats().await.unwrap();
    let a = stats.iter().find(|s| s.node == A).unwrap();
    assert_eq!(
        (a.long_name.as_deref(), a.llm_calls, a.messages),
        // Two stored replies and one recorded call: counters outlive a reset.
        (Some("Ann"), 3, 1)
    );
    assert_eq!(store.integrity_check().await.unwrap(), "ok");
}
