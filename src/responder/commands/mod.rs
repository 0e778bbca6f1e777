//! Commands answered without the LLM — `!summary`, `!reset`, `!status`, `!help`, one file
//! each — and what a message is as far as commands go ([`parse`], run once per message, at
//! the intake). `!more` (`more.rs`) is parsed here too, but it is a turn for the LLM: the
//! worker continues a cut answer, or says there is nothing to continue. Commands are never
//! held for a busy channel and never stored as messages. They run for the sender of a DM only
//! (`DmDest`), within what the identity rules grant (`identity::Grant`): each command states
//! what it reaches ([`Command::scope`]), and `identity::rule` decides, from that and
//! the DM's verdict, whether it runs and with which grant.
//!
//! Adding a command is a file that defines its [`Command`] (the words that call it, what it
//! reaches, its line in `!help`, its answer) and its line in [`COMMANDS`]. Its answer
//! never sees the responder's [`Shared`] handle: it is an `async fn(&impl Need, Caller, &str,
//! Lang) -> String`, generic over the traits of `context.rs` it uses; `adapter.rs` implements them
//! for [`Shared`] (written once) and [`answer!`] instantiates the answer with it.

/// A command's `async fn(&impl Need, Caller, &str, Lang) -> String` as its
/// [`Command::answer`], its context the responder's [`Shared`].
macro_rules! answer {
    ($f:path) => {
        |shared, caller, words, lang| Box::pin($f(shared, caller, words, lang))
    };
}

mod adapter;
mod context;
mod help;
mod mail;
pub(crate) mod more;
mod nodes;
mod reset;
mod status;
mod subscribe;
mod summary;
mod tell;
mod watch;

use std::fmt;
use std::sync::Arc;

use futures_util::future::BoxFuture;

use crate::lang::{Lang, Say, fill, say};
use crate::node::NodeId;
use crate::responder::identity::{Grant, Line, Scope};
use crate::responder::reply::DmDest;
use crate::responder::shared::Shared;
use crate::store::StoreError;

pub use more::{CONTINUE, NOTHING_MORE};

/// Every command, in the order `!help` lists them.
const COMMANDS: [&Command; 11] = [
    &summary::SUMMARY,
    &reset::RESET,
    &status::STATUS,
    &nodes::NODES,
    &tell::TELL,
    &mail::MAIL,
    &watch::WATCH,
    &watch::UNWATCH,
    &subscribe::SUBSCRIBE,
    &subscribe::UNSUBSCRIBE,
    &help::HELP,
];

/// Who runs a command: the sender of a DM, where its replies go, and what identity grants it.
#[derive(Debug, Clone, Copy)]
pub(super) struct Caller {
    pub(super) dest: DmDest,
    pub(super) grant: Grant,
}

impl Caller {
    /// The DM's sender.
    fn node(&self) -> NodeId {
        self.dest.node()
    }
}

/// A command's answer to a DM, with the words after the command (empty without; only for a
/// command that takes some, [`Takes`]): its `async fn`, adapted by [`answer!`].
type Answer = for<'a> fn(&'a Shared, Caller, &'a str, Lang) -> BoxFuture<'a, String>;

/// What a command takes after its word.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Takes {
    /// Nothing: `!help me please` is a text for the model.
    Nothing,
    /// A name, optional (`!nodes hilltop`).
    Name,
    /// A name and a text (`!tell Carol see you at 6`), at most [`TEXT_MAX`] characters.
    NameText,
    /// Another command's word, optional (`!help tell`); any other words make the message
    /// a text.
    Topic,
}

/// The most characters a command that takes a text keeps of it: two packets with the
/// sender's name in front.
pub(crate) const TEXT_MAX: usize = 200;

/// A command answered without the LLM.
pub struct Command {
    /// The words after `!` that call it, lowercase; the first is its name.
    words: &'static [&'static str],
    /// What it reaches, as far as identity goes.
    pub(crate) scope: Scope,
    /// What it does, for its line in `!help` (`None`: not listed).
    help: Option<Say>,
    /// What may follow its word.
    takes: Takes,
    /// How `!help WORD` shows what follows it (" [NAME]"), in the words people type.
    args: &'static str,
    /// What `!help WORD` says instead of its `!help` line, where that needs more (`None`:
    /// the line).
    usage: Option<Say>,
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
    /// A command that takes words, with them (one line, at most 40 characters, or
    /// [`TEXT_MAX`] for a name and a text).
    With(&'static Command, String),
    /// Not a command we know: answered with the help text rather than sent to the LLM (a
    /// typo like `!rest` must not cost an LLM call).
    Unknown(String),
}

