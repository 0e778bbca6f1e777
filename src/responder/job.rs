//! What the intake hands a node's worker: a [`Job`], always for the sender of a DM.

use crate::radio::TextMessage;
use crate::responder::dest::DmDest;
use crate::responder::gate::Turn;
use crate::responder::trust::Grant;

/// A unit of work for a node's worker: always for the sender of a DM.
#[derive(Debug)]
pub(super) enum Job {
    Message {
        /// Boxed: a message is far larger than a notice.
        msg: Box<TextMessage>,
        dest: DmDest,
        /// What the message may do (its identity, as far as the intake knows).
        grant: Grant,
        /// The LLM turn of a text (none for a command).
        turn: Option<Turn>,
    },
    Notice {
        text: String,
        dest: DmDest,
        reply_to: u32,
    },
}
