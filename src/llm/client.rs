//! [`LlmClient`]: one `POST {base_url}/chat/completions` per attempt, bounded retries, and
//! a hard budget for the whole call; [`ChatStream`]: the same call with `stream: true`, read
//! one server-sent event at a time.

use std::error::Error as _;
use std::sync::Arc;
use std::time::Duration;

use reqwest::{StatusCode, Url};
use tokio::time::{Instant, sleep, timeout_at};

use super::clean::clean_reply;
use super::embed;
use super::sse::SseParser;
use super::wire::{self, Answer, ServerProps};
use super::{ChatMessage, Completion, LlmError, LlmSettings, Usage, retry};

/// Largest response body read; a chat reply for a radio is a few hundred bytes.
const MAX_BODY: usize = 1 << 20;

/// Characters of an error response body kept in [`LlmError::Status`].
const STATUS_BODY_CHARS: usize = 200;

/// The tokens a prefill asks for ([`LlmClient::prefill`]): one, the least every server
/// accepts; tests and benches tell a prefill from an answer by it.
pub const PREFILL_TOKENS: u32 = 1;

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

    /// Asks the model; the answer comes back cleaned by [`clean_reply`].
    ///
    /// Sends `{model, messages, max_tokens, temperature, stream: false}` to
    /// `{base_url}/chat/completions`. Connection errors, 408, 429 and 5xx are retried (at
    /// most 3 attempts, waiting 0.5 s then 1.5 s); the whole call, waits included, never
    /// takes longer than the configured timeout.
    pub(crate) async fn complete(
        &self,
        messages: &[ChatMessage],
        max_tokens: u32,
    ) -> Result<Completion, LlmError> {
        self.complete_in(None, messages, max_tokens).await
    }

    /// Like [`LlmClient::complete`], on llama.cpp server slot `slot` when given: the request
    /// then carries `id_slot` and `cache_prompt: true`, so the slot keeps this prompt's KV
    /// state for the next request of the same conversation. Only for a llama.cpp server.
    pub(crate) async fn complete_in(
        &self,
        slot: Option<u32>,
        messages: &[ChatMessage],
        max_tokens: u32,
    ) -> Result<Completion, LlmError> {
        let deadline = Instant::now() + self.settings.timeout;
        self.complete_by(slot, messages, max_tokens, deadline).await
    }

    /// Like [`LlmClient::complete_in`], bounded by `deadline` instead of the configured
    /// timeout (the failover chain hands each server what is left of one budget).
    pub(crate) async fn complete_by(
        &self,
        slot: Option<u32>,
        messages: &[ChatMessage],
        max_tokens: u32,
        deadline: Instant,
    ) -> Result<Completion, LlmError> {
        let started = Instant::now();
        let request = self.request(slot, messages, max_tokens, false);
        let (answer, attempt) = self
            .with_retries(deadline, || self.attempt(&request))
            .await?;
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
            raw: answer.content,
            usage: answer.usage,
            latency,
        })
    }

    /// Has the server read `messages` into `slot`'s prompt cache, writing [`PREFILL_TOKENS`]:
    /// one attempt within the configured timeout, its answer thrown away (an empty one is
    /// fine). The prompt tokens it read, when the server says. Not an answer: no retry, no
    /// failover, nothing counted towards the server's health.
    pub(crate) async fn prefill(
        &self,
        slot: Option<u32>,
        messages: &[ChatMessage],
    ) -> Result<Option<u64>, LlmError> {
        let request = self.request(slot, messages, PREFILL_TOKENS, false);
        let deadline = Instant::now() + self.settings.timeout;
        let answer = timeout_at(deadline, self.attempt(&request))
            .await
            .map_err(|_| LlmError::Timeout)??;
        Ok(answer.usage.map(|u| u.prompt_tokens))
    }

    /// How many slots the server has, if it is llama.cpp's server: `GET /props` next to the
    /// `/v1` root (`Ok(None)` when it answers without `total_slots`, or not with 200, as Ollama
    /// and OpenAI do). An error when nothing answers within `wait`.
    pub(crate) async fn server_slots(&self, wait: Duration) -> Result<Option<u32>, LlmError> {
        Ok(self.server_props(wait).await?.map(|p| p.slots))
    }

    /// llama.cpp's `GET /props`: its slots and each slot's context (`Ok(None)` as for
    /// [`LlmClient::server_slots`]).
    pub(crate) async fn server_props(
        &self,
        wait: Duration,
    ) -> Result<Option<ServerProps>, LlmError> {
        let root = self.settings.base_url.trim_end_matches('/');
        let root = root.strip_suffix("/v1").unwrap_or(root);
        let (status, body) = self.get(&format!("{root}/props"), wait).await?;
        Ok(status
            .is_success()
            .then(|| wire::parse_props(&body))
            .flatten())
    }

    /// Whether the server answers at all: `GET {base_url}/models` with the key, within
    /// `wait`. Cheap (no model is loaded or run); used to probe a skipped server.
    pub(crate) async fn probe(&self, wait: Duration) -> Result<(), LlmError> {
        let url = format!("{}/models", self.settings.base_url.trim_end_matches('/'));
        let (status, body) = self.get(&url, wait).await?;
        if status.is_success() {
            return Ok(());
        }
        Err(status_error(status, &body, None))
    }

    /// `GET url` with the API key, within `wait`: the status and the (bounded) body.
    async fn get(&self, url: &str, wait: Duration) -> Result<(StatusCode, Vec<u8>), LlmError> {
        let url = Url::parse(url).map_err(|e| LlmError::Setup(format!("bad base url: {e}")))?;
        let mut builder = self.http.get(url);
        if let Some(key) = &self.settings.api_key {
            builder = builder.bearer_auth(key.expose());
        }
        let get = async {
            let mut response = builder
                .send()
                .await
                .map_err(|e| LlmError::Connect(error_chain(e)))?;
            let status = response.status();
            let body = read_body(&mut response, status).await?;
            Ok((status, body))
        };
        tokio::time::timeout(wait, get)
            .await
            .unwrap_or(Err(LlmError::Timeout))
    }

    /// The model the requests name.
    pub fn model(&self) -> &str {
        &self.settings.model
    }

    /// The API root the requests go to.
    pub fn base_url(&self) -> &str {
        &self.settings.base_url
    }

    /// The budget for one whole call, retries included.
    pub(crate) fn timeout(&self) -> Duration {
        self.settings.timeout
    }

    /// Whether the client was built to stream answers (`[llm] stream`).
    pub(crate) fn streams(&self) -> bool {
        self.settings.stream
    }

    /// Opens a streamed answer: `stream: true` with `stream_options.include_usage`.
    ///
    /// Connection errors, 408, 429 and 5xx before the response starts are retried as in
    /// [`LlmClient::complete`]; `deadline` bounds the whole answer, the stream included (see
    /// [`ChatStream::next`]). A failure once the stream runs is the caller's to retry, with
    /// [`LlmClient::retry_delay`], as long as nothing of the answer went on air.
    ///
    /// `slot`: the llama.cpp server slot, as for [`LlmClient::complete_in`].
    pub(crate) async fn stream(
        &self,
        slot: Option<u32>,
        messages: &[ChatMessage],
        max_tokens: u32,
        deadline: Instant,
    ) -> Result<ChatStream, LlmError> {
        let request = self.request(slot, messages, max_tokens, true);
        let (response, _) = self.with_retries(deadline, || self.open(&request)).await?;
        Ok(ChatStream::new(response, deadline))
    }

    /// The chat request. `stream` asks for events, the last one with the token counts; a
    /// `slot` adds llama.cpp's `id_slot` and `cache_prompt` (never sent to other servers).
    fn request<'a>(
        &'a self,
        slot: Option<u32>,
        messages: &'a [ChatMessage],
        max_tokens: u32,
        stream: bool,
    ) -> wire::Request<'a> {
        wire::Request {
            model: &self.settings.model,
            messages,
            max_tokens,
            temperature: self.settings.temperature,
            stream,
            id_slot: slot,
            cache_prompt: slot.map(|_| true),
            stream_options: stream.then_some(wire::StreamOptions {
                include_usage: true,
            }),
        }
    }

    /// Runs `attempt` until it succeeds, fails for good, or `deadline` passes; returns the
    /// result and the number of attempts made.
    async fn with_retries<T, F, Fut>(
        &self,
        deadline: Instant,
        attempt: F,
    ) -> Result<(T, u32), LlmError>
    where
        F: Fn() -> Fut,
        Fut: std::future::Future<Output = Result<T, LlmError>>,
    {
        let mut n = 1;
        loop {
            let result = timeout_at(deadline, attempt())
                .await
                .unwrap_or(Err(LlmError::Timeout));
            let error = match result {
                Ok(value) => return Ok((value, n)),
                Err(error) => error,
            };
            match self.retry_delay(n, &error, deadline) {
                Some(wait) => {
                    tracing::warn!(attempt = n, %error, ?wait, "llm call failed, retrying");
                    sleep(wait).await;
                    n += 1;
                }
                None => {
                    tracing::warn!(attempt = n, %error, "llm call failed");
                    return Err(error);
                }
            }
        }
    }

    /// How long to wait before attempt `attempt + 1` after `error`, if another attempt is
    /// worth it and fits before `deadline` (the policy of [`LlmClient::complete`]).
    pub(crate) fn retry_delay(
        &self,
        attempt: u32,
        error: &LlmError,
        deadline: Instant,
    ) -> Option<Duration> {
        let remaining = deadline.saturating_duration_since(Instant::now());
        retry::delay(attempt, error, remaining, &self.backoff)
    }

    /// The vectors of `inputs` from the model (an embedding model: `[knowledge.embeddings]`),
    /// in their order: `POST {base_url}/embeddings` with `{model, input}`, within `deadline`;
    /// with `retry`, retried like [`LlmClient::complete`], else tried once (a question's
    /// vector: the radio user waits, and the turn goes on without it). An answer that is not
    /// one good vector per input is [`LlmError::BadResponse`].
    pub(crate) async fn embed(
        &self,
        inputs: &[String],
        deadline: Instant,
        retry: bool,
    ) -> Result<Vec<Vec<f32>>, LlmError> {
        let url = Url::parse(&format!(
            "{}/embeddings",
            self.settings.base_url.trim_end_matches('/')
        ))
        .map_err(|e| LlmError::Setup(format!("bad base url: {e}")))?;
        let request = embed::Request {
            model: &self.settings.model,
            input: inputs,
        };
        let attempt = || async {
            let mut response = self.post(&url, &request).await?;
            let body = read_body(&mut response, StatusCode::OK).await?;
            embed::parse(&body, inputs.len())
        };
        if !retry {
            return timeout_at(deadline, attempt())
                .await
                .unwrap_or(Err(LlmError::Timeout));
        }
        let (vectors, _) = self.with_retries(deadline, attempt).await?;
        Ok(vectors)
    }

    /// Sends the request and returns a 2xx response with its body still unread.
    async fn open(&self, request: &wire::Request<'_>) -> Result<reqwest::Response, LlmError> {
        self.post(&self.endpoint, request).await
    }

    /// `POST url` with `body` as JSON and the API key; a 2xx response with its body unread.
    async fn post(
        &self,
        url: &Url,
        body: &impl serde::Serialize,
    ) -> Result<reqwest::Response, LlmError> {
        let mut builder = self.http.post(url.clone()).json(body);
        if let Some(key) = &self.settings.api_key {
            // reqwest marks this header sensitive, so it is never printed either.
            builder = builder.bearer_auth(key.expose());
        }
        let mut response = builder
            .send()
            .await
            .map_err(|e| LlmError::Connect(error_chain(e)))?;
        let status = response.status();
        if status.is_success() {
            return Ok(response);
        }
        let retry_after = response
            .headers()
            .get(reqwest::header::RETRY_AFTER)
            .and_then(|v| v.to_str().ok())
            .and_then(retry::parse_retry_after);
        let body = read_body(&mut response, status).await?;
        Err(status_error(status, &body, retry_after))
    }

    /// One HTTP exchange, without timeout (the caller has it) and without retries.
    async fn attempt(&self, request: &wire::Request<'_>) -> Result<Answer, LlmError> {
        let mut response = self.open(request).await?;
        let body = read_body(&mut response, StatusCode::OK).await?;
        wire::parse(&body)
    }
}

