//! The fake OpenAI server, seen from `reqwest` (as the daemon will use it) and a raw socket.

use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::time::Instant;

use crate::support::fake_llm::{FakeLlm, FakeResponse, MODEL};

fn client(timeout: Duration) -> reqwest::Client {
    // reqwest is built without a default TLS provider; the daemon installs ring the same way.
    let _ = rustls::crypto::ring::default_provider().install_default();
    reqwest::Client::builder().timeout(timeout).build().unwrap()
}

fn chat_body(user: &str) -> Value {
    json!({
        "model": "test-model",
        "messages": [
            {"role": "system", "content": "You are terse."},
            {"role": "user", "content": "earlier"},
            {"role": "assistant", "content": "ok"},
            {"role": "user", "content": user},
        ],
        "max_tokens": 120,
        "temperature": 0.4,
        "stream": false,
    })
}

async fn post(llm: &FakeLlm, timeout: Duration, user: &str) -> reqwest::Result<reqwest::Response> {
    client(timeout)
        .post(format!("{}/chat/completions", llm.base_url()))
        .bearer_auth("sk-test-123")
        .json(&chat_body(user))
        .send()
        .await
}

#[tokio::test]
async fn a_chat_completion_is_answered_in_the_openai_shape_and_recorded() {
    let llm = FakeLlm::start_echo().await;
    let resp = post(&llm, Duration::from_secs(5), "what is lora?")
        .await
        .unwrap();
    assert_eq!(resp.status(), 200);
    let body: Value = resp.json().await.unwrap();
    assert_eq!(body["object"], "chat.completion");
    assert_eq!(body["choices"][0]["message"]["role"], "assistant");
    assert_eq!(
        body["choices"][0]["message"]["content"],
        "echo: what is lora?"
    );
    assert_eq!(body["choices"][0]["finish_reason"], "stop");
    let usage = &body["usage"];
    assert_eq!(
        usage["total_tokens"].as_u64(),
        Some(
            usage["prompt_tokens"].as_u64().unwrap() + usage["completion_tokens"].as_u64().unwrap()
        )
    );

    let reqs = llm.wait_requests(1, Duration::from_secs(1)).await;
    let r = &reqs[0];
    assert_eq!(r.method, "POST");
    assert_eq!(r.path, "/v1/chat/completions");
    assert_eq!(r.authorization.as_deref(), Some("Bearer sk-test-123"));
    assert_eq!(r.model.as_deref(), Some("test-model"));
    assert_eq!((r.max_tokens, r.temperature), (Some(120), Some(0.4)));
    let roles: Vec<&str> = r.messages.iter().map(|m| m.role.as_str()).collect();
    assert_eq!(roles, ["system", "user", "assistant", "user"]);
    assert_eq!(r.last_user(), "what is lora?");
}

#[tokio::test]
async fn models_lists_one_model_and_behaviour_can_change_at_runtime() {
    let llm = FakeLlm::start(|_| FakeResponse::TextWithUsage("fixed".into(), 7, 3)).await;
    let models: Value = client(Duration::from_secs(5))
        .get(format!("{}/models", llm.base_url()))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(models["data"][0]["id"], MODEL);

    let body: Value = post(&llm, Duration::from_secs(5), "x")
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(body["choices"][0]["message"]["content"], "fixed");
    assert_eq!(body["usage"]["prompt_tokens"], 7);
    assert_eq!(body["usage"]["total_tokens"], 10);

    llm.set_behaviour(|r| FakeResponse::Text(format!("{} messages", r.messages.len())));
    let body: Value = post(&llm, Duration::from_secs(5), "y")
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(body["choices"][0]["message"]["content"], "4 messages");
    // The model listing is recorded but is not a chat request.
    assert_eq!((llm.requests().len(), llm.all_requests().len()), (2, 3));
}

