//! Messages as the model saw or wrote them (`messages.prompt`, schema 5).

use super::*;
use crate::store::types::Said;

#[tokio::test]
async fn a_message_keeps_what_the_model_saw_beside_what_was_said() {
    let (_dir, store) = open_temp();
    let said = Said::with_prompt("hi", "[Ann, Mon 14:05] hi");
    let user = store
        .append_heard(A, (Some("Ann".into()), None), said, 10)
        .await
        .unwrap();
    let reply = Said::with_prompt("Hello Ann!", "**Hello** Ann!");
    store.append_reply(A, user, reply, 11, None).await.unwrap();
    // A prompt form that is the text itself is not kept twice.
    let same = store
        .append_heard(A, (None, None), Said::with_prompt("again", "again"), 12)
        .await
        .unwrap();
    let ctx = store.context(A, i64::MAX, 10, "", 0).await.unwrap();
    let rows: Vec<(&str, Option<&str>, &str)> = ctx
        .window
        .iter()
        .map(|m| (m.text.as_str(), m.prompt.as_deref(), m.prompt_text()))
        .collect();
    assert_eq!(
        rows,
        [
            ("hi", Some("[Ann, Mon 14:05] hi"), "[Ann, Mon 14:05] hi"),
            ("Hello Ann!", Some("**Hello** Ann!"), "**Hello** Ann!"),
            ("again", None, "again"),
        ]
    );
    // The history and retrieval see what was said.
    let history: Vec<String> = store
        .history(A, 10)
        .await
        .unwrap()
        .into_iter()
        .map(|m| m.text)
        .collect();
    assert_eq!(history, ["hi", "Hello Ann!", "again"]);
    // A streamed reply rewritten with its prompt form.
    let id = store
        .append_reply(A, same, "part one".into(), 13, None)
        .await
        .unwrap();
    store
        .update_reply(
            A,
            id,
            Said::with_prompt("part one two", "part one\ntwo"),
            None,
        )
        .await
        .unwrap();
    let ctx = store.context(A, i64::MAX, 10, "", 0).await.unwrap();
    let last = ctx.window.last().unwrap();
    assert_eq!(
        (last.text.as_str(), last.prompt_text()),
        ("part one two", "part one\ntwo")
    );
    let newest = store.last_message(A).await.unwrap().unwrap();
    assert_eq!((newest.at, newest.text.as_str()), (13, "part one two"));
    assert_eq!(store.last_message(B).await.unwrap(), None);
}

#[tokio::test]
async fn a_schema_4_database_gains_the_prompt_column_and_keeps_its_messages() {
    let (_dir, path) = temp();
    old_database(&path, 4);
    let store = Store::open(&path).unwrap();
    let ctx = store.context(A, i64::MAX, 10, "", 0).await.unwrap();
    assert_eq!(ctx.window.len(), 1);
    assert_eq!(
        (ctx.window[0].prompt.as_deref(), ctx.window[0].prompt_text()),
        (None, "kept")
    );
    store.close().await.unwrap();
    assert_eq!(user_version(&path), crate::store::schema::VERSION);
}
