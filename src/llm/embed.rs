//! The JSON shapes of `POST /embeddings` (OpenAI's; llama.cpp's server with `--embeddings`,
//! Ollama under `/v1`, LiteLLM and OpenAI all answer it), and reading the vectors out of a
//! response body.

use serde::{Deserialize, Serialize};

use super::LlmError;

/// The request body: the texts, in the order their vectors come back.
#[derive(Debug, Serialize)]
pub(super) struct Request<'a> {
    pub(crate) model: &'a str,
    pub(crate) input: &'a [String],
}

#[derive(Deserialize)]
struct Response {
    data: Vec<Item>,
}

#[derive(Deserialize)]
struct Item {
    embedding: Vec<f32>,
    /// Which input this vector is for; servers send them in order, but say so.
    #[serde(default)]
    index: Option<usize>,
}

/// The `inputs` vectors of a response body, in the order of the inputs: each must be there
/// once, all of one length, not empty, every value finite and not all zero.
pub(super) fn parse(body: &[u8], inputs: usize) -> Result<Vec<Vec<f32>>, LlmError> {
    let bad = |why: String| LlmError::BadResponse(format!("embeddings: {why}"));
    let response: Response =
        serde_json::from_slice(body).map_err(|e| bad(format!("not an embeddings answer: {e}")))?;
    if response.data.len() != inputs {
        return Err(bad(format!(
            "{} vectors for {inputs} inputs",
            response.data.len()
        )));
    }
    let mut vectors: Vec<Option<Vec<f32>>> = vec![None; inputs];
    for (n, item) in response.data.into_iter().enumerate() {
        let at = item.index.unwrap_or(n);
        let slot = vectors
            .get_mut(at)
            .ok_or_else(|| bad(format!("index {at} for {inputs} inputs")))?;
        if slot.is_some() {
            return Err(bad(format!("index {at} twice")));
        }
        *slot = Some(item.embedding);
    }
    let vectors: Vec<Vec<f32>> = vectors.into_iter().flatten().collect();
    let len = vectors.first().map_or(0, Vec::len);
    for v in &vectors {
        if v.is_empty() || v.len() != len {
            return Err(bad(format!("vectors of {} and {len} values", v.len())));
        }
        if v.iter().any(|x| !x.is_finite()) || v.iter().all(|x| *x == 0.0) {
            return Err(bad("a vector is zero or not finite".into()));
        }
    }
    Ok(vectors)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vectors_come_back_in_the_order_of_the_inputs() {
        let body = br#"{"object":"list","model":"m","data":[
            {"object":"embedding","index":1,"embedding":[0.0,1.0]},
            {"object":"embedding","index":0,"embedding":[1.0,0.5]}],
            "usage":{"prompt_tokens":4,"total_tokens":4}}"#;
        assert_eq!(
            parse(body, 2).unwrap(),
            vec![vec![1.0, 0.5], vec![0.0, 1.0]]
        );
        // Without indexes, in the order sent.
        let body = br#"{"data":[{"embedding":[1.0]},{"embedding":[2.0]}]}"#;
        assert_eq!(parse(body, 2).unwrap(), vec![vec![1.0], vec![2.0]]);
    }

    #[test]
    fn a_bad_answer_is_an_error_not_a_vector() {
        let cases: [(&[u8], usize, &str); 8] = [
            (b"not json", 1, "not an embeddings answer"),
            (
                br#"{"error":"no --embeddings"}"#,
                1,
                "not an embeddings answer",
            ),
            (br#"{"data":[]}"#, 1, "0 vectors for 1 inputs"),
            (br#"{"data":[{"index":3,"embedding":[1.0]}]}"#, 1, "index 3"),
            (
                br#"{"data":[{"index":0,"embedding":[1.0]},{"index":0,"embedding":[1.0]}]}"#,
                2,
                "index 0 twice",
            ),
            (
                br#"{"data":[{"embedding":[1.0]},{"embedding":[1.0,2.0]}]}"#,
                2,
                "vectors of 2 and 1",
            ),
            (br#"{"data":[{"embedding":[]}]}"#, 1, "vectors of 0"),
            (
                br#"{"data":[{"embedding":[0.0,0.0]}]}"#,
                1,
                "zero or not finite",
            ),
        ];
        for (body, inputs, want) in cases {
            let e = parse(body, inputs).unwrap_err().to_string();
            assert!(e.contains(want), "{}: {e}", String::from_utf8_lossy(body));
        }
    }
}
