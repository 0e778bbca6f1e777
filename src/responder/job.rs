//! What the intake hands a node's worker: a [`Job`], always for the sender of a DM. The intake
//! parses each message once (`commands::parse`) and screens who sent it (`screen`), so a job
//! says what the message is — a command, a text with its turn, a text that joined its node's
//! waiting turn, a `!more` with its turn — or is a notice; the worker matches on it and decides nothing of that again.

use crate::node::Standing;
use crate::radio::TextMessage;
use crate::responder::commands::Call;
use crate::responder::identity::Who;
use crate::responder::identity::keys::KeyTable;
use crate::responder::identity::trust::keep_unanswered;
use crate::responder::reply::DmDest;
use crate::responder::schedule::gate::Turn;
use crate::store::Store;

/// A DM as the intake let it through: the message, where its replies go, who sent it.
#[derive(Debug)]
pub(super) struct Dm {
    pub(super) msg: TextMessage,
    pub(super) dest: DmDest,
    pub(super) who: Who,
}

/// A unit of work for a node's worker. A DM is boxed: it is far larger than a notice.
#[derive(Debug)]
pub(super) enum Job {
    /// A `!word`: answered without the LLM.
    Command { dm: Box<Dm>, call: Call },
    /// A question for the model, with its LLM turn.
    Text { dm: Box<Dm>, turn: Turn },
    /// A question that joined its node's waiting turn (the [`Job::Text`] before it in the
    /// queue): answered with it, in one call.
    Join { dm: Box<Dm> },
    /// `!more`, with its LLM turn: the rest of the last answer, if it was cut.
    More { dm: Box<Dm>, turn: Turn },
    /// One packet to the node: a refusal, or the rate limit's word.
    Notice {
        text: String,
        dest: DmDest,
        reply_to: u32,
    },
}

impl Job {
    /// The standing of the DM's sender, as the intake found it.
    pub(super) fn standing(&self) -> Standing {
        match self {
            Job::Command { dm, .. }
            | Job::Text { dm, .. }
            | Job::Join { dm }
            | Job::More { dm, .. } => dm.dest.standing(),
            Job::Notice { dest, .. } => dest.standing(),
        }
    }

    /// A job that will not be done (its node's queue is full, shutting down): a text is still
    /// stored when it is the node's own, and nothing else is kept.
    pub(super) async fn keep_unanswered(self, store: &Store, keys: &KeyTable) {
        match self {
            Job::Text { dm, turn } => {
                keep_unanswered(store, keys, &dm.msg, dm.who).await;
                drop(turn);
            }
            Job::Join { dm } => keep_unanswered(store, keys, &dm.msg, dm.who).await,
            Job::Command { .. } | Job::More { .. } | Job::Notice { .. } => {}
        }
    }
}
