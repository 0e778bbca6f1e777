//! What one DM turn puts before the model besides the system prompt: what is asked (the
//! message as written, or `!more`'s continuation of an answer cut at the budget) and the
//! node's memory read for it (summary, facts, the unsummarised messages, retrieval).

use std::sync::Arc;

use tracing::{debug, warn};

use super::Shared;
use super::commands;
use super::fold::Limits;
use super::identity;
use crate::chunk::MORE;
use crate::node::NodeId;
use crate::store::{Context, Role, StoreError};

/// What a turn asks the model: the text stored as the user's message, what the model sees
/// in its place (after a header, if any), and what retrieval searches for.
#[derive(Debug, Clone, Copy)]
pub(super) struct Asked<'a> {
    pub text: &'a str,
    pub prompt: &'a str,
    pub query: &'a str,
}

impl Asked<'_> {
    /// A text, as it was written.
    pub fn text(text: &str) -> Asked<'_> {
        Asked {
            text,
            prompt: text,
            query: text,
        }
    }
}

/// `!more`: the continuation of the node's last answer when it was cut at the budget (its
/// text ends with [`MORE`]); `None` when there is nothing to continue — no memory, no answer,
/// a whole one, or a store that cannot say — and then the model is not asked.
pub(super) async fn more(
    shared: &Arc<Shared>,
    node: NodeId,
    grant: identity::Grant,
) -> Option<Asked<'static>> {
    if !grant.memory {
        return None;
    }
    match shared.store.last_message(node).await {
        Ok(Some(m)) if m.role == Role::Assistant && m.text.ends_with(MORE) => Some(Asked {
            text: "!more",
            prompt: commands::CONTINUE,
            query: "",
        }),
        Ok(_) => None,
        Err(e) => {
            debug!(error = %e, "could not read the last answer for !more");
            None
        }
    }
}

/// Loads the node's memory for answering message `user_id`.
pub(super) async fn load_context(
    shared: &Arc<Shared>,
    node: NodeId,
    user_id: i64,
    text: &str,
    limits: &Limits,
) -> Result<Context, StoreError> {
    let retrieve = shared.settings.memory.retrieve_exchanges;
    let mut ctx = shared
        .store
        .context(node, user_id, limits.max_prompt, text, retrieve)
        .await?;
    if ctx.summary.is_some() {
        ctx.kept = limits.keep;
    }
    if ctx.unsummarized > ctx.window.len() {
        warn!(
            unsummarized = ctx.unsummarized,
            in_prompt = ctx.window.len(),
            "summaries keep failing: the oldest unsummarised messages are left out of the prompt"
        );
    }
    Ok(ctx)
}
