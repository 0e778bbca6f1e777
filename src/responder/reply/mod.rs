//! Where replies go and how they leave: the destinations, typed so that a node's memory only
//! ever answers the sender of a DM (`dest`: `DmDest`, and `Destination` for any reply, a
//! channel's for mentions), the sink (`sink`: the radio's outbox, or the console for
//! `meshai chat`), sending (`outbound`: parts, one-packet notices, a streamed reply opened),
//! each reply's report followed (`report`) and the texts users read instead of raw errors
//! (`texts`).

mod dest;
mod outbound;
mod report;
mod sink;
mod texts;

pub(crate) use dest::{Destination, DmDest, Seal};
pub(crate) use outbound::Outbound;
pub(crate) use report::Stored;
pub use sink::{ConsoleReply, Sink};
pub(crate) use texts::failure_text;
