//! What the commands may reach of the daemon, one trait per need: a command's answer is generic
//! over the few it uses (`!mail` over [`Mailroom`], `!watch` over [`Watches`] and [`Roster`]),
//! so what it touches is in its signature, and a test can answer it with a small fake. The
//! daemon's handle implements them all, once, in `commands/mod.rs`. The store's methods come
//! through as the commands call them, no more.

use std::sync::Arc;
use std::time::Duration;

use crate::chunk::ChunkLimits;
use crate::config::{BulletinsConfig, MailConfig, MemoryConfig};
use crate::knowledge::KnowledgeConfig;
use crate::lang::Lang;
use crate::mesh::MeshConfig;
use crate::node::NodeId;
use crate::radio::{ActivitySnapshot, LinkState, MeshView};
use crate::responder::counters::Counters;
use crate::responder::schedule::turns::QueueStatus;
use crate::store::{
    Added, Context, Damage, Embedded, KnowledgeIndex, Mail, MailQuota, NewMail, NewWatch, NodeKey,
    NodeStats, Posted, StoreError, StoredMessage, Subscribed, Watch,
};

/// A node's conversation as the bot remembers it: `!summary` reads it, `!reset` forgets it.
pub(crate) trait Memory {
    /// `[memory]`: how many messages a prompt carries.
    fn memory(&self) -> &MemoryConfig;
    /// The node's summary, facts and up to `messages` of its newest messages, as its next
    /// prompt has them (nothing retrieved).
    async fn context(&self, node: NodeId, messages: usize) -> Result<Context, StoreError>;
    /// The node's last `limit` messages, oldest first.
    async fn history(&self, node: NodeId, limit: usize) -> Result<Vec<StoredMessage>, StoreError>;
    /// Forgets the node's messages, summary and facts.
    async fn reset(&self, node: NodeId) -> Result<(), StoreError>;
    /// Forgets the conversation's language: the next message says it anew.
    fn forget_language(&self, node: NodeId);
}

/// The mesh as our node hears it, and what `[mesh]` lets the bot tell of it.
pub(crate) trait Roster {
    /// `[mesh]`: whether the bot tells of the mesh, and through which lens.
    fn mesh(&self) -> &MeshConfig;
    /// The mesh view as of now (a snapshot: the radio publishes a new one as it hears more).
    fn view(&self) -> Arc<MeshView>;
}

/// How much one reply packet holds, for an answer that lists as much as fits one.
pub(crate) trait Packets {
    /// The size rules of one radio reply.
    fn chunk(&self) -> ChunkLimits;
}

/// `!tell`'s messages: `[mail]`, and those the store keeps until their node is heard.
pub(crate) trait Mailroom {
    /// `[mail]`: whether `!tell` is on, its days and quotas.
    fn mail(&self) -> MailConfig;
    /// The keys the bot holds for `node` (a message for it is held to the pinned one).
    async fn node_key(&self, node: NodeId) -> Result<Option<NodeKey>, StoreError>;
    /// Keeps `mail` unless its sender or its recipient has its `quota` of waiting messages.
    async fn post_mail(&self, mail: NewMail, quota: MailQuota) -> Result<Posted, StoreError>;
    /// The messages `sender` left that still wait, oldest first.
    async fn mail_from(&self, sender: NodeId) -> Result<Vec<Mail>, StoreError>;
    /// Deletes message `id` when `sender` left it; the message, if it did.
    async fn cancel_mail(&self, sender: NodeId, id: i64) -> Result<Option<Mail>, StoreError>;
}

/// `!watch`'s watches, as the store keeps them.
pub(crate) trait Watches {
    /// The watches `owner` set, oldest first.
    async fn watches_of(&self, owner: NodeId) -> Result<Vec<Watch>, StoreError>;
    /// Adds `watch` unless its owner has `max` already or the same one.
    async fn add_watch(&self, watch: NewWatch, max: usize) -> Result<Added, StoreError>;
    /// Stops watch `id` when `owner` set it; whether it did.
    async fn remove_watch(&self, owner: NodeId, id: i64) -> Result<bool, StoreError>;
}

/// `[bulletins]`: the topics, and who subscribed to which.
pub(crate) trait Bulletins {
    /// `[bulletins]`: the drop folder (its files are the topics) and the daily cap.
    fn bulletins(&self) -> &BulletinsConfig;
    /// The topics `node` subscribed to.
    async fn subscriptions_of(&self, node: NodeId) -> Result<Vec<String>, StoreError>;
    /// Subscribes `node` to `topic` at `at`, within `limits` (topics per node, subscribers
    /// per topic).
    async fn subscribe(
        &self,
        node: NodeId,
        topic: String,
        lang: Lang,
        at: i64,
        limits: (usize, usize),
    ) -> Result<Subscribed, StoreError>;
    /// Unsubscribes `node` from `topic`; whether it was subscribed.
    async fn unsubscribe(&self, node: NodeId, topic: String) -> Result<bool, StoreError>;
}

/// What `!status` tells of the bot's health, each read where it lives.
pub(crate) trait Status {
    /// How long the bot has run.
    fn uptime(&self) -> Duration;
    /// The model the bot asks.
    fn model(&self) -> &str;
    /// The radio link's state.
    fn link(&self) -> LinkState;
    /// How many messages the store holds per node (one aggregate query).
    async fn node_stats(&self) -> Result<Vec<NodeStats>, StoreError>;
    /// How the database is damaged, if it is.
    fn damage(&self) -> Option<Damage>;
    /// Whether the key table could be read (trust fails closed when not).
    fn keys_readable(&self) -> bool;
    /// How the link fared since start (another client taking the node).
    fn activity(&self) -> ActivitySnapshot;
    /// How many LLM servers there are: the primary and its fallbacks.
    fn llm_servers(&self) -> usize;
    /// The LLM server that answered last, if one did.
    fn llm_answered_last(&self) -> Option<String>;
    /// `[knowledge]`: the operator's documents, if a folder is set.
    fn knowledge(&self) -> &KnowledgeConfig;
    /// What the knowledge index holds.
    async fn knowledge_index(&self) -> Result<KnowledgeIndex, StoreError>;
    /// How many passages have their vector from the embedding model; `None` without one.
    async fn knowledge_embedded(&self) -> Option<Result<Embedded, StoreError>>;
    /// The channel's airtime line, when there is a reading to tell.
    fn airtime_line(&self) -> Option<String>;
    /// Whether `[access] admins` lists `node`.
    fn is_admin(&self, node: NodeId) -> bool;
    /// Whether our node is in licensed (ham) mode: PKI off.
    fn licensed(&self) -> bool;
    /// The counters since start.
    fn counters(&self) -> &Counters;
    /// The turns waiting for the LLM.
    fn queue(&self) -> QueueStatus;
    /// The replies the outbox holds, by standing.
    fn outbox(&self) -> [usize; 3];
}
