//! Commands answered without the LLM — `!summary`, `!reset`, `!status`, `!help`, one file
//! each — and what a message is as far as commands go ([`parse`], run once per message, at
//! the intake). `!more` (`more.rs`) is parsed here too, but it is a turn for the LLM: the
//! worker continues a cut answer, or says there is nothing to continue. Commands are never
//! held for a busy channel and never stored as messages. They run for the sender of a DM only
//! (`DmDest`), within what the identity rules grant (`identity::Grant`): each command states
//! what it asks of identity ([`Command::ask`]), and `identity::rule` decides, from that and
//! the DM's verdict, whether it runs and with which grant.
//!
//! Adding a command is a file that defines its [`Command`] (the words that call it, what it
//! asks of identity, its line in `!help`, its answer) and its line in [`COMMANDS`].

mod help;
pub mod more;
mod nodes;
mod reset;
mod status;
mod summary;

use std::fmt;
use std::sync::Arc;

use futures_util::future::BoxFuture;

use crate::lang::{Lang, Say, fill, say};
use crate::node::NodeId;
use crate::responder::identity::{Ask, Grant, Line};
use crate::responder::reply::DmDest;
use crate::responder::shared::Shared;

pub use more::{CONTINUE, NOTHING_MORE};

/// Every command, in the order `!help` lists them.
const COMMANDS: [&Command; 5] = [
    &summary::SUMMARY,
    &reset::RESET,
    &status::STATUS,
    &nodes::NODES,
    &help::HELP,
];

/// A command's answer to `node`'s DM, within what identity grants it, with the words after
/// the command (empty without; only for a command that [`Takes::Name`]).
type Answer = for<'a> fn(&'a Arc<Shared>, NodeId, Grant, &'a str, Lang) -> BoxFuture<'a, String>;

/// What a command takes after its word.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Takes {
    /// Nothing: `!help me please` is a text for the model.
    Nothing,
    /// A name, optional (`!nodes hilltop`).
    Name,
}

/// A command answered without the LLM.
pub struct Command {
    /// The words after `!` that call it, lowercase; the first is its name.
    words: &'static [&'static str],
    /// What it asks of identity.
    pub ask: Ask,
    /// What it does, for its line in `!help` (`None`: not listed).
    help: Option<Say>,
    /// What may follow its word.
    takes: Takes,
    answer: Answer,
}

impl Command {
    /// The word `!help` lists it by.
    fn name(&self) -> &'static str {
        self.words.first().copied().unwrap_or_default()
    }
}

impl fmt::Debug for Command {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "!{}", self.name())
    }
}

impl PartialEq for Command {
    fn eq(&self, other: &Command) -> bool {
        self.name() == other.name()
    }
}

impl Eq for Command {}

/// A `!word` that is a whole message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Call {
    Known(&'static Command),
    /// A command that takes a name, with it (one line, at most 40 characters).
    With(&'static Command, String),
    /// Not a command we know: answered with the help text rather than sent to the LLM (a
    /// typo like `!rest` must not cost an LLM call).
    Unknown(String),
}

impl Call {
    /// What it asks of identity; an unknown word gets the help.
    pub fn ask(&self) -> Ask {
        match self {
            Call::Known(cmd) | Call::With(cmd, _) => cmd.ask,
            Call::Unknown(_) => Ask::Help,
        }
    }
}

/// What a message is, as far as commands go.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Parsed {
    Command(Call),
    /// `!more`: the rest of the last answer, which was cut at the budget — a turn for the
    /// LLM, like a text.
    More,
    Text,
}

impl Parsed {
    /// What the message asks of identity.
    pub fn ask(&self) -> Ask {
        match self {
            Parsed::Command(call) => call.ask(),
            Parsed::More | Parsed::Text => Ask::Text,
        }
    }
}

/// Recognises a command: the whole message is `!word` (case-insensitive, surrounding spaces
/// ok), or `!word NAME` for a command that takes a name.
pub fn parse(text: &str) -> Parsed {
    let t = text.trim();
    let Some(word) = t.strip_prefix('!') else {
        return Parsed::Text;
    };
    if word.is_empty() || word.starts_with(char::is_whitespace) {
        return Parsed::Text;
    }
    if let Some((word, rest)) = word.split_once(char::is_whitespace) {
        let lower = word.to_lowercase();
        let named = COMMANDS
            .into_iter()
            .find(|c| c.takes == Takes::Name && c.words.contains(&lower.as_str()));
        return match named {
            Some(cmd) => Parsed::Command(Call::With(
                cmd,
                crate::text::cap(&crate::text::one_line(rest), 40),
            )),
            None => Parsed::Text,
        };
    }
    let lower = word.to_lowercase();
    if more::WORDS.contains(&lower.as_str()) {
        return Parsed::More;
    }
    match COMMANDS
        .into_iter()
        .find(|c| c.words.contains(&lower.as_str()))
    {
        Some(cmd) => Parsed::Command(Call::Known(cmd)),
        None => Parsed::Command(Call::Unknown(word.chars().take(20).collect())),
    }
}

