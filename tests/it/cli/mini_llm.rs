//! A tiny OpenAI-compatible chat-completions server for the CLI tests: plain threads on
//! 127.0.0.1 port 0, so a test can block on a child process while it serves.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};

use serde_json::{Value, json};

/// What the mini LLM answers.
#[derive(Clone)]
pub enum Answer {
    /// A 200 chat completion with this content.
    Text(String),
    /// An error status with a small JSON body.
    Status(u16),
}

type Behaviour = Arc<dyn Fn(&Value) -> Answer + Send + Sync>;

/// A tiny chat-completions server: records every request body and answers with `behaviour`.
pub struct MiniLlm {
    /// The API root to put in `[llm] base_url`.
    pub url: String,
    requests: Arc<Mutex<Vec<Value>>>,
}

impl MiniLlm {
    pub fn start(behaviour: impl Fn(&Value) -> Answer + Send + Sync + 'static) -> MiniLlm {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}/v1", listener.local_addr().unwrap());
        let requests = Arc::new(Mutex::new(Vec::new()));
        let behaviour: Behaviour = Arc::new(behaviour);
        let recorded = requests.clone();
        // The thread ends with the test process; nothing waits for it.
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let (recorded, behaviour) = (recorded.clone(), behaviour.clone());
                std::thread::spawn(move || serve(stream, &recorded, &behaviour));
            }
        });
        MiniLlm { url, requests }
    }

    pub fn requests(&self) -> Vec<Value> {
        self.requests.lock().unwrap().clone()
    }
}

/// Answers requests on one keep-alive connection until the client closes it.
fn serve(stream: TcpStream, recorded: &Mutex<Vec<Value>>, behaviour: &Behaviour) {
    let mut writer = stream.try_clone().unwrap();
    let mut reader = BufReader::new(stream);
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 {
            return;
        }
        let mut length = 0;
        loop {
            let mut header = String::new();
            if reader.read_line(&mut header).unwrap_or(0) == 0 {
                return;
            }
            if header.trim().is_empty() {
                break;
            }
            if let Some((name, value)) = header.split_once(':')
                && name.eq_ignore_ascii_case("content-length")
            {
                length = value.trim().parse().unwrap();
            }
        }
        let mut body = vec![0; length];
        reader.read_exact(&mut body).unwrap();
        let request: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
        let answer = behaviour(&request);
        recorded.lock().unwrap().push(request);
        let (status, body) = match answer {
            Answer::Text(text) => (
                200,
                json!({
                    "choices": [{"index": 0, "message": {"role": "assistant", "content": text},
                                 "finish_reason": "stop"}],
                    "usage": {"prompt_tokens": 10, "completion_tokens": 5}
                })
                .to_string(),
            ),
            Answer::Status(status) => (status, json!({"error": "nope"}).to_string()),
        };
        let response = format!(
            "HTTP/1.1 {status} X\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n{body}",
            body.len()
        );
        if writer.write_all(response.as_bytes()).is_err() {
            return;
        }
    }
}

/// The text of the last user message of a request, without the header of a first message.
pub fn last_user(request: &Value) -> String {
    let content = request["messages"]
        .as_array()
        .and_then(|m| m.iter().rev().find(|m| m["role"] == "user"))
        .and_then(|m| m["content"].as_str())
        .unwrap_or_default();
    crate::support::fake_llm::without_header(content).to_string()
}

/// Whether any message of a request contains `text`.
pub fn mentions(request: &Value, text: &str) -> bool {
    request["messages"].as_array().is_some_and(|m| {
        m.iter()
            .any(|m| m["content"].as_str().unwrap_or_default().contains(text))
    })
}
