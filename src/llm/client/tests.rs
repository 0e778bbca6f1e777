//! The client against a tiny HTTP/1.1 server on 127.0.0.1:0 that plays canned replies.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::time::Instant;

use super::LlmClient;
use crate::llm::{ChatMessage, ChatRole, Completion, LlmError, LlmSettings, Usage};
use crate::secret::Secret;

/// What the server does with the next request.
#[derive(Clone)]
enum Reply {
    Respond(u16, String),
    /// This status with a `retry-after: N` header.
    RetryAfter(u16, u64),
    /// Read the request, then never answer.
    Hang,
    /// 200 `text/event-stream` with this body, then the connection closes.
    Sse(String),
}

fn ok(content: &str) -> Reply {
    let body = serde_json::json!({
        "choices": [{"index": 0, "message": {"role": "assistant", "content": content}}],
        "usage": {"prompt_tokens": 21, "completion_tokens": 4, "total_tokens": 25},
    });
    Reply::Respond(200, body.to_string())
}

/// A request as the server saw it.
struct Seen {
    /// The request line and headers, lower-cased.
    head: String,
    body: serde_json::Value,
}

struct Server {
    base_url: String,
    seen: Arc<Mutex<Vec<Seen>>>,
}

impl Server {
    /// Serves `replies` in order, one connection each; the last one repeats.
    async fn start(replies: Vec<Reply>) -> Server {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base_url = format!("http://{}/v1", listener.local_addr().unwrap());
        let seen = Arc::new(Mutex::new(Vec::new()));
        let log = seen.clone();
        tokio::spawn(async move {
            let mut hung = Vec::new();
            for i in 0.. {
                let (mut stream, _) = listener.accept().await.unwrap();
                let reply = replies.get(i).or(replies.last()).unwrap().clone();
                let request = read_request(&mut stream).await;
                log.lock().unwrap().push(request);
                let (status, extra, body) = match reply {
                    Reply::Sse(body) => {
                        let head = "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n\
                                    connection: close\r\n\r\n";
                        stream.write_all(head.as_bytes()).await.unwrap();
                        stream.write_all(body.as_bytes()).await.unwrap();
                        stream.shutdown().await.unwrap();
                        continue;
                    }
                    Reply::Respond(status, body) => (status, String::new(), body),
                    Reply::RetryAfter(status, secs) => {
                        (status, format!("retry-after: {secs}\r\n"), "busy".into())
                    }
                    Reply::Hang => {
                        hung.push(stream);
                        continue;
                    }
                };
                let response = format!(
                    "HTTP/1.1 {status} X\r\ncontent-type: application/json\r\n{extra}\
                     content-length: {}\r\nconnection: close\r\n\r\n{body}",
                    body.len()
                );
                stream.write_all(response.as_bytes()).await.unwrap();
                stream.shutdown().await.unwrap();
            }
        });
        Server { base_url, seen }
    }

    fn requests(&self) -> usize {
        self.seen.lock().unwrap().len()
    }
}

async fn read_request(stream: &mut TcpStream) -> Seen {
    let mut data = Vec::new();
    let mut buf = [0u8; 4096];
    let split = loop {
        let n = stream.read(&mut buf).await.unwrap();
        assert!(n > 0, "client closed mid-request");
        data.extend_from_slice(&buf[..n]);
        if let Some(at) = data.windows(4).position(|w| w == b"\r\n\r\n") {
            break at + 4;
        }
    };
    let head = String::from_utf8_lossy(&data[..split]).to_lowercase();
    let length: usize = head
        .lines()
        .find_map(|l| l.strip_prefix("content-length:"))
        .map(|v| v.trim().parse().unwrap())
        .unwrap_or(0);
    while data.len() < split + length {
        let n = stream.read(&mut buf).await.unwrap();
        assert!(n > 0, "client closed mid-body");
        data.extend_from_slice(&buf[..n]);
    }
    let body = serde_json::from_slice(&data[split..split + length]).unwrap();
    Seen { head, body }
}

fn settings(base_url: &str) -> LlmSettings {
    LlmSettings {
        base_url: base_url.to_owned(),
        model: "tiny".to_owned(),
        api_key: None,
        timeout: Duration::from_secs(5),
        max_tokens: 100,
        temperature: 0.7,
        stream: true,
    }
}

