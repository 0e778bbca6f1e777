//! TODO(skeleton): filled in by the outbox work. The signatures below are the contract
//! between the link and the outbox.

use std::time::Duration;

use tokio::sync::{mpsc, oneshot, watch};

use super::{LinkEvent, LinkState, Outgoing, RadioConfig, ReplyReport, ReplyRequest};

/// Handle for queueing replies. Cheap to clone.
#[derive(Clone, Debug)]
pub struct OutboxHandle {}

#[derive(Debug, thiserror::Error)]
#[error("the outbox is closed")]
pub struct OutboxClosed;

impl OutboxHandle {
    /// Queues a reply; the receiver gets the outcome of every part once the reply is done.
    pub async fn send(
        &self,
        _req: ReplyRequest,
    ) -> Result<oneshot::Receiver<ReplyReport>, OutboxClosed> {
        Err(OutboxClosed)
    }
}

/// The running outbox task.
#[derive(Debug)]
pub struct OutboxTask {}

impl OutboxTask {
    /// Stops taking new replies, lets queued and in-flight parts finish for up to `drain`,
    /// reports the rest as failed (`Shutdown`), and ends the task.
    pub async fn drain_and_stop(self, _drain: Duration) {}
}

/// Starts the outbox task.
pub fn spawn(
    _cfg: &RadioConfig,
    _state: watch::Receiver<LinkState>,
    _events: mpsc::Receiver<LinkEvent>,
    _writes: mpsc::Sender<Outgoing>,
) -> (OutboxHandle, OutboxTask) {
    (OutboxHandle {}, OutboxTask {})
}
