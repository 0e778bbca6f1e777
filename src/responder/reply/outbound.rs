//! [`Outbound`]: how a reply leaves — a text cut into parts and handed to the sink, a notice
//! (always one packet), a streamed reply opened with the outbox, and each report followed
//! (`report`). The worker, the turn, the answer and the commands all send through it; it
//! imports none of them.

use std::sync::Arc;
use std::sync::atomic::Ordering;

use tokio::sync::oneshot;
use tokio_util::task::TaskTracker;
use tracing::{Instrument, warn};

use super::dest::Destination;
use super::report::{self, Stored};
use super::sink::Sink;
use crate::chunk::{ChunkLimits, chunk};
use crate::node::{NodeId, Standing};
use crate::radio::{OutboxClosed, ReplyReport, ReplyRequest, ReplyStream};
use crate::responder::counters::Counters;
use crate::responder::schedule::gate::LlmGate;
use crate::store::Store;

/// Where replies go, and what sending needs besides: the store (a stored reply is cut back
/// to what went on air), the gate (a node whose own ACK came back is known), the tracker
/// (each report is followed by a task of its own), the counters (notices) and `[reply]`'s
/// limits (a notice is one packet of them).
#[derive(Debug, Clone)]
pub(crate) struct Outbound {
    sink: Sink,
    store: Store,
    gate: LlmGate,
    tracker: TaskTracker,
    counters: Arc<Counters>,
    chunk: ChunkLimits,
}

impl Outbound {
    pub fn new(
        sink: Sink,
        store: Store,
        gate: LlmGate,
        tracker: TaskTracker,
        counters: Arc<Counters>,
        chunk: ChunkLimits,
    ) -> Outbound {
        Outbound {
            sink,
            store,
            gate,
            tracker,
            counters,
            chunk,
        }
    }

    /// Replies the radio's outbox holds, by standing; none for the console.
    pub(crate) fn queued(&self) -> [usize; 3] {
        self.sink.queued()
    }

    /// The nodes the radio's outbox holds replies for, with their standing; none for the
    /// console.
    pub(crate) fn holders(&self) -> Vec<(NodeId, Standing)> {
        self.sink.holders()
    }

    /// Sends a notice: always exactly one packet.
    pub(crate) async fn notice(&self, dest: Destination, reply_to: u32, text: &str) {
        self.counters.notices.fetch_add(1, Ordering::Relaxed);
        self.send(dest, Some(reply_to), text, one_packet(self.chunk))
            .await;
    }

    /// Cuts `text` into parts within `limits` and queues them as one reply.
    pub(crate) async fn send(
        &self,
        dest: Destination,
        reply_to: Option<u32>,
        text: &str,
        limits: ChunkLimits,
    ) {
        let parts = chunk(text, &limits);
        self.queue(dest, reply_to, parts, None).await;
    }

    /// Queues `text` to `dest` cut into parts, and hands back its report instead of
    /// following it (a `!tell` delivery: its sender is told what the report says); `None`
    /// when the outbox is closed.
    pub(crate) async fn deliver(
        &self,
        dest: Destination,
        text: &str,
    ) -> Option<oneshot::Receiver<ReplyReport>> {
        let parts = chunk(text, &self.chunk);
        if parts.is_empty() {
            return None;
        }
        match self
            .sink
            .send(dest.request(None, parts), dest.standing())
            .await
        {
            Ok(report) => Some(report),
            Err(e) => {
                warn!(error = %e, "delivery dropped");
                None
            }
        }
    }

    /// Hands the parts to the sink and follows the report when it comes back; a `stored`
    /// reply keeps only what may have gone on air.
    pub(crate) async fn queue(
        &self,
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
        match self.sink.send(req, dest.standing()).await {
            Ok(report) => self.watch_report(dest, n, report, stored),
            Err(e) => warn!(error = %e, "reply dropped"),
        }
    }

    /// Queues a streamed reply to `head.to`, a node of `standing`; its parts follow through
    /// the [`ReplyStream`].
    pub async fn open(
        &self,
        head: ReplyRequest,
        standing: Standing,
    ) -> Result<(ReplyStream, oneshot::Receiver<ReplyReport>), OutboxClosed> {
        self.sink.open(head, standing).await
    }

    /// Follows the report of a reply of `n` parts to `dest` in a task of its own (see
    /// `report`): the log line, a node that ACKed known, a `stored` reply cut back to what
    /// went on air.
    pub(crate) fn watch_report(
        &self,
        dest: Destination,
        n: usize,
        report: oneshot::Receiver<ReplyReport>,
        stored: Option<Stored>,
    ) {
        let (store, gate) = (self.store.clone(), self.gate.clone());
        self.tracker
            .spawn(report::follow(store, gate, dest, n, report, stored).in_current_span());
    }
}

/// `limits` for a reply that must fit one packet: longer text is cut with `…`.
fn one_packet(limits: ChunkLimits) -> ChunkLimits {
    ChunkLimits {
        max_chunks: 1,
        ..limits
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chunk::chunk;

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
}