/// A client with short waits between attempts, so retry tests run fast.
fn client(settings: LlmSettings) -> LlmClient {
    let mut client = LlmClient::new(settings).unwrap();
    client.backoff = [Duration::from_millis(10), Duration::from_millis(30)];
    client
}

/// One call with the test settings and short backoffs.
async fn ask(server: &Server) -> Result<Completion, LlmError> {
    client(settings(&server.base_url))
        .complete(&question(), 42)
        .await
}

fn question() -> Vec<ChatMessage> {
    vec![
        ChatMessage::new(ChatRole::System, "Be brief."),
        ChatMessage::new(ChatRole::User, "Hello?"),
    ]
}

#[tokio::test]
async fn success_with_usage_and_request_shape() {
    let server = Server::start(vec![ok("<think>hmm</think>**Hi** there!")]).await;
    let done = ask(&server).await.unwrap();
    assert_eq!(done.text, "Hi there!");
    assert_eq!(
        done.usage,
        Some(Usage {
            prompt_tokens: 21,
            completion_tokens: 4
        })
    );
    assert!(done.latency < Duration::from_secs(5));
    let seen = server.seen.lock().unwrap();
    assert_eq!(seen.len(), 1);
    assert!(
        seen[0]
            .head
            .starts_with("post /v1/chat/completions http/1.1")
    );
    assert_eq!(
        seen[0].body,
        serde_json::json!({
            "model": "tiny",
            "messages": [
                {"role": "system", "content": "Be brief."},
                {"role": "user", "content": "Hello?"},
            ],
            "max_tokens": 42,
            "temperature": 0.7,
            "stream": false,
        })
    );
}

#[tokio::test]
async fn server_error_then_success_is_retried() {
    let server = Server::start(vec![Reply::Respond(500, "oops".into()), ok("Hi")]).await;
    let done = ask(&server).await.unwrap();
    assert_eq!(done.text, "Hi");
    assert_eq!(server.requests(), 2);
}

#[tokio::test]
async fn rate_limit_is_retried_three_times() {
    let server = Server::start(vec![Reply::Respond(429, "slow down".into())]).await;
    let error = ask(&server).await.unwrap_err();
    assert_eq!(
        error,
        LlmError::Status {
            status: 429,
            body: "slow down".into(),
            retry_after: None,
        }
    );
    assert_eq!(server.requests(), 3);
}

#[tokio::test]
async fn retry_after_is_honoured_and_a_too_long_one_ends_the_call() {
    // 429 asking for 1 s (longer than the 0.5 s backoff), then an answer.
    let server = Server::start(vec![Reply::RetryAfter(429, 1), ok("Hi")]).await;
    let started = Instant::now();
    let answer = ask(&server).await.unwrap();
    assert_eq!(answer.text, "Hi");
    assert_eq!(server.requests(), 2);
    assert!(
        started.elapsed() >= Duration::from_secs(1),
        "waited as asked"
    );
    // Asking for more than the 5 s budget: no wait, the server's error at once.
    let server = Server::start(vec![Reply::RetryAfter(503, 30), ok("Hi")]).await;
    let error = ask(&server).await.unwrap_err();
    assert_eq!(
        error,
        LlmError::Status {
            status: 503,
            body: "busy".into(),
            retry_after: Some(Duration::from_secs(30)),
        }
    );
    assert_eq!(server.requests(), 1);
}

#[tokio::test]
async fn client_error_is_not_retried() {
    let long = "x".repeat(500);
    let server = Server::start(vec![Reply::Respond(400, long), ok("Hi")]).await;
    let error = ask(&server).await.unwrap_err();
    assert_eq!(
        error,
        LlmError::Status {
            status: 400,
            body: "x".repeat(200),
            retry_after: None,
        }
    );
    assert_eq!(server.requests(), 1);
}

#[tokio::test]
async fn garbage_body_is_a_bad_response() {
    let server = Server::start(vec![Reply::Respond(200, "<html>hi</html>".into())]).await;
    let error = ask(&server).await.unwrap_err();
    assert!(matches!(error, LlmError::BadResponse(_)), "{error:?}");
    assert_eq!(server.requests(), 1);
}

#[tokio::test]
async fn null_content_is_a_bad_response() {
    let body = r#"{"choices":[{"message":{"role":"assistant","content":null}}]}"#;
    let server = Server::start(vec![Reply::Respond(200, body.into())]).await;
    let error = ask(&server).await.unwrap_err();
    assert!(matches!(error, LlmError::BadResponse(_)), "{error:?}");
}

