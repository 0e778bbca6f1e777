//! Commands answered without the LLM: `!help`, `!reset`, `!status`, `!summary` — what a
//! message is as far as commands go ([`parse`]) and each command's answer (`run`; the
//! `!status` text is in `status.rs`). `!more` is parsed here too, but it is a turn for the
//! LLM (the worker continues a cut answer, or says there is nothing to continue). Commands are never held for a busy channel and never
//! stored as messages. They run for the sender of a DM only (`DmDest`), within what the
//! identity rules grant (`identity::Grant`): a command that reads or writes memory runs only
//! with `memory`, the admin part of `!status` only with `admin`.

mod status;

use std::sync::Arc;

use tracing::{info, warn};

use super::Shared;
use super::dest::DmDest;
use super::identity::{Grant, Line};
use super::reply::{STORE_DAMAGED, STORE_FAILED, send};
use crate::node::NodeId;
use crate::store::StoreError;

/// A recognised command.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Command {
    Help,
    Reset,
    Status,
    Summary,
}

/// What a message is, as far as commands go.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Parsed {
    Command(Command),
    /// Starts with `!` but is not a command we know: answered with the help text rather than
    /// sent to the LLM (a typo like `!rest` must not cost an LLM call).
    Unknown(String),
    /// `!more`: the rest of the last answer, which was cut at the budget — a turn for the
    /// LLM, like a text.
    More,
    Text,
}

impl Parsed {
    /// Whether the message is answered by the LLM (and so takes a turn).
    pub fn asks_llm(&self) -> bool {
        matches!(self, Parsed::Text | Parsed::More)
    }
}

/// Recognises a command: the whole message is `!word` (case-insensitive, surrounding spaces ok).
pub fn parse(text: &str) -> Parsed {
    let t = text.trim();
    let Some(word) = t.strip_prefix('!') else {
        return Parsed::Text;
    };
    if word.is_empty() || word.contains(char::is_whitespace) {
        return Parsed::Text;
    }
    match word.to_lowercase().as_str() {
        "help" | "h" | "?" => Parsed::Command(Command::Help),
        "reset" | "forget" => Parsed::Command(Command::Reset),
        "status" => Parsed::Command(Command::Status),
        "summary" | "memory" => Parsed::Command(Command::Summary),
        "more" => Parsed::More,
        _ => Parsed::Unknown(word.chars().take(20).collect()),
    }
}

/// The `!help` text: fits one packet.
pub const HELP: &str = "Ask me anything. !more: the rest of a cut answer. !summary: what I remember of you. !reset: forget our chat. !status: bot health.";

/// The answer to `!more` when the last answer was not cut (or there is none): the model is
/// not asked.
pub const NOTHING_MORE: &str = "Nothing more to send: my last answer was complete.";

/// What the model is asked in place of `!more` (stored as the message's prompt form).
pub const CONTINUE: &str = "Continue your last answer exactly where it stopped, in the same \
language, without repeating any of it.";

/// The answer to `!word`, a command we do not know: the help text.
pub(super) fn unknown(word: &str) -> String {
    format!("Unknown command !{word}. {HELP}")
}

/// Answers `cmd` from the sender of a DM with one reply to packet `id`, within `grant`.
pub(super) async fn run(shared: &Arc<Shared>, cmd: Command, grant: Grant, dest: DmDest, id: u32) {
    let node = dest.node();
    let text = match cmd {
        Command::Help => HELP.to_string(),
        // The identity rules refuse these without memory; this only keeps it so.
        Command::Reset | Command::Summary if !grant.memory => Line::Unchecked.text().to_string(),
        Command::Reset => reset(shared, node).await,
        Command::Status => status::text(shared, node, grant).await,
        Command::Summary => match summary(shared, node).await {
            Ok(text) => text,
            Err(e) if e.damage().is_some() => STORE_DAMAGED.into(),
            Err(e) => {
                warn!(error = %e, "could not read the summary");
                STORE_FAILED.into()
            }
        },
    };
    send(shared, dest.into(), Some(id), &text, shared.settings.chunk).await;
}

/// `!reset`: forgets the node's messages, summary and facts; says why when the database is
/// too damaged to (the store logged the damage).
async fn reset(shared: &Arc<Shared>, node: NodeId) -> String {
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

/// What `!summary` tells a user: the summary and the facts kept about them, or that there
/// are none (the history is read only then).
async fn summary(shared: &Arc<Shared>, node: NodeId) -> Result<String, StoreError> {
    let summary = shared.store.summary(node).await?;
    let facts = shared.store.facts(node).await?;
    if let Some(text) = remembered(summary.as_ref().map(|s| s.text.as_str()), &facts) {
        return Ok(text);
    }
    let any = !shared.store.history(node, 1).await?.is_empty();
    Ok(if any {
        "No summary yet: I only have our recent messages."
    } else {
        "I don't remember anything about you yet."
    }
    .into())
}

/// The summary, then the facts; `None` when there is neither.
fn remembered(summary: Option<&str>, facts: &[String]) -> Option<String> {
    let mut text = String::new();
    if let Some(s) = summary.map(str::trim).filter(|s| !s.is_empty()) {
        text.push_str("I remember: ");
        text.push_str(s);
    }
    if !facts.is_empty() {
        if !text.is_empty() {
            text.push(' ');
        }
        text.push_str("You told me: ");
        text.push_str(&facts.join(" / "));
    }
    (!text.is_empty()).then_some(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recognises_commands() {
        let cases: &[(&str, Parsed)] = &[
            ("!help", Parsed::Command(Command::Help)),
            ("  !HELP ", Parsed::Command(Command::Help)),
            ("!reset", Parsed::Command(Command::Reset)),
            ("!status", Parsed::Command(Command::Status)),
            ("!Summary", Parsed::Command(Command::Summary)),
            ("!rest", Parsed::Unknown("rest".into())),
            ("!", Parsed::Text),
            ("! help", Parsed::Text),
            ("!help me please", Parsed::Text),
            ("what is !help", Parsed::Text),
            ("hello", Parsed::Text),
        ];
        for (input, want) in cases {
            assert_eq!(&parse(input), want, "{input:?}");
        }
        assert!(HELP.len() <= 150);
    }

    #[test]
    fn an_unknown_command_gets_the_help() {
        assert_eq!(unknown("rest"), format!("Unknown command !rest. {HELP}"));
    }

    #[test]
    fn summary_says_the_summary_then_the_facts() {
        let facts = |f: &[&str]| f.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let cases: [(Option<&str>, Vec<String>, Option<&str>); 5] = [
            (None, facts(&[]), None),
            (Some("  \n "), facts(&[]), None),
            (
                Some(" Ann asked about antennas. "),
                facts(&[]),
                Some("I remember: Ann asked about antennas."),
            ),
            (
                None,
                facts(&["My name is Ann.", "I live in Vic."]),
                Some("You told me: My name is Ann. / I live in Vic."),
            ),
            (
                Some("Ann asked about antennas."),
                facts(&["My name is Ann."]),
                Some("I remember: Ann asked about antennas. You told me: My name is Ann."),
            ),
        ];
        for (summary, facts, want) in cases {
            assert_eq!(
                remembered(summary, &facts).as_deref(),
                want,
                "{summary:?} {facts:?}"
            );
        }
    }
}