/// A streamed answer being read. Dropping it closes the connection, which is how the server
/// learns to stop generating (llama.cpp, Ollama and OpenAI all stop on a closed stream).
#[derive(Debug)]
pub(crate) struct ChatStream {
    response: reqwest::Response,
    deadline: Instant,
    state: StreamState,
    parser: SseParser,
    /// Events read but not handed out yet, in order; a malformed or error event is handed
    /// out as its error after the good events read before it, and nothing is read after it.
    pending: std::collections::VecDeque<Result<wire::Delta, LlmError>>,
    /// Bytes of the body read so far, bounded by [`MAX_BODY`].
    read: usize,
    usage: Option<Usage>,
}

/// How far a [`ChatStream`] has read its answer, and whether the answer is complete.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum StreamState {
    /// The server answered `application/json` (a proxy that ignores `stream`): the whole
    /// body is read as one completion and handed out as one piece.
    Plain,
    /// Reading events; the model has not said why it stopped.
    Writing,
    /// Reading events; the model gave a finish reason, so the body may end without
    /// `[DONE]` and the answer is still complete.
    Stopped,
    /// Nothing more is read and the answer is complete: `[DONE]` came, the plain body was
    /// read, or the body ended after a finish reason.
    Complete,
    /// Nothing more is read and the answer is not complete: the body ended before the model
    /// finished, or an event was malformed or an error.
    CutShort,
}

