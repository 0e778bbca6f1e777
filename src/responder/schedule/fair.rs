//! Fair under a flood, in the answer: the smaller answer of a node heard for the first time
//! (with the per-turn note that says so), and the one notice a known or proven node gets when
//! its turn waited too long. Pure: the turn decides when (`turn`). The intake's side (which
//! nodes talked before, a message's admission) is `admission`; `!status` shows the queue
//! (`commands`).

use crate::chunk::{ChunkLimits, budget_chars};
use crate::lang::parts::sentences;
use crate::lang::{Lang, Part, fill, part};
use crate::node::Standing;

// A known or proven node whose turn waited past `[limits] max_turn_wait_secs` gets one
// packet, `Say::TooBusy`; one for which no place was free for its standing (a crowd of its
// peers waits) gets `Say::NoRoom`, its message stored. A new node gets neither (forged ids
// are free, and every notice costs airtime). Both are `lang::say`'s, in every language.

/// The answer's limits for a node of `standing`: a new node's at most `new_node_parts` parts,
/// with a per-turn note that says so when that is fewer than `limits` allow.
pub(crate) fn budget(
    lang: Lang,
    limits: ChunkLimits,
    standing: Standing,
    new_node_parts: usize,
) -> (ChunkLimits, Option<String>) {
    if standing != Standing::New || new_node_parts >= limits.max_chunks {
        return (limits, None);
    }
    let capped = ChunkLimits {
        max_chunks: new_node_parts.max(1),
        ..limits
    };
    let sentences = sentences(lang, capped.max_chunks);
    let chars = budget_chars(&capped).to_string();
    let note = fill(
        part(lang, Part::FirstMessage),
        &[("sentences", &sentences), ("chars", &chars)],
    );
    (capped, Some(note))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_new_nodes_answer_is_capped_and_the_model_is_told() {
        let limits = ChunkLimits {
            max_chars: 150,
            max_bytes: 200,
            max_chunks: 4,
        };
        for standing in [Standing::Known, Standing::Proven] {
            assert_eq!(budget(Lang::En, limits, standing, 2), (limits, None));
        }
        let (capped, note) = budget(Lang::En, limits, Standing::New, 2);
        assert_eq!(capped.max_chunks, 2);
        let note = note.expect("a note");
        assert!(
            note.starts_with("First message from this node: answer in at most 2 short sentences"),
            "{note}"
        );
        // No cap, and no note, when the reply allows no more anyway.
        assert_eq!(budget(Lang::En, limits, Standing::New, 4), (limits, None));
        let (one, note) = budget(Lang::En, limits, Standing::New, 1);
        assert_eq!(one.max_chunks, 1);
        assert!(note.is_some_and(|n| n.contains("one short sentence")));
    }
}
