//! A turn's prompt from what the core put in its [`ModelCall`]: a DM's from its node's memory
//! (`memory::layout::reply_prompt`: the system prompt, the memory block, the unsummarised
//! messages, the per-turn block, the message), a mention's from its channel's public thread
//! (the system prompt, the thread, the notes, the message: placed as in a DM's prompt).

use super::core::{History, ModelCall};
use crate::llm::{ChatMessage, ChatRole};
use crate::memory::layout::{self, Turn};

/// The messages for the model: `system`, then what `call` holds.
pub(super) fn messages(system: &str, call: &ModelCall) -> Vec<ChatMessage> {
    with_notes(system, call, &call.notes)
}

/// The same with `notes` for the call's (an everyday question asked again: `ModelCall::again`).
pub(super) fn with_notes(system: &str, call: &ModelCall, notes: &[String]) -> Vec<ChatMessage> {
    match &call.history {
        History::Memory(ctx) => layout::reply_prompt(
            call.lang,
            system,
            ctx,
            Turn {
                message: &call.message,
                notes,
                broadcast: call.broadcast.as_deref(),
            },
        ),
        History::Thread(thread) => thread_prompt(
            system,
            thread,
            notes,
            call.broadcast.as_deref(),
            &call.message,
        ),
    }
}

/// A mention's prompt: the system prompt, the thread, the notes (one system message, the
/// empty ones left out), what nodes broadcast (a user message), the mention.
fn thread_prompt(
    system: &str,
    thread: &[(ChatRole, String)],
    notes: &[String],
    broadcast: Option<&str>,
    text: &str,
) -> Vec<ChatMessage> {
    let mut msgs = vec![ChatMessage::new(ChatRole::System, system)];
    for (role, content) in thread {
        msgs.push(ChatMessage::new(*role, content.as_str()));
    }
    let notes: Vec<&str> = notes
        .iter()
        .map(|n| n.trim())
        .filter(|n| !n.is_empty())
        .collect();
    if !notes.is_empty() {
        msgs.push(ChatMessage::new(ChatRole::System, notes.join("\n\n")));
    }
    if let Some(broadcast) = broadcast {
        msgs.push(ChatMessage::new(ChatRole::User, broadcast));
    }
    msgs.push(ChatMessage::new(ChatRole::User, text));
    msgs
}

#[cfg(test)]
mod tests {
    use super::*;

    fn contents(msgs: &[ChatMessage]) -> Vec<(ChatRole, String)> {
        msgs.iter().map(|m| (m.role, m.content.clone())).collect()
    }

    #[test]
    fn a_mentions_prompt_is_the_thread_then_its_notes_then_the_mention() {
        let notes = vec!["A note.".to_string(), " ".to_string()];
        let first = thread_prompt("SYS", &[], &notes, Some("Mesh facts."), "[Ann] q0");
        assert_eq!(
            contents(&first),
            [
                (ChatRole::System, "SYS".to_string()),
                (ChatRole::System, "A note.".to_string()),
                (ChatRole::User, "Mesh facts.".to_string()),
                (ChatRole::User, "[Ann] q0".to_string()),
            ]
        );
        let thread = [
            (ChatRole::User, "q1".to_string()),
            (ChatRole::Assistant, "a1".to_string()),
        ];
        let later = thread_prompt("SYS", &thread, &[], None, "q2");
        let texts: Vec<String> = later.iter().map(|m| m.content.clone()).collect();
        assert_eq!(texts, ["SYS", "q1", "a1", "q2"]);
    }
}
