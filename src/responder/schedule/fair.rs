//! Fair under a flood, in the answer: the smaller answer of a node heard for the first time
//! (with the per-turn note that says so), and the one notice a known or proven node gets when
//! its turn waited too long. Pure: the turn decides when (`turn`). The intake's side (which
//! nodes talked before, a message's admission) is `admission`; `!status` shows the queue
//! (`commands`).

use crate::chunk::{ChunkLimits, budget_chars};
use crate::node::Standing;

/// What a known or proven node gets when its turn waited past `[limits] max_turn_wait_secs`:
/// one packet. A new node gets nothing (forged ids are free, and every notice costs airtime).
pub(crate) const TOO_BUSY: &str = "Sorry, I was too busy to answer that in time. Please ask again.";

/// What a known or proven node gets when no place was free for its standing (a crowd of its
/// peers waits): one packet; its message is stored. A new node gets nothing.
pub(crate) const NO_ROOM: &str = "Too many people are asking right now: I kept your message but cannot answer it. Please ask again in a few minutes.";

/// The answer's limits for a node of `standing`: a new node's at most `new_node_parts` parts,
/// with a per-turn note that says so when that is fewer than `limits` allow.
pub(crate) fn budget(
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
    let sentences = match capped.max_chunks {
        1 => "one short sentence".to_string(),
        n => format!("{n} short sentences"),
    };
    let note = format!(
        "First message from this node: answer in at most {sentences}, under {} characters.",
        budget_chars(&capped)
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
            assert_eq!(budget(limits, standing, 2), (limits, None));
        }
        let (capped, note) = budget(limits, Standing::New, 2);
        assert_eq!(capped.max_chunks, 2);
        let note = note.expect("a note");
        assert!(
            note.starts_with("First message from this node: answer in at most 2 short sentences"),
            "{note}"
        );
        // No cap, and no note, when the reply allows no more anyway.
        assert_eq!(budget(limits, Standing::New, 4), (limits, None));
        let (one, note) = budget(limits, Standing::New, 1);
        assert_eq!(one.max_chunks, 1);
        assert!(note.is_some_and(|n| n.contains("one short sentence")));
    }

    #[test]
    fn the_busy_notice_fits_one_packet() {
        for notice in [TOO_BUSY, NO_ROOM] {
            assert!(
                notice.chars().count() <= 150 && notice.len() <= 200,
                "{notice}"
            );
        }
    }
}
