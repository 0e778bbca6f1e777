//! `FakeLlm`: a minimal OpenAI-compatible HTTP/1.1 server on 127.0.0.1 port 0, written by hand
//! over a tokio `TcpListener`, for tests and benchmarks.
//!
//! It answers `POST …/chat/completions` with whatever the behaviour closure decides (a JSON
//! completion, whatever the request's `stream` says, or a server-sent-event stream that can
//! stall or break off), lists its models (one by default) like Ollama on `GET /api/tags` and
//! like the OpenAI API on `GET …/models`, answers `GET /props` like llama.cpp when told to,
//! answers `POST …/embeddings` with the vectors a test's function makes (501 without one, as
//! llama.cpp's server without `--embeddings`), and records every request and what each stream sent before it ended. It depends only on tokio,
//! serde_json and std, so a benchmark can include it with `#[path = …] mod fake_llm;`;
//! that is also why it stays one file, a little over the usual length. Told to
//! ([`FakeLlm::model_prompt_cache`]), it also works like a slow server with a prompt cache
//! per slot (`cache`), one request at a time per slot, and counts the tokens each request
//! made it evaluate.
#![allow(dead_code)]

pub mod cache;

use std::net::SocketAddr;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{Notify, Semaphore, watch};

pub use cache::{CacheUse, SlotTiming};

/// Largest request head accepted; beyond it the request is refused with 431.
const MAX_HEAD: usize = 64 * 1024;
/// Largest request body accepted; beyond it the request is refused with 413.
const MAX_BODY: usize = 8 * 1024 * 1024;
/// The one model `GET /models` lists.
pub const MODEL: &str = "fake-model";

/// One chat message as the request carried it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FakeMessage {
    pub role: String,
    /// The content; an array of text parts is joined, anything else is empty.
    pub content: String,
}

/// One HTTP request as the server saw it.
#[derive(Debug, Clone)]
pub struct FakeRequest {
    pub method: String,
    pub path: String,
    /// Header names lowercased, in order.
    pub headers: Vec<(String, String)>,
    /// The `Authorization` header, to check the API key is sent (and only where it should be).
    pub authorization: Option<String>,
    /// The raw body, lossily decoded.
    pub body: String,
    /// The body parsed as JSON, when it is.
    pub json: Option<Value>,
    pub model: Option<String>,
    pub messages: Vec<FakeMessage>,
    pub max_tokens: Option<u64>,
    pub temperature: Option<f64>,
    pub at: tokio::time::Instant,
}

impl FakeRequest {
    /// The content of the last `user` message, or "" when there is none.
    /// The text of the last user message, without the header meshai puts before the first
    /// message of a conversation (`[Ann (ANN), Mon 14:05] `; see [`FakeRequest::last_user_raw`]).
    pub fn last_user(&self) -> &str {
        without_header(self.last_user_raw())
    }

    /// Whether this is a prefill: the daemon has the server read a prompt into its cache
    /// after a fold, and throws the one token it asks for away (`responder::PREFILL_TOKENS`).
    pub fn is_prefill(&self) -> bool {
        self.max_tokens == Some(u64::from(meshai::responder::PREFILL_TOKENS))
    }

    /// Whether this is a summary request (its last message asks for the notes).
    pub fn is_summary(&self) -> bool {
        self.messages.last().is_some_and(|m| {
            m.role == "user" && meshai::memory::summary::is_summary_text(&m.content)
        })
    }

    /// The last user message as the model sees it, its header included.
    pub fn last_user_raw(&self) -> &str {
        self.messages
            .iter()
            .rev()
            .find(|m| m.role == "user")
            .map_or("", |m| m.content.as_str())
    }

    /// Total characters over all message contents: a proxy for prompt size.
    pub fn prompt_chars(&self) -> usize {
        self.messages
            .iter()
            .map(|m| m.content.chars().count())
            .sum()
    }

    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    fn is_chat(&self) -> bool {
        self.path_only().ends_with("/chat/completions")
    }

    fn path_only(&self) -> &str {
        self.path.split('?').next().unwrap_or_default()
    }
}

