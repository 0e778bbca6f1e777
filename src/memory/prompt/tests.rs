//! The prompt's order and its byte-level stability, as tables of rendered messages.

use super::*;
use crate::memory::store::{Exchange, StoredMessage, Summary};

fn msg(id: i64, role: Role, text: &str) -> StoredMessage {
    StoredMessage {
        id,
        role,
        text: text.to_string(),
        at: 1000 + id,
    }
}

fn summary(text: &str) -> Option<Summary> {
    Some(Summary {
        text: text.to_string(),
        through_id: 1,
        updated_at: 0,
    })
}

fn ex(user: &str, assistant: &str) -> Exchange {
    Exchange {
        user: user.to_string(),
        assistant: assistant.to_string(),
        at: 0,
    }
}

/// Renders a prompt compactly as `role: content` lines for table comparison.
fn render(msgs: &[ChatMessage]) -> Vec<String> {
    msgs.iter()
        .map(|m| {
            let role = match m.role {
                ChatRole::System => "system",
                ChatRole::User => "user",
                ChatRole::Assistant => "assistant",
            };
            format!("{role}: {}", m.content)
        })
        .collect()
}

fn check(ctx: Context, new_text: &str, expect: &[&str]) {
    let got = render(&reply_prompt("SYS", &ctx, &[], new_text));
    assert_eq!(got, expect, "context {ctx:?}");
}

#[test]
fn orders_parts_and_omits_empty_ones() {
    check(Context::default(), "hi", &["system: SYS", "user: hi"]);
    check(
        Context {
            summary: summary("Ann, callsign KX1, lives in Bern."),
            ..Context::default()
        },
        "hi",
        &[
            "system: SYS",
            "system: What you remember about this person: Ann, callsign KX1, lives in Bern.",
            "user: hi",
        ],
    );
    check(
        Context {
            summary: summary("  "),
            ..Context::default()
        },
        "hi",
        &["system: SYS", "user: hi"],
    );
    check(
        Context {
            summary: summary("S."),
            window: vec![msg(3, Role::User, "a"), msg(4, Role::Assistant, "b")],
            retrieved: vec![ex("q1", "a1"), ex("q2", "a2")],
            ..Context::default()
        },
        "new",
        &[
            "system: SYS",
            "system: What you remember about this person: S.",
            "user: a",
            "assistant: b",
            "system: Earlier exchanges that may be relevant:\n\nUser: q1\nAssistant: a1\n\nUser: q2\nAssistant: a2",
            "user: new",
        ],
    );
    check(
        Context {
            facts: vec!["I am Ann.".into(), " ".into(), "My dog is Rex".into()],
            ..Context::default()
        },
        "hi",
        &[
            "system: SYS",
            "system: They told you (newest last):\n- I am Ann.\n- My dog is Rex",
            "user: hi",
        ],
    );
    // A summary sentence that repeats a fact is said once, as the fact.
    check(
        Context {
            summary: summary("I am Ann. She likes\nradios. My dog is Rex."),
            facts: vec!["I am Ann.".into(), "my dog is rex".into()],
            ..Context::default()
        },
        "hi",
        &[
            "system: SYS",
            "system: What you remember about this person: She likes\nradios.\n\nThey told you (newest last):\n- I am Ann.\n- my dog is rex",
            "user: hi",
        ],
    );
    check(
        Context {
            summary: summary("I am Ann."),
            facts: vec!["I am Ann.".into()],
            ..Context::default()
        },
        "hi",
        &[
            "system: SYS",
            "system: They told you (newest last):\n- I am Ann.",
            "user: hi",
        ],
    );
    check(
        Context {
            summary: summary("S."),
            facts: vec!["I am Ann.".into()],
            ..Context::default()
        },
        "hi",
        &[
            "system: SYS",
            "system: What you remember about this person: S.\n\nThey told you (newest last):\n- I am Ann.",
            "user: hi",
        ],
    );
    check(
        Context {
            window: vec![
                msg(5, Role::Assistant, "unprompted"),
                msg(6, Role::User, "u"),
            ],
            ..Context::default()
        },
        "x",
        &["system: SYS", "assistant: unprompted", "user: u", "user: x"],
    );
}

#[test]
fn notes_join_the_per_turn_block_before_the_new_message() {
    let ctx = Context {
        window: vec![msg(3, Role::User, "a"), msg(4, Role::Assistant, "b")],
        retrieved: vec![ex("q1", "a1")],
        ..Context::default()
    };
    let notes = ["Asker: Ann (ANN), 2 hops.".to_string(), "  ".to_string()];
    let fact_only = Context {
        retrieved: vec![ex("My dog is Rex.", "")],
        ..Context::default()
    };
    assert_eq!(
        render(&reply_prompt("SYS", &fact_only, &[], "dog?")),
        [
            "system: SYS",
            "system: Earlier exchanges that may be relevant:\n\nUser: My dog is Rex.",
            "user: dog?",
        ]
    );
    let got = render(&reply_prompt("SYS", &ctx, &notes, "new"));
    assert_eq!(
        got,
        [
            "system: SYS",
            "user: a",
            "assistant: b",
            "system: Earlier exchanges that may be relevant:\n\nUser: q1\nAssistant: a1\n\nAsker: Ann (ANN), 2 hops.",
            "user: new",
        ]
    );
    let only_notes = render(&reply_prompt("SYS", &Context::default(), &notes, "x"));
    assert_eq!(
        only_notes,
        [
            "system: SYS",
            "system: Asker: Ann (ANN), 2 hops.",
            "user: x"
        ]
    );
}

#[test]
fn system_prompt_is_byte_identical() {
    let system = "  You are a radio. \n";
    let ctx = Context {
        summary: summary("s"),
        ..Context::default()
    };
    let msgs = reply_prompt(system, &ctx, &[], "x");
    assert_eq!(msgs.first().map(|m| m.content.as_str()), Some(system));
}

#[test]
fn caps_retrieved_text() {
    let ctx = Context {
        retrieved: vec![ex(&"u".repeat(5000), &"a".repeat(5000))],
        ..Context::default()
    };
    let msgs = reply_prompt("S", &ctx, &[], "n");
    let retrieved = msgs.get(1).map_or(0, |m| m.content.chars().count());
    assert!(
        retrieved <= RETRIEVED_INTRO.len() + RETRIEVED_USER_CHARS + RETRIEVED_CHARS + 40,
        "{retrieved}"
    );
}

#[test]
fn counts_chars_and_estimates_tokens() {
    let msgs = vec![
        ChatMessage::new(ChatRole::System, "abcd"),
        ChatMessage::new(ChatRole::User, "äöü"),
    ];
    assert_eq!(prompt_chars(&msgs), 7);
    assert_eq!(prompt_chars(&[]), 0);
    for (chars, tokens) in [(0, 0), (1, 1), (4, 1), (5, 2), (400, 100)] {
        assert_eq!(estimate_tokens(chars), tokens, "chars {chars}");
    }
}
