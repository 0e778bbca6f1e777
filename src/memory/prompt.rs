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
use crate::memory::text::{cap, key};

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
    let keys: Vec<String> = facts.iter().map(|f| key(f)).collect();
    let mut text = String::new();
    if let Some(summary) = ctx.summary.as_ref() {
        let rest: String = summary
            .text
            .split_sentence_bounds()
            .filter(|s| !keys.contains(&key(s)))
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
mod tests;
