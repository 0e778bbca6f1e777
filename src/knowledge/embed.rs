//! Passages found by meaning (`[knowledge.embeddings]`, off unless set): an embedding model
//! on an OpenAI-compatible server (llama.cpp's server with `--embeddings`, Ollama, LiteLLM,
//! OpenAI) turns each passage into a vector once — stored in the database, again only when
//! its text or the model changes (`store/knowledge/vectors.rs`) — and each question into
//! one, and the nearest passages join the full-text ones (`choose::fuse`). A model that
//! relates "money" to "Treasurer" then finds a section that shares no word with the
//! question; all-MiniLM-L6-v2 does not, on the bench's documents (docs/benchmarks.md).
//!
//! Best-effort both ways: a server that is down or answers badly leaves the passages without
//! vectors (the indexer tries again later) and a question without one (the turn gets the
//! full-text passages alone); nothing waits long for it.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use crate::llm::{LlmClient, LlmError, LlmSettings};
use crate::secret::Secret;
use crate::store::{Store, StoreError, Unembedded};

/// `[knowledge.embeddings]`, validated.
#[derive(Debug, Clone, PartialEq)]
pub struct EmbeddingsConfig {
    /// The API root (`/embeddings` is appended): `[llm] base_url` unless set.
    pub(crate) base_url: String,
    pub(crate) model: String,
    /// `[llm]`'s key for `[llm]`'s server, else the one `api_key_env` names.
    pub(crate) api_key: Option<Secret>,
    /// A passage found by meaning alone goes in only this similar to the question (cosine,
    /// -1 to 1; what counts as similar depends on the model: `meshai knowledge search` shows
    /// the figures).
    pub(crate) min_similarity: f64,
}

/// The default `min_similarity`. With all-MiniLM-L6-v2 on the knowledge bench's documents,
/// the passage that answers a question scores 0.4 to 0.77 and is the nearest for 21 of 28
/// questions, while the nearest passage to a question the documents do not answer scores
/// 0.38 to 0.51 (docs/benchmarks.md): from 0.5 a passage is likely about the question,
/// and the full-text search still vouches for the rest.
pub(crate) const DEFAULT_MIN_SIMILARITY: f64 = 0.5;

/// How long a question's vector may take before the turn goes on without it (one attempt,
/// no retry): a small embedding model answers in tens of milliseconds, and the radio user
/// is waiting.
pub(crate) const QUESTION_WAIT: Duration = Duration::from_secs(2);

/// How long one batch of passages may take, retries included.
const BATCH_WAIT: Duration = Duration::from_secs(60);

/// Passages per request: a few, so one request stays short beside the chat model on a Pi
/// and within a server's batch (llama.cpp's server embeds a request's inputs together).
pub(crate) const BATCH: usize = 8;

/// The embedding model's client.
#[derive(Debug, Clone)]
pub struct Embedder {
    client: LlmClient,
    min_similarity: f64,
    /// The last question's vector failed: the next failure is not warned about again.
    failing: Arc<AtomicBool>,
}

/// Why the passages could not all be embedded.
#[derive(Debug, thiserror::Error)]
pub(crate) enum EmbedError {
    #[error("the embedding server: {0}")]
    Llm(#[from] LlmError),
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// What one round of embedding did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct CatchUp {
    /// Passages embedded now.
    pub(crate) embedded: usize,
    /// Vectors removed: of other models, of passages no longer in the folder.
    pub(crate) pruned: usize,
}

impl Embedder {
    /// The client for `config`; no request is made.
    pub fn new(config: &EmbeddingsConfig) -> Result<Embedder, LlmError> {
        let client = LlmClient::new(LlmSettings {
            base_url: config.base_url.clone(),
            model: config.model.clone(),
            api_key: config.api_key.clone(),
            timeout: BATCH_WAIT,
            max_tokens: 1,
            temperature: 0.0,
            stream: false,
        })?;
        Ok(Embedder {
            client,
            min_similarity: config.min_similarity,
            failing: Arc::default(),
        })
    }

    /// The embedder `[knowledge]` asks for: `None` without a folder or without
    /// `[knowledge.embeddings]`, or (with a warning) when its client cannot be set up.
    pub(crate) fn configured(knowledge: &super::KnowledgeConfig) -> Option<Embedder> {
        knowledge.dir.as_ref()?;
        let config = knowledge.embeddings.as_ref()?;
        Embedder::new(config)
            .map_err(|e| {
                tracing::warn!(error = %e, "knowledge: no search by meaning; full-text only");
            })
            .ok()
    }

    /// The model the vectors come from (they are stored under its name).
    pub fn model(&self) -> &str {
        self.client.model()
    }

    pub(crate) fn min_similarity(&self) -> f64 {
        self.min_similarity
    }

