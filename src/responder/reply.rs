//! The reply path below the worker and the answer: a text cut into parts and handed to the
//! sink, a notice (always one packet), the notice texts users get instead of raw errors, and
//! the log line when a reply's report comes back. Both the worker and the answer send
//! through here; it imports neither.

use std::sync::Arc;
use std::sync::atomic::Ordering;

use tokio::sync::oneshot;
use tracing::{Instrument, debug, info, warn};

use super::Shared;
use super::dest::Destination;
use crate::chunk::{ChunkLimits, chunk};
use crate::llm::LlmError;
use crate::node::NodeId;
use crate::radio::{FailReason, NakReason, PartOutcome, ReplyReport};
use crate::store::Said;

/// The notice when SQLite fails (disk full, permissions): one packet, no raw error.
pub(super) const STORE_FAILED: &str = "Sorry, my memory store failed. Try again later.";

/// What a command that needs the memory says when the database is damaged.
pub(super) const STORE_DAMAGED: &str = "Sorry, my memory store is damaged: I can't do that now. I still answer, without memory, until the operator repairs it.";

/// The one short packet a user gets when the LLM fails: never the raw error.
pub(super) fn failure_text(e: &LlmError) -> String {
    match e {
        LlmError::Timeout => "Sorry, the AI took too long to answer. Please try again later.",
        LlmError::Connect(_) | LlmError::Status { .. } | LlmError::Setup(_) => {
            "Sorry, the AI is unavailable right now. Please try again later."
        }
        LlmError::BadResponse(_) | LlmError::Empty => {
            "Sorry, the AI gave an unusable answer. Please try again."
        }
    }
    .to_string()
}

/// Sends a notice: always exactly one packet.
pub(super) async fn notice(shared: &Arc<Shared>, dest: Destination, reply_to: u32, text: &str) {
    shared.counters.notices.fetch_add(1, Ordering::Relaxed);
    send(
        shared,
        dest,
        Some(reply_to),
        text,
        one_packet(shared.settings.chunk),
    )
    .await;
}

/// `limits` for a reply that must fit one packet: longer text is cut with `…`.
fn one_packet(limits: ChunkLimits) -> ChunkLimits {
    ChunkLimits {
        max_chunks: 1,
        ..limits
    }
}

/// Cuts `text` into parts within `limits` and queues them as one reply.
pub(super) async fn send(
    shared: &Arc<Shared>,
    dest: Destination,
    reply_to: Option<u32>,
    text: &str,
    limits: ChunkLimits,
) {
    let parts = chunk(text, &limits);
    queue(shared, dest, reply_to, parts, None).await;
}

/// A reply stored in a node's memory: its row and the bodies of its parts, in order, as the
/// row has them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Stored {
    pub(super) node: NodeId,
    pub(super) id: i64,
    pub(super) parts: Vec<String>,
}

/// Hands the parts to the sink and logs the outcome when it comes back; a `stored` reply
/// keeps only what may have gone on air.
pub(super) async fn queue(
    shared: &Arc<Shared>,
    dest: Destination,
    reply_to: Option<u32>,
    parts: Vec<String>,
    stored: Option<Stored>,
) {
    if parts.is_empty() {
        return;
    }
    let n = parts.len();
    let req = dest.request(reply_to, parts);
    match shared.sink.send(req, dest.standing()).await {
        Ok(report) => watch_report(shared, dest, n, report, stored),
        Err(e) => warn!(error = %e, "reply dropped"),
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

/// Logs the outcome of a reply of `n` parts to `dest` when its report comes back. A node
/// whose own ACK came back talked with us: it counts as known from then on. A `stored` reply
/// of which some parts never went on air (a NAK, a PKI refusal) is cut back to the parts that
/// may have, or deleted when none did: the next prompt must not think the user read them.
pub(super) fn watch_report(
    shared: &Arc<Shared>,
    dest: Destination,
    n: usize,
    report: oneshot::Receiver<ReplyReport>,
    stored: Option<Stored>,
) {
    let shared2 = shared.clone();
    shared.tracker.spawn(
        async move {
            let Ok(report) = report.await else { return };
            if let Some(stored) = stored {
                keep_what_went_on_air(&shared2, stored, &report.parts).await;
            }
            let t = Tally::of(&report.parts);
            if t.delivered > 0 && dest.to() != crate::node::NodeId::BROADCAST {
                shared2.gate.know([dest.to()]);
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
        .in_current_span(),
    );
}

/// Cuts a stored reply back to its parts that may have gone on air (see [`on_air`]).
async fn keep_what_went_on_air(shared: &Shared, stored: Stored, outcomes: &[PartOutcome]) {
    let kept = on_air(outcomes).min(stored.parts.len());
    if kept == stored.parts.len() {
        return;
    }
    let result = if kept == 0 {
        shared.store.delete_reply(stored.node, stored.id).await
    } else {
        let text = stored.parts[..kept].join(" ");
        shared
            .store
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
    fn every_failure_notice_fits_one_packet_and_says_no_error_detail() {
        let errors = [
            LlmError::Timeout,
            LlmError::Connect("tcp connect error: 10.0.0.7:8080".into()),
            LlmError::Status {
                status: 500,
                body: "CUDA out of memory".into(),
                retry_after: None,
            },
            LlmError::Setup("bad base url".into()),
            LlmError::BadResponse("missing field `choices`".into()),
            LlmError::Empty,
        ];
        for e in &errors {
            let text = failure_text(e);
            assert!(text.chars().count() <= 150 && text.len() <= 200, "{text}");
            for detail in ["10.0.0.7", "CUDA", "base url", "choices"] {
                assert!(!text.contains(detail), "{e:?} leaks {detail:?}: {text}");
            }
        }
        assert_eq!(
            failure_text(&LlmError::Timeout),
            "Sorry, the AI took too long to answer. Please try again later."
        );
        assert!(STORE_FAILED.len() <= 150);
        assert!(STORE_DAMAGED.len() <= 150, "{}", STORE_DAMAGED.len());
    }

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
    fn a_notice_is_one_part_of_the_reply_limits() {
        let limits = ChunkLimits {
            max_chars: 120,
            max_bytes: 180,
            max_chunks: 4,
        };
        let one = one_packet(limits);
        assert_eq!(
            (one.max_chars, one.max_bytes, one.max_chunks),
            (120, 180, 1)
        );
        let long = "word ".repeat(60);
        assert_eq!(chunk(&long, &one).len(), 1);
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
