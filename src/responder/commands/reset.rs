//! `!reset` (`!forget`): forgets the node's messages, summary and facts. It asks identity for
//! the node's memory: only the node's own DM runs it.

use tracing::{info, warn};

use super::{Caller, Command};
use crate::lang::{Lang, Say, say};
use crate::node::NodeId;
use crate::responder::identity::Ask;
use crate::responder::shared::Shared;

pub(super) const RESET: Command = Command {
    words: &["reset", "forget"],
    ask: Ask::Memory,
    help: Some(Say::HelpReset),
    takes: super::Takes::Nothing,
    args: "",
    usage: None,
    answer: answer!(answer),
};

async fn answer(shared: &Shared, caller: Caller, _: &str, lang: Lang) -> String {
    let node = caller.node();
    reset(shared, node, lang).await
}

/// Forgets the node's conversation; says why when the database is too damaged to (the store
/// logged the damage).
async fn reset(shared: &Shared, node: NodeId, lang: Lang) -> String {
    match shared.store.reset(node).await {
        Ok(()) => {
            info!("history and summary forgotten on request");
            // The next message says the conversation's language anew.
            shared.languages.forget(node);
            say(lang, Say::ResetDone).into()
        }
        Err(e) if e.damage().is_some() => {
            warn!(error = %e, "reset failed: the database is damaged");
            say(lang, Say::StoreDamaged).into()
        }
        Err(e) => {
            warn!(error = %e, "reset failed");
            say(lang, Say::ResetFailed).into()
        }
    }
}