#[tokio::test]
async fn thinking_only_is_empty() {
    let server = Server::start(vec![ok("<think>out of tokens while thinking")]).await;
    let error = ask(&server).await.unwrap_err();
    assert_eq!(error, LlmError::Empty);
    assert_eq!(server.requests(), 1);
}

#[tokio::test]
async fn a_silent_server_times_out_within_the_budget() {
    let server = Server::start(vec![Reply::Hang]).await;
    let mut settings = settings(&server.base_url);
    settings.timeout = Duration::from_millis(300);
    let started = Instant::now();
    let error = client(settings)
        .complete(&question(), 42)
        .await
        .unwrap_err();
    let took = started.elapsed();
    assert_eq!(error, LlmError::Timeout);
    assert!(took >= Duration::from_millis(300), "{took:?}");
    assert!(took < Duration::from_secs(2), "{took:?}");
}

#[tokio::test]
async fn retries_stop_before_the_budget_runs_out() {
    // With the real waits (0.5 s, then 1.5 s) and a 1 s budget: the second wait does not
    // fit, so the call ends early with the server's error rather than a timeout.
    let server = Server::start(vec![Reply::Respond(503, "busy".into())]).await;
    let mut settings = settings(&server.base_url);
    settings.timeout = Duration::from_secs(1);
    let started = Instant::now();
    let error = LlmClient::new(settings)
        .unwrap()
        .complete(&question(), 42)
        .await
        .unwrap_err();
    let took = started.elapsed();
    assert!(
        matches!(error, LlmError::Status { status: 503, .. }),
        "{error:?}"
    );
    assert_eq!(server.requests(), 2);
    assert!(took >= Duration::from_millis(500), "{took:?}");
    assert!(took < Duration::from_secs(1), "{took:?}");
}

#[tokio::test]
async fn connection_refused_is_retried_then_reported() {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    drop(listener);
    let error = client(settings(&format!("http://{addr}/v1")))
        .complete(&question(), 42)
        .await
        .unwrap_err();
    assert!(matches!(error, LlmError::Connect(_)), "{error:?}");
}

#[tokio::test]
async fn bearer_header_only_with_a_key() {
    let server = Server::start(vec![ok("Hi")]).await;
    ask(&server).await.unwrap();
    let mut with_key = settings(&server.base_url);
    with_key.api_key = Some(Secret::new("sk-test-123"));
    let keyed = client(with_key);
    assert!(!format!("{keyed:?}").contains("sk-test-123"));
    keyed.complete(&question(), 42).await.unwrap();
    let seen = server.seen.lock().unwrap();
    assert!(!seen[0].head.contains("authorization"), "{}", seen[0].head);
    assert!(
        seen[1]
            .head
            .contains("\r\nauthorization: bearer sk-test-123\r\n"),
        "{}",
        seen[1].head
    );
}

#[test]
fn client_setup() {
    let https = LlmClient::new(settings("https://api.example.invalid/v1/")).unwrap();
    assert_eq!(
        https.endpoint.as_str(),
        "https://api.example.invalid/v1/chat/completions"
    );
    let http = LlmClient::new(settings("http://127.0.0.1:11434/v1")).unwrap();
    assert_eq!(
        http.endpoint.as_str(),
        "http://127.0.0.1:11434/v1/chat/completions"
    );
    for bad in ["not a url", "ftp://example.org/v1", ""] {
        let error = LlmClient::new(settings(bad)).unwrap_err();
        assert!(matches!(error, LlmError::Setup(_)), "{bad}: {error:?}");
    }
}

/// An SSE body with one event per piece of content, then `tail`.
fn sse(pieces: &[&str], tail: &str) -> String {
    let mut body = String::new();
    for p in pieces {
        let event = serde_json::json!({"choices": [{"index": 0, "delta": {"content": p}}]});
        body.push_str(&format!("data: {event}\n\n"));
    }
    body + tail
}

const DONE: &str = "data: {\"choices\":[{\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n\
                    data: {\"choices\":[],\"usage\":{\"prompt_tokens\":9,\"completion_tokens\":3}}\n\n\
                    data: [DONE]\n\n";

