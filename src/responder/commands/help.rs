//! `!help` (`!h`, `!?`): what the bot does and its commands, in one packet. It asks nothing of
//! identity: anyone the bot answers gets it (an unknown `!word` gets it too).

use std::sync::Arc;

use futures_util::future::BoxFuture;

use super::{Command, help_text};
use crate::lang::Lang;
use crate::node::NodeId;
use crate::responder::identity::{Ask, Grant};
use crate::responder::shared::Shared;

pub(super) const HELP: Command = Command {
    words: &["help", "h", "?"],
    ask: Ask::Help,
    help: None,
    takes: super::Takes::Nothing,
    answer,
};

fn answer<'a>(
    _: &'a Arc<Shared>,
    _: NodeId,
    _: Grant,
    _: &'a str,
    lang: Lang,
) -> BoxFuture<'a, String> {
    Box::pin(async move { help_text(lang) })
}
