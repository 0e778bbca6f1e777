//! The JSON shapes of `POST /chat/completions`, and reading an answer out of a response body.

use serde::{Deserialize, Serialize};

use super::{ChatMessage, LlmError, Usage};

/// The request body; `stream` is always false: the reply is short and sent in one go.
/// `id_slot` and `cache_prompt` are llama.cpp's server extensions, sent only when the operator
/// configured slots or the server was detected as llama.cpp (OpenAI rejects unknown fields).
#[derive(Debug, Serialize)]
pub(super) struct Request<'a> {
    pub model: &'a str,
    pub messages: &'a [ChatMessage],
    pub max_tokens: u32,
    pub temperature: f32,
    pub stream: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub id_slot: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cache_prompt: Option<bool>,
}

/// The part of llama.cpp's `GET /props` that says how many slots the server has.
#[derive(Deserialize)]
struct Props {
    total_slots: u32,
}

/// `Some(slots)` when `body` is llama.cpp's `/props` answer, `None` for anything else.
pub(super) fn parse_props(body: &[u8]) -> Option<u32> {
    serde_json::from_slice::<Props>(body)
        .ok()
        .map(|p| p.total_slots)
        .filter(|n| *n > 0)
}

/// What a successful response carries: the raw (uncleaned) content and the token counts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Answer {
    pub content: String,
    pub usage: Option<Usage>,
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
    let usage = response.usage.and_then(|u| {
        Some(Usage {
            prompt_tokens: u.prompt_tokens?,
            completion_tokens: u.completion_tokens?,
        })
    });
    Ok(Answer { content, usage })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::llm::ChatRole;

    /// The content and `(prompt, completion)` tokens, or the start of the error message.
    type Expect<'a> = Result<(&'a str, Option<(u64, u64)>), &'a str>;

    #[track_caller]
    fn check(body: &str, expect: Expect<'_>) {
        let got = parse(body.as_bytes());
        let expect = expect
            .map(|(content, usage)| Answer {
                content: content.to_owned(),
                usage: usage.map(|(p, c)| Usage {
                    prompt_tokens: p,
                    completion_tokens: c,
                }),
            })
            .map_err(|msg| LlmError::BadResponse(msg.to_owned()));
        match (&got, &expect) {
            (Err(LlmError::BadResponse(g)), Err(LlmError::BadResponse(e))) => {
                assert!(g.starts_with(e), "{body}: {g:?} does not start with {e:?}");
            }
            _ => assert_eq!(got, expect, "{body}"),
        }
    }

    #[test]
    fn responses() {
        check(
            r#"{"choices":[{"index":0,"message":{"role":"assistant","content":"Hi"},"finish_reason":"stop"}],
                "usage":{"prompt_tokens":12,"completion_tokens":3,"total_tokens":15}}"#,
            Ok(("Hi", Some((12, 3)))),
        );
        check(
            r#"{"choices":[{"message":{"content":"Hi"}}]}"#,
            Ok(("Hi", None)),
        );
        check(
            r#"{"choices":[{"message":{"content":"Hi"}}],"usage":null}"#,
            Ok(("Hi", None)),
        );
        check(
            r#"{"choices":[{"message":{"content":"Hi"}}],"usage":{"prompt_tokens":5}}"#,
            Ok(("Hi", None)),
        );
        check(
            r#"{"choices":[{"message":{"content":""}}]}"#,
            Ok(("", None)),
        );
        check(
            r#"{"choices":[{"message":{"content":null}}]}"#,
            Err("no message content"),
        );
        check(r#"{"choices":[{"message":{}}]}"#, Err("no message content"));
        check(r#"{"choices":[{}]}"#, Err("no message content"));
        check(r#"{"choices":[]}"#, Err("no choices"));
        check(
            r#"{"error":"model not found"}"#,
            Err("not a chat completion"),
        );
        check("<html>bad gateway</html>", Err("not a chat completion"));
        check("", Err("not a chat completion"));
    }

    #[test]
    fn request_shape() {
        let messages = [
            ChatMessage::new(ChatRole::System, "be brief"),
            ChatMessage::new(ChatRole::User, "hi"),
        ];
        let request = Request {
            model: "llama3.2:1b",
            messages: &messages,
            max_tokens: 80,
            temperature: 0.5,
            stream: false,
            id_slot: None,
            cache_prompt: None,
        };
        let json = serde_json::to_value(&request).unwrap();
        assert_eq!(
            json,
            serde_json::json!({
                "model": "llama3.2:1b",
                "messages": [
                    {"role": "system", "content": "be brief"},
                    {"role": "user", "content": "hi"},
                ],
                "max_tokens": 80,
                "temperature": 0.5,
                "stream": false,
            })
        );
    }
}
