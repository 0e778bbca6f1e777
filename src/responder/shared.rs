//! The validated settings ([`ResponderSettings`]) and the handle ([`Shared`]) that holds all
//! of the responder's handles at once — the store, the LLM pool, where replies go, the LLM
//! gate, the radio's watches, the counters, the languages. Only the commands take it
//! (`commands::Runner`, and `commands/adapter.rs`, which implements each command's narrow
//! traits for it once); every other room gets a context of its own, holding only what it
//! uses (`TurnCtx`, `FoldCtx`, …), built with this one in `Responder::spawn`. It sits below
//! the rooms: it holds the lower rooms' own handles, which import nothing of it, and runs no
//! code of its own.

use std::sync::Arc;

use tokio::sync::watch;
use tokio::time::Instant;

use crate::airtime::AirtimeConfig;
use crate::chunk::ChunkLimits;
use crate::config::{AccessConfig, ChannelsConfig, ContextConfig, LimitsConfig, MemoryConfig};
use crate::knowledge::KnowledgeConfig;
use crate::llm::LlmPool;
use crate::radio::{ChannelState, LinkActivity, LinkState, MeshView};
use crate::responder::budget::AirtimeStats;
use crate::responder::counters::Counters;
use crate::responder::identity::keys::KeyTable;
use crate::responder::language::Languages;
use crate::responder::reply::Outbound;
use crate::responder::schedule::gate::LlmGate;
use crate::responder::system_prompt::SystemPrompt;
use crate::store::Store;

/// What the responder needs to know, already validated.
#[derive(Debug, Clone)]
pub struct ResponderSettings {
    /// The full system prompt, budget sentence included; byte-identical across turns (but for
    /// the knowledge hint, there only while the index holds passages).
    pub(crate) system_prompt: SystemPrompt,
    pub(crate) model: String,
    pub(crate) max_tokens: u32,
    pub(crate) memory: MemoryConfig,
    pub(crate) chunk: ChunkLimits,
    pub(crate) limits: LimitsConfig,
    pub(crate) access: AccessConfig,
    pub(crate) channels: ChannelsConfig,
    /// What the per-turn "who is asking" line says.
    pub(crate) context: ContextConfig,
    /// The local time zone for that line (the system's, or a fixed offset).
    pub(crate) zone: Arc<crate::clock::Zone>,
    pub(crate) concurrency: usize,
    /// llama.cpp server slots (configured or detected); `None`: plain OpenAI requests.
    pub(crate) slots: Option<u32>,
    /// How a busy radio channel shortens or holds answers.
    pub(crate) airtime: AirtimeConfig,
    /// The operator's documents the answers may come from (`dir` unset: none).
    pub(crate) knowledge: KnowledgeConfig,
    /// The embedding model's client for `[knowledge.embeddings]` (shared with the daemon's
    /// indexer: one connection pool); `None` without it.
    pub(crate) embedder: Option<crate::knowledge::Embedder>,
    /// What the bot tells about the mesh (`[mesh]`).
    pub(crate) mesh: crate::mesh::MeshConfig,
    /// `[bot] language`.
    pub(crate) language: crate::config::Language,
    /// `[mail]`: `!tell`'s days and quotas.
    pub(crate) mail: crate::config::MailConfig,
    /// `[bulletins]`: the drop folder and its daily cap.
    pub(crate) bulletins: crate::config::BulletinsConfig,
}

/// Whether our node is in licensed (ham) mode, as its last handshake said: PKI is off.
pub(super) fn licensed(link: &watch::Receiver<LinkState>) -> bool {
    matches!(&*link.borrow(), LinkState::Ready { local, .. } if local.licensed)
}

impl Shared {
    /// Whether our node is in licensed (ham) mode (see [`licensed`]).
    pub(super) fn licensed(&self) -> bool {
        licensed(&self.link)
    }
}

/// All of the responder's handles, for the commands (see the module doc).
pub(super) struct Shared {
    pub(super) settings: ResponderSettings,
    pub(super) store: Store,
    /// The primary server and its fallbacks.
    pub(super) llm: Arc<LlmPool>,
    /// Where replies go, and how they leave.
    pub(super) out: Outbound,
    pub(super) gate: LlmGate,
    /// Whether the key table could be read (trust fails closed when not).
    pub(super) keys: Arc<KeyTable>,
    pub(super) link: watch::Receiver<LinkState>,
    pub(super) channel: watch::Receiver<ChannelState>,
    /// The mesh as our node hears it, for the mesh facts and `!nodes`.
    pub(super) mesh: watch::Receiver<Arc<MeshView>>,
    pub(super) activity: Arc<LinkActivity>,
    pub(super) counters: Arc<Counters>,
    /// What the airtime policy did.
    pub(super) airtime: Arc<AirtimeStats>,
    /// The language of each conversation (`[bot] language`).
    pub(super) languages: Arc<Languages>,
    pub(super) started: Instant,
}
