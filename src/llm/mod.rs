//! The OpenAI-compatible chat client and what it returns.
//!
//! Layout:
//! - `client`: [`LlmClient`], the only code that talks HTTP to the model server; owns the
//!   call budget and the retries.
//! - `pool`: [`LlmPool`], the primary and its `[[llm.fallback]]` servers tried in order within
//!   one budget, and the background probe that brings a skipped server back.
//! - `health`: sans-IO health of one server (failures in a row, skip, probe due).
//! - `retry`: sans-IO retry policy (which failures to retry, how long to wait).
//! - `wire`: the JSON request and response shapes of `/chat/completions`, streamed or not;
//!   `embed` those of `/embeddings` (passage vectors for `[knowledge.embeddings]`).
//! - `sse`: sans-IO server-sent events (bytes → events) for streamed answers.
//! - `clean`: turns the raw answer into plain one-line text, whole ([`clean::clean_reply`])
//!   or piece by piece as it streams in ([`clean::StreamCleaner`]).
//! - `models`: what a server has installed (`meshai init`), and which model to pick.
//!
//! The message types below are shared with the prompt builder.

pub(crate) mod clean;
mod client;
mod embed;
pub(crate) mod health;
pub(crate) mod models;
mod pool;
mod retry;
mod sse;
mod wire;

use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::secret::Secret;

pub use client::PREFILL_TOKENS;
pub(crate) use client::{ChatStream, LlmClient};
pub(crate) use pool::{LlmPool, Server};
pub(crate) use wire::ServerProps;

/// Who says a chat message, as the OpenAI chat API spells it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum ChatRole {
    System,
    User,
    Assistant,
}

/// One message of a chat-completions request.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct ChatMessage {
    pub(crate) role: ChatRole,
    pub(crate) content: String,
}

impl ChatMessage {
    pub fn new(role: ChatRole, content: impl Into<String>) -> Self {
        ChatMessage {
            role,
            content: content.into(),
        }
    }
}

/// How to reach the model, already validated by the config.
#[derive(Debug, Clone, PartialEq)]
pub struct LlmSettings {
    /// The API root, e.g. `http://127.0.0.1:11434/v1`; `/chat/completions` is appended.
    pub(crate) base_url: String,
    pub(crate) model: String,
    /// Sent as a bearer token when set; local servers usually need none.
    pub(crate) api_key: Option<Secret>,
    /// Budget for a whole [`LlmClient::complete`] call, retries included: a reply that comes
    /// too late is useless to someone waiting at a radio.
    pub(crate) timeout: Duration,
    /// Default answer length for callers that have no better idea.
    pub(crate) max_tokens: u32,
    pub(crate) temperature: f32,
    /// Replies are streamed (`stream: true`) so their first part can go on air while the
    /// model still writes; off for a proxy that breaks server-sent events.
    pub(crate) stream: bool,
}

/// A model answer, cleaned for the radio.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Completion {
    /// The answer after [`clean::clean_reply`]: one line, no markdown, never empty.
    pub(crate) text: String,
    /// The answer as the model wrote it.
    pub(crate) raw: String,
    /// Token counts, when the server reports them.
    pub(crate) usage: Option<Usage>,
    /// Time for the whole call, retries included.
    pub(crate) latency: Duration,
}

/// Token counts as the server reports them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Usage {
    pub(crate) prompt_tokens: u64,
    pub(crate) completion_tokens: u64,
}

/// Why a completion (or an embedding) failed. Connection errors, 429 and 5xx have already
/// been retried. The texts name no server: the log line around one says which (the LLM, the
/// embedding server).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LlmError {
    /// The call budget ran out.
    #[error("the call timed out")]
    Timeout,
    /// The server could not be reached or dropped the connection.
    #[error("cannot reach the server: {0}")]
    Connect(String),
    /// The server answered with a non-success status.
    #[error("the server answered http {status}: {body}")]
    Status {
        status: u16,
        /// The first 200 characters of the response body.
        body: String,
        /// `Retry-After` in seconds (429, 503), when the server sent one.
        retry_after: Option<Duration>,
    },
    /// The server answered 2xx with something that is not a chat completion.
    #[error("bad response: {0}")]
    BadResponse(String),
    /// The answer was empty after clean-up (e.g. only a `<think>` block).
    #[error("the answer is empty after clean-up")]
    Empty,
    /// The HTTP client could not be built (bad URL, no CA certificates for `https://`).
    #[error("cannot set up the http client: {0}")]
    Setup(String),
}
