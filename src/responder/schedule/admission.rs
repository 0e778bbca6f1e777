//! Fair under a flood, at the intake: which nodes talked before (read from the store at
//! start, for the gate's schedule), and each message's admission — its place among the
//! waiting turns, or none (counted, and warned about at most once a minute). A new node's
//! smaller answer is `fair`'s; what a turn that got no slot leaves behind is the turn's.
//!
//! The decisions are the schedule's (`turns`, held by the LLM gate).

use std::sync::atomic::Ordering;
use std::time::Duration;

use tokio::time::Instant;
use tracing::{debug, warn};

use super::gate::{LlmGate, Turn};
use super::turns::Refusal;
use crate::node::{NodeId, Standing};
use crate::responder::counters::Counters;
use crate::store::Store;

/// Tells the gate which nodes talked before: those whose conversation the store holds.
pub(crate) async fn know_stored(store: &Store, gate: &LlmGate) {
    match store.stats().await {
        Ok(stats) => {
            let talked = stats.iter().filter(|s| s.messages > 0).map(|s| s.node);
            let n = gate.know(talked);
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
#[derive(Debug)]
pub(crate) struct Admission {
    /// `[limits] max_waiting`, for the warning.
    max_waiting: usize,
    /// When it last warned.
    warned: Option<Instant>,
    /// Messages refused since.
    refused: u64,
}

impl Admission {
    pub(crate) fn new(max_waiting: usize) -> Admission {
        Admission {
            max_waiting,
            warned: None,
            refused: 0,
        }
    }

    /// The turn for a text (or `!more`) of `node`, or the refusal when it gets none (logged
    /// and counted; the caller stores the text unanswered). `outbox`: the replies the outbox
    /// holds, by standing.
    pub(crate) fn admit(
        &mut self,
        gate: &LlmGate,
        counters: &Counters,
        node: NodeId,
        standing: Standing,
        outbox: [usize; 3],
    ) -> Result<Turn, Refusal> {
        match gate.admit(node, standing, outbox) {
            Ok((turn, displaced)) => {
                if let Some(other) = displaced {
                    counters.turns_displaced.fetch_add(1, Ordering::Relaxed);
                    debug!(node = %other, by = %node, %standing, "a new node's turn gave way");
                }
                Ok(turn)
            }
            Err(refusal) => {
                counters.turns_refused.fetch_add(1, Ordering::Relaxed);
                match refusal {
                    Refusal::Full => {
                        debug!(node = %node, %standing, "no room: not answered");
                        self.no_room();
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
    fn no_room(&mut self) {
        self.refused += 1;
        let now = Instant::now();
        if self.warned.is_none_or(|at| now >= at + FULL_WARN_EVERY) {
            warn!(
                refused = std::mem::take(&mut self.refused),
                max_waiting = self.max_waiting,
                "messages stored, not answered: too many waiting (a flood?)"
            );
            self.warned = Some(now);
        }
    }
}
