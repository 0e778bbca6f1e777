//! Fair under a flood, at the intake: what standing each node earned before (read from the
//! store at start, for the gate's schedule), and each message's admission — a turn, a place
//! in its node's waiting turn, or none (counted by standing, and logged at info at most once a
//! minute). A new node's smaller answer is `fair`'s; what a turn that got no slot leaves
//! behind is the turn's.
//!
//! The decisions are the schedule's (`turns`, held by the LLM gate).

use std::sync::atomic::Ordering;

use tracing::{debug, warn};

use super::gate::{Admitted, LlmGate, Turn};
use super::standing::Seasoned;
pub(crate) use super::turns::Joining;
use super::turns::Refusal;
use crate::node::{NodeId, Standing};
use crate::responder::counters::{Cause, Counters};
use crate::store::Store;

/// Tells the gate what the store says nodes earned: the known nodes (completed exchanges half a
/// day apart), and
/// the pinned keys seen in one over PKI (or pinned by the operator).
pub(crate) async fn know_stored(store: &Store, gate: &LlmGate) {
    match store.earned().await {
        Ok(earned) => {
            let n = gate.know(earned.known);
            let keys = earned.keys.into_iter().filter_map(|k| {
                let seasoned = match (k.vouched, k.exchanged_at) {
                    (true, _) => Seasoned::Vouched,
                    (false, Some(at)) => Seasoned::Exchanged(at),
                    (false, None) => return None,
                };
                Some((k.node, k.key, seasoned))
            });
            let k = gate.season(keys);
            debug!(
                nodes = n,
                keys = k,
                "nodes that completed an exchange before"
            );
        }
        Err(e) => warn!(
            error = %e,
            "could not read which nodes talked before: they count as new until they complete \
             an exchange"
        ),
    }
}

/// Where an admitted message is answered.
#[derive(Debug)]
pub(crate) enum Place {
    /// In a turn of its own.
    Turn(Turn),
    /// With its node's waiting turn.
    Joined,
}

/// The place of a text (or `!more`) of `node`, or the refusal when it gets none (counted by
/// standing and logged; the caller stores the text unanswered). `outbox`: the nodes the
/// outbox holds replies for.
pub(crate) fn admit(
    gate: &LlmGate,
    counters: &Counters,
    node: NodeId,
    standing: Standing,
    outbox: &[(NodeId, Standing)],
    joining: Joining,
) -> Result<Place, Refusal> {
    match gate.admit(node, standing, outbox, joining) {
        Ok(Admitted::Turn { turn, displaced }) => {
            if let Some(other) = displaced {
                counters.turns_displaced.fetch_add(1, Ordering::Relaxed);
                counters.tally.note(Cause::Displaced, 1);
                debug!(node = %other, by = %node, %standing, "a new node's turn gave way");
            }
            Ok(Place::Turn(turn))
        }
        Ok(Admitted::Joined) => {
            debug!(node = %node, "joins the node's waiting turn");
            Ok(Place::Joined)
        }
        Err(refusal) => {
            counters.refused(standing);
            debug!(node = %node, %standing, "no place for its standing: not answered");
            Err(refusal)
        }
    }
}