/// What the server answers to a chat completion.
#[derive(Debug, Clone, PartialEq)]
pub enum FakeResponse {
    /// 200 with this assistant text; usage estimated from the sizes.
    Text(String),
    /// 200 with this text and (prompt_tokens, completion_tokens).
    TextWithUsage(String, u32, u32),
    /// This status with this body (e.g. an OpenAI-style error JSON).
    Status(u16, String),
    /// 200 with this body: non-JSON or the wrong shape.
    Garbage(String),
    /// Waits this long, then answers 200 with the echo text.
    Stall(Duration),
    /// Waits this long, then answers 200 with this text.
    Slow(Duration, String),
    /// Never answers; the connection stays open until the client gives up.
    Hang,
    /// 200 `text/event-stream`: one `delta.content` event per token, `every` apart, then the
    /// finish reason, a usage event and `data: [DONE]`.
    Stream(FakeStream),
}

/// A streamed answer and how it misbehaves.
#[derive(Debug, Clone, PartialEq)]
pub struct FakeStream {
    pub tokens: Vec<String>,
    pub every: Duration,
    pub end: StreamEnd,
}

/// How a [`FakeStream`] ends.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum StreamEnd {
    /// `finish_reason: "stop"`, usage, `[DONE]`.
    Done,
    /// After this many tokens, keeps the connection open and sends nothing more.
    StallAfter(usize),
    /// After this many tokens, closes the connection (no finish reason, no `[DONE]`).
    BreakAfter(usize),
    /// After this many tokens, sends a malformed event.
    GarbageAfter(usize),
}

impl FakeStream {
    /// `text` split into words (each with its following space), one every `every`.
    pub fn words(text: &str, every: Duration) -> FakeStream {
        FakeStream {
            tokens: text.split_inclusive(' ').map(str::to_string).collect(),
            every,
            end: StreamEnd::Done,
        }
    }

    pub fn ending(self, end: StreamEnd) -> FakeStream {
        FakeStream { end, ..self }
    }
}

/// What one stream sent, and whether the client hung up before it was done.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StreamLog {
    /// Tokens written to the connection.
    pub sent: usize,
    pub total: usize,
    /// A write failed: the client closed the connection (dropped the stream).
    pub client_closed: bool,
    /// When the first and the last token were written.
    pub first_at: Option<tokio::time::Instant>,
    pub last_at: Option<tokio::time::Instant>,
}

/// The behaviour closure: decides the answer to each chat completion request.
pub type Behaviour = Arc<dyn Fn(&FakeRequest) -> FakeResponse + Send + Sync>;

/// The default answer text: deterministic, derived from the last user message; a summary
/// request gets a short note of its own (the request's words would be refused as an echo).
pub fn echo_text(req: &FakeRequest) -> String {
    if req.is_summary() {
        return format!(
            "echo: notes on {} messages",
            req.messages.len().saturating_sub(2)
        );
    }
    format!("echo: {}", req.last_user())
}

/// The default behaviour: [`echo_text`].
pub fn echo(req: &FakeRequest) -> FakeResponse {
    FakeResponse::Text(echo_text(req))
}

/// How `POST …/embeddings` makes the vector of one input.
type Embedding = Arc<dyn Fn(&str) -> Vec<f32> + Send + Sync>;

struct Shared {
    behaviour: Mutex<Behaviour>,
    /// `None`: `POST …/embeddings` is answered 501.
    embeddings: Mutex<Option<Embedding>>,
    /// An input longer than this (characters) fails its whole request with 500, as
    /// llama.cpp's server refuses one longer than its batch.
    embedding_limit: Mutex<Option<usize>>,
    /// What `GET /props` says, as llama.cpp's server would: `Some(slots)`; `None`: 404.
    props_slots: Mutex<Option<u32>>,
    /// The models listed, with their size in bytes.
    models: Mutex<Vec<(String, u64)>>,
    /// `GET /api/tags` is answered 404, as by llama.cpp's server (not Ollama).
    no_ollama_api: std::sync::atomic::AtomicBool,
    requests: Mutex<Vec<FakeRequest>>,
    streams: Mutex<Vec<StreamLog>>,
    /// The modelled prompt cache, when a test asked for one.
    slots: Mutex<Option<Arc<Slots>>>,
    /// Bumped after each recorded request, so waiters need no polling.
    changed: watch::Sender<u64>,
    /// Notified when the `FakeLlm` is dropped: ends the listener and every connection.
    stop: Notify,
    stopped: std::sync::atomic::AtomicBool,
}

impl Shared {
    fn requests(&self) -> MutexGuard<'_, Vec<FakeRequest>> {
        self.requests.lock().unwrap_or_else(|e| e.into_inner())
    }

    async fn stopped(&self) {
        let notified = self.stop.notified();
        if self.stopped.load(std::sync::atomic::Ordering::SeqCst) {
            return;
        }
        notified.await;
    }
}

