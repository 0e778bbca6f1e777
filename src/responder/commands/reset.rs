//! `!reset` (`!forget`): forgets the node's messages, summary and facts. It asks identity for
//! the node's memory: only the node's own DM runs it.

use std::sync::Arc;

use futures_util::future::BoxFuture;
use tracing::{info, warn};

use super::Command;
use crate::node::NodeId;
use crate::responder::identity::{Ask, Grant};
use crate::responder::reply::STORE_DAMAGED;
use crate::responder::shared::Shared;

pub(super) const RESET: Command = Command {
    words: &["reset", "forget"],
    ask: Ask::Memory,
    help: Some("forget our chat"),
    takes: super::Takes::Nothing,
    answer,
};

fn answer<'a>(
    shared: &'a Arc<Shared>,
    node: NodeId,
    _: Grant,
    _: &'a str,
) -> BoxFuture<'a, String> {
    Box::pin(reset(shared, node))
}

/// Forgets the node's conversation; says why when the database is too damaged to (the store
/// logged the damage).
async fn reset(shared: &Shared, node: NodeId) -> String {
    match shared.store.reset(node).await {
        Ok(()) => {
            info!("history and summary forgotten on request");
            "Done: I forgot our conversation and everything I remembered about you.".into()
        }
        Err(e) if e.damage().is_some() => {
            warn!(error = %e, "reset failed: the database is damaged");
            STORE_DAMAGED.into()
        }
        Err(e) => {
            warn!(error = %e, "reset failed");
            "Sorry, I could not reset your history. Try again later.".into()
        }
    }
}
