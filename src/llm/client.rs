//! [`LlmClient`]: one `POST {base_url}/chat/completions` per attempt, bounded retries, and
//! a hard budget for the whole call.

use std::error::Error as _;
use std::sync::Arc;
use std::time::Duration;

use reqwest::{StatusCode, Url};
use tokio::time::{Instant, sleep, timeout_at};

use super::clean::clean_reply;
use super::wire::{self, Answer};
use super::{ChatMessage, Completion, LlmError, LlmSettings, retry};

/// Largest response body read; a chat reply for a radio is a few hundred bytes.
const MAX_BODY: usize = 1 << 20;

/// Characters of an error response body kept in [`LlmError::Status`].
const STATUS_BODY_CHARS: usize = 200;

/// A cheap-to-clone handle on the model server (one connection pool shared by all clones).
#[derive(Debug, Clone)]
pub struct LlmClient {
    http: reqwest::Client,
    /// `{base_url}/chat/completions`, parsed once.
    endpoint: Url,
    settings: Arc<LlmSettings>,
    /// Waits between attempts; tests shorten them.
    backoff: [Duration; 2],
}

impl LlmClient {
    /// Builds the HTTP client; no request is made.
    ///
    /// `https://` needs the system CA certificates; plain `http://` (a local server) does not.
    pub fn new(settings: LlmSettings) -> Result<LlmClient, LlmError> {
        let endpoint = endpoint(&settings.base_url)?;
        // reqwest is built without a default crypto provider (aws-lc-rs needs cmake); this
        // installs ring once per process. A provider already installed is fine.
        let _ = rustls::crypto::ring::default_provider().install_default();
        let mut builder = reqwest::Client::builder()
            .user_agent(concat!("meshai/", env!("CARGO_PKG_VERSION")))
            .redirect(reqwest::redirect::Policy::none());
        if endpoint.scheme() == "http" {
            // Nothing is verified over plain HTTP, so do not require system roots for it.
            builder = builder.tls_certs_only([]);
        }
        let http = builder
            .build()
            .map_err(|e| LlmError::Setup(error_chain(e)))?;
        Ok(LlmClient {
            http,
            endpoint,
            settings: Arc::new(settings),
            backoff: retry::BACKOFF,
        })
    }

    /// The configured default for `max_tokens`.
    pub fn default_max_tokens(&self) -> u32 {
        self.settings.max_tokens
    }

    /// Asks the model; the answer comes back cleaned by [`clean_reply`].
    ///
    /// Sends `{model, messages, max_tokens, temperature, stream: false}` to
    /// `{base_url}/chat/completions`. Connection errors, 408, 429 and 5xx are retried (at
    /// most 3 attempts, waiting 0.5 s then 1.5 s); the whole call, waits included, never
    /// takes longer than the configured timeout.
    pub async fn complete(
        &self,
        messages: &[ChatMessage],
        max_tokens: u32,
    ) -> Result<Completion, LlmError> {
        self.complete_in(None, messages, max_tokens).await
    }

    /// Like [`LlmClient::complete`], on llama.cpp server slot `slot` when given: the request
    /// then carries `id_slot` and `cache_prompt: true`, so the slot keeps this prompt's KV
    /// state for the next request of the same conversation. Only for a llama.cpp server.
    pub async fn complete_in(
        &self,
        slot: Option<u32>,
        messages: &[ChatMessage],
        max_tokens: u32,
    ) -> Result<Completion, LlmError> {
        let started = Instant::now();
        let deadline = started + self.settings.timeout;
        let request = wire::Request {
            model: &self.settings.model,
            messages,
            max_tokens,
            temperature: self.settings.temperature,
            stream: false,
            id_slot: slot,
            cache_prompt: slot.map(|_| true),
        };
        let mut attempt = 1;
        let answer = loop {
            let result = timeout_at(deadline, self.attempt(&request))
                .await
                .unwrap_or(Err(LlmError::Timeout));
            let error = match result {
                Ok(answer) => break answer,
                Err(error) => error,
            };
            let remaining = deadline.saturating_duration_since(Instant::now());
            match retry::delay(attempt, &error, remaining, &self.backoff) {
                Some(wait) => {
                    tracing::warn!(attempt, %error, ?wait, "llm call failed, retrying");
                    sleep(wait).await;
                    attempt += 1;
                }
                None => {
                    tracing::warn!(attempt, %error, "llm call failed");
                    return Err(error);
                }
            }
        };
        let latency = started.elapsed();
        let text = clean_reply(&answer.content);
        tracing::debug!(
            ?latency,
            attempt,
            raw_chars = answer.content.chars().count(),
            chars = text.chars().count(),
            prompt_tokens = answer.usage.map(|u| u.prompt_tokens),
            completion_tokens = answer.usage.map(|u| u.completion_tokens),
            "llm answered"
        );
        if text.is_empty() {
            return Err(LlmError::Empty);
        }
        Ok(Completion {
            text,
            usage: answer.usage,
            latency,
        })
    }