#[tokio::test]
async fn status_and_garbage_answers_reach_the_client() {
    let llm = FakeLlm::start(|r| match r.last_user() {
        "busy" => FakeResponse::Status(429, r#"{"error":{"message":"slow down"}}"#.into()),
        "down" => FakeResponse::Status(503, "upstream down".into()),
        "junk" => FakeResponse::Garbage("<html>not json</html>".into()),
        _ => FakeResponse::Garbage(r#"{"choices":[]}"#.into()),
    })
    .await;
    let t = Duration::from_secs(5);
    let r = post(&llm, t, "busy").await.unwrap();
    assert_eq!(r.status(), 429);
    assert!(r.text().await.unwrap().contains("slow down"));
    assert_eq!(post(&llm, t, "down").await.unwrap().status(), 503);
    let r = post(&llm, t, "junk").await.unwrap();
    assert_eq!(r.status(), 200);
    assert!(r.json::<Value>().await.is_err());
    let r = post(&llm, t, "shape").await.unwrap();
    let body: Value = r.json().await.unwrap();
    assert!(body["choices"][0]["message"]["content"].is_null());
    assert_eq!(llm.requests().len(), 4);
}

#[tokio::test(start_paused = true)]
async fn a_stall_answers_late_and_a_hang_never() {
    let llm = FakeLlm::start(|r| match r.last_user() {
        "stall" => FakeResponse::Stall(Duration::from_secs(20)),
        _ => FakeResponse::Hang,
    })
    .await;
    let started = Instant::now();
    let r = post(&llm, Duration::from_secs(60), "stall").await.unwrap();
    assert!(started.elapsed() >= Duration::from_secs(20));
    let body: Value = r.json().await.unwrap();
    assert_eq!(body["choices"][0]["message"]["content"], "echo: stall");

    let started = Instant::now();
    let err = post(&llm, Duration::from_secs(30), "hang")
        .await
        .unwrap_err();
    assert!(err.is_timeout(), "{err}");
    assert!(started.elapsed() >= Duration::from_secs(30));
    assert_eq!(llm.wait_requests(2, Duration::from_secs(1)).await.len(), 2);
}

/// Reads one response off a raw socket: (status, headers, body).
async fn read_response(s: &mut TcpStream, buf: &mut Vec<u8>) -> (u16, String, String) {
    loop {
        if let Some(end) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            let head = String::from_utf8_lossy(&buf[..end]).to_lowercase();
            let len: usize = head
                .lines()
                .find_map(|l| l.strip_prefix("content-length:"))
                .map_or(0, |v| v.trim().parse().unwrap());
            if buf.len() >= end + 4 + len {
                let body = String::from_utf8_lossy(&buf[end + 4..end + 4 + len]).into_owned();
                let status = head[9..12].parse().unwrap();
                buf.drain(..end + 4 + len);
                return (status, head, body);
            }
        }
        let mut chunk = [0u8; 4096];
        let n = s.read(&mut chunk).await.unwrap();
        assert!(n > 0, "connection closed mid-response");
        buf.extend_from_slice(&chunk[..n]);
    }
}

#[tokio::test]
async fn keep_alive_serves_several_requests_and_connection_close_ends() {
    let llm = FakeLlm::start_echo().await;
    let mut s = TcpStream::connect(llm.addr()).await.unwrap();
    let mut buf = Vec::new();
    for (i, close) in [(1, false), (2, false), (3, true)] {
        let body = chat_body(&format!("n{i}")).to_string();
        let conn = if close { "connection: close\r\n" } else { "" };
        let req = format!(
            "POST /openai/v1/chat/completions HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\n{conn}content-length: {}\r\n\r\n{body}",
            body.len()
        );
        s.write_all(req.as_bytes()).await.unwrap();
        let (status, head, body) = read_response(&mut s, &mut buf).await;
        assert_eq!(status, 200);
        assert!(head.contains(if close {
            "connection: close"
        } else {
            "connection: keep-alive"
        }));
        assert!(body.contains(&format!("echo: n{i}")));
    }
    let mut rest = Vec::new();
    s.read_to_end(&mut rest).await.unwrap();
    assert!(rest.is_empty());

    let mut s = TcpStream::connect(llm.addr()).await.unwrap();
    s.write_all(b"GET /v1/nothing HTTP/1.1\r\n\r\nBROKEN\r\n\r\n")
        .await
        .unwrap();
    assert_eq!(read_response(&mut s, &mut buf).await.0, 404);
    assert_eq!(read_response(&mut s, &mut buf).await.0, 400);
    assert_eq!(llm.requests().len(), 3);
}
