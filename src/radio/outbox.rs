//! TODO(skeleton): filled in by the radio work.

/// Handle for queueing replies.
#[derive(Clone, Debug)]
pub struct OutboxHandle {}

#[derive(Debug, thiserror::Error)]
#[error("the outbox is closed")]
pub struct OutboxClosed;
