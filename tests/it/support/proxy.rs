//! A recording HTTP proxy on 127.0.0.1 for the real-model tier: forwards each request to the
//! real server and keeps each request body with its response body, so tests and benches see
//! every prompt and, for llama-server, its `timings`.

use std::sync::{Arc, Mutex};

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// One request through the proxy.
#[derive(Debug, Clone, Default)]
pub struct Exchange {
    /// The request body (the chat-completions JSON).
    pub request: String,
    /// The response body (for a streamed answer, the events as sent, chunked framing
    /// included); empty until the response is through.
    pub response: String,
    /// When the request arrived at the proxy.
    pub at: Option<tokio::time::Instant>,
}

impl Exchange {
    /// A summary request: its last message is the summary request (a reply prompt may quote
    /// the request's words in a summary a small model wrote).
    /// A prefill after a fold: it asks for `responder::PREFILL_TOKENS`.
    pub fn is_prefill(&self) -> bool {
        serde_json::from_str::<serde_json::Value>(&self.request).is_ok_and(|v| {
            v["max_tokens"].as_u64() == Some(u64::from(meshai::responder::PREFILL_TOKENS))
        })
    }

    pub fn is_summary(&self) -> bool {
        serde_json::from_str::<serde_json::Value>(&self.request).is_ok_and(|v| {
            v["messages"]
                .as_array()
                .and_then(|m| m.last())
                .and_then(|m| m["content"].as_str())
                .is_some_and(meshai::memory::summary::is_summary_text)
        })
    }
}

/// The exchanges so far, in the order the requests arrived.
pub type Recorded = Arc<Mutex<Vec<Exchange>>>;

/// Forwards each HTTP request to `upstream` (one request per connection) and keeps the bodies.
pub async fn recording_proxy(upstream: String) -> (String, Recorded) {
    rewriting_proxy(upstream, |body| body.to_vec()).await
}

/// Like [`recording_proxy`], but each request body is replaced by `rewrite(body)` before it
/// is forwarded (and recorded): a benchmark subject that changes what the server sees.
pub async fn rewriting_proxy(
    upstream: String,
    rewrite: fn(&[u8]) -> Vec<u8>,
) -> (String, Recorded) {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind proxy");
    let addr = listener.local_addr().expect("addr");
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = seen.clone();
    tokio::spawn(async move {
        while let Ok((client, _)) = listener.accept().await {
            let upstream = upstream.clone();
            let log = log.clone();
            tokio::spawn(async move {
                let _ = forward(client, &upstream, &log, rewrite).await;
            });
        }
    });
    (format!("http://{addr}/v1"), seen)
}