    /// How many slots the server has, if it is llama.cpp's server: `GET /props` next to the
    /// `/v1` root (`Ok(None)` when it answers without `total_slots`, or not with 200, as Ollama
    /// and OpenAI do). An error when nothing answers within `wait`.
    pub async fn server_slots(&self, wait: Duration) -> Result<Option<u32>, LlmError> {
        let root = self.settings.base_url.trim_end_matches('/');
        let root = root.strip_suffix("/v1").unwrap_or(root);
        let url = Url::parse(&format!("{root}/props"))
            .map_err(|e| LlmError::Setup(format!("bad base url: {e}")))?;
        let mut builder = self.http.get(url);
        if let Some(key) = &self.settings.api_key {
            builder = builder.bearer_auth(key.expose());
        }
        let probe = async {
            let mut response = builder
                .send()
                .await
                .map_err(|e| LlmError::Connect(error_chain(e)))?;
            let status = response.status();
            if !status.is_success() {
                return Ok(None);
            }
            let body = read_body(&mut response, status).await?;
            Ok(wire::parse_props(&body))
        };
        tokio::time::timeout(wait, probe)
            .await
            .unwrap_or(Err(LlmError::Timeout))
    }

    /// One HTTP exchange, without timeout (the caller has it) and without retries.
    async fn attempt(&self, request: &wire::Request<'_>) -> Result<Answer, LlmError> {
        let mut builder = self.http.post(self.endpoint.clone()).json(request);
        if let Some(key) = &self.settings.api_key {
            // reqwest marks this header sensitive, so it is never printed either.
            builder = builder.bearer_auth(key.expose());
        }
        let mut response = builder
            .send()
            .await
            .map_err(|e| LlmError::Connect(error_chain(e)))?;
        let status = response.status();
        let retry_after = response
            .headers()
            .get(reqwest::header::RETRY_AFTER)
            .and_then(|v| v.to_str().ok())
            .and_then(retry::parse_retry_after);
        let body = read_body(&mut response, status).await?;
        if !status.is_success() {
            return Err(LlmError::Status {
                status: status.as_u16(),
                body: String::from_utf8_lossy(&body)
                    .chars()
                    .take(STATUS_BODY_CHARS)
                    .collect(),
                retry_after,
            });
        }
        wire::parse(&body)
    }
}

/// Reads the body up to [`MAX_BODY`]; an error status only needs the start of it.
async fn read_body(
    response: &mut reqwest::Response,
    status: StatusCode,
) -> Result<Vec<u8>, LlmError> {
    let limit = if status.is_success() {
        MAX_BODY
    } else {
        STATUS_BODY_CHARS * 4
    };
    let mut body = Vec::new();
    while let Some(chunk) = response
        .chunk()
        .await
        .map_err(|e| LlmError::Connect(error_chain(e)))?
    {
        body.extend_from_slice(&chunk);
        if body.len() > limit {
            if status.is_success() {
                return Err(LlmError::BadResponse(format!(
                    "response body over {MAX_BODY} bytes"
                )));
            }
            break;
        }
    }
    Ok(body)
}

fn endpoint(base_url: &str) -> Result<Url, LlmError> {
    let url = format!("{}/chat/completions", base_url.trim_end_matches('/'));
    let url = Url::parse(&url).map_err(|e| LlmError::Setup(format!("bad base url: {e}")))?;
    match url.scheme() {
        "http" | "https" => Ok(url),
        other => Err(LlmError::Setup(format!(
            "bad base url: scheme {other:?} is not http or https"
        ))),
    }
}

/// An error and its causes on one line, without the URL (it may hold credentials).
fn error_chain(error: reqwest::Error) -> String {
    let error = error.without_url();
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}

#[cfg(test)]
mod tests;