impl ChatStream {
    fn new(response: reqwest::Response, deadline: Instant) -> ChatStream {
        let plain = !response
            .headers()
            .get(reqwest::header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.to_ascii_lowercase().contains("text/event-stream"));
        if plain {
            tracing::debug!("the llm server answered a streaming request with plain json");
        }
        ChatStream {
            response,
            deadline,
            state: if plain {
                StreamState::Plain
            } else {
                StreamState::Writing
            },
            parser: SseParser::default(),
            pending: Default::default(),
            read: 0,
            usage: None,
        }
    }

    /// The next piece of the raw (uncleaned) answer, `Ok(None)` once the answer is complete.
    ///
    /// Fails with [`LlmError::Timeout`] at the deadline, [`LlmError::Connect`] when the
    /// connection breaks or ends before the model finished, [`LlmError::BadResponse`] on
    /// a malformed event or an error event.
    pub(crate) async fn next(&mut self) -> Result<Option<String>, LlmError> {
        loop {
            if let Some(delta) = self.pending.pop_front() {
                let delta = delta?;
                if delta.usage.is_some() {
                    self.usage = delta.usage;
                }
                if !delta.content.is_empty() {
                    return Ok(Some(delta.content));
                }
                continue;
            }
            match self.state {
                StreamState::Complete => return Ok(None),
                StreamState::CutShort => {
                    return Err(LlmError::Connect("the answer stream ended early".into()));
                }
                StreamState::Plain | StreamState::Writing | StreamState::Stopped => {
                    timeout_at(self.deadline, self.read_more())
                        .await
                        .unwrap_or(Err(LlmError::Timeout))?;
                }
            }
        }
    }

