//! The system prompt a turn gets: the operator's prompt with meshai's own sentences and, only
//! while the knowledge index holds passages, the sentence that tells the model how to use the
//! operator's notes. Each of the two is byte-identical on every turn that gets it (the
//! server's prompt cache keeps it); a turn switches between them only when the index gains
//! its first passage or loses its last (one rebuild of the cache, logged by the indexer).
//! The replies' prompts and the folds' requests read it here alike, so they share a prefix.

use crate::knowledge::Indexed;

/// The system prompt with and without the knowledge hint, and which one is due.
#[derive(Debug, Clone)]
pub struct SystemPrompt {
    /// Without the hint: as without a knowledge folder.
    plain: String,
    /// With the hint; `None` without a knowledge folder.
    with_notes: Option<String>,
    /// Whether the index holds passages now.
    indexed: Indexed,
}

impl SystemPrompt {
    /// `plain`, and `with_notes` (the same with the hint) for a knowledge folder, used while
    /// `indexed` says the index holds passages.
    pub fn new(plain: String, with_notes: Option<String>, indexed: Indexed) -> SystemPrompt {
        SystemPrompt {
            plain,
            with_notes,
            indexed,
        }
    }

    /// The same prompts, switched by `indexed` from now on.
    pub fn follow(self, indexed: Indexed) -> SystemPrompt {
        SystemPrompt { indexed, ..self }
    }

    /// Whether this turn uses the knowledge folder: one is set and its index holds passages.
    /// Without, a turn neither searches it nor gets a note of it.
    pub fn knowledge(&self) -> bool {
        self.with_notes.is_some() && self.indexed.holds_passages()
    }

    /// The system prompt for a turn now.
    pub fn current(&self) -> &str {
        match &self.with_notes {
            Some(with_notes) if self.indexed.holds_passages() => with_notes,
            _ => &self.plain,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_hint_only_while_the_index_holds_passages() {
        let (tx, indexed) = Indexed::new(false);
        let p = SystemPrompt::new(
            "plain".into(),
            Some("with notes".into()),
            Indexed::fixed(true),
        )
        .follow(indexed);
        assert_eq!((p.current(), p.knowledge()), ("plain", false));
        tx.send_replace(true);
        assert_eq!((p.current(), p.knowledge()), ("with notes", true));
        tx.send_replace(false);
        assert_eq!((p.current(), p.knowledge()), ("plain", false));
        // No folder: never the hint, whatever the index says.
        let none = SystemPrompt::new("plain".into(), None, Indexed::fixed(true));
        assert_eq!((none.current(), none.knowledge()), ("plain", false));
    }
}
