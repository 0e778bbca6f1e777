//! Fair under a flood, at work: which nodes talked before (read from the store at start), a
//! message's admission at intake, the smaller answer of a node heard for the first time, and
//! what a turn that got no LLM slot leaves behind. (`!status` shows the queue: `commands`.)
//!
//! The decisions are the schedule's (`schedule`, held by the LLM gate); this file logs, counts,
//! stores and sends the one notice. Every message stays stored, answered or not: a refused one
//! by intake, a displaced or expired one by its worker.

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use tokio::time::Instant;
use tracing::{debug, info, warn};

use super::commands::{self, Parsed};
use super::dest::Destination;
use super::gate::Turn;
use super::reply::notice;
use super::schedule::{Refusal, Unanswered};
use super::{Shared, store_unanswered, trust};
use crate::chunk::{ChunkLimits, budget_chars};
use crate::node::Standing;
use crate::radio::TextMessage;

/// What a known or proven node gets when its turn waited past `[limits] max_turn_wait_secs`:
/// one packet. A new node gets nothing (forged ids are free, and every notice costs airtime).
pub(super) const TOO_BUSY: &str = "Sorry, I was too busy to answer that in time. Please ask again.";

/// Tells the gate which nodes talked before: those whose conversation the store holds.
pub(super) async fn know_stored(shared: &Shared) {
    match shared.store.stats().await {
        Ok(stats) => {
            let talked = stats.iter().filter(|s| s.messages > 0).map(|s| s.node);
            let n = shared.gate.know(talked);
            debug!(nodes = n, "nodes that talked before");
        }
        Err(e) => warn!(
            error = %e,
            "could not read which nodes talked before: they count as new until answered"
        ),
    }
}

/// How often at most intake warns that messages are not answered for want of room.
const FULL_WARN_EVERY: Duration = Duration::from_secs(60);

/// Intake's side of admission: it warns that messages find no room at most once a minute,
/// with how many, instead of once per message.
#[derive(Debug, Default)]
pub(super) struct Admission {
    /// When it last warned.
    warned: Option<Instant>,
    /// Messages refused since.
    refused: u64,
}

impl Admission {
    /// The turn for `msg`: `Ok(None)` for a command (answered without the LLM, no turn), `Err`
    /// when it gets none (logged and counted; the caller stores it unanswered).
    pub(super) fn admit(
        &mut self,
        shared: &Arc<Shared>,
        msg: &TextMessage,
        standing: Standing,
    ) -> Result<Option<Turn>, Refusal> {
        if commands::parse(&msg.text) != Parsed::Text {
            return Ok(None);
        }
        let node = msg.from;
        match shared.gate.admit(node, standing, shared.sink.queued()) {
            Ok((turn, displaced)) => {
                if let Some(other) = displaced {
                    let c = &shared.counters;
                    c.turns_displaced.fetch_add(1, Ordering::Relaxed);
                    debug!(node = %other, by = %node, %standing, "a new node's turn gave way");
                }
                Ok(Some(turn))
            }
            Err(refusal) => {
                shared
                    .counters
                    .turns_refused
                    .fetch_add(1, Ordering::Relaxed);
                match refusal {
                    Refusal::Full => {
                        debug!(node = %node, %standing, "no room: not answered");
                        self.no_room(shared);
                    }
                    Refusal::NodeBusy => {
                        debug!(node = %node, "a new node's earlier message still waits: not answered")
                    }
                }
                Err(refusal)
            }
        }
    }

    /// Counts a message refused for want of room; warns at most once a minute, with the count.
    fn no_room(&mut self, shared: &Shared) {
        self.refused += 1;
        let now = Instant::now();
        if self.warned.is_none_or(|at| now >= at + FULL_WARN_EVERY) {
            warn!(
                refused = std::mem::take(&mut self.refused),
                max_waiting = shared.settings.limits.max_waiting,
                "messages stored, not answered: too many waiting (a flood?)"
            );
            self.warned = Some(now);
        }
    }
}

/// A turn found over before its message was stored: the message is stored, unanswered.
pub(super) async fn not_reached(
    shared: &Arc<Shared>,
    msg: &TextMessage,
    grant: trust::Grant,
    dest: Destination,
    turn: &Turn,
    why: Unanswered,
) {
    store_unanswered(shared, msg, grant).await;
    gave_up(shared, dest, msg.packet_id, turn, why).await;
}

/// A turn that got no LLM slot (its message is stored): counted, logged, and a known or
/// proven node whose turn waited too long gets [`TOO_BUSY`].
pub(super) async fn gave_up(
    shared: &Arc<Shared>,
    dest: Destination,
    packet_id: u32,
    turn: &Turn,
    why: Unanswered,
) {
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
            if turn.standing > Standing::New {
                notice(shared, dest, packet_id, TOO_BUSY).await;
            }
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
