//! `!reset` (`!forget`): forgets the node's messages, summary and facts. It asks identity for
//! the node's memory: only the node's own DM runs it.

use tracing::{info, warn};

use super::context::Memory;
use super::{Caller, Command};
use crate::lang::{Lang, Say, say};
use crate::node::NodeId;
use crate::responder::identity::Scope;

pub(super) const RESET: Command = Command {
    words: &["reset", "forget"],
    scope: Scope::Memory,
    help: Some(Say::HelpReset),
    takes: super::Takes::Nothing,
    args: "",
    usage: None,
    answer: answer!(answer),
};

async fn answer(ctx: &impl Memory, caller: Caller, _: &str, lang: Lang) -> String {
    let node = caller.node();
    reset(ctx, node, lang).await
}

/// Forgets the node's conversation; says why when the database is too damaged to (the store
/// logged the damage).
async fn reset(ctx: &impl Memory, node: NodeId, lang: Lang) -> String {
    match ctx.reset(node).await {
        Ok(()) => {
            info!("history and summary forgotten on request");
            // The next message says the conversation's language anew.
            ctx.forget_language(node);
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

#[cfg(test)]
mod tests {
    use std::sync::Mutex;

    use super::*;
    use crate::config::MemoryConfig;
    use crate::store::{Context, StoreError, StoredMessage};

    /// A memory whose reset succeeds or fails as told, and which notes the languages forgotten.
    struct Fake {
        fails: bool,
        forgotten: Mutex<Vec<NodeId>>,
        config: MemoryConfig,
    }

    impl Memory for Fake {
        fn memory(&self) -> &MemoryConfig {
            &self.config
        }

        async fn context(&self, _: NodeId, _: usize) -> Result<Context, StoreError> {
            Ok(Context::default())
        }

        async fn history(&self, _: NodeId, _: usize) -> Result<Vec<StoredMessage>, StoreError> {
            Ok(Vec::new())
        }

        async fn reset(&self, _: NodeId) -> Result<(), StoreError> {
            if self.fails {
                Err(StoreError::Closed)
            } else {
                Ok(())
            }
        }

        fn forget_language(&self, node: NodeId) {
            self.forgotten.lock().unwrap().push(node);
        }
    }

    #[tokio::test]
    async fn the_language_is_forgotten_only_with_the_conversation() {
        for (fails, say_what, forgotten) in [
            (false, Say::ResetDone, vec![NodeId(7)]),
            (true, Say::ResetFailed, vec![]),
        ] {
            let fake = Fake {
                fails,
                forgotten: Mutex::new(Vec::new()),
                config: MemoryConfig {
                    window_messages: 6,
                    summarize_threshold: 8,
                    summary_max_chars: 600,
                    retrieve_exchanges: 2,
                    facts_max: 8,
                    fold_tokens: 1500,
                    warm_after_fold: true,
                },
            };
            assert_eq!(
                reset(&fake, NodeId(7), Lang::En).await,
                say(Lang::En, say_what)
            );
            assert_eq!(*fake.forgotten.lock().unwrap(), forgotten, "fails: {fails}");
        }
    }
}
