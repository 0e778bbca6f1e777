//! `meshai check`'s line about the LLM server's prompt cache, where the server says enough
//! about itself: llama.cpp's server answers `GET /props` with its slots and each slot's
//! context. Ollama and OpenAI-style servers do not; for them there is no line (and nothing
//! fails).
//!
//! What costs the cache: a slot's context smaller than meshai's largest prompt (the server
//! then shifts or refuses it, and reads the conversation again each turn), and a server
//! with slots that meshai is told not to pin (`[llm] slots = "off"`): the server then picks
//! a slot for each request itself, and a summary can take the conversation's.

use std::time::Duration;

use super::Outcome;
use crate::config::{Config, SlotsSetting};
use crate::llm::{LlmClient, ServerProps};
use crate::secret::redact_urls;

/// How long the check waits for `/props`.
const PROPS_WAIT: Duration = Duration::from_secs(5);

/// Tokens of a prompt besides its messages, at most about: the system prompt, the memory
/// block (facts and a summary), the turn's notes and the chat template.
const FIXED_PROMPT_TOKENS: u32 = 768;

/// A prompt carries at most this many times `fold_tokens` of messages (the responder's
/// input bound).
const INPUT_FOLDS: u32 = 4;

/// The line for the `[llm]` server's slots, when it is llama.cpp's; `None` otherwise.
pub(crate) async fn llm_cache(config: &Config) -> Option<Outcome> {
    let client = LlmClient::new(crate::llm_settings(config)).ok()?;
    let props = client.server_props(PROPS_WAIT).await.ok()??;
    Some(outcome(config, props))
}

/// The tokens one request of meshai's may need in a slot: its prompt and its answer.
fn needed(config: &Config) -> u32 {
    let folds = u32::try_from(config.memory.fold_tokens).unwrap_or(u32::MAX);
    folds
        .saturating_mul(INPUT_FOLDS)
        .saturating_add(FIXED_PROMPT_TOKENS)
        .saturating_add(config.llm.max_tokens)
}

fn outcome(config: &Config, props: ServerProps) -> Outcome {
    let what = format!(
        "llm {} prompt cache: llama.cpp server, {} slot{}",
        redact_urls(&config.llm.base_url),
        props.slots,
        if props.slots == 1 { "" } else { "s" }
    );
    let what = match props.slot_ctx {
        Some(n) => format!("{what} of {n} tokens"),
        None => what,
    };
    let need = needed(config);
    if let Some(ctx) = props.slot_ctx
        && ctx < need
    {
        return Outcome {
            ok: true,
            line: what,
            advice: Some(format!(
                "meshai's prompts reach about {need} tokens with their answer; a longer one \
                 than a slot holds is shifted or refused, and the slot's cache is lost: start \
                 llama-server with --ctx-size {} (it is shared by the {} slot(s))",
                need.saturating_mul(props.slots),
                props.slots
            )),
        };
    }
    if props.slots >= 2 && config.llm.slots == SlotsSetting::Off {
        return Outcome {
            ok: true,
            line: what,
            advice: Some(
                "[llm] slots = \"off\": the server picks a slot per request and a summary can \
                 evict a conversation; set slots = \"auto\" to pin each node to a slot and keep \
                 one for summaries"
                    .into(),
            ),
        };
    }
    let how = if props.slots >= 2 && config.llm.slots != SlotsSetting::Off {
        "summaries in a slot of their own"
    } else {
        "summaries share the slot and continue the conversation's prompt"
    };
    Outcome::ok(format!("{what}; {how}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(extra: &str) -> Config {
        let text = format!(
            "[radio]\ntcp = \"127.0.0.1:4403\"\n[llm]\nbase_url = \"http://127.0.0.1:8080/v1\"\n\
             model = \"m\"\n{extra}\n"
        );
        let (config, _) =
            crate::config::parse(&text, "test.toml", &|_| None).expect("the test config parses");
        config
    }

    #[test]
    fn says_what_costs_the_cache() {
        // (config lines, slots, context per slot) → (advice contains, line contains)
        type Case<'a> = (&'a str, u32, Option<u32>, Option<&'a str>, &'a str);
        let cases: &[Case] = &[
            ("", 1, Some(4096), None, "share the slot"),
            ("", 1, None, None, "1 slot;"),
            ("", 2, Some(4096), None, "of their own"),
            // Defaults: 4 × 480 + 768 + 200 = 2888 tokens.
            ("", 1, Some(2048), Some("--ctx-size 2888"), "2048 tokens"),
            ("", 2, Some(2048), Some("--ctx-size 5776"), "2 slots"),
            (
                "slots = \"off\"",
                2,
                Some(4096),
                Some("slots = \"auto\""),
                "2 slots",
            ),
            ("slots = \"off\"", 1, Some(4096), None, "share the slot"),
        ];
        for (lines, slots, slot_ctx, advice, line) in cases {
            let props = ServerProps {
                slots: *slots,
                slot_ctx: *slot_ctx,
            };
            let o = outcome(&config(lines), props);
            assert!(o.ok, "{lines} {slots}");
            assert!(o.line.contains(line), "{lines} {slots}: {}", o.line);
            match advice {
                Some(a) => assert!(
                    o.advice.as_deref().is_some_and(|got| got.contains(a)),
                    "{lines} {slots}: {:?}",
                    o.advice
                ),
                None => assert_eq!(o.advice, None, "{lines} {slots}"),
            }
        }
    }
}
