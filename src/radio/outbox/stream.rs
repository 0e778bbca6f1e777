//! [`ReplyStream`]: the handle through which a streamed reply gets its parts while the model
//! still writes. The outbox (or the console, for `meshai chat`) holds the receiving end.

use tokio::sync::{mpsc, oneshot};

use super::OutboxClosed;

/// Parts waiting between the producer and the outbox; the producer waits when it is full.
const PARTS_QUEUE: usize = 8;

/// What a [`ReplyStream`] sends for its reply.
#[derive(Debug)]
pub enum StreamMsg {
    /// Complete parts (without markers), in order, known at the same moment; `last`: the
    /// last of them ends the reply. Parts that complete together travel together, so an
    /// answer that arrives whole is numbered ` i/n` like a batch reply.
    Parts { bodies: Vec<String>, last: bool },
    /// Take the reply back if no part of it was sent yet; answers whether it was.
    Retract(oneshot::Sender<bool>),
}

/// Sends the parts of one streamed reply. Dropping it without [`ReplyStream::last`] ends the
/// reply with the parts it got (numbered ` i/?`: none is known to be the last).
#[derive(Debug)]
pub struct ReplyStream {
    tx: mpsc::Sender<StreamMsg>,
}

impl ReplyStream {
    /// A stream and the receiving end for whoever sends the parts.
    pub fn channel() -> (ReplyStream, mpsc::Receiver<StreamMsg>) {
        let (tx, rx) = mpsc::channel(PARTS_QUEUE);
        (ReplyStream { tx }, rx)
    }

    /// Appends parts; more follow.
    pub async fn parts(&self, bodies: Vec<String>) -> Result<(), OutboxClosed> {
        let msg = StreamMsg::Parts {
            bodies,
            last: false,
        };
        self.tx.send(msg).await.map_err(|_| OutboxClosed)
    }

    /// Appends the last parts and closes the reply.
    pub async fn finish(self, bodies: Vec<String>) -> Result<(), OutboxClosed> {
        let msg = StreamMsg::Parts { bodies, last: true };
        self.tx.send(msg).await.map_err(|_| OutboxClosed)
    }

    /// Takes the reply back if none of its parts was sent yet: `true` means nothing of it
    /// will go on air (its report is empty); `false` that a part went (or may have gone),
    /// and the reply carries on.
    pub async fn retract(&self) -> bool {
        let (done, answer) = oneshot::channel();
        if self.tx.send(StreamMsg::Retract(done)).await.is_err() {
            return false;
        }
        answer.await.unwrap_or(false)
    }
}
