//! Where replies go: the radio's outbox, or the console for `meshai chat`.

use tokio::sync::{mpsc, oneshot};

use crate::node::{NodeId, Standing};
use crate::radio::{OutboxClosed, OutboxHandle, ReplyReport, ReplyRequest, ReplyStream, StreamMsg};

/// A reply handed to the console instead of the radio; whoever prints it reports back.
#[derive(Debug)]
pub struct ConsoleReply {
    pub request: ReplyRequest,
    /// For a streamed reply: its parts as they complete (`request.parts` is empty).
    pub parts: Option<mpsc::Receiver<StreamMsg>>,
    pub report: oneshot::Sender<ReplyReport>,
}

/// The destination of every reply the responder makes.
#[derive(Debug, Clone)]
pub enum Sink {
    Radio(OutboxHandle),
    Console(mpsc::Sender<ConsoleReply>),
}

impl Sink {
    /// Queues a reply to a node of `standing`; the receiver gets the outcome of each part.
    pub(crate) async fn send(
        &self,
        request: ReplyRequest,
        standing: Standing,
    ) -> Result<oneshot::Receiver<ReplyReport>, OutboxClosed> {
        match self {
            Sink::Radio(outbox) => outbox.send(request, standing).await,
            Sink::Console(tx) => {
                let (report, rx) = oneshot::channel();
                tx.send(ConsoleReply {
                    request,
                    parts: None,
                    report,
                })
                .await
                .map_err(|_| OutboxClosed)?;
                Ok(rx)
            }
        }
    }

    /// Queues a streamed reply to `head.to`, a node of `standing`; its parts follow through
    /// the [`ReplyStream`].
    pub async fn open(
        &self,
        head: ReplyRequest,
        standing: Standing,
    ) -> Result<(ReplyStream, oneshot::Receiver<ReplyReport>), OutboxClosed> {
        match self {
            Sink::Radio(outbox) => outbox.open(head, standing).await,
            Sink::Console(tx) => {
                let (report, rx) = oneshot::channel();
                let (stream, parts) = ReplyStream::channel();
                let request = ReplyRequest {
                    parts: Vec::new(),
                    ..head
                };
                tx.send(ConsoleReply {
                    request,
                    parts: Some(parts),
                    report,
                })
                .await
                .map_err(|_| OutboxClosed)?;
                Ok((stream, rx))
            }
        }
    }

    /// Replies the radio's outbox holds, by standing; none for the console.
    pub(crate) fn queued(&self) -> [usize; 3] {
        match self {
            Sink::Radio(outbox) => outbox.queued(),
            Sink::Console(_) => [0; 3],
        }
    }

    /// The nodes the radio's outbox holds replies for, with their standing; none for the
    /// console.
    pub(crate) fn holders(&self) -> Vec<(NodeId, Standing)> {
        match self {
            Sink::Radio(outbox) => outbox.holders(),
            Sink::Console(_) => Vec::new(),
        }
    }
}
