//! Fair under a flood, at work in the worker: the smaller answer of a node heard for the first
//! time, and what a turn that got no LLM slot leaves behind. The intake's side (which nodes
//! talked before, a message's admission) is `admission`; `!status` shows the queue
//! (`commands`).
//!
//! The decisions are the schedule's (`schedule`, held by the LLM gate); this file logs and
//! counts. Every message stays stored, answered or not: a refused one by intake,
//! a displaced or expired one by its worker.

use std::sync::atomic::Ordering;

use tracing::{debug, info};

use super::gate::Turn;
use super::schedule::Unanswered;
use crate::chunk::{ChunkLimits, budget_chars};
use crate::node::Standing;
use crate::responder::shared::Shared;

/// What a known or proven node gets when its turn waited past `[limits] max_turn_wait_secs`:
/// one packet. A new node gets nothing (forged ids are free, and every notice costs airtime).
pub(super) const TOO_BUSY: &str = "Sorry, I was too busy to answer that in time. Please ask again.";

/// A DM's turn that got no LLM slot (its message stored when it is the node's own):
/// counted and logged. Whether the node is told is the turn's decision (`turn`).
pub(super) fn gave_up(shared: &Shared, turn: &Turn, why: Unanswered) {
    match why {
        // Counted when it was displaced, at intake.
        Unanswered::Displaced => debug!("turn displaced by a message of higher standing"),
        Unanswered::Expired => {
            shared
                .counters
                .turns_expired
                .fetch_add(1, Ordering::Relaxed);
            let max = shared.settings.limits.max_turn_wait.as_secs();
            info!(standing = %turn.standing, max_turn_wait_secs = max, "turn waited too long: not answered");
        }
    }
}

/// The answer's limits for a node of `standing`: a new node's at most `new_node_parts` parts,
/// with a per-turn note that says so when that is fewer than `limits` allow.
pub(super) fn budget(
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
        assert!(TOO_BUSY.chars().count() <= 150 && TOO_BUSY.len() <= 200);
    }
}