/// The fake server. Dropping it stops it.
pub struct FakeLlm {
    addr: SocketAddr,
    shared: Arc<Shared>,
}

impl FakeLlm {
    /// Starts with the [`echo`] behaviour.
    pub async fn start_echo() -> FakeLlm {
        FakeLlm::start(echo).await
    }

    /// Starts on 127.0.0.1, port chosen by the OS, with `behaviour`.
    pub async fn start(
        behaviour: impl Fn(&FakeRequest) -> FakeResponse + Send + Sync + 'static,
    ) -> FakeLlm {
        let listener = TcpListener::bind("127.0.0.1:0")
            .await
            .expect("fake llm: bind 127.0.0.1:0");
        let addr = listener.local_addr().expect("fake llm: local address");
        let shared = Arc::new(Shared {
            behaviour: Mutex::new(Arc::new(behaviour)),
            embeddings: Mutex::new(None),
            embedding_limit: Mutex::new(None),
            props_slots: Mutex::new(None),
            no_ollama_api: std::sync::atomic::AtomicBool::new(false),
            models: Mutex::new(vec![(MODEL.to_string(), 1_000_000)]),
            requests: Mutex::new(Vec::new()),
            streams: Mutex::new(Vec::new()),
            slots: Mutex::new(None),
            changed: watch::Sender::new(0),
            stop: Notify::new(),
            stopped: std::sync::atomic::AtomicBool::new(false),
        });
        tokio::spawn(accept_loop(shared.clone(), listener));
        FakeLlm { addr, shared }
    }

    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The base URL to configure: `http://127.0.0.1:PORT/v1`.
    pub fn base_url(&self) -> String {
        format!("http://{}/v1", self.addr)
    }

    /// Makes `GET /props` answer like llama.cpp's server with `slots` slots (`None`: 404, as
    /// Ollama and OpenAI answer).
    pub fn set_props_slots(&self, slots: Option<u32>) {
        *self
            .shared
            .props_slots
            .lock()
            .unwrap_or_else(|e| e.into_inner()) = slots;
    }

    /// From now on, answers chat completions as a server with a prompt cache per slot would,
    /// at `timing`'s pace (see `cache`): one at a time per slot, each after evaluating what
    /// its slot's cache lacks and generating its answer token by token. A JSON answer only
    /// (a stream or a delayed answer is sent as before, unmodelled).
    pub fn model_prompt_cache(&self, timing: SlotTiming) {
        let slots = timing.slots.max(1);
        *self.shared.slots.lock().unwrap_or_else(|e| e.into_inner()) = Some(Arc::new(Slots {
            timing,
            caches: (0..slots).map(|_| Mutex::new(Vec::new())).collect(),
            busy: (0..slots).map(|_| Arc::new(Semaphore::new(1))).collect(),
            uses: Mutex::new(Vec::new()),
            conversation: Mutex::new(Vec::new()),
        }));
    }

    /// What each chat request cost the modelled cache so far, in the order they started.
    pub fn cache_uses(&self) -> Vec<CacheUse> {
        let slots = self
            .shared
            .slots
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone();
        slots.map_or_else(Vec::new, |s| {
            s.uses.lock().unwrap_or_else(|e| e.into_inner()).clone()
        })
    }

    /// Serves `POST …/embeddings`, each input's vector made by `f` (`None`: answered 501).
    pub fn set_embeddings(&self, f: Option<Embedding>) {
        *self
            .shared
            .embeddings
            .lock()
            .unwrap_or_else(|e| e.into_inner()) = f;
    }

    /// Refuses (500) an embeddings request with an input over `chars` characters.
    pub fn set_embedding_limit(&self, chars: Option<usize>) {
        *self
            .shared
            .embedding_limit
            .lock()
            .unwrap_or_else(|e| e.into_inner()) = chars;
    }

    /// Every `POST …/embeddings` request so far.
    pub fn embedding_requests(&self) -> Vec<FakeRequest> {
        self.shared
            .requests()
            .iter()
            .filter(|r| r.path_only().ends_with("/embeddings"))
            .cloned()
            .collect()
    }

    /// Replaces the behaviour for the requests that follow.
    pub fn set_behaviour(&self, f: impl Fn(&FakeRequest) -> FakeResponse + Send + Sync + 'static) {
        *self
            .shared
            .behaviour
            .lock()
            .unwrap_or_else(|e| e.into_inner()) = Arc::new(f);
    }

    /// From now on answers `GET /api/tags` with 404, as llama.cpp's server and other
    /// OpenAI-compatible servers do: only `…/models` lists.
    pub fn without_ollama_api(&self) {
        self.shared
            .no_ollama_api
            .store(true, std::sync::atomic::Ordering::SeqCst);
    }

