//! Answers from the operator's own documents (`[knowledge] dir`, see `docs/knowledge.md`):
//! a folder of Markdown and plain-text files, split into passages and indexed in the same
//! database as the memory, searched each turn like the memory is.
//!
//! Layout, along the data path: `folder` walks the folder and reads a file (blocking I/O,
//! called on the blocking pool), `split` cuts a text into passages (pure), `plan` decides
//! which files need work (pure), `sync` brings the index in step with the folder (the store
//! runs the SQL), `reload` is the daemon's indexer (at start and on each request: SIGHUP),
//! `search` finds a question's passages (`embed`: by meaning too, when an embedding model is
//! set), `choose` judges them against the bounds (pure),
//! `render` words them for the prompt (pure).
//!
//! What a document may reach: a private one (in a `private` folder, or `private: true` in its
//! front matter) only the DMs of nodes the operator lists, proven by PKI unless the operator
//! says otherwise ([`KnowledgeConfig::private_for`]); never a channel mention. Passages are
//! per-turn notes only: never stored with the messages, never in a summary or the facts.

pub(crate) mod check;
pub(crate) mod choose;
pub(crate) mod embed;
pub(crate) mod folder;
pub(crate) mod local;
pub(crate) mod plan;
pub(crate) mod reload;
pub mod render;
pub mod search;
pub(crate) mod split;
pub mod sync;

use std::collections::HashSet;
use std::path::PathBuf;

use crate::node::NodeId;

pub use choose::Bounds;
pub use embed::{Embedder, EmbeddingsConfig};
pub use reload::{Indexed, Reindex};

/// `[knowledge]`, validated.
#[derive(Debug, Clone, PartialEq)]
pub struct KnowledgeConfig {
    /// The folder; `None`: no knowledge, nothing searched, the system prompt as without.
    pub dir: Option<PathBuf>,
    /// What the documents are about, as the system prompt names it ("Answer questions about
    /// …"): a question about anything else is answered as without them.
    pub(crate) about: String,
    /// How many passages a turn may get and how much text.
    pub(crate) bounds: Bounds,
    /// Nodes whose DMs may get private passages (besides those on a non-empty `[access]
    /// allow` list).
    pub(crate) private_to: HashSet<NodeId>,
    /// Private passages go only to PKI DMs (which prove their sender and whose replies are
    /// encrypted for that node alone).
    pub(crate) private_requires_pki: bool,
    /// `[knowledge.embeddings]`: passages found by meaning too; `None`: full-text only.
    pub(crate) embeddings: Option<EmbeddingsConfig>,
}

impl Default for KnowledgeConfig {
    fn default() -> Self {
        KnowledgeConfig {
            dir: None,
            about: DEFAULT_ABOUT.to_string(),
            bounds: Bounds {
                max_passages: 3,
                max_chars: 1200,
                min_score: 0.3,
            },
            private_to: HashSet::new(),
            private_requires_pki: true,
            embeddings: None,
        }
    }
}

/// `[knowledge] about` when the config leaves it out: general enough for a club, a village or
/// an event, and it leaves out what a small model should still answer (radio, weather, words).
pub const DEFAULT_ABOUT: &str = "this group and its places, people, events and rules";

/// `about` for a conversation in `lang`: the default in that language, an operator's own as
/// written.
pub(crate) fn about_in(lang: crate::lang::Lang, about: &str) -> std::borrow::Cow<'_, str> {
    if about.trim() == DEFAULT_ABOUT {
        crate::lang::part(lang, crate::lang::Part::DefaultAbout).into()
    } else {
        about.into()
    }
}

/// How a DM's sender is known, as far as private documents go.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Sender {
    /// A PKI DM with the node's pinned key: only that node can have sent it, and the reply
    /// is encrypted for it alone.
    Proven,
    /// The node's own by the identity rules, but without PKI: its id could be forged, and
    /// the reply goes with the channel key.
    Claimed,
    /// Anything else (a new key, MQTT, a mention).
    Unknown,
}

impl KnowledgeConfig {
    /// Whether a DM from `node` (`listed`: on a non-empty `[access] allow` list), known as
    /// `sender`, may get private passages.
    pub(crate) fn private_for(&self, node: NodeId, listed: bool, sender: Sender) -> bool {
        let named = listed || self.private_to.contains(&node);
        named
            && match sender {
                Sender::Proven => true,
                Sender::Claimed => !self.private_requires_pki,
                Sender::Unknown => false,
            }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn private_documents_go_to_named_nodes_proven_by_pki() {
        let a = NodeId(0xa);
        let b = NodeId(0xb);
        let mut k = KnowledgeConfig {
            private_to: [a].into(),
            ..KnowledgeConfig::default()
        };
        let cases = [
            (a, false, Sender::Proven, true),
            (a, false, Sender::Claimed, false),
            (a, false, Sender::Unknown, false),
            (b, false, Sender::Proven, false),
            (b, true, Sender::Proven, true),
            (b, true, Sender::Claimed, false),
        ];
        for (node, listed, sender, want) in cases {
            assert_eq!(
                k.private_for(node, listed, sender),
                want,
                "{node} {listed} {sender:?}"
            );
        }
        k.private_requires_pki = false;
        assert!(k.private_for(a, false, Sender::Claimed));
        assert!(!k.private_for(b, false, Sender::Claimed));
        assert!(!k.private_for(a, false, Sender::Unknown));
    }
}
