//! The adapter, written once: the responder's handle ([`Shared`]) is every command's context
//! (`context.rs`), each need read where it lives. The command files see only the traits.

use std::sync::Arc;
use std::time::Duration;

use super::context::{Bulletins, Mailroom, Memory, Packets, Roster, Status, Watches};
use crate::chunk::ChunkLimits;
use crate::config::{BulletinsConfig, MailConfig, MemoryConfig};
use crate::knowledge::KnowledgeConfig;
use crate::lang::Lang;
use crate::mesh::MeshConfig;
use crate::node::NodeId;
use crate::radio::{ActivitySnapshot, LinkState, MeshView};
use crate::responder::counters::Counters;
use crate::responder::schedule::turns::QueueStatus;
use crate::responder::shared::Shared;
use crate::store::{
    Added, Context, Damage, Embedded, KnowledgeIndex, Mail, MailQuota, NewMail, NewWatch, NodeKey,
    NodeStats, Posted, StoreError, StoredMessage, Subscribed, Watch,
};

impl Memory for Shared {
    fn memory(&self) -> &MemoryConfig {
        &self.settings.memory
    }

    async fn context(&self, node: NodeId, messages: usize) -> Result<Context, StoreError> {
        self.store.context(node, i64::MAX, messages, "", 0).await
    }

    async fn history(&self, node: NodeId, limit: usize) -> Result<Vec<StoredMessage>, StoreError> {
        self.store.history(node, limit).await
    }

    async fn reset(&self, node: NodeId) -> Result<(), StoreError> {
        self.store.reset(node).await
    }

    fn forget_language(&self, node: NodeId) {
        self.languages.forget(node);
    }
}

impl Roster for Shared {
    fn mesh(&self) -> &MeshConfig {
        &self.settings.mesh
    }

    fn view(&self) -> Arc<MeshView> {
        self.mesh.borrow().clone()
    }
}

impl Packets for Shared {
    fn chunk(&self) -> ChunkLimits {
        self.settings.chunk
    }
}

impl Mailroom for Shared {
    fn mail(&self) -> MailConfig {
        self.settings.mail
    }

    async fn node_key(&self, node: NodeId) -> Result<Option<NodeKey>, StoreError> {
        self.store.node_key(node).await
    }

    async fn post_mail(&self, mail: NewMail, quota: MailQuota) -> Result<Posted, StoreError> {
        self.store.post_mail(mail, quota).await
    }

    async fn mail_from(&self, sender: NodeId) -> Result<Vec<Mail>, StoreError> {
        self.store.mail_from(sender).await
    }

    async fn cancel_mail(&self, sender: NodeId, id: i64) -> Result<Option<Mail>, StoreError> {
        self.store.cancel_mail(sender, id).await
    }
}

impl Watches for Shared {
    async fn watches_of(&self, owner: NodeId) -> Result<Vec<Watch>, StoreError> {
        self.store.watches_of(owner).await
    }

    async fn add_watch(&self, watch: NewWatch, max: usize) -> Result<Added, StoreError> {
        self.store.add_watch(watch, max).await
    }

    async fn remove_watch(&self, owner: NodeId, id: i64) -> Result<bool, StoreError> {
        self.store.remove_watch(owner, id).await
    }
}

impl Bulletins for Shared {
    fn bulletins(&self) -> &BulletinsConfig {
        &self.settings.bulletins
    }

    async fn subscriptions_of(&self, node: NodeId) -> Result<Vec<String>, StoreError> {
        self.store.subscriptions_of(node).await
    }

    async fn subscribe(
        &self,
        node: NodeId,
        topic: String,
        lang: Lang,
        at: i64,
        limits: (usize, usize),
    ) -> Result<Subscribed, StoreError> {
        self.store.subscribe(node, topic, lang, at, limits).await
    }

    async fn unsubscribe(&self, node: NodeId, topic: String) -> Result<bool, StoreError> {
        self.store.unsubscribe(node, topic).await
    }
}

impl Status for Shared {
    fn uptime(&self) -> Duration {
        self.started.elapsed()
    }

    fn model(&self) -> &str {
        &self.settings.model
    }

    fn link(&self) -> LinkState {
        self.link.borrow().clone()
    }

    async fn node_stats(&self) -> Result<Vec<NodeStats>, StoreError> {
        self.store.stats().await
    }

    fn damage(&self) -> Option<Damage> {
        self.store.damage()
    }

    fn keys_readable(&self) -> bool {
        self.keys.readable()
    }

    fn activity(&self) -> ActivitySnapshot {
        self.activity.snapshot()
    }

    fn llm_servers(&self) -> usize {
        self.llm.len()
    }

    fn llm_answered_last(&self) -> Option<String> {
        self.llm.last_answered()
    }

    fn knowledge(&self) -> &KnowledgeConfig {
        &self.settings.knowledge
    }

    async fn knowledge_index(&self) -> Result<KnowledgeIndex, StoreError> {
        self.store.knowledge_index().await
    }

    async fn knowledge_embedded(&self) -> Option<Result<Embedded, StoreError>> {
        let model = self.settings.embedder.as_ref()?.model().to_string();
        Some(self.store.knowledge_embedded(model).await)
    }

    fn airtime_line(&self) -> Option<String> {
        let channel = *self.channel.borrow();
        let now = tokio::time::Instant::now();
        crate::responder::budget::status_line(&self.settings.airtime, &channel, &self.airtime, now)
    }

    fn is_admin(&self, node: NodeId) -> bool {
        self.settings.access.admins.contains(&node)
    }

    fn licensed(&self) -> bool {
        Shared::licensed(self)
    }

    fn counters(&self) -> &Counters {
        &self.counters
    }

    fn queue(&self) -> QueueStatus {
        self.gate.status()
    }

    fn outbox(&self) -> [usize; 3] {
        self.out.queued()
    }
}
