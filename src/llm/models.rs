//! What a model server has installed: Ollama's `/api/tags` (names, sizes, families) or the
//! OpenAI-style `/models` list (llama.cpp's server, LM Studio, Ollama too), and which of those
//! models to use. Parsing and choosing are pure; [`list`] is the one GET.

use std::time::Duration;

use serde::Deserialize;

use crate::secret::redact_urls;

/// One model a server offers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ModelInfo {
    /// The name to put in `[llm] model`.
    pub(crate) name: String,
    /// Bytes on disk, when the server says (Ollama, llama.cpp); the smaller the faster on a Pi.
    pub(crate) size: Option<u64>,
    /// Model families, when the server says (Ollama): `bert` marks an embedding model.
    pub(crate) families: Vec<String>,
}

impl ModelInfo {
    /// Embedding (or reranking) models cannot chat: skip them when choosing.
    pub(crate) fn is_embedding(&self) -> bool {
        let name = self.name.to_ascii_lowercase();
        ["embed", "bge-", "bge:", "minilm", "rerank"]
            .iter()
            .any(|marker| name.contains(marker))
            || self.families.iter().any(|f| f.contains("bert"))
    }
}

/// Why a model was chosen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Why {
    /// It is the model asked for (meshai's default, or `--model`).
    Preferred,
    /// The preferred model is not installed; this is the smallest chat model.
    Smallest,
}

/// The model to use: `preferred` when installed, otherwise the smallest chat model (models of
/// unknown size after those with one, in the server's order). `None` when there is no chat
/// model at all.
pub(crate) fn choose<'a>(models: &'a [ModelInfo], preferred: &str) -> Option<(&'a ModelInfo, Why)> {
    if let Some(m) = models.iter().find(|m| m.name == preferred) {
        return Some((m, Why::Preferred));
    }
    models
        .iter()
        .enumerate()
        .filter(|(_, m)| !m.is_embedding())
        .min_by_key(|(i, m)| (m.size.is_none(), m.size, *i))
        .map(|(_, m)| (m, Why::Smallest))
}

#[derive(Deserialize)]
struct Tags {
    models: Vec<Tag>,
}

#[derive(Deserialize)]
struct Tag {
    name: String,
    size: Option<u64>,
    #[serde(default)]
    details: TagDetails,
}

#[derive(Default, Deserialize)]
struct TagDetails {
    family: Option<String>,
    families: Option<Vec<String>>,
}

/// Ollama's `GET /api/tags`.
pub(crate) fn parse_ollama_tags(body: &str) -> Result<Vec<ModelInfo>, String> {
    let tags: Tags =
        serde_json::from_str(body).map_err(|e| format!("not Ollama's model list: {e}"))?;
    Ok(tags
        .models
        .into_iter()
        .map(|t| {
            let mut families = t.details.families.unwrap_or_default();
            families.extend(t.details.family);
            ModelInfo {
                name: t.name,
                size: t.size,
                families,
            }
        })
        .collect())
}

#[derive(Deserialize)]
struct Models {
    data: Vec<Model>,
}

#[derive(Deserialize)]
struct Model {
    id: String,
    /// llama.cpp's server adds `meta.size` (bytes).
    meta: Option<ModelMeta>,
}

#[derive(Deserialize)]
struct ModelMeta {
    size: Option<u64>,
}

/// The OpenAI-style `GET /v1/models`.
pub(crate) fn parse_openai_models(body: &str) -> Result<Vec<ModelInfo>, String> {
    let models: Models =
        serde_json::from_str(body).map_err(|e| format!("not an OpenAI-style model list: {e}"))?;
    Ok(models
        .data
        .into_iter()
        .map(|m| ModelInfo {
            name: m.id,
            size: m.meta.and_then(|meta| meta.size),
            families: Vec::new(),
        })
        .collect())
}

/// Where a model list is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ListApi {
    /// `GET {root}/api/tags`, `root` without `/v1`.
    Ollama,
    /// `GET {base_url}/models`.
    OpenAi,
}

/// Fetches and parses a model list; errors are one line for the user.
pub(crate) async fn list(
    url: &str,
    api: ListApi,
    timeout: Duration,
) -> Result<Vec<ModelInfo>, String> {
    let _ = rustls::crypto::ring::default_provider().install_default();
    let mut builder = reqwest::Client::builder()
        .user_agent(concat!("meshai/", env!("CARGO_PKG_VERSION")))
        .redirect(reqwest::redirect::Policy::none())
        .timeout(timeout);
    if url.starts_with("http://") {
        builder = builder.tls_certs_only([]);
    }
    let client = builder.build().map_err(|e| e.to_string())?;
    let endpoint = match api {
        ListApi::Ollama => format!("{url}/api/tags"),
        ListApi::OpenAi => format!("{url}/models"),
    };
    let response = client
        .get(&endpoint)
        .send()
        .await
        .map_err(|e| describe(&e.without_url()))?;
    let status = response.status();
    if !status.is_success() {
        return Err(format!(
            "GET {}: http {}",
            redact_urls(&endpoint),
            status.as_u16()
        ));
    }
    let body = response
        .text()
        .await
        .map_err(|e| describe(&e.without_url()))?;
    match api {
        ListApi::Ollama => parse_ollama_tags(&body),
        ListApi::OpenAi => parse_openai_models(&body),
    }
}