    /// Replaces the models listed by `/api/tags` and `/models`: (name, size in bytes).
    pub fn set_models(&self, models: &[(&str, u64)]) {
        *self.shared.models.lock().unwrap_or_else(|e| e.into_inner()) =
            models.iter().map(|(n, s)| (n.to_string(), *s)).collect();
    }

    /// Every chat completion request so far.
    pub fn requests(&self) -> Vec<FakeRequest> {
        self.shared
            .requests()
            .iter()
            .filter(|r| r.is_chat())
            .cloned()
            .collect()
    }

    /// What each stream sent so far, in the order the streams started.
    pub fn streams(&self) -> Vec<StreamLog> {
        self.shared
            .streams
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// Every request so far, whatever the route.
    pub fn all_requests(&self) -> Vec<FakeRequest> {
        self.shared.requests().clone()
    }

    /// Waits for at least `n` chat completion requests and returns them; panics after `timeout`.
    pub async fn wait_requests(&self, n: usize, timeout: Duration) -> Vec<FakeRequest> {
        let deadline = tokio::time::Instant::now() + timeout;
        let mut changed = self.shared.changed.subscribe();
        loop {
            let got = self.requests();
            if got.len() >= n {
                return got;
            }
            match tokio::time::timeout_at(deadline, changed.changed()).await {
                Ok(Ok(())) => {}
                Ok(Err(_)) | Err(_) => {
                    let got = self.requests();
                    assert!(
                        got.len() >= n,
                        "fake llm: {timeout:?} passed without {n} requests; got {got:#?}"
                    );
                    return got;
                }
            }
        }
    }
}

impl Drop for FakeLlm {
    fn drop(&mut self) {
        self.shared
            .stopped
            .store(true, std::sync::atomic::Ordering::SeqCst);
        self.shared.stop.notify_waiters();
    }
}

async fn accept_loop(shared: Arc<Shared>, listener: TcpListener) {
    loop {
        let accepted = tokio::select! {
            _ = shared.stopped() => return,
            a = listener.accept() => a,
        };
        match accepted {
            Ok((stream, _)) => {
                let shared = shared.clone();
                tokio::spawn(async move {
                    tokio::select! {
                        _ = shared.stopped() => {}
                        _ = serve(&shared, stream) => {}
                    }
                });
            }
            Err(_) => tokio::time::sleep(Duration::from_millis(10)).await,
        }
    }
}

/// A parsed request head.
struct Head {
    method: String,
    path: String,
    version: String,
    headers: Vec<(String, String)>,
}

impl Head {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    /// HTTP/1.1 keeps the connection unless told to close; HTTP/1.0 closes unless told to keep.
    fn keep_alive(&self) -> bool {
        let conn = self
            .header("connection")
            .unwrap_or_default()
            .to_ascii_lowercase();
        if self.version == "HTTP/1.0" {
            conn.contains("keep-alive")
        } else {
            !conn.contains("close")
        }
    }
}

/// The modelled slots and their caches (see `cache`).
struct Slots {
    timing: SlotTiming,
    /// Per slot: the tokens its cache holds.
    caches: Vec<Mutex<Vec<String>>>,
    /// Per slot: one request at a time.
    busy: Vec<Arc<Semaphore>>,
    uses: Mutex<Vec<CacheUse>>,
    /// The last reply's prompt and the answer generated to it: what a slot kept for the
    /// conversation alone would hold (a reply's `fresh` is measured against it).
    conversation: Mutex<Vec<String>>,
}

impl Slots {
    /// The slot for `req`: the one its `id_slot` names, else the one whose cache shares the
    /// longest prefix with `prompt` (the first of them on a tie).
    fn pick(&self, req: &FakeRequest, prompt: &[String]) -> usize {
        let named = req
            .json
            .as_ref()
            .and_then(|j| j.get("id_slot"))
            .and_then(Value::as_u64)
            .and_then(|n| usize::try_from(n).ok())
            .filter(|n| *n < self.caches.len());
        named.unwrap_or_else(|| {
            let shared = |i: usize| {
                let c = self.caches[i].lock().unwrap_or_else(|e| e.into_inner());
                cache::common_prefix(&c, prompt)
            };
            (0..self.caches.len())
                .rev()
                .max_by_key(|i| shared(*i))
                .unwrap_or(0)
        })
    }

