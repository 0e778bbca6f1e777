//! The JSON shapes of `POST /chat/completions`, and reading an answer out of a response body
//! or out of one event of a streamed response.

use serde::{Deserialize, Serialize};

use super::{ChatMessage, LlmError, Usage};

/// The request body. Optional fields are left out when `None`, so a server that does not
/// know them never sees them; a new per-request field is one more `Option` here. `id_slot` and
/// `cache_prompt` are llama.cpp's server extensions, sent only when the operator configured
/// slots or the server was detected as llama.cpp (OpenAI rejects unknown fields).
#[derive(Debug, Serialize)]
pub(super) struct Request<'a> {
    pub(crate) model: &'a str,
    pub(crate) messages: &'a [ChatMessage],
    pub(crate) max_tokens: u32,
    pub(crate) temperature: f32,
    pub(crate) stream: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) id_slot: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) cache_prompt: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) stream_options: Option<StreamOptions>,
}

/// The part of llama.cpp's `GET /props` that says how many slots the server has, and how
/// many tokens each slot's context holds.
#[derive(Deserialize)]
struct Props {
    total_slots: u32,
    #[serde(default)]
    default_generation_settings: Option<GenerationSettings>,
}

#[derive(Deserialize)]
struct GenerationSettings {
    #[serde(default)]
    n_ctx: Option<u32>,
}

/// What llama.cpp's server says of its slots at `GET /props`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ServerProps {
    /// Its slots (`--parallel`).
    pub(crate) slots: u32,
    /// Tokens each slot's context holds (`--ctx-size` shared by the slots), when it says.
    pub(crate) slot_ctx: Option<u32>,
}

/// `Some(props)` when `body` is llama.cpp's `/props` answer, `None` for anything else.
pub(super) fn parse_props(body: &[u8]) -> Option<ServerProps> {
    let p = serde_json::from_slice::<Props>(body).ok()?;
    (p.total_slots > 0).then(|| ServerProps {
        slots: p.total_slots,
        slot_ctx: p
            .default_generation_settings
            .and_then(|g| g.n_ctx)
            .filter(|n| *n > 0),
    })
}

/// `stream_options`: asks for a last event with the token counts (OpenAI, llama.cpp, vLLM and
/// LiteLLM honour it; Ollama's OpenAI endpoint honours it in recent versions and ignores
/// unknown fields in older ones).
#[derive(Debug, Clone, Copy, Serialize)]
pub(super) struct StreamOptions {
    pub(crate) include_usage: bool,
}

/// What a successful response carries: the raw (uncleaned) content and the token counts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Answer {
    pub(crate) content: String,
    pub(crate) usage: Option<Usage>,
}

#[derive(Deserialize)]
struct Response {
    choices: Vec<Choice>,
    #[serde(default)]
    usage: Option<WireUsage>,
}

#[derive(Deserialize)]
struct Choice {
    #[serde(default)]
    message: Option<Message>,
}

#[derive(Deserialize)]
struct Message {
    #[serde(default)]
    content: Option<String>,
}

#[derive(Deserialize)]
struct WireUsage {
    #[serde(default)]
    prompt_tokens: Option<u64>,
    #[serde(default)]
    completion_tokens: Option<u64>,
}

impl WireUsage {
    fn usage(self) -> Option<Usage> {
        Some(Usage {
            prompt_tokens: self.prompt_tokens?,
            completion_tokens: self.completion_tokens?,
        })
    }
}

/// What one event of a streamed response carries.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(super) struct Delta {
    /// `choices[0].delta.content`; reasoning fields (`reasoning_content`, `reasoning`) are
    /// not read: a server that parses reasoning out keeps it away from the radio.
    pub(crate) content: String,
    /// `choices[0].finish_reason` once the model stopped (`stop`, `length`, …).
    pub(crate) finish_reason: Option<String>,
    pub(crate) usage: Option<Usage>,
}

#[derive(Deserialize)]
struct Chunk {
    #[serde(default)]
    choices: Vec<ChunkChoice>,
    #[serde(default)]
    usage: Option<WireUsage>,
    /// Some servers report a failure in the middle of a stream as an event with `error`.
    #[serde(default)]
    error: Option<serde_json::Value>,
}

#[derive(Deserialize)]
struct ChunkChoice {
    #[serde(default)]
    delta: Option<Message>,
    #[serde(default)]
    finish_reason: Option<String>,
}

/// Reads one `data:` payload of a streamed response (not `[DONE]`).
pub(super) fn parse_chunk(data: &str) -> Result<Delta, LlmError> {
    let chunk: Chunk = serde_json::from_str(data)
        .map_err(|e| LlmError::BadResponse(format!("not a chat completion chunk: {e}")))?;
    if let Some(error) = chunk.error {
        let text: String = error.to_string().chars().take(200).collect();
        return Err(LlmError::BadResponse(format!("error in stream: {text}")));
    }
    let choice = chunk.choices.into_iter().next();
    let (content, finish_reason) = match choice {
        Some(c) => (c.delta.and_then(|d| d.content), c.finish_reason),
        None => (None, None),
    };
    Ok(Delta {
        content: content.unwrap_or_default(),
        finish_reason,
        usage: chunk.usage.and_then(WireUsage::usage),
    })
}

/// Reads `choices[0].message.content` and `usage` from a 2xx response body.
pub(super) fn parse(body: &[u8]) -> Result<Answer, LlmError> {
    let response: Response = serde_json::from_slice(body)
        .map_err(|e| LlmError::BadResponse(format!("not a chat completion: {e}")))?;
    let content = response
        .choices
        .into_iter()
        .next()
        .ok_or_else(|| LlmError::BadResponse("no choices".into()))?
        .message
        .and_then(|m| m.content)
        .ok_or_else(|| LlmError::BadResponse("no message content".into()))?;
    let usage = response.usage.and_then(WireUsage::usage);
    Ok(Answer { content, usage })
}

#[cfg(test)]
mod tests;
