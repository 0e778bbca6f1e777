//! What an answer is for and what it came to: its [`Audience`] (a DM's sender, stored or
//! not; a channel, never stored), the [`Question`] (the prompt, the slot, the parts' limits,
//! the mark of an answer cut at the budget), what it cost ([`Answered`]), and what was said
//! as the model wrote it ([`said_as_written`]), for the next prompt.

use std::sync::OnceLock;

use super::AnswerCtx;
pub(crate) use super::recalled::Lines;
use crate::chunk::{ChunkLimits, CutMark, without_mark};
use crate::llm::clean::{as_written, written_until};
use crate::llm::{ChatMessage, Usage};
use crate::responder::reply::{Destination, DmDest};
use crate::store::{Said, Store};

/// Who the answer is for, and where what was said is kept.
pub(crate) enum Audience<'a> {
    /// The sender of a DM. `kept`: where the reply is kept, after the stored user message it
    /// answers, in the node's memory; `None` for an answer without memory, which is not
    /// stored.
    Dm {
        dest: DmDest,
        kept: Option<Kept<'a>>,
    },
    /// Everyone on a channel: a public answer, never stored; what was said lands in `said`
    /// for the channel's public thread.
    Channel {
        dest: Destination,
        said: &'a OnceLock<String>,
    },
}

/// A DM's reply kept in its node's memory: the store, and the stored user message it answers
/// (the reply is stored after it).
#[derive(Clone, Copy)]
pub(crate) struct Kept<'a> {
    pub(crate) store: &'a Store,
    pub(crate) user_id: i64,
}

impl Audience<'_> {
    /// Where the reply goes.
    pub(super) fn dest(&self) -> Destination {
        match self {
            Audience::Dm { dest, .. } => (*dest).into(),
            Audience::Channel { dest, .. } => *dest,
        }
    }
}

/// What the answer is for.
pub(crate) struct Question<'a> {
    pub(crate) audience: Audience<'a>,
    /// The packet id of the message, set as `reply_id` on the first part.
    pub(crate) packet_id: u32,
    pub(crate) messages: &'a [ChatMessage],
    /// For the log.
    pub(crate) prompt_chars: usize,
    /// The llama.cpp server slot the node is pinned to, when the server has slots (the
    /// primary's: the pool never sends it to a fallback).
    pub(crate) slot: Option<u32>,
    /// This answer's parts: `[reply]`'s, or fewer when the channel is busy.
    pub(crate) limits: ChunkLimits,
    /// What ends an answer cut at the budget: `!more` only where the rest can be asked for
    /// (a DM whose conversation is stored).
    pub(crate) mark: CutMark,
    /// The language of its notices.
    pub(crate) lang: crate::lang::Lang,
    /// The person's message: an answer that only writes it back is replaced (`echo`).
    pub(crate) message: &'a str,
    /// The exchange before it, as the prompt has it (their message, the bot's answer): an
    /// answer that is that answer again, to another message, is replaced too.
    pub(crate) previous: Option<(&'a str, &'a str)>,
    /// The person's memory as the prompt shows it: an answer to a question about one line
    /// taken from another is replaced by that one (`recalled`).
    pub(crate) lines: &'a Lines,
    /// The documents' note to check the answer against (`knowledge::check`); then it is
    /// held until complete, not streamed.
    pub(crate) check: Option<Check<'a>>,
    /// For an everyday question while the system prompt carries the documents' rule: the
    /// prompt without it (nor the rule closing the passages). An answer that declines
    /// ("Not in my notes.", `knowledge::check::refuses`) before any of it is on air is not
    /// sent; the model is asked once more with this prompt, built only then.
    pub(crate) again: Option<&'a (dyn Fn() -> Vec<ChatMessage> + Sync)>,
}

/// What an answer is checked against: the knowledge note of the turn and its question.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Check<'a> {
    pub(crate) notes: &'a str,
    pub(crate) question: &'a str,
}

/// What an answer that went out cost.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Answered {
    /// Tokens of the prompt and the reply: as the server counted them, or estimated from
    /// their characters (`memory::layout::TokenRate`) when it did not say.
    pub(crate) tokens: usize,
    /// The reply's row in the node's memory, when it was stored: the fold after the turn
    /// continues the conversation through it.
    pub(crate) reply: Option<i64>,
}

impl Answered {
    /// For a reply of `reply_chars` to `q`'s prompt: the server's `usage` (which also
    /// teaches the rate), else an estimate.
    pub(super) fn of(
        ctx: &AnswerCtx,
        q: &Question<'_>,
        reply_chars: usize,
        usage: Option<Usage>,
    ) -> Answered {
        let mut rate = match ctx.token_rate.lock() {
            Ok(rate) => rate,
            Err(poisoned) => poisoned.into_inner(),
        };
        let tokens = match usage {
            Some(u) => {
                rate.observe(u.prompt_tokens, q.prompt_chars);
                usize::try_from(u.prompt_tokens.saturating_add(u.completion_tokens))
                    .unwrap_or(usize::MAX)
            }
            None => rate.estimate(q.prompt_chars.saturating_add(reply_chars)),
        };
        Answered {
            tokens,
            reply: None,
        }
    }
}

/// How an answer ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Ending {
    /// As the model ended it.
    Whole,
    /// Cut at the budget.
    CutAtBudget,
}

/// What was `said` of an answer the model wrote as `raw`, with what the next prompt should
/// repeat: the answer as the model wrote it — up to where the user's part of it ended, and
/// then `…`, when it was cut at the budget — so the server's cache of its own answer still
/// matches. Only the text when the written answer cannot be lined up with what was said.
pub(super) fn said_as_written(said: String, raw: &str, ending: Ending) -> Said {
    let written = match ending {
        Ending::CutAtBudget => {
            let shown = without_mark(&said);
            written_until(raw, shown).map(|w| format!("{w}…"))
        }
        Ending::Whole => as_written(raw).map(str::to_string),
    };
    match written {
        Some(w) => Said::with_prompt(said, w),
        None => Said::plain(said),
    }
}