/// A reqwest error as its most telling cause ("connection refused", "timed out").
fn describe(e: &reqwest::Error) -> String {
    if e.is_timeout() {
        return "timed out".into();
    }
    let mut source: Option<&dyn std::error::Error> = Some(e);
    let mut last = e.to_string();
    while let Some(s) = source {
        last = s.to_string();
        source = s.source();
    }
    last.to_lowercase()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(name: &str, size: Option<u64>, families: &[&str]) -> ModelInfo {
        ModelInfo {
            name: name.into(),
            size,
            families: families.iter().map(|f| f.to_string()).collect(),
        }
    }

    #[test]
    fn choosing_a_model() {
        let qwen15 = m("qwen2.5:1.5b", Some(986), &["qwen2"]);
        let qwen05 = m("qwen2.5:0.5b", Some(397), &["qwen2"]);
        let nomic = m("nomic-embed-text:latest", Some(274), &["nomic-bert"]);
        let mxbai = m("mxbai-embed-large", Some(100), &["bert"]);
        let llama = m("llama3.2:3b", Some(2019), &["llama"]);
        let unsized_a = m("local-a", None, &[]);
        let unsized_b = m("local-b", None, &[]);
        type Case<'a> = (&'a [ModelInfo], Option<(&'a str, Why)>);
        let cases: &[Case<'_>] = &[
            (&[], None),
            (&[nomic.clone(), mxbai.clone()], None),
            (
                &[llama.clone(), qwen15.clone(), qwen05.clone()],
                Some(("qwen2.5:1.5b", Why::Preferred)),
            ),
            (
                &[llama.clone(), nomic.clone(), qwen05.clone()],
                Some(("qwen2.5:0.5b", Why::Smallest)),
            ),
            (
                &[llama.clone(), mxbai.clone()],
                Some(("llama3.2:3b", Why::Smallest)),
            ),
            (
                &[unsized_a.clone(), llama.clone()],
                Some(("llama3.2:3b", Why::Smallest)),
            ),
            (
                &[unsized_b.clone(), unsized_a.clone()],
                Some(("local-b", Why::Smallest)),
            ),
            (
                &[
                    m("text-embedding-nomic-embed-text-v1.5", None, &[]),
                    unsized_a.clone(),
                ],
                Some(("local-a", Why::Smallest)),
            ),
        ];
        for (models, want) in cases {
            let got = choose(models, "qwen2.5:1.5b").map(|(m, why)| (m.name.as_str(), why));
            assert_eq!(got, *want, "{models:?}");
        }
    }

    #[test]
    fn parses_ollama_tags() {
        let body = r#"{"models":[
            {"name":"qwen2.5:1.5b","model":"qwen2.5:1.5b","size":986061892,
             "details":{"family":"qwen2","families":["qwen2"],"parameter_size":"1.5B"}},
            {"name":"nomic-embed-text:latest","size":274302450,"details":{"family":"nomic-bert"}},
            {"name":"bare"}]}"#;
        let models = parse_ollama_tags(body).unwrap();
        assert_eq!(models.len(), 3);
        assert_eq!(models[0].name, "qwen2.5:1.5b");
        assert_eq!(models[0].size, Some(986_061_892));
        assert!(!models[0].is_embedding());
        assert!(models[1].is_embedding());
        assert_eq!(models[2].size, None);
        assert!(parse_ollama_tags("{\"data\":[]}").is_err());
        assert!(parse_ollama_tags("<html>").is_err());
    }

    #[test]
    fn parses_openai_models() {
        let llama_cpp = r#"{"object":"list","data":[{"id":"qwen2.5-1.5b-instruct-q4_k_m.gguf",
            "object":"model","owned_by":"llamacpp","meta":{"n_params":1543714304,"size":1117320736}}]}"#;
        let models = parse_openai_models(llama_cpp).unwrap();
        assert_eq!(models[0].name, "qwen2.5-1.5b-instruct-q4_k_m.gguf");
        assert_eq!(models[0].size, Some(1_117_320_736));
        let lm_studio = r#"{"data":[{"id":"qwen2.5-0.5b-instruct","object":"model","owned_by":"organization_owner"},
            {"id":"text-embedding-nomic-embed-text-v1.5","object":"model"}],"object":"list"}"#;
        let models = parse_openai_models(lm_studio).unwrap();
        assert_eq!(models.len(), 2);
        assert!(models[1].is_embedding());
        assert!(parse_openai_models("{\"models\":[]}").is_err());
    }
}