    /// Runs `req` on its slot with `text` as its answer; false when the client left first.
    async fn run(&self, stream: &mut TcpStream, req: &FakeRequest, text: &str) -> bool {
        let prompt = cache::tokens(&cache::render(&req.messages));
        let slot = self.pick(req, &prompt);
        let _busy = tokio::select! {
            permit = self.busy[slot].clone().acquire_owned() => permit,
            () = client_gone(stream) => return false,
        };
        let evaluated = {
            let mut c = self.caches[slot].lock().unwrap_or_else(|e| e.into_inner());
            let evaluated = prompt.len() - cache::common_prefix(&c, &prompt);
            c.clone_from(&prompt);
            evaluated
        };
        let summary = req.is_summary();
        let prefill = req.is_prefill();
        let fresh = if summary || prefill {
            evaluated
        } else {
            let mut c = self.conversation.lock().unwrap_or_else(|e| e.into_inner());
            let fresh = prompt.len() - cache::common_prefix(&c, &prompt);
            c.clone_from(&prompt);
            fresh
        };
        let index = {
            let mut uses = self.uses.lock().unwrap_or_else(|e| e.into_inner());
            uses.push(CacheUse {
                slot,
                summary,
                prefill,
                prompt: prompt.len(),
                evaluated,
                fresh,
                generated: 0,
                cancelled: false,
            });
            uses.len() - 1
        };
        let note = |f: &dyn Fn(&mut CacheUse)| {
            let mut uses = self.uses.lock().unwrap_or_else(|e| e.into_inner());
            if let Some(u) = uses.get_mut(index) {
                f(u);
            }
        };
        // The prompt goes in one batch: the server looks for a closed connection only after.
        let batch = u32::try_from(evaluated).unwrap_or(u32::MAX);
        tokio::time::sleep(self.timing.prompt_token * batch).await;
        // At most `max_tokens` of the answer, as a server writes (a prefill's one).
        let most = req
            .max_tokens
            .and_then(|n| usize::try_from(n).ok())
            .unwrap_or(usize::MAX);
        for token in cache::answer_tokens(text).into_iter().take(most) {
            tokio::select! {
                () = tokio::time::sleep(self.timing.generated_token) => {}
                () = client_gone(stream) => {
                    note(&|u| u.cancelled = true);
                    return false;
                }
            }
            if !summary && !prefill {
                self.conversation
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .push(token.clone());
            }
            self.caches[slot]
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .push(token);
            note(&|u| u.generated += 1);
        }
        true
    }
}

/// Returns once the client has closed the connection (it sends nothing while it waits).
async fn client_gone(stream: &mut TcpStream) {
    let mut sink = [0u8; 256];
    while matches!(stream.read(&mut sink).await, Ok(n) if n > 0) {}
}

/// Why a request could not be read; each maps to a status and ends the connection.
enum ReadError {
    Closed,
    Bad(u16, &'static str),
}

/// Serves requests on one connection until it closes or asks to.
async fn serve(shared: &Shared, mut stream: TcpStream) {
    let mut buf: Vec<u8> = Vec::new();
    loop {
        let (head, body) = match read_request(&mut stream, &mut buf).await {
            Ok(r) => r,
            Err(ReadError::Closed) => return,
            Err(ReadError::Bad(status, why)) => {
                let body = error_json(why);
                let _ = stream.write_all(&response(status, &body, false)).await;
                return;
            }
        };
        let keep = head.keep_alive();
        let req = parse_request(head, &body);
        let answer = route(shared, &req);
        shared.requests().push(req.clone());
        shared.changed.send_modify(|n| *n = n.wrapping_add(1));
        let slots = shared
            .slots
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone();
        if let (Some(slots), Answer::Now(200, body)) = (slots, &answer)
            && req.is_chat()
        {
            let text = serde_json::from_str::<Value>(body)
                .ok()
                .and_then(|v| {
                    v["choices"][0]["message"]["content"]
                        .as_str()
                        .map(str::to_string)
                })
                .unwrap_or_default();
            if !slots.run(&mut stream, &req, &text).await {
                return;
            }
        }
        let bytes = match answer {
            Answer::Now(status, body) => response(status, &body, keep),
            Answer::After(d, status, body) => {
                tokio::time::sleep(d).await;
                response(status, &body, keep)
            }
            Answer::Never => {
                // Hold the connection open, reading (and discarding) until the client leaves.
                let mut sink = [0u8; 1024];
                while matches!(stream.read(&mut sink).await, Ok(n) if n > 0) {}
                return;
            }
            Answer::Events(plan) => {
                send_events(shared, &mut stream, &req, plan).await;
                return;
            }
        };
        if stream.write_all(&bytes).await.is_err() || !keep {
            return;
        }
    }
}

async fn read_request(
    stream: &mut TcpStream,
    buf: &mut Vec<u8>,
) -> Result<(Head, Vec<u8>), ReadError> {
    let head_end = loop {
        if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break i;
        }
        if buf.len() > MAX_HEAD {
            return Err(ReadError::Bad(431, "request head too large"));
        }
        read_more(stream, buf).await?;
    };
    let head_text = String::from_utf8_lossy(buf.get(..head_end).unwrap_or_default()).into_owned();
    let head = parse_head(&head_text).ok_or(ReadError::Bad(400, "malformed request head"))?;
    if head.header("transfer-encoding").is_some() {
        return Err(ReadError::Bad(
            411,
            "chunked bodies are not supported, send content-length",
        ));
    }
    let len = match head.header("content-length") {
        None => 0,
        Some(v) => v
            .trim()
            .parse::<usize>()
            .map_err(|_| ReadError::Bad(400, "bad content-length"))?,
    };
    if len > MAX_BODY {
        return Err(ReadError::Bad(413, "body too large"));
    }
    let body_start = head_end + 4;
    while buf.len() < body_start + len {
        read_more(stream, buf).await?;
    }
    let body = buf
        .get(body_start..body_start + len)
        .unwrap_or_default()
        .to_vec();
    buf.drain(..body_start + len);
    Ok((head, body))
}

async fn read_more(stream: &mut TcpStream, buf: &mut Vec<u8>) -> Result<(), ReadError> {
    let mut chunk = [0u8; 4096];
    match stream.read(&mut chunk).await {
        Ok(0) | Err(_) => Err(ReadError::Closed),
        Ok(n) => {
            buf.extend_from_slice(chunk.get(..n).unwrap_or_default());
            Ok(())
        }
    }
}

fn parse_head(text: &str) -> Option<Head> {
    let mut lines = text.split("\r\n");
    let mut first = lines.next()?.split_whitespace();
    let (method, path, version) = (first.next()?, first.next()?, first.next()?);
    if !version.starts_with("HTTP/1.") {
        return None;
    }
    let mut headers = Vec::new();
    for line in lines {
        let (k, v) = line.split_once(':')?;
        headers.push((k.trim().to_ascii_lowercase(), v.trim().to_string()));
    }
    Some(Head {
        method: method.to_string(),
        path: path.to_string(),
        version: version.to_string(),
        headers,
    })
}

fn content_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Array(parts) => parts
            .iter()
            .filter_map(|p| p.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join(""),
        _ => String::new(),
    }
}

