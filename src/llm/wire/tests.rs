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
        stream_options: None,
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
    let streamed = Request {
        stream: true,
        stream_options: Some(StreamOptions {
            include_usage: true,
        }),
        ..request
    };
    let json = serde_json::to_value(&streamed).unwrap();
    assert_eq!(json["stream"], true);
    assert_eq!(
        json["stream_options"],
        serde_json::json!({"include_usage": true})
    );
}

#[test]
fn stream_chunks() {
    let delta = |content: &str, finish: Option<&str>, usage: Option<(u64, u64)>| Delta {
        content: content.to_owned(),
        finish_reason: finish.map(str::to_owned),
        usage: usage.map(|(p, c)| Usage {
            prompt_tokens: p,
            completion_tokens: c,
        }),
    };
    let table: [(&str, Result<Delta, &str>); 9] = [
        // llama.cpp and OpenAI: the role first, then content, then the finish reason.
        (
            r#"{"choices":[{"index":0,"delta":{"role":"assistant","content":null},"finish_reason":null}]}"#,
            Ok(delta("", None, None)),
        ),
        (
            r#"{"id":"x","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"Hi"},"finish_reason":null}]}"#,
            Ok(delta("Hi", None, None)),
        ),
        (
            r#"{"choices":[{"index":0,"delta":{},"finish_reason":"length"}]}"#,
            Ok(delta("", Some("length"), None)),
        ),
        // include_usage: a last event with no choices.
        (
            r#"{"choices":[],"usage":{"prompt_tokens":9,"completion_tokens":4,"total_tokens":13}}"#,
            Ok(delta("", None, Some((9, 4)))),
        ),
        // llama.cpp puts usage and timings on the finishing event.
        (
            r#"{"choices":[{"delta":{},"finish_reason":"stop"}],"usage":{"prompt_tokens":1,"completion_tokens":2},"timings":{}}"#,
            Ok(delta("", Some("stop"), Some((1, 2)))),
        ),
        // Reasoning parsed out by the server never counts as content.
        (
            r#"{"choices":[{"delta":{"reasoning_content":"hmm"}}]}"#,
            Ok(delta("", None, None)),
        ),
        (
            r#"{"error":{"message":"slot unavailable","code":503}}"#,
            Err("error in stream"),
        ),
        ("[DONE", Err("not a chat completion chunk")),
        (r#"{"choices":"x"}"#, Err("not a chat completion chunk")),
    ];
    for (data, want) in table {
        match (parse_chunk(data), want) {
            (Ok(got), Ok(want)) => assert_eq!(got, want, "{data}"),
            (Err(LlmError::BadResponse(got)), Err(want)) => {
                assert!(got.starts_with(want), "{data}: {got}")
            }
            (got, want) => panic!("{data}: {got:?}, want {want:?}"),
        }
    }
}