impl Call {
    /// What it reaches, as far as identity goes; an unknown word gets the help.
    pub(crate) fn scope(&self) -> Scope {
        match self {
            Call::Known(cmd) | Call::With(cmd, _) => cmd.scope,
            Call::Unknown(_) => Scope::Help,
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
    /// What the message reaches, as far as identity goes.
    pub(crate) fn scope(&self) -> Scope {
        match self {
            Parsed::Command(call) => call.scope(),
            Parsed::More | Parsed::Text => Scope::Text,
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
            .find(|c| c.takes != Takes::Nothing && c.words.contains(&lower.as_str()));
        return match named {
            // `!help tell`; `!help me please` is a text.
            Some(cmd) if cmd.takes == Takes::Topic => {
                let known =
                    rest.split_whitespace().count() == 1 && help_for(rest, Lang::En).is_some();
                if known {
                    Parsed::Command(Call::With(cmd, rest.trim().to_string()))
                } else {
                    Parsed::Text
                }
            }
            Some(cmd) => {
                let max = if cmd.takes == Takes::NameText {
                    TEXT_MAX
                } else {
                    40
                };
                Parsed::Command(Call::With(
                    cmd,
                    crate::text::cap(&crate::text::one_line(rest), max),
                ))
            }
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

/// The `!help` text, one packet in every language: what to do, `!more` and every command's
/// word, and how to ask for one (`!help tell`: [`help_for`]).
fn help_text(lang: Lang) -> String {
    let words: Vec<String> = std::iter::once(more::WORDS[0])
        .chain(
            COMMANDS
                .into_iter()
                .filter(|c| c.help.is_some())
                .map(|c| c.name()),
        )
        .map(|w| format!("!{w}"))
        .collect();
    format!(
        "{} {} {}. {}",
        say(lang, Say::HelpIntro),
        say(lang, Say::HelpCommands),
        words.join(" "),
        say(lang, Say::HelpWord)
    )
}

/// `!help WORD`: what the command `word` (with or without its `!`) does and takes; `None`
/// for a word that is no listed command's.
fn help_for(word: &str, lang: Lang) -> Option<String> {
    let word = word.trim().trim_start_matches('!').to_lowercase();
    if more::WORDS.contains(&word.as_str()) {
        return Some(format!("!{}: {}.", more::WORDS[0], say(lang, more::HELP)));
    }
    let cmd = COMMANDS
        .into_iter()
        .find(|c| c.words.contains(&word.as_str()))?;
    let what = cmd.help?;
    if let Some(usage) = cmd.usage {
        return Some(say(lang, usage).to_string());
    }
    Some(format!("!{}{}: {}.", cmd.name(), cmd.args, say(lang, what)))
}

/// A command's answer when the store could not `what` for `node`: logged with the error, and
/// the user told in one line without its detail ([`Say::StoreDamaged`] when the file is
/// damaged, which the store logged once).
fn store_failed(lang: Lang, node: NodeId, what: &str, e: &StoreError) -> String {
    if e.damage().is_some() {
        return say(lang, Say::StoreDamaged).to_string();
    }
    tracing::warn!(node = %node, error = %e, "could not {what}");
    say(lang, Say::StoreFailed).to_string()
}

/// A numbered list one packet or a few long (`!mail`, `!watch`): `head` with `{n}` filled,
/// then "1 NAME WHAT, 2 …", each name cut to 16 characters; `none` when there is nothing.
fn numbered<'a>(
    lang: Lang,
    (head, none): (Say, Say),
    items: impl ExactSizeIterator<Item = (&'a str, String)>,
) -> String {
    if items.len() == 0 {
        return say(lang, none).to_string();
    }
    let head = fill(say(lang, head), &[("n", &items.len().to_string())]);
    let items: Vec<String> = items
        .enumerate()
        .map(|(i, (name, what))| format!("{} {} {what}", i + 1, crate::text::cap(name, 16)))
        .collect();
    format!("{head} {}", items.join(", "))
}

/// The item `word` numbers in a numbered list ("2", "#2"), if there is one.
fn nth<'a, T>(items: &'a [T], word: &str) -> Option<&'a T> {
    let n: usize = word.trim().trim_start_matches('#').parse().ok()?;
    items.get(n.checked_sub(1)?)
}

/// The answer to `!word`, a command we do not know: the help text.
fn unknown(lang: Lang, word: &str) -> String {
    let head = fill(say(lang, Say::UnknownCommand), &[("word", word)]);
    format!("{head} {}", help_text(lang))
}

/// What a worker runs commands with: the responder's [`Shared`] handle, which a command's
/// answer reaches only through the traits of `context.rs`. A worker can do nothing else with
/// it.
#[derive(Clone)]
pub(super) struct Runner(Arc<Shared>);

impl Runner {
    pub(super) fn new(shared: Arc<Shared>) -> Runner {
        Runner(shared)
    }

    /// Answers `call` from the sender of a DM with one reply to packet `id`, within `grant`.
    pub(super) async fn run(&self, call: &Call, grant: Grant, dest: DmDest, id: u32) {
        let shared = &*self.0;
        // The conversation's language, where the command may use the memory.
        let lang = if grant.memory {
            shared.languages.of(dest.node())
        } else {
            shared.languages.of_text("")
        };
        let caller = Caller { dest, grant };
        let text = match call {
            // The identity rules refuse it without memory; this only keeps it so.
            Call::Known(cmd) | Call::With(cmd, _)
                if cmd.scope == Scope::Memory && !grant.memory =>
            {
                say(lang, Line::Unchecked.say()).to_string()
            }
            Call::Known(cmd) => (cmd.answer)(shared, caller, "", lang).await,
            Call::With(cmd, words) => (cmd.answer)(shared, caller, words, lang).await,
            Call::Unknown(word) => unknown(lang, word),
        };
        shared
            .out
            .send(dest.into(), Some(id), &text, shared.settings.chunk)
            .await;
    }
}

#[cfg(test)]
mod tests;