fn parse_request(head: Head, body: &[u8]) -> FakeRequest {
    let json: Option<Value> = serde_json::from_slice(body).ok();
    let field = |k: &str| json.as_ref().and_then(|j| j.get(k));
    let messages = field("messages")
        .and_then(Value::as_array)
        .map(|ms| {
            ms.iter()
                .map(|m| FakeMessage {
                    role: m
                        .get("role")
                        .and_then(Value::as_str)
                        .unwrap_or_default()
                        .to_string(),
                    content: m.get("content").map(content_text).unwrap_or_default(),
                })
                .collect()
        })
        .unwrap_or_default();
    let authorization = head.header("authorization").map(str::to_string);
    FakeRequest {
        model: field("model").and_then(Value::as_str).map(str::to_string),
        max_tokens: field("max_tokens")
            .or_else(|| field("max_completion_tokens"))
            .and_then(Value::as_u64),
        temperature: field("temperature").and_then(Value::as_f64),
        messages,
        body: String::from_utf8_lossy(body).into_owned(),
        json,
        authorization,
        method: head.method,
        path: head.path,
        headers: head.headers,
        at: tokio::time::Instant::now(),
    }
}

/// When and what to answer.
enum Answer {
    Now(u16, String),
    After(Duration, u16, String),
    Never,
    Events(FakeStream),
}