    /// Token counts, once the server sent them (usually with the last event).
    pub(crate) fn usage(&self) -> Option<Usage> {
        self.usage
    }

    /// Reads the next chunk of the body into `pending`.
    async fn read_more(&mut self) -> Result<(), LlmError> {
        if self.state == StreamState::Plain {
            let body = read_body(&mut self.response, StatusCode::OK).await?;
            let answer = wire::parse(&body)?;
            self.pending.push_back(Ok(wire::Delta {
                content: answer.content,
                finish_reason: None,
                usage: answer.usage,
            }));
            self.state = StreamState::Complete;
            return Ok(());
        }
        let chunk = self
            .response
            .chunk()
            .await
            .map_err(|e| LlmError::Connect(error_chain(e)))?;
        let (events, body_ended) = match chunk {
            Some(bytes) => {
                self.read += bytes.len();
                if self.read > MAX_BODY {
                    return Err(LlmError::BadResponse(format!(
                        "answer stream over {MAX_BODY} bytes"
                    )));
                }
                let events = self
                    .parser
                    .feed(&bytes)
                    .map_err(|e| LlmError::BadResponse(e.to_string()))?;
                (events, false)
            }
            None => (self.parser.finish().into_iter().collect(), true),
        };
        for event in events {
            if event.data.trim() == "[DONE]" {
                // Nothing counts after `[DONE]`.
                self.state = StreamState::Complete;
                break;
            }
            let delta = if event.name.as_deref() == Some("error") {
                let text: String = event.data.chars().take(STATUS_BODY_CHARS).collect();
                Err(LlmError::BadResponse(format!("error in stream: {text}")))
            } else {
                wire::parse_chunk(&event.data)
            };
            match delta {
                Ok(delta) => {
                    if delta.finish_reason.is_some() {
                        self.state = StreamState::Stopped;
                    }
                    self.pending.push_back(Ok(delta));
                }
                Err(error) => {
                    self.pending.push_back(Err(error));
                    self.state = self.ended();
                    break;
                }
            }
        }
        if body_ended {
            self.state = self.ended();
        }
        Ok(())
    }

    /// The state once nothing more is read: complete if the model or the server said so.
    fn ended(&self) -> StreamState {
        match self.state {
            StreamState::Stopped | StreamState::Complete => StreamState::Complete,
            StreamState::Plain | StreamState::Writing | StreamState::CutShort => {
                StreamState::CutShort
            }
        }
    }
}

/// The error for a non-2xx answer: its status and the start of its body.
fn status_error(status: StatusCode, body: &[u8], retry_after: Option<Duration>) -> LlmError {
    LlmError::Status {
        status: status.as_u16(),
        body: String::from_utf8_lossy(body)
            .chars()
            .take(STATUS_BODY_CHARS)
            .collect(),
        retry_after,
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
