//! The outbox: the paced, ACK-driven send queue, and the only thing that sends texts.
//!
//! - `core`: the sans-IO state machine (pacing, ACK/NAK handling, retries, pauses).
//! - `ids`: fresh, never-reused packet ids.
//! - `stream`: [`ReplyStream`], the producer's handle on a reply whose parts come over time.
//! - `task`: the async loop that moves requests, link events and link state into the core,
//!   hands its writes to the link and its reports to whoever queued the reply.
//!
//! The rest of the daemon holds an [`OutboxHandle`]; the link holds the other ends of the
//! event and write channels given to [`spawn`].

mod core;
mod ids;
mod stream;
mod task;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use tokio::sync::{mpsc, oneshot, watch};
use tokio::task::JoinHandle;
use tracing::warn;

pub(crate) use self::core::OutboxCore;
pub(crate) use self::ids::PacketIds;
pub use self::stream::{ReplyStream, StreamMsg};

use super::{LinkEvent, LinkState, Outgoing, RadioConfig, ReplyReport, ReplyRequest};
use crate::node::{NodeId, Standing};

/// How many replies may wait in the request channel before `send` waits for room.
const REQUEST_QUEUE: usize = 64;

/// Where a reply's report goes.
type Reporter = oneshot::Sender<ReplyReport>;

/// What a handle asks of the task.
#[derive(Debug)]
enum Request {
    /// A reply whose parts are all known.
    Reply(ReplyRequest, Standing, Reporter),
    /// A streamed reply: its parts come through the receiver.
    Open(ReplyRequest, Standing, Reporter, mpsc::Receiver<StreamMsg>),
}

/// How many replies the core holds, by standing ([`Standing::index`]), and the nodes they
/// go to; the task updates it after each step.
#[derive(Debug, Default)]
struct Gauge {
    queued: [AtomicUsize; 3],
    holders: std::sync::Mutex<Vec<(NodeId, Standing)>>,
}

impl Gauge {
    fn set(&self, queued: [usize; 3], holders: Vec<(NodeId, Standing)>) {
        for (slot, n) in self.queued.iter().zip(queued) {
            slot.store(n, Ordering::Relaxed);
        }
        match self.holders.lock() {
            Ok(mut h) => *h = holders,
            Err(poisoned) => *poisoned.into_inner() = holders,
        }
    }

    fn get(&self) -> [usize; 3] {
        [0, 1, 2].map(|i| self.queued[i].load(Ordering::Relaxed))
    }

    fn holders(&self) -> Vec<(NodeId, Standing)> {
        match self.holders.lock() {
            Ok(h) => h.clone(),
            Err(poisoned) => poisoned.into_inner().clone(),
        }
    }
}

/// Handle for queueing replies. Cheap to clone.
#[derive(Clone, Debug)]
pub struct OutboxHandle {
    requests: mpsc::Sender<Request>,
    gauge: Arc<Gauge>,
}

/// The outbox no longer takes replies: it is draining or stopped.
#[derive(Debug, thiserror::Error)]
#[error("the outbox is closed")]
pub struct OutboxClosed;

impl OutboxHandle {
    /// Queues a reply to a node of `standing` (higher standing sends first); the receiver
    /// gets the outcome of every part once the reply is done.
    pub async fn send(
        &self,
        req: ReplyRequest,
        standing: Standing,
    ) -> Result<oneshot::Receiver<ReplyReport>, OutboxClosed> {
        let (report_tx, report_rx) = oneshot::channel();
        self.requests
            .send(Request::Reply(req, standing, report_tx))
            .await
            .map_err(|_| OutboxClosed)?;
        Ok(report_rx)
    }

    /// Queues a streamed reply to a node of `standing` (`head.parts` is ignored): its parts
    /// come through the returned [`ReplyStream`]; the receiver gets the outcome of every part
    /// once the reply is closed and done.
    pub async fn open(
        &self,
        head: ReplyRequest,
        standing: Standing,
    ) -> Result<(ReplyStream, oneshot::Receiver<ReplyReport>), OutboxClosed> {
        let (report_tx, report_rx) = oneshot::channel();
        let (stream, parts) = ReplyStream::channel();
        let head = ReplyRequest {
            parts: Vec::new(),
            ..head
        };
        self.requests
            .send(Request::Open(head, standing, report_tx, parts))
            .await
            .map_err(|_| OutboxClosed)?;
        Ok((stream, report_rx))
    }

    /// Replies the outbox holds (queued or sending, not yet reported), by the standing of
    /// their node ([`Standing::index`]); a request still on its way to the task is not counted.
    pub(crate) fn queued(&self) -> [usize; 3] {
        self.gauge.get()
    }

    /// The nodes the outbox holds replies for, each once, with the highest standing of its
    /// replies (what the LLM gate counts as their places).
    pub(crate) fn holders(&self) -> Vec<(NodeId, Standing)> {
        self.gauge.holders()
    }
}

/// The running outbox task.
#[derive(Debug)]
pub(crate) struct OutboxTask {
    /// Tells the task to start draining, and for how long.
    drain: oneshot::Sender<Duration>,
    join: JoinHandle<()>,
}

impl OutboxTask {
    /// Stops taking new replies, lets queued and in-flight parts finish for up to `drain`,
    /// reports the rest as failed (`Shutdown`), and ends the task.
    pub(crate) async fn drain_and_stop(self, drain: Duration) {
        // An error means the task already ended; the join below still waits for it.
        let _ = self.drain.send(drain);
        if let Err(e) = self.join.await {
            warn!(error = %e, "outbox task failed");
        }
    }
}

/// Starts the outbox task.
pub(crate) fn spawn(
    cfg: &RadioConfig,
    state: watch::Receiver<LinkState>,
    events: mpsc::Receiver<LinkEvent>,
    writes: mpsc::Sender<Outgoing>,
) -> (OutboxHandle, OutboxTask) {
    let (requests_tx, requests_rx) = mpsc::channel(REQUEST_QUEUE);
    let (drain_tx, drain_rx) = oneshot::channel();
    let core = OutboxCore::new(cfg, PacketIds::random());
    let gauge = Arc::new(Gauge::default());
    let join = tokio::spawn(task::run(task::Channels {
        core,
        state,
        events,
        writes,
        requests: requests_rx,
        drain: drain_rx,
        gauge: gauge.clone(),
    }));
    (
        OutboxHandle {
            requests: requests_tx,
            gauge,
        },
        OutboxTask {
            drain: drain_tx,
            join,
        },
    )
}

#[cfg(test)]
mod tests;