async fn forward(
    mut client: TcpStream,
    upstream: &str,
    log: &Mutex<Vec<Exchange>>,
    rewrite: fn(&[u8]) -> Vec<u8>,
) -> std::io::Result<()> {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 8192];
    let (head_end, length) = loop {
        let n = client.read(&mut chunk).await?;
        if n == 0 {
            return Ok(());
        }
        buf.extend_from_slice(&chunk[..n]);
        if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            let head = String::from_utf8_lossy(&buf[..i]).to_lowercase();
            let length = head
                .lines()
                .find_map(|l| l.strip_prefix("content-length:"))
                .and_then(|v| v.trim().parse::<usize>().ok())
                .unwrap_or(0);
            break (i + 4, length);
        }
    };
    while buf.len() < head_end + length {
        let n = client.read(&mut chunk).await?;
        if n == 0 {
            break;
        }
        buf.extend_from_slice(&chunk[..n]);
    }
    let head = String::from_utf8_lossy(&buf[..head_end]).to_string();
    let body = rewrite(&buf[head_end..]);
    let index = log.lock().ok().map(|mut l| {
        l.push(Exchange {
            request: String::from_utf8_lossy(&body).to_string(),
            response: String::new(),
            at: Some(tokio::time::Instant::now()),
        });
        l.len() - 1
    });
    // One request per upstream connection: ask the server to close when done.
    let head: String = head
        .split("\r\n")
        .filter(|l| !l.to_lowercase().starts_with("connection:"))
        .filter(|l| !l.to_lowercase().starts_with("content-length:"))
        .filter(|l| !l.is_empty())
        .map(|l| format!("{l}\r\n"))
        .collect::<String>()
        + &format!(
            "Content-Length: {}\r\nConnection: close\r\n\r\n",
            body.len()
        );
    let host = upstream
        .trim_start_matches("http://")
        .split('/')
        .next()
        .unwrap_or_default();
    let mut up = TcpStream::connect(host).await?;
    up.write_all(head.as_bytes()).await?;
    up.write_all(&body).await?;
    // The response is passed on as it arrives (a streamed answer must not be held back) and
    // kept whole for the log.
    let mut response = Vec::new();
    let mut buf = [0u8; 8192];
    let mut probe = [0u8; 1];
    loop {
        tokio::select! {
            read = up.read(&mut buf) => {
                let n = read?;
                if n == 0 {
                    break;
                }
                response.extend_from_slice(&buf[..n]);
                if client.write_all(&buf[..n]).await.is_err() {
                    break;
                }
            }
            // The client hung up (the daemon cancelled the call, e.g. a summary that yields
            // to a reply, or a streamed reply whose budget is full): hang up upstream too, as
            // a direct connection would, so the server stops.
            _ = client.read(&mut probe) => break,
        }
    }
    if let (Some(i), Some(at)) = (index, response.windows(4).position(|w| w == b"\r\n\r\n")) {
        if let Some(e) = log.lock().ok().as_mut().and_then(|l| l.get_mut(i)) {
            e.response = String::from_utf8_lossy(&response[at + 4..]).to_string();
        }
    }
    let _ = client.shutdown().await;
    Ok(())
}

/// The request as the daemon sent it, plus llama-server's `timings_per_token`: then every
/// streamed event carries `timings`, so a streamed answer the daemon cuts at the reply budget
/// (it never gets the last event) still says how many prompt tokens were evaluated. The
/// daemon itself never sends this field.
pub fn with_timings(body: &[u8]) -> Vec<u8> {
    let Ok(mut v) = serde_json::from_slice::<serde_json::Value>(body) else {
        return body.to_vec();
    };
    if let Some(o) = v.as_object_mut() {
        o.insert("timings_per_token".into(), serde_json::Value::Bool(true));
    }
    serde_json::to_vec(&v).unwrap_or_else(|_| body.to_vec())
}

/// (prompt_tokens, timings.prompt_n) of a response body: one JSON completion, or a stream of
/// server-sent events whose last ones carry `usage` and llama-server's `timings` (every one
/// carries `timings` with `timings_per_token`, see [`with_timings`]: a stream cut at the budget has
/// no `usage`, and its prompt is `prompt_n` + `cache_n`).
pub fn prompt_usage(response: &str) -> (u64, u64) {
    let mut found = (0, 0);
    let mut read = |v: &serde_json::Value| {
        let t = &v["timings"];
        if let (Some(n), Some(cached)) = (t["prompt_n"].as_u64(), t["cache_n"].as_u64()) {
            found.0 = found.0.max(n + cached);
        }
        if let Some(n) = v["usage"]["prompt_tokens"].as_u64() {
            found.0 = n;
        }
        if let Some(n) = t["prompt_n"].as_u64() {
            found.1 = n;
        }
    };
    match serde_json::from_str::<serde_json::Value>(response) {
        Ok(v) => read(&v),
        Err(_) => response
            .lines()
            .filter_map(|l| l.strip_prefix("data:"))
            .filter_map(|d| serde_json::from_str::<serde_json::Value>(d.trim()).ok())
            .for_each(|v| read(&v)),
    }
    found
}
