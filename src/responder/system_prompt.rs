//! The system prompt a turn gets: the operator's prompt with meshai's own sentences and, only
//! while the knowledge index holds passages, the sentence that tells the model how to use the
//! operator's notes. Each of the two is byte-identical on every turn that gets it (the
//! server's prompt cache keeps it); a turn switches between them only when the index gains
//! its first passage or loses its last (one rebuild of the cache, logged by the indexer).
//! The replies' prompts and the folds' requests read it here alike, so they share a prefix.

use crate::knowledge::Indexed;
use crate::lang::Lang;

/// The system prompt with and without the knowledge hint, in each language, and which one
/// is due. A conversation in German gets the German one (`lang::parts`): a switch of a
/// conversation's language rebuilds the server's cache once, as a fold does.
#[derive(Debug, Clone)]
pub(crate) struct SystemPrompt {
    /// Without the hint: as without a knowledge folder; one per language, as `Lang::ALL`.
    plain: Vec<String>,
    /// With the hint; `None` without a knowledge folder.
    with_notes: Option<Vec<String>>,
    /// Whether the index holds passages now.
    indexed: Indexed,
}

impl SystemPrompt {
    /// `plain(lang)`, and `with_notes(lang)` (the same with the hint) for a knowledge folder,
    /// used while `indexed` says the index holds passages.
    pub fn new(
        plain: impl Fn(Lang) -> String,
        with_notes: Option<impl Fn(Lang) -> String>,
        indexed: Indexed,
    ) -> SystemPrompt {
        SystemPrompt {
            plain: Lang::ALL.map(&plain).to_vec(),
            with_notes: with_notes.map(|w| Lang::ALL.map(w).to_vec()),
            indexed,
        }
    }

    /// The same prompts, switched by `indexed` from now on.
    pub(crate) fn follow(self, indexed: Indexed) -> SystemPrompt {
        SystemPrompt { indexed, ..self }
    }

    /// Whether this turn uses the knowledge folder: one is set and its index holds passages.
    /// Without, a turn neither searches it nor gets a note of it.
    pub fn knowledge(&self) -> bool {
        self.with_notes.is_some() && self.indexed.holds_passages()
    }

    /// The system prompt for a turn in `lang` now.
    pub(crate) fn current(&self, lang: Lang) -> &str {
        let all = match &self.with_notes {
            Some(with_notes) if self.indexed.holds_passages() => with_notes,
            _ => &self.plain,
        };
        all.get(lang.index()).map_or("", String::as_str)
    }

    /// The system prompt for `lang` without the knowledge hint, while [`SystemPrompt::current`]
    /// has it: what an everyday question the model declined by the hint's rule is asked again
    /// with. `None` while the turn gets no hint.
    pub(crate) fn without_hint(&self, lang: Lang) -> Option<&str> {
        self.knowledge()
            .then(|| self.plain.get(lang.index()).map(String::as_str))
            .flatten()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_hint_only_while_the_index_holds_passages() {
        let (tx, indexed) = Indexed::new(false);
        let p = SystemPrompt::new(
            |l: Lang| format!("plain {l}"),
            Some(|l: Lang| format!("with notes {l}")),
            Indexed::fixed(true),
        )
        .follow(indexed);
        let en = Lang::En;
        assert_eq!((p.current(en), p.knowledge()), ("plain en", false));
        assert_eq!(p.without_hint(en), None);
        tx.send_replace(true);
        assert_eq!((p.current(en), p.knowledge()), ("with notes en", true));
        assert_eq!(p.current(Lang::Pl), "with notes pl");
        assert_eq!(p.without_hint(Lang::Pl), Some("plain pl"));
        tx.send_replace(false);
        assert_eq!((p.current(Lang::De), p.knowledge()), ("plain de", false));
        assert_eq!(p.without_hint(Lang::De), None);
        // No folder: never the hint, whatever the index says.
        let none = SystemPrompt::new(
            |_| "plain".to_string(),
            None::<fn(Lang) -> String>,
            Indexed::fixed(true),
        );
        assert_eq!((none.current(Lang::Es), none.knowledge()), ("plain", false));
    }
}