/// Writes a server-sent-event answer (the connection closes after it).
async fn send_events(shared: &Shared, stream: &mut TcpStream, req: &FakeRequest, plan: FakeStream) {
    let index = {
        let mut logs = shared.streams.lock().unwrap_or_else(|e| e.into_inner());
        logs.push(StreamLog {
            sent: 0,
            total: plan.tokens.len(),
            client_closed: false,
            first_at: None,
            last_at: None,
        });
        logs.len() - 1
    };
    let log = |f: &dyn Fn(&mut StreamLog)| {
        let mut logs = shared.streams.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(l) = logs.get_mut(index) {
            f(l);
        }
    };
    let head = "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncache-control: no-cache\r\n\
                connection: close\r\n\r\n";
    if stream.write_all(head.as_bytes()).await.is_err() {
        return;
    }
    let model = req.model.as_deref().unwrap_or(MODEL);
    let chunk = |delta: Value, finish: Value| {
        let event = json!({
            "id": "chatcmpl-fake",
            "object": "chat.completion.chunk",
            "model": model,
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
        });
        format!("data: {event}\n\n")
    };
    let first = chunk(json!({"role": "assistant", "content": null}), Value::Null);
    if stream.write_all(first.as_bytes()).await.is_err() {
        return;
    }
    let stop_at = match plan.end {
        StreamEnd::Done => usize::MAX,
        StreamEnd::StallAfter(n) | StreamEnd::BreakAfter(n) | StreamEnd::GarbageAfter(n) => n,
    };
    for (i, token) in plan.tokens.iter().enumerate() {
        if i >= stop_at {
            break;
        }
        tokio::time::sleep(plan.every).await;
        let event = chunk(json!({"content": token}), Value::Null);
        if stream.write_all(event.as_bytes()).await.is_err() || stream.flush().await.is_err() {
            log(&|l| l.client_closed = true);
            return;
        }
        let now = tokio::time::Instant::now();
        log(&|l| {
            l.sent += 1;
            l.first_at.get_or_insert(now);
            l.last_at = Some(now);
        });
    }
    match plan.end {
        StreamEnd::Done => {
            let text: String = plan.tokens.concat();
            let (p, c) = estimate_usage(req, &text);
            let usage = json!({
                "choices": [],
                "usage": {"prompt_tokens": p, "completion_tokens": c, "total_tokens": p + c},
            });
            let tail = format!(
                "{}data: {usage}\n\ndata: [DONE]\n\n",
                chunk(json!({}), json!("stop"))
            );
            let _ = stream.write_all(tail.as_bytes()).await;
        }
        StreamEnd::StallAfter(_) => {
            let mut sink = [0u8; 1024];
            while matches!(stream.read(&mut sink).await, Ok(n) if n > 0) {}
            log(&|l| l.client_closed = true);
        }
        StreamEnd::BreakAfter(_) => {}
        StreamEnd::GarbageAfter(_) => {
            let _ = stream.write_all(b"data: {\"choices\": nope\n\n").await;
            let mut sink = [0u8; 1024];
            while matches!(stream.read(&mut sink).await, Ok(n) if n > 0) {}
        }
    }
    let _ = stream.shutdown().await;
}

fn route(shared: &Shared, req: &FakeRequest) -> Answer {
    let path = req.path_only();
    if path == "/api/tags"
        && shared
            .no_ollama_api
            .load(std::sync::atomic::Ordering::SeqCst)
    {
        return Answer::Now(404, error_json("File Not Found"));
    }
    if path.ends_with("/models") || path == "/api/tags" {
        if req.method != "GET" {
            return Answer::Now(405, error_json("method not allowed"));
        }
        let models = shared
            .models
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone();
        let list = if path == "/api/tags" {
            let models: Vec<Value> = models
                .iter()
                .map(|(name, size)| {
                    let family = if name.contains("embed") {
                        "nomic-bert"
                    } else {
                        "qwen2"
                    };
                    json!({"name": name, "model": name, "size": size,
                           "details": {"family": family, "families": [family]}})
                })
                .collect();
            json!({ "models": models })
        } else {
            let data: Vec<Value> = models
                .iter()
                .map(|(id, _)| json!({"id": id, "object": "model", "created": 0, "owned_by": "fake"}))
                .collect();
            json!({"object": "list", "data": data})
        };
        return Answer::Now(200, list.to_string());
    }
    if path == "/props" && req.method == "GET" {
        let slots = *shared.props_slots.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(n) = slots {
            let props = json!({"total_slots": n, "model_path": "fake.gguf"});
            return Answer::Now(200, props.to_string());
        }
    }
    if path.ends_with("/embeddings") && req.method == "POST" {
        return embeddings(shared, req);
    }
    if !req.is_chat() {
        return Answer::Now(404, error_json("no such route"));
    }
    if req.method != "POST" {
        return Answer::Now(405, error_json("method not allowed"));
    }
    if req.json.is_none() {
        return Answer::Now(400, error_json("body is not JSON"));
    }
    let behaviour = shared
        .behaviour
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .clone();
    match behaviour(req) {
        FakeResponse::Text(text) => {
            let (p, c) = estimate_usage(req, &text);
            Answer::Now(200, completion(req, &text, p, c))
        }
        FakeResponse::TextWithUsage(text, p, c) => Answer::Now(200, completion(req, &text, p, c)),
        FakeResponse::Status(status, body) => Answer::Now(status, body),
        FakeResponse::Garbage(body) => Answer::Now(200, body),
        FakeResponse::Stall(d) => {
            let text = echo_text(req);
            let (p, c) = estimate_usage(req, &text);
            Answer::After(d, 200, completion(req, &text, p, c))
        }
        FakeResponse::Slow(d, text) => {
            let (p, c) = estimate_usage(req, &text);
            Answer::After(d, 200, completion(req, &text, p, c))
        }
        FakeResponse::Hang => Answer::Never,
        FakeResponse::Stream(plan) => Answer::Events(plan),
    }
}

