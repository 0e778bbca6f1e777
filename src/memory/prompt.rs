//! Building the chat prompt for a reply from a node's memory. Pure: no I/O, no clock.
//!
//! The order is made for the model server's prompt cache (llama.cpp and Ollama keep the KV
//! state of the last prompt and only evaluate what differs after the longest common prefix):
//!
//! 1. the operator's system prompt, byte-identical on every turn;
//! 2. what is remembered: the summary and the kept facts (changes only when a fold is saved);
//! 3. every message since the summary's cursor, verbatim (between two folds this only grows
//!    at its end: turn t+1 carries turn t's messages, then t's question and answer);
//! 4. what changes every turn: retrieved exchanges and per-turn notes;
//! 5. the new message.
//!
//! So between two folds, turn t's prompt without its per-turn block and new message is a
//! prefix of turn t+1's, and the server evaluates only the last exchange, the per-turn block
//! and the new message.

use unicode_segmentation::UnicodeSegmentation;

use crate::llm::{ChatMessage, ChatRole};
use crate::memory::store::{Context, Role};

/// A retrieved exchange is a reminder, not a transcript: the question cut to
/// `RETRIEVED_USER_CHARS` and about one packet of the answer, `RETRIEVED_CHARS`. So retrieval
/// can never blow up the prompt however long the old messages were (docs/benchmarks.md shows
/// what this costs per turn).
pub const RETRIEVED_CHARS: usize = 120;

/// The question of a retrieved exchange is cut to this many characters.
pub const RETRIEVED_USER_CHARS: usize = 80;

/// Introduces the rolling summary.
const SUMMARY_INTRO: &str = "What you remember about this person: ";

/// Introduces the kept facts.
const FACTS_INTRO: &str = "They told you (newest last):";

/// Introduces the retrieved exchanges.
const RETRIEVED_INTRO: &str = "Earlier exchanges that may be relevant:";

/// The messages for answering `new_text`: the system prompt as given, the memory (summary
/// and facts, if any), the unsummarised messages in order, the per-turn block (retrieved
/// exchanges, best match first, then `notes`, if any), the new message.
pub fn reply_prompt(
    system: &str,
    ctx: &Context,
    notes: &[String],
    new_text: &str,
) -> Vec<ChatMessage> {
    let mut msgs = Vec::with_capacity(ctx.window.len() + 4);
    msgs.push(ChatMessage::new(ChatRole::System, system));
    if let Some(memory) = memory_block(ctx) {
        msgs.push(ChatMessage::new(ChatRole::System, memory));
    }
    for m in &ctx.window {
        let role = match m.role {
            Role::User => ChatRole::User,
            Role::Assistant => ChatRole::Assistant,
        };
        msgs.push(ChatMessage::new(role, m.text.as_str()));
    }
    if let Some(turn) = turn_block(ctx, notes) {
        msgs.push(ChatMessage::new(ChatRole::System, turn));
    }
    msgs.push(ChatMessage::new(ChatRole::User, new_text));
    msgs
}

/// The summary and the facts, or `None` when there are neither. A sentence of the summary
/// that only repeats a kept fact word for word (small models often copy the user's sentences
/// into the summary) is left out of the summary: it is in the prompt once, as the fact.
fn memory_block(ctx: &Context) -> Option<String> {
    let facts: Vec<&str> = ctx
        .facts
        .iter()
        .map(|f| f.trim())
        .filter(|f| !f.is_empty())
        .collect();
    let keys: Vec<String> = facts.iter().map(|f| crate::memory::facts::key(f)).collect();
    let mut text = String::new();
    if let Some(summary) = ctx.summary.as_ref() {
        let rest: String = summary
            .text
            .split_sentence_bounds()
            .filter(|s| !keys.contains(&crate::memory::facts::key(s)))
            .collect();
        let rest = rest.trim();
        if !rest.is_empty() {
            text.push_str(SUMMARY_INTRO);
            text.push_str(rest);
        }
    }
    if !facts.is_empty() {
        if !text.is_empty() {
            text.push_str("\n\n");
        }
        text.push_str(FACTS_INTRO);
        for f in facts {
            text.push_str("\n- ");
            text.push_str(f);
        }
    }
    (!text.is_empty()).then_some(text)
}

/// Retrieved exchanges and notes, or `None` when there are neither.
fn turn_block(ctx: &Context, notes: &[String]) -> Option<String> {
    let mut parts: Vec<String> = Vec::new();
    if !ctx.retrieved.is_empty() {
        let mut text = String::from(RETRIEVED_INTRO);
        for ex in &ctx.retrieved {
            text.push_str("\n\nUser: ");
            text.push_str(&cap(&ex.user, RETRIEVED_USER_CHARS));
            // A kept fact comes back without the answer to it.
            if !ex.assistant.trim().is_empty() {
                text.push_str("\nAssistant: ");
                text.push_str(&cap(&ex.assistant, RETRIEVED_CHARS));
            }
        }
        parts.push(text);
    }
    parts.extend(
        notes
            .iter()
            .map(|n| n.trim())
            .filter(|n| !n.is_empty())
            .map(str::to_string),
    );
    (!parts.is_empty()).then(|| parts.join("\n\n"))
}

/// `text` cut to at most `max` characters at a grapheme boundary, ending in `…` when cut.
pub(crate) fn cap(text: &str, max: usize) -> String {
    let text = text.trim();
    if text.chars().count() <= max {
        return text.to_string();
    }
    let mut out = String::new();
    let mut chars = 0;
    for g in text.graphemes(true) {
        let n = g.chars().count();
        // Leave room for the ellipsis.
        if chars + n + 1 > max {
            break;
        }
        out.push_str(g);
        chars += n;
    }
    let mut out = out.trim_end().to_string();
    out.push('…');
    out
}

/// Total characters of message content in `msgs` (role overhead not counted).
pub fn prompt_chars(msgs: &[ChatMessage]) -> usize {
    msgs.iter().map(|m| m.content.chars().count()).sum()
}

/// A rough token count for `chars` characters of text: one token per four characters,
/// rounded up. That is the usual rule of thumb for English with BPE tokenisers; other
/// languages and emoji use more tokens per character, so treat it as a lower-bound estimate
/// for logs and budgets, not an exact count.
pub fn estimate_tokens(chars: usize) -> usize {
    chars.div_ceil(4)
}

#[cfg(test)]
mod tests {
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
        let cases: &[(&str, &str)] = &[
            ("short", "short"),
            ("  padded  ", "padded"),
            (&"a".repeat(RETRIEVED_CHARS), &"a".repeat(RETRIEVED_CHARS)),
        ];
        for (input, want) in cases {
            assert_eq!(cap(input, RETRIEVED_CHARS), *want);
        }
        let long = "x".repeat(1000);
        let capped = cap(&long, RETRIEVED_CHARS);
        assert_eq!(capped.chars().count(), RETRIEVED_CHARS);
        assert!(capped.ends_with('…'));
        // A flag emoji is two chars in one grapheme: never split it.
        let flags = "🇨🇭".repeat(150);
        let capped = cap(&flags, 9);
        assert_eq!(capped, "🇨🇭🇨🇭🇨🇭🇨🇭…");

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
}
