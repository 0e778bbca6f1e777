//! `!more`: the rest of an answer cut at the budget. Not a command the worker answers: it is
//! a turn for the LLM (`responder::turn`), which continues the node's last answer when it
//! was cut — asked as [`CONTINUE`] — or says [`NOTHING_MORE`] without asking the model.

use crate::lang::Say;

/// The words that call it.
pub(super) const WORDS: [&str; 1] = ["more"];

/// What it does, for its line in `!help`.
pub(super) const HELP: Say = Say::HelpMore;

/// The answer to `!more` when the last answer was not cut (or there is none), in English
/// (`Say::NothingMore` in every language): the model is not asked.
pub const NOTHING_MORE: &str = "Nothing more to send: my last answer was complete.";

/// What the model is asked in place of `!more` (stored as the message's prompt form), in
/// English (`Part::Continue` in the conversation's language).
pub const CONTINUE: &str = "Continue your last answer exactly where it stopped, in the same \
language, without repeating any of it.";

/// The text a `!more` is stored as, whatever its case or spaces.
pub(crate) const STORED: &str = "!more";