/// `POST …/embeddings`: `input` a string or a list of them, answered in OpenAI's shape.
fn embeddings(shared: &Shared, req: &FakeRequest) -> Answer {
    let embed = shared
        .embeddings
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .clone();
    let Some(embed) = embed else {
        return Answer::Now(
            501,
            error_json("This server does not support embeddings. Start it with `--embeddings`"),
        );
    };
    let inputs: Vec<String> = match req.json.as_ref().and_then(|j| j.get("input")) {
        Some(Value::String(one)) => vec![one.clone()],
        Some(Value::Array(many)) => many
            .iter()
            .map(|v| v.as_str().unwrap_or_default().to_string())
            .collect(),
        _ => return Answer::Now(400, error_json("no input")),
    };
    let limit = *shared
        .embedding_limit
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    if let Some(long) = inputs
        .iter()
        .find(|i| limit.is_some_and(|l| i.chars().count() > l))
    {
        let why = format!(
            "input ({} chars) is too large to process",
            long.chars().count()
        );
        return Answer::Now(500, error_json(&why));
    }
    let data: Vec<Value> = inputs
        .iter()
        .enumerate()
        .map(|(i, text)| json!({"object": "embedding", "index": i, "embedding": embed(text)}))
        .collect();
    let body = json!({"object": "list", "model": req.model.as_deref().unwrap_or(MODEL),
                      "data": data, "usage": {"prompt_tokens": 0, "total_tokens": 0}});
    Answer::Now(200, body.to_string())
}

/// About four characters per token, as a rough and deterministic stand-in.
fn estimate_usage(req: &FakeRequest, text: &str) -> (u32, u32) {
    let tokens = |chars: usize| u32::try_from(chars.div_ceil(4)).unwrap_or(u32::MAX);
    (tokens(req.prompt_chars()), tokens(text.chars().count()))
}

fn completion(req: &FakeRequest, text: &str, prompt: u32, completion: u32) -> String {
    json!({
        "id": "chatcmpl-fake",
        "object": "chat.completion",
        "created": 0,
        "model": req.model.as_deref().unwrap_or(MODEL),
        "choices": [{
            "index": 0,
            "message": {"role": "assistant", "content": text},
            "finish_reason": "stop",
        }],
        "usage": {
            "prompt_tokens": prompt,
            "completion_tokens": completion,
            "total_tokens": prompt.saturating_add(completion),
        },
    })
    .to_string()
}

fn error_json(message: &str) -> String {
    json!({"error": {"message": message, "type": "fake_error"}}).to_string()
}

fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        400 => "Bad Request",
        401 => "Unauthorized",
        403 => "Forbidden",
        404 => "Not Found",
        405 => "Method Not Allowed",
        411 => "Length Required",
        413 => "Payload Too Large",
        429 => "Too Many Requests",
        431 => "Request Header Fields Too Large",
        500 => "Internal Server Error",
        502 => "Bad Gateway",
        503 => "Service Unavailable",
        504 => "Gateway Timeout",
        _ => "Unknown",
    }
}

fn response(status: u16, body: &str, keep_alive: bool) -> Vec<u8> {
    let conn = if keep_alive { "keep-alive" } else { "close" };
    format!(
        "HTTP/1.1 {status} {}\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: {conn}\r\n\r\n{body}",
        reason(status),
        body.len()
    )
    .into_bytes()
}

/// `content` without a leading `[…] ` header.
pub fn without_header(content: &str) -> &str {
    content
        .strip_prefix('[')
        .and_then(|rest| rest.split_once("] "))
        .map_or(content, |(_, text)| text)
}
