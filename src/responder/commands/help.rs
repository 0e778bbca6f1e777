//! `!help` (`!h`, `!?`): what the bot does and its commands' words, in one packet; `!help
//! WORD` (`!help tell`) what one command does and takes. It asks nothing of identity: anyone
//! the bot answers gets it (an unknown `!word` gets it too).

use super::{Caller, Command, help_for, help_text};
use crate::lang::Lang;
use crate::responder::identity::Scope;

pub(super) const HELP: Command = Command {
    words: &["help", "h", "?"],
    scope: Scope::Help,
    help: None,
    takes: super::Takes::Topic,
    args: "",
    usage: None,
    answer: answer!(answer),
};

/// It needs nothing of the daemon: any context will do.
async fn answer<C>(_: &C, _: Caller, word: &str, lang: Lang) -> String {
    help_for(word, lang).unwrap_or_else(|| help_text(lang))
}
