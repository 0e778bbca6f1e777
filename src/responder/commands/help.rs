//! `!help` (`!h`, `!?`): what the bot does and its commands' words, in one packet; `!help
//! WORD` (`!help tell`) what one command does and takes. It asks nothing of identity: anyone
//! the bot answers gets it (an unknown `!word` gets it too).

use std::sync::Arc;

use futures_util::future::BoxFuture;

use super::{Caller, Command, help_for, help_text};
use crate::lang::Lang;
use crate::responder::identity::Ask;
use crate::responder::shared::Shared;

pub(super) const HELP: Command = Command {
    words: &["help", "h", "?"],
    ask: Ask::Help,
    help: None,
    takes: super::Takes::Topic,
    args: "",
    usage: None,
    answer,
};

fn answer<'a>(_: &'a Arc<Shared>, _: Caller, word: &'a str, lang: Lang) -> BoxFuture<'a, String> {
    Box::pin(async move { help_for(word, lang).unwrap_or_else(|| help_text(lang)) })
}
