//! A model of llama.cpp's server prompt cache, for [`super::FakeLlm`]: each slot keeps the
//! tokens of the last prompt it processed and of the answer it generated, and a new prompt
//! costs only the tokens after the longest prefix it shares with them ("evaluated", the
//! server's `timings.prompt_n`). Ollama's runner keeps one such cache per parallel sequence
//! (`OLLAMA_NUM_PARALLEL`), so one slot models a Raspberry Pi on either server.
//!
//! What a request does to the cache, as llama-server does it:
//! - it waits for its slot (one request at a time per slot); one whose client leaves while it
//!   waits is dropped and changes nothing;
//! - once started, the slot's cache is cut to the common prefix and the rest of the prompt is
//!   evaluated in one batch (the server's default batch is 2048 tokens, and it looks for a
//!   closed connection only between batches): from then on the cache holds this prompt, even
//!   when the client leaves meanwhile;
//! - each generated token is appended; a client that leaves stops the generation, and what was
//!   generated stays cached.
//!
//! Tokens are made deterministically from the chat template (ChatML, as Qwen2.5's): the
//! template's markers are one token each, text is cut at whitespace into words and each word
//! into pieces of at most [`PIECE`] characters, about a real tokenizer's count for English.
#![allow(dead_code)]

use std::time::Duration;

use super::FakeMessage;

/// The longest piece of a word that is one token.
pub const PIECE: usize = 5;

const START: &str = "<|im_start|>";
const END: &str = "<|im_end|>";

/// How fast the modelled server works: a Raspberry Pi-class CPU by default.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SlotTiming {
    /// Slots (llama-server's `--parallel`); a request names one with `id_slot`, else it gets
    /// the one whose cache shares the longest prefix with its prompt.
    pub slots: usize,
    /// Per prompt token evaluated.
    pub prompt_token: Duration,
    /// Per token generated.
    pub generated_token: Duration,
}

impl Default for SlotTiming {
    fn default() -> Self {
        SlotTiming {
            slots: 1,
            prompt_token: Duration::from_millis(25),
            generated_token: Duration::from_millis(110),
        }
    }
}

/// What one chat request cost, in the order the requests started at their slot.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CacheUse {
    pub slot: usize,
    /// A summary request (its last message asks for the notes).
    pub summary: bool,
    /// A prefill after a fold (`FakeRequest::is_prefill`).
    pub prefill: bool,
    /// The prompt's tokens.
    pub prompt: usize,
    /// The tokens after the prefix the slot's cache held.
    pub evaluated: usize,
    /// A reply's tokens after the prefix it shares with the previous reply's prompt and
    /// answer: what it would evaluate on a slot that held the conversation alone (its new
    /// message, and any new memory or facts block). `evaluated` beyond it is what other
    /// requests on the slot cost it. A summary's is its `evaluated`.
    pub fresh: usize,
    /// Tokens generated (all of the answer's, unless the client left).
    pub generated: usize,
    /// The client closed the connection before the answer was done.
    pub cancelled: bool,
}

/// The messages as the server's chat template renders them, with the generation prompt.
pub fn render(messages: &[FakeMessage]) -> String {
    let mut out = String::new();
    for m in messages {
        out.push_str(START);
        out.push_str(&m.role);
        out.push('\n');
        out.push_str(&m.content);
        out.push_str(END);
        out.push('\n');
    }
    out.push_str(START);
    out.push_str("assistant\n");
    out
}

/// The tokens of `text`: the template's markers one each, words (with the whitespace after
/// them) in pieces of at most [`PIECE`] characters.
pub fn tokens(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = text;
    while !rest.is_empty() {
        let marker = [START, END].into_iter().find(|m| rest.starts_with(m));
        if let Some(m) = marker {
            out.push(m.to_string());
            rest = &rest[m.len()..];
            continue;
        }
        let next_marker = [START, END]
            .iter()
            .filter_map(|m| rest.find(m))
            .min()
            .unwrap_or(rest.len());
        let (plain, after) = rest.split_at(next_marker);
        for word in plain.split_inclusive(char::is_whitespace) {
            let chars: Vec<char> = word.chars().collect();
            for piece in chars.chunks(PIECE) {
                out.push(piece.iter().collect());
            }
        }
        rest = after;
    }
    out
}

/// The tokens an answer adds to the cache: its text and the end marker.
pub fn answer_tokens(text: &str) -> Vec<String> {
    let mut t = tokens(text);
    t.push(END.to_string());
    t
}

/// How many tokens `a` and `b` share at their start.
pub fn common_prefix(a: &[String], b: &[String]) -> usize {
    a.iter().zip(b).take_while(|(x, y)| x == y).count()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn msg(role: &str, content: &str) -> FakeMessage {
        FakeMessage {
            role: role.into(),
            content: content.into(),
        }
    }

    #[test]
    fn a_prompt_and_its_answer_are_the_next_prompts_prefix() {
        let first = vec![
            msg("system", "Be brief."),
            msg("user", "Hello there, radio"),
        ];
        let answer = "Hi! What can I do?";
        let mut cached = tokens(&render(&first));
        cached.extend(answer_tokens(answer));
        let mut next = first.clone();
        next.push(msg("assistant", answer));
        next.push(msg("user", "Nothing"));
        let next = tokens(&render(&next));
        assert_eq!(common_prefix(&cached, &next), cached.len());
        // What is left: the newline after the answer, the new message (`<|im_start|>`,
        // `user\n`, `Nothi`, `ng`, `<|im_end|>`, `\n`) and the generation prompt (3).
        assert_eq!(next.len() - cached.len(), 1 + 6 + 3);
        assert_eq!(tokens("abcdefghijk l"), ["abcde", "fghij", "k ", "l"]);
    }
}