/// Reads a whole stream: the pieces, or the error that ended it.
async fn read_stream(server: &Server) -> (Vec<String>, Result<Option<Usage>, LlmError>) {
    let c = client(settings(&server.base_url));
    let deadline = Instant::now() + Duration::from_secs(5);
    let mut stream = match c.stream(None, &question(), 42, deadline).await {
        Ok(stream) => stream,
        Err(e) => return (Vec::new(), Err(e)),
    };
    let mut pieces = Vec::new();
    loop {
        match stream.next().await {
            Ok(Some(p)) => pieces.push(p),
            Ok(None) => return (pieces, Ok(stream.usage())),
            Err(e) => return (pieces, Err(e)),
        }
    }
}

#[tokio::test]
async fn a_stream_is_read_piece_by_piece() {
    let server = Server::start(vec![Reply::Sse(sse(&["Hel", "lo", " there"], DONE))]).await;
    let (pieces, end) = read_stream(&server).await;
    assert_eq!(pieces, ["Hel", "lo", " there"]);
    let usage = Usage {
        prompt_tokens: 9,
        completion_tokens: 3,
    };
    assert_eq!(end, Ok(Some(usage)));
    let seen = server.seen.lock().unwrap();
    assert_eq!(seen[0].body["stream"], true);
    assert_eq!(seen[0].body["stream_options"]["include_usage"], true);
    assert_eq!(seen[0].body["max_tokens"], 42);
}

#[tokio::test]
async fn a_stream_ends_well_only_with_done_or_a_finish_reason() {
    let finish = "data: {\"choices\":[{\"delta\":{},\"finish_reason\":\"length\"}]}\n\n";
    let table: [(String, Result<(), &str>); 7] = [
        (sse(&["a"], finish), Ok(())),
        (sse(&["a"], "data: [DONE]\n\n"), Ok(())),
        // Nothing counts after [DONE], not even garbage.
        (sse(&["a"], "data: [DONE]\n\ndata: {not json}\n\n"), Ok(())),
        // A finish reason does not excuse a malformed event after it.
        (
            sse(&["a"], &format!("{finish}data: {{not json}}\n\n")),
            Err("bad"),
        ),
        // Broken off: no finish reason, no [DONE].
        (sse(&["a", "b"], ""), Err("connect")),
        (sse(&["a"], "data: {not json}\n\n"), Err("bad")),
        (
            sse(&["a"], "event: error\ndata: {\"message\":\"boom\"}\n\n"),
            Err("bad"),
        ),
    ];
    for (body, want) in table {
        let server = Server::start(vec![Reply::Sse(body.clone())]).await;
        let (pieces, end) = read_stream(&server).await;
        assert_eq!(pieces.first().map(String::as_str), Some("a"), "{body}");
        match (end, want) {
            (Ok(_), Ok(())) => {}
            (Err(LlmError::Connect(_)), Err("connect")) => {}
            (Err(LlmError::BadResponse(_)), Err("bad")) => {}
            (got, want) => panic!("{body}: {got:?}, want {want:?}"),
        }
    }
}

#[tokio::test]
async fn a_plain_json_answer_to_a_stream_request_is_one_piece() {
    let server = Server::start(vec![ok("<think>x</think>Whole answer")]).await;
    let (pieces, end) = read_stream(&server).await;
    assert_eq!(pieces, ["<think>x</think>Whole answer"]);
    assert!(matches!(end, Ok(Some(_))));
}

#[tokio::test]
async fn a_stream_is_retried_only_before_it_opens() {
    let server = Server::start(vec![
        Reply::Respond(503, "busy".into()),
        Reply::Sse(sse(&["ok"], DONE)),
    ])
    .await;
    let (pieces, end) = read_stream(&server).await;
    assert_eq!(pieces, ["ok"]);
    assert!(end.is_ok());
    assert_eq!(server.requests(), 2);
}

#[tokio::test(start_paused = true)]
async fn a_stalled_stream_times_out_at_the_deadline() {
    let server = Server::start(vec![Reply::Hang]).await;
    let c = client(settings(&server.base_url));
    let started = Instant::now();
    let error = c
        .stream(None, &question(), 42, started + Duration::from_secs(3))
        .await
        .unwrap_err();
    assert_eq!(error, LlmError::Timeout);
    assert!(started.elapsed() >= Duration::from_secs(3));
}