/// The `!help` text, one packet: what to do, then `!more` and every listed command.
fn help_text(lang: Lang) -> String {
    let listed = COMMANDS.into_iter().filter_map(|c| {
        let arg = match c.takes {
            Takes::Nothing => "",
            Takes::Name => " [NAME]",
        };
        c.help
            .map(|what| format!(" !{}{arg}: {}.", c.name(), say(lang, what)))
    });
    let mut text = format!(
        "{} !{}: {}.",
        say(lang, Say::HelpIntro),
        more::WORDS[0],
        say(lang, more::HELP)
    );
    text.extend(listed);
    text
}

/// The answer to `!word`, a command we do not know: the help text.
fn unknown(lang: Lang, word: &str) -> String {
    let head = fill(say(lang, Say::UnknownCommand), &[("word", word)]);
    format!("{head} {}", help_text(lang))
}

/// Answers `call` from the sender of a DM with one reply to packet `id`, within `grant`.
pub(super) async fn run(shared: &Arc<Shared>, call: &Call, grant: Grant, dest: DmDest, id: u32) {
    // The conversation's language, where the command may use the memory.
    let lang = if grant.memory {
        shared.languages.of(dest.node())
    } else {
        shared.languages.of_text("")
    };
    let text = match call {
        // The identity rules refuse it without memory; this only keeps it so.
        Call::Known(cmd) | Call::With(cmd, _) if cmd.ask == Ask::Memory && !grant.memory => {
            say(lang, Line::Unchecked.say()).to_string()
        }
        Call::Known(cmd) => (cmd.answer)(shared, dest.node(), grant, "", lang).await,
        Call::With(cmd, name) => (cmd.answer)(shared, dest.node(), grant, name, lang).await,
        Call::Unknown(word) => unknown(lang, word),
    };
    shared
        .out
        .send(dest.into(), Some(id), &text, shared.settings.chunk)
        .await;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recognises_commands() {
        let known = |c: &'static Command| Parsed::Command(Call::Known(c));
        let cases: &[(&str, Parsed)] = &[
            ("!help", known(&help::HELP)),
            ("  !HELP ", known(&help::HELP)),
            ("!h", known(&help::HELP)),
            ("!?", known(&help::HELP)),
            ("!reset", known(&reset::RESET)),
            ("!forget", known(&reset::RESET)),
            ("!status", known(&status::STATUS)),
            ("!Summary", known(&summary::SUMMARY)),
            ("!memory", known(&summary::SUMMARY)),
            ("!more", Parsed::More),
            ("!MORE", Parsed::More),
            ("!rest", Parsed::Command(Call::Unknown("rest".into()))),
            ("!", Parsed::Text),
            ("! help", Parsed::Text),
            ("!help me please", Parsed::Text),
            ("!nodes", known(&nodes::NODES)),
            ("!node", known(&nodes::NODES)),
            (
                "!node  Hilltop\nRelay ",
                Parsed::Command(Call::With(&nodes::NODES, "Hilltop Relay".into())),
            ),
            ("!nodex hilltop", Parsed::Text),
            ("what is !help", Parsed::Text),
            ("hello", Parsed::Text),
        ];
        for (input, want) in cases {
            assert_eq!(&parse(input), want, "{input:?}");
        }
    }

    #[test]
    fn each_command_asks_identity_for_what_it_touches() {
        let cases = [
            ("!help", Ask::Help),
            ("!rest", Ask::Help),
            ("!status", Ask::Status),
            ("!reset", Ask::Memory),
            ("!summary", Ask::Memory),
            ("!more", Ask::Text),
            ("hello", Ask::Text),
        ];
        for (input, want) in cases {
            assert_eq!(parse(input).ask(), want, "{input:?}");
        }
    }

    #[test]
    fn the_help_lists_more_and_every_command_in_one_packet() {
        let help = help_text(Lang::En);
        assert_eq!(
            help,
            "Ask me anything. !more: rest of a cut answer. !summary: what I remember of you. \
             !reset: forget our chat. !status: bot health. !nodes [NAME]: the mesh."
        );
        assert!(help.len() <= 150);
        assert_eq!(
            unknown(Lang::En, "rest"),
            format!("Unknown command !rest. {help}")
        );
    }
}