    /// The vector of a question, within [`QUESTION_WAIT`]. The first failure after a
    /// success is a warning (questions are then searched by words alone), the first success
    /// after a failure says so; the failures between are the caller's to log quietly.
    pub(crate) async fn question(&self, text: &str) -> Result<Vec<f32>, LlmError> {
        let deadline = Instant::now() + QUESTION_WAIT;
        let vector = self
            .client
            .embed(&[text.to_string()], deadline, false)
            .await
            .and_then(|mut v| {
                v.pop()
                    .ok_or_else(|| LlmError::BadResponse("embeddings: no vector".into()))
            });
        match &vector {
            Ok(_) if self.failing.swap(false, Ordering::Relaxed) => {
                tracing::info!(
                    model = self.model(),
                    "knowledge: questions are searched by meaning again"
                );
            }
            Err(e) if !self.failing.swap(true, Ordering::Relaxed) => {
                tracing::warn!(
                    error = %e,
                    model = self.model(),
                    "knowledge: a question could not be embedded; questions are searched by words alone until the embedding server answers"
                );
            }
            _ => {}
        }
        vector
    }

    /// Embeds every passage without a vector from this model, [`BATCH`] at a time, then
    /// prunes the vectors no passage needs; stops early when `stop` is cancelled. What was
    /// embedded before a failure stays. A batch the server refuses (an answer, not a lost
    /// connection: one passage too long for the model, say) is sent again one passage at a
    /// time, and a passage it still refuses is left without a vector for this round (found by
    /// words only, tried again at the next), so one passage never holds up the rest.
    pub(crate) async fn catch_up(
        &self,
        store: &Store,
        stop: &CancellationToken,
    ) -> Result<CatchUp, EmbedError> {
        let model = self.model().to_string();
        let mut done = CatchUp::default();
        let mut refused: Vec<i64> = Vec::new();
        loop {
            let mut pending = store
                .knowledge_unembedded(model.clone(), BATCH + refused.len())
                .await?;
            pending.retain(|p| !refused.contains(&p.key));
            pending.truncate(BATCH);
            if pending.is_empty() || stop.is_cancelled() {
                break;
            }
            let inputs: Vec<String> = pending.iter().map(|p| p.input.clone()).collect();
            let vectors = tokio::select! {
                () = stop.cancelled() => break,
                v = self.client.embed(&inputs, Instant::now() + BATCH_WAIT, true) => v,
            };
            let vectors: Vec<(i64, Vec<f32>)> = match vectors {
                Ok(vectors) => pending.iter().map(|p| p.key).zip(vectors).collect(),
                Err(e) if !refusal(&e) => return Err(e.into()),
                Err(e) => self.one_by_one(store, &pending, &e, &mut refused).await?,
            };
            done.embedded += vectors.len();
            store.knowledge_put_vectors(model.clone(), vectors).await?;
        }
        done.pruned = store.knowledge_prune_vectors(model).await?;
        Ok(done)
    }

    /// The vectors of a batch the server refused (`batch_error`), asked for one passage at a
    /// time; a passage it still refuses goes into `refused` with a warning. A failure that is
    /// no refusal ends the round, after what was embedded so far is stored.
    async fn one_by_one(
        &self,
        store: &Store,
        pending: &[Unembedded],
        batch_error: &LlmError,
        refused: &mut Vec<i64>,
    ) -> Result<Vec<(i64, Vec<f32>)>, EmbedError> {
        let mut vectors = Vec::new();
        for p in pending {
            let one = std::slice::from_ref(&p.input);
            match self
                .client
                .embed(one, Instant::now() + BATCH_WAIT, false)
                .await
            {
                Ok(mut v) => vectors.extend(v.pop().map(|v| (p.key, v))),
                Err(e) if !refusal(&e) => {
                    let model = self.model().to_string();
                    store.knowledge_put_vectors(model, vectors).await?;
                    return Err(e.into());
                }
                Err(e) => {
                    tracing::warn!(
                        error = %e,
                        batch_error = %batch_error,
                        chars = p.input.chars().count(),
                        start = %p.input.chars().take(60).collect::<String>(),
                        "knowledge: the embedding server refused a passage; it is found by words only"
                    );
                    refused.push(p.key);
                }
            }
        }
        Ok(vectors)
    }
}

/// Whether the server answered and refused these inputs (400, 413, 500, a bad answer),
/// rather than being out of reach, out of time, busy (429, 503), or without embeddings or
/// access at all (401, 403, 404, 405, 501): then another passage may well go through.
fn refusal(error: &LlmError) -> bool {
    match error {
        LlmError::Status { status, .. } => {
            !matches!(status, 401 | 403 | 404 | 405 | 429 | 501 | 503)
        }
        LlmError::BadResponse(_) => true,
        LlmError::Timeout | LlmError::Connect(_) | LlmError::Empty | LlmError::Setup(_) => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_refused_batch_is_tried_one_by_one_a_missing_server_is_not() {
        let status = |status| LlmError::Status {
            status,
            body: String::new(),
            retry_after: None,
        };
        for s in [400, 413, 422, 500] {
            assert!(refusal(&status(s)), "{s}");
        }
        for s in [401, 403, 404, 405, 429, 501, 503] {
            assert!(!refusal(&status(s)), "{s}");
        }
        assert!(refusal(&LlmError::BadResponse(
            "embeddings: 1 vectors for 2 inputs".into()
        )));
        assert!(!refusal(&LlmError::Timeout));
        assert!(!refusal(&LlmError::Connect("refused".into())));
    }
}
