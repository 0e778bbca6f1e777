//! Which language the bot speaks with each node: the conversation's ([`Sticky`], kept per
//! node in memory and seeded from the node's last stored messages after a restart), or the
//! one `[bot] language` fixes. The prompt's fixed parts (`lang::parts`) and the bot's own
//! texts (`lang::say`) follow it.
//!
//! Only a turn with the node's memory moves a conversation's language and reads its history:
//! a DM that may not use the memory (a forged or unchecked one) is spoken to in its own
//! message's language, and learns nothing of the node's. So are the notices sent before its
//! identity is settled (the rate limit, no room): a forged id must not learn which language
//! the node's person writes in.

use std::collections::HashMap;
use std::sync::Mutex;

use crate::config::Language;
use crate::lang::{Lang, Sticky, detect, sticky};
use crate::node::NodeId;

/// Conversations kept at most; past it the map is cleared and refilled from the store as
/// nodes write again (a restart's cost, for a mesh of thousands of nodes).
const MAX_NODES: usize = 4096;

/// The language of every conversation the bot has.
#[derive(Debug)]
pub(crate) struct Languages {
    setting: Language,
    nodes: Mutex<HashMap<NodeId, Sticky>>,
}

impl Languages {
    pub fn new(setting: Language) -> Languages {
        Languages {
            setting,
            nodes: Mutex::new(HashMap::new()),
        }
    }

    /// Whether `node`'s conversation needs seeding from its stored messages first.
    pub(crate) fn needs_seed(&self, node: NodeId) -> bool {
        self.setting == Language::Auto && !self.lock().contains_key(&node)
    }

    /// Seeds `node`'s conversation with its last stored messages, oldest first.
    pub(crate) fn seed<'a>(&self, node: NodeId, texts: impl IntoIterator<Item = &'a str>) {
        let seeded = Sticky::replay(texts);
        let mut nodes = self.lock();
        bounded(&mut nodes, node).or_insert(seeded);
    }

    /// A turn of `node`'s with its memory heard `texts` (oldest first): the language it is
    /// spoken to in.
    pub(crate) fn hear(&self, node: NodeId, texts: &[&str]) -> Lang {
        if let Language::Fixed(lang) = self.setting {
            return lang;
        }
        let mut nodes = self.lock();
        let sticky = bounded(&mut nodes, node).or_default();
        let mut now = sticky.current();
        for t in texts {
            now = sticky.hear(t);
        }
        now.or_else(|| texts.last().and_then(|t| by_mesh_words(t)))
            .unwrap_or_default()
    }

    /// The language of `node`'s conversation as far as known, without moving it (the fold's,
    /// `!summary`'s).
    pub(crate) fn of(&self, node: NodeId) -> Lang {
        match self.setting {
            Language::Fixed(lang) => lang,
            Language::Auto => self
                .lock()
                .get(&node)
                .and_then(Sticky::current)
                .unwrap_or_default(),
        }
    }

    /// The language to speak to a message in that may not use its node's memory (a mention, a
    /// DM without memory, a notice before its identity is settled): its own, or English.
    pub(crate) fn of_text(&self, text: &str) -> Lang {
        match self.setting {
            Language::Fixed(lang) => lang,
            Language::Auto => detect(text)
                .or_else(|| by_mesh_words(text))
                .unwrap_or_default(),
        }
    }

    /// Forgets `node`'s conversation (`!reset`).
    pub(crate) fn forget(&self, node: NodeId) {
        self.lock().remove(&node);
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<NodeId, Sticky>> {
        // A panic while holding it leaves a map of plain values: still good to use.
        self.nodes
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

/// The language of a message detection cannot place, in a conversation without one yet, by
/// the mesh words it writes (`mesh::matcher::language`): "Que mesure la station Ridge Weather
/// ?", "Co pokazuje stacja Ridge Weather?" and "L'Harbour Gateway va a batteria?" are mostly
/// an English node's name, and were answered in English (the mesh bench). It does not move the
/// conversation's language: its next message that can be placed does.
fn by_mesh_words(text: &str) -> Option<Lang> {
    crate::mesh::matcher::language(text)
}

/// `node`'s entry in `nodes`, the map cleared first when it is full and `node` is not in it.
fn bounded(
    nodes: &mut HashMap<NodeId, Sticky>,
    node: NodeId,
) -> std::collections::hash_map::Entry<'_, NodeId, Sticky> {
    if nodes.len() >= MAX_NODES && !nodes.contains_key(&node) {
        nodes.clear();
    }
    nodes.entry(node)
}

/// How many of a node's last messages a seed reads.
pub(crate) const SEED_MESSAGES: usize = sticky::REPLAY;

#[cfg(test)]
mod tests {
    use super::*;

    const N: NodeId = NodeId(0x1234_5678);

    #[test]
    fn a_conversation_keeps_its_language_through_a_one_word_message() {
        let l = Languages::new(Language::Auto);
        assert!(l.needs_seed(N));
        l.seed(N, ["Mein Hund heißt Pepper.", "ok"]);
        assert!(!l.needs_seed(N));
        assert_eq!(l.of(N), Lang::De);
        assert_eq!(l.hear(N, &["Thanks!"]), Lang::De);
        // Without the memory: the message's own language, never the conversation's.
        assert_eq!(
            l.of_text("Which cable should I buy for the antenna on my node?"),
            Lang::En
        );
        assert_eq!(l.of_text("¿Cómo se llama mi perro?"), Lang::Es);
        assert_eq!(l.of_text("ok"), Lang::En);
        l.forget(N);
        assert_eq!(l.of(N), Lang::En);
    }

    #[test]
    fn a_fixed_language_is_the_only_one() {
        let l = Languages::new(Language::Fixed(Lang::Pl));
        assert!(!l.needs_seed(N));
        assert_eq!(l.hear(N, &["Mein Hund heißt Pepper."]), Lang::Pl);
        assert_eq!(l.of_text("¿Cómo se llama mi perro?"), Lang::Pl);
        assert_eq!(l.hear(N, &["Co pokazuje stacja Ridge Weather?"]), Lang::Pl);
        let de = Languages::new(Language::Fixed(Lang::De));
        assert_eq!(de.hear(N, &["Co pokazuje stacja Ridge Weather?"]), Lang::De);
    }

    /// A message detection cannot place, in a conversation without a language yet, speaks the
    /// language of its mesh words (the mesh bench's last three English answers); in one with a
    /// language, that language; and it moves neither.
    #[test]
    fn a_short_mesh_question_speaks_its_mesh_words_language() {
        let l = Languages::new(Language::Auto);
        let m = "Co pokazuje stacja Ridge Weather?";
        assert_eq!(l.hear(N, &[m]), Lang::Pl);
        assert_eq!(l.of(N), Lang::En, "the conversation has no language yet");
        assert_eq!(l.of_text("L'Harbour Gateway va a batteria?"), Lang::It);
        assert_eq!(l.hear(N, &["Mein Hund heißt Pepper."]), Lang::De);
        assert_eq!(l.hear(N, &[m]), Lang::De);
    }
}
