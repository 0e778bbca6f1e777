//! What a reply's report says once the radio is done with it: the log line (delivered,
//! relayed, unconfirmed, sent without an ACK wait, the first failure), a node whose own ACK
//! came back noted (known once it comes back half a day after the first), and a stored reply cut back to the parts that may have gone
//! on air (a NAKed part and those after it did not), or deleted when none did: the next prompt
//! must not think the user read them.

use tokio::sync::oneshot;
use tracing::{debug, info, warn};

use super::dest::Destination;
use crate::clock::unix_now;
use crate::node::NodeId;
use crate::radio::{FailReason, NakReason, PartOutcome, ReplyReport};
use crate::responder::schedule::gate::LlmGate;
use crate::responder::schedule::standing::{KNOWN_AFTER, Seasoned};
use crate::store::{Over, Said, Store};

/// `node`'s own ACK came back for a reply (`over` PKI or not): an exchange completed. The
/// store keeps when (the first time counts); one [`KNOWN_AFTER`] or more after the first makes
/// the node known; over PKI its pinned key starts to season (`schedule::standing`). When the
/// store cannot say, the node stays as it was: an ACK alone never makes a node known.
async fn exchanged(store: &Store, gate: &LlmGate, node: NodeId, over: Over) {
    let noted = match store
        .note_exchange(node, over, unix_now(), KNOWN_AFTER)
        .await
    {
        Ok(noted) => noted,
        Err(e) => {
            debug!(node = %node, error = %e, "could not record the completed exchange");
            return;
        }
    };
    if noted.known {
        gate.know([node]);
    }
    if let Some(k) = noted.key {
        let seasoned = match (k.vouched, k.exchanged_at) {
            (true, _) => Seasoned::Vouched,
            (false, Some(at)) => Seasoned::Exchanged(at),
            (false, None) => return,
        };
        gate.season([(node, k.key, seasoned)]);
    }
}

/// A reply stored in a node's memory: its row and the bodies of its parts, in order, as the
/// row has them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Stored {
    pub(crate) node: NodeId,
    pub(crate) id: i64,
    pub(crate) parts: Vec<String>,
}

/// Waits for the report of a reply of `n` parts to `dest` and does what it says (see the
/// module doc).
pub(super) async fn follow(
    store: Store,
    gate: LlmGate,
    dest: Destination,
    n: usize,
    report: oneshot::Receiver<ReplyReport>,
    stored: Option<Stored>,
) {
    let Ok(report) = report.await else { return };
    if let Some(stored) = stored {
        keep_what_went_on_air(&store, stored, &report.parts).await;
    }
    let t = Tally::of(&report.parts);
    if t.delivered > 0 && dest.to() != NodeId::BROADCAST {
        let over = if dest.pki() { Over::Pki } else { Over::Channel };
        exchanged(&store, &gate, dest.to(), over).await;
    }
    let (delivered, relayed, unconfirmed) = (t.delivered, t.relayed, t.unconfirmed);
    let unacked = t.sent;
    match t.failed {
        None => info!(
            parts = n,
            delivered, relayed, unconfirmed, unacked, "reply sent"
        ),
        Some(reason) => {
            warn!(
                parts = n,
                delivered,
                relayed,
                unconfirmed,
                unacked,
                ?reason,
                "reply not fully sent"
            )
        }
    }
}

/// How many of a reply's first parts may have gone on air: up to the first that surely did
/// not (the node refused it, an earlier part failed so it was not sent, or the daemon shut
/// down first). A part whose ACK never came may have reached the user: it counts.
fn on_air(outcomes: &[PartOutcome]) -> usize {
    outcomes
        .iter()
        .take_while(|o| match o {
            // Sent, and sent again, without an ACK: it may have reached the user.
            PartOutcome::Failed(FailReason::Nak(NakReason::MaxRetransmit)) => true,
            PartOutcome::Failed(
                FailReason::Nak(_) | FailReason::EarlierPartFailed | FailReason::Shutdown,
            ) => false,
            _ => true,
        })
        .count()
}

/// Cuts a stored reply back to its parts that may have gone on air (see [`on_air`]).
async fn keep_what_went_on_air(store: &Store, stored: Stored, outcomes: &[PartOutcome]) {
    let kept = on_air(outcomes).min(stored.parts.len());
    if kept == stored.parts.len() {
        return;
    }
    let result = if kept == 0 {
        store.delete_reply(stored.node, stored.id).await
    } else {
        let text = stored.parts[..kept].join(" ");
        store
            .update_reply(stored.node, stored.id, Said::plain(text), None)
            .await
    };
    match result {
        Ok(()) => info!(
            kept,
            parts = stored.parts.len(),
            "stored reply cut back to what went on air"
        ),
        Err(e) => debug!(error = %e, "could not cut back the stored reply"),
    }
}

/// A reply's part outcomes, counted for the log.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct Tally {
    delivered: usize,
    relayed: usize,
    unconfirmed: usize,
    /// Sent once without waiting for an ACK (the node never ACKed before).
    sent: usize,
    /// Why the first part that failed did.
    failed: Option<FailReason>,
}

impl Tally {
    fn of(parts: &[PartOutcome]) -> Tally {
        let count = |o: PartOutcome| parts.iter().filter(|p| **p == o).count();
        Tally {
            delivered: count(PartOutcome::Delivered),
            relayed: count(PartOutcome::Relayed),
            unconfirmed: count(PartOutcome::Unconfirmed),
            sent: count(PartOutcome::Sent),
            failed: parts.iter().find_map(|p| match p {
                PartOutcome::Failed(r) => Some(r.clone()),
                _ => None,
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_may_have_gone_on_air() {
        use PartOutcome::*;
        let nak = Failed(FailReason::Nak(NakReason::PkiFailed));
        let cases: &[(&[PartOutcome], usize)] = &[
            (&[Delivered, Delivered], 2),
            (&[Delivered, Relayed, Unconfirmed, Sent], 4),
            (&[nak.clone(), Failed(FailReason::EarlierPartFailed)], 0),
            (
                &[
                    Delivered,
                    nak.clone(),
                    Failed(FailReason::EarlierPartFailed),
                ],
                1,
            ),
            // No ACK: the user may have it.
            (&[Delivered, Failed(FailReason::AckTimeout)], 2),
            (&[Failed(FailReason::Nak(NakReason::MaxRetransmit))], 1),
            (&[Failed(FailReason::Shutdown)], 0),
            (&[], 0),
        ];
        for (outcomes, want) in cases {
            assert_eq!(on_air(outcomes), *want, "{outcomes:?}");
        }
    }

    #[test]
    fn a_report_is_tallied_with_the_first_failure() {
        let cases: [(&[PartOutcome], Tally); 3] = [
            (&[], Tally::default()),
            (
                &[
                    PartOutcome::Delivered,
                    PartOutcome::Relayed,
                    PartOutcome::Delivered,
                    PartOutcome::Unconfirmed,
                    PartOutcome::Sent,
                ],
                Tally {
                    delivered: 2,
                    relayed: 1,
                    unconfirmed: 1,
                    sent: 1,
                    failed: None,
                },
            ),
            (
                &[
                    PartOutcome::Delivered,
                    PartOutcome::Failed(FailReason::Nak(NakReason::TooLarge)),
                    PartOutcome::Failed(FailReason::EarlierPartFailed),
                ],
                Tally {
                    delivered: 1,
                    failed: Some(FailReason::Nak(NakReason::TooLarge)),
                    ..Tally::default()
                },
            ),
        ];
        for (parts, want) in cases {
            assert_eq!(Tally::of(parts), want, "{parts:?}");
        }
    }
}
