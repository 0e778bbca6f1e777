//! The rolling summary: the request that folds evicted messages into a node's running
//! summary (this file), and the check a candidate summary must pass before it replaces the
//! old one (`accept`: cleaned, scrubbed of what the prompt holds already, refused when it is
//! no summary; `own_words`: when it holds no notes about the person). Pure: the responder
//! asks the store for a `SummaryJob`, the LLM for the text, and the store to save it.

use crate::lang::{Lang, Part, fill, part};
use crate::llm::{ChatMessage, ChatRole};
use crate::memory::layout;
use crate::store::{StoredMessage, Summary};

mod accept;
mod own_words;

pub(crate) use accept::accept_summary;

/// Whether `msgs` is a summary request (its last message is [`summary_prompt`]'s request).
#[cfg(test)]
pub(crate) fn is_summary_request(msgs: &[ChatMessage]) -> bool {
    msgs.last()
        .is_some_and(|m| m.role == ChatRole::User && is_summary_text(&m.content))
}

/// Whether `text` is a summary request's last message, in any of meshai's languages.
pub fn is_summary_text(text: &str) -> bool {
    Lang::ALL
        .iter()
        .any(|l| text.starts_with(part(*l, Part::SummaryStart)))
}

/// The messages asking the LLM to write its notes again after `messages` (the ones to fold,
/// and those that stay verbatim after them), in at most `max_chars`: the conversation as the
/// node's reply prompts have it — the system prompt, the memory block with the `previous`
/// summary and the kept `facts`, the messages as the model saw and wrote them — followed by
/// one request. `kept`: as for the node's reply prompts (see [`layout::conversation`]).
///
/// Being the reply prompts' own beginning, it reuses the server's cache of the conversation:
/// the server evaluates only the request (on a one-slot Raspberry Pi that is the difference
/// between a second and half a minute). Small models (Qwen2.5-0.5B, SmolLM2) also summarise
/// "the conversation above" better than a transcript pasted into one message, which they
/// echo.
pub(crate) fn summary_prompt(
    lang: Lang,
    system: &str,
    previous: Option<&Summary>,
    facts: &[String],
    messages: &[StoredMessage],
    kept: usize,
    max_chars: usize,
) -> Vec<ChatMessage> {
    let mut msgs = layout::conversation(lang, system, previous, facts, messages, kept);
    let max_chars = max_chars.to_string();
    msgs.push(ChatMessage::new(
        ChatRole::User,
        fill(
            part(lang, Part::SummaryRequest),
            &[("max_chars", &max_chars)],
        ),
    ));
    msgs
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::store::Role;

    use crate::test_util::stored as msg;

    #[test]
    fn the_request_continues_the_conversation_as_the_reply_prompts_have_it() {
        let folded = [
            msg(1, Role::User, "I'm Ann, KX1, in Bern"),
            StoredMessage {
                prompt: Some("Hi **Ann**!".into()),
                ..msg(2, Role::Assistant, "Hi Ann!")
            },
        ];
        let previous = Summary {
            text: "Ann has a T-Beam.".into(),
            through_id: 0,
            updated_at: 0,
        };
        let facts = vec!["I'm Ann.".to_string()];
        let msgs = summary_prompt(
            crate::lang::Lang::En,
            "SYS",
            Some(&previous),
            &facts,
            &folded,
            1,
            400,
        );
        let conversation = layout::conversation(
            crate::lang::Lang::En,
            "SYS",
            Some(&previous),
            &facts,
            &folded,
            1,
        );
        assert_eq!(
            msgs[..msgs.len() - 1],
            conversation[..],
            "the reply prompts' prefix"
        );
        assert_eq!(msgs.len(), conversation.len() + 1);
        assert!(is_summary_request(&msgs));
        assert!(!is_summary_request(&conversation));
        let last = msgs.last().map(|m| m.content.as_str()).unwrap_or("");
        for needle in [
            "callsigns",
            "small talk",
            "at most 400 characters",
            "plain",
            "language I write in",
        ] {
            assert!(last.contains(needle), "request lacks {needle:?}");
        }
    }
}
