//! The streamed-reply side of the outbox core: a reply opened before its parts exist, parts
//! appended while the model writes, the producer leaving, and taking a reply back while none
//! of its parts was sent. Numbering happens at send time (`send_part`).

use tracing::debug;

use super::{Action, OutboxCore, ReplyId};
use crate::chunk::Numbering;
use crate::node::Standing;
use crate::radio::{ReplyReport, ReplyRequest};

/// The state of a streamed reply.
#[derive(Debug, Clone, Copy)]
pub(super) struct Streamed {
    /// More parts may come.
    pub(super) open: bool,
    /// Closed by its last part (not by its producer leaving): the total is known.
    pub(super) complete: bool,
    pub(super) numbering: Numbering,
}

impl<K> OutboxCore<K> {
    /// Queues a streamed reply to a node of `standing` whose parts come later (`req.parts` are
    /// bodies without markers, usually none yet); `key` comes back with its report once it is
    /// closed and every part has an outcome.
    pub fn open(&mut self, req: ReplyRequest, standing: Standing, key: K) -> ReplyId {
        let streamed = Streamed {
            open: true,
            complete: false,
            numbering: Numbering::default(),
        };
        self.add(req, standing, key, Some(streamed))
    }

    /// Appends parts (bodies, without markers) to the streamed reply `id`; `last` closes it.
    /// Ignored when the reply is closed or already reported (it failed).
    pub(crate) fn push(&mut self, id: ReplyId, bodies: Vec<String>, last: bool) {
        let Some(reply) = self.queue.iter_mut().find(|r| r.id == id) else {
            debug!(id, "part for a reply no longer queued, dropped");
            return;
        };
        match reply.stream.as_mut() {
            Some(s) if s.open => {
                reply.req.parts.extend(bodies);
                s.open = !last;
                s.complete = last;
            }
            _ => debug!(id, "part for a closed reply, dropped"),
        }
    }

    /// No more parts come for the streamed reply `id` (its producer is gone). Its parts
    /// still go out, numbered ` i/?`: none of them is known to end the answer.
    pub fn close(&mut self, id: ReplyId) {
        if let Some(reply) = self.queue.iter_mut().find(|r| r.id == id) {
            if let Some(s) = reply.stream.as_mut() {
                s.open = false;
            }
        }
        self.report_finished(id);
    }

    /// Takes the streamed reply `id` back if none of its parts was sent yet (its report is
    /// empty). `false` once a part was written to the link, or the reply is gone.
    pub(crate) fn retract(&mut self, id: ReplyId) -> bool {
        let Some(at) = self.queue.iter().position(|r| r.id == id && !r.begun()) else {
            return false;
        };
        if let Some(reply) = self.remove(at) {
            self.out
                .push(Action::Report(reply.key, ReplyReport { parts: Vec::new() }));
        }
        true
    }
}
