//! What the store's calls take and return: the messages as stored (`StoredMessage`, `Said`:
//! what was said and what the model saw), a node's memory for a prompt (`Context`, `Summary`,
//! `Exchange`), the fold's job and save (`FoldRule`, `SummaryJob`, `SummarySave`), `meshai
//! stats`' numbers (`NodeStats`).

use rusqlite::types::{FromSql, FromSqlError, FromSqlResult, ToSql, ToSqlOutput, ValueRef};

use crate::node::NodeId;

/// Who wrote a stored message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    User,
    Assistant,
}

impl Role {
    /// The spelling in the `messages.role` column (and in the OpenAI API).
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Role::User => "user",
            Role::Assistant => "assistant",
        }
    }
}

impl ToSql for Role {
    fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
        Ok(ToSqlOutput::from(self.as_str()))
    }
}

impl FromSql for Role {
    fn column_result(value: ValueRef<'_>) -> FromSqlResult<Self> {
        match value.as_str()? {
            "user" => Ok(Role::User),
            "assistant" => Ok(Role::Assistant),
            _ => Err(FromSqlError::InvalidType),
        }
    }
}

/// One message of a node's conversation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredMessage {
    /// Row id; ids grow with time, so they order a conversation and serve as cursors.
    pub(crate) id: i64,
    pub role: Role,
    pub text: String,
    /// Unix seconds when the message was received or sent.
    pub(crate) at: i64,
    /// The message as the model saw it, when that differs from `text`: a user message with
    /// its header, a reply as the model wrote it.
    pub(crate) prompt: Option<String>,
}

impl StoredMessage {
    /// What the prompt carries for this message: exactly what the model saw (or wrote).
    pub(crate) fn prompt_text(&self) -> &str {
        self.prompt.as_deref().unwrap_or(&self.text)
    }
}

/// A message to store: its text (what was said, as people see it in `!summary`, the history
/// and retrieval) and, when it differs, what the model saw or wrote (the next prompts repeat
/// it byte for byte; see `memory::layout`).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Said {
    pub(crate) text: String,
    pub(crate) prompt: Option<String>,
}

impl Said {
    /// A message the model saw as it was said.
    pub(crate) fn plain(text: impl Into<String>) -> Said {
        Said {
            text: text.into(),
            prompt: None,
        }
    }

    /// A message the model saw (or wrote) as `prompt`; kept only when it differs from `text`.
    pub(crate) fn with_prompt(text: impl Into<String>, prompt: impl Into<String>) -> Said {
        let text = text.into();
        let prompt = prompt.into();
        Said {
            prompt: (prompt != text).then_some(prompt),
            text,
        }
    }

    /// The prompt column's value: `None` when the prompt is the text.
    pub(crate) fn prompt(&self) -> Option<&str> {
        self.prompt.as_deref().filter(|p| *p != self.text)
    }
}

impl From<&str> for Said {
    fn from(text: &str) -> Said {
        Said::plain(text)
    }
}

impl From<String> for Said {
    fn from(text: String) -> Said {
        Said::plain(text)
    }
}

/// The rolling summary of a node's older messages.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Summary {
    pub(crate) text: String,
    /// The newest message id folded into `text`; later messages are not in it yet.
    pub(crate) through_id: i64,
    /// Unix seconds of the last save.
    pub(crate) updated_at: i64,
}

/// A fact a newer statement replaced: out of the prompt, kept for the record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RetiredFact {
    pub(crate) text: String,
    /// Unix seconds of the fold that kept it.
    pub(crate) at: i64,
    /// Unix seconds of the fold that retired it.
    pub(crate) retired_at: i64,
    /// The statement that replaced it, unless that is gone too (restated, over the bound).
    pub(crate) replaced_by: Option<String>,
}

/// A user message and the reply to it, as found by retrieval.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Exchange {
    pub(crate) user: String,
    pub(crate) assistant: String,
    /// Unix seconds of the reply.
    pub(crate) at: i64,
}

/// How much of a node's unsummarised conversation a prompt carries at most: the newest
/// `messages`, and of those only the newest whose text (as the model sees it) fits in `chars`
/// (the newest one always). A flood of stored messages cannot make a prompt larger.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Window {
    pub(crate) messages: usize,
    pub(crate) chars: usize,
}

impl From<usize> for Window {
    /// At most `messages`, however long.
    fn from(messages: usize) -> Window {
        Window {
            messages,
            chars: usize::MAX,
        }
    }
}

impl Window {
    /// How many of `msgs` (oldest first), counted from the newest, fit.
    pub(crate) fn fits(&self, msgs: &[StoredMessage]) -> usize {
        let mut chars = 0usize;
        let mut n = 0;
        for m in msgs.iter().rev().take(self.messages) {
            chars = chars.saturating_add(m.prompt_text().chars().count());
            if n > 0 && chars > self.chars {
                break;
            }
            n += 1;
        }
        n
    }
}

/// Everything the prompt builder needs for one reply.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Context {
    pub(crate) summary: Option<Summary>,
    /// What the user stated about themselves, kept verbatim, oldest first.
    pub(crate) facts: Vec<String>,
    /// The messages before the new one that no saved summary covers yet, oldest first (all of
    /// them, unless there are more than the prompt may carry: then the newest).
    pub(crate) window: Vec<StoredMessage>,
    /// How many messages before the new one no saved summary covers (`window.len()` unless
    /// the prompt's bound cut some).
    pub(crate) unsummarized: usize,
    /// Older exchanges that match the new message, best match first.
    pub(crate) retrieved: Vec<Exchange>,
    /// How many of the first `window` messages the last fold left verbatim (0 before the
    /// first fold): their answers go into the prompt cut short (`memory::layout::conversation`).
    pub(crate) kept: usize,
}

/// Which of a node's unsummarised messages a fold takes, and when one is due.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FoldRule {
    /// Messages left verbatim after the fold (one more when the first of them would be a
    /// reply, so what stays starts with a question).
    pub(crate) keep: usize,
    /// A fold is due when more than `keep + threshold` messages are unsummarised...
    pub(crate) threshold: usize,
    /// ...or now, however many there are beyond `keep` (the prompt reached its token budget),
    /// as long as they hold `min_now_chars` characters (as the model sees them).
    pub(crate) now: bool,
    /// What a fold `now` must take at least: less is not worth the fold's cost.
    pub(crate) min_now_chars: usize,
    /// Messages folded in one summary call at most.
    pub(crate) max_batch: usize,
    /// Characters of messages (as the model sees them) folded in one call at most (the first
    /// message always): a flood of stored messages is folded a bounded batch at a time.
    pub(crate) max_chars: usize,
}

/// Work for the summariser: fold `evicted` into `previous`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SummaryJob {
    pub(crate) previous: Option<Summary>,
    /// The facts kept now, oldest first: the memory block the node's prompts carry.
    pub(crate) facts: Vec<String>,
    /// The unsummarised messages after `evicted` that the fold leaves verbatim, oldest first.
    pub(crate) kept: Vec<StoredMessage>,
    /// The oldest unsummarised messages, to be folded, oldest first.
    pub(crate) evicted: Vec<StoredMessage>,
}

/// A summary to save, with the facts picked from the folded messages.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SummarySave {
    pub(crate) text: String,
    /// The newest message id folded into `text`.
    pub(crate) through_id: i64,
    /// The cursor the summary was computed from (`None` = no summary yet); a different stored
    /// cursor means a reset or another save happened meanwhile, and nothing is saved.
    pub(crate) expected_previous: Option<i64>,
    /// New facts with the id of the message each came from, oldest first.
    pub(crate) facts: Vec<(String, i64)>,
    /// The node keeps at most this many facts, the newest.
    pub(crate) facts_max: usize,
}

impl SummarySave {
    /// A save that adds no facts and leaves the kept ones as they are.
    #[cfg(test)]
    pub(crate) fn without_facts(
        text: impl Into<String>,
        through_id: i64,
        expected_previous: Option<i64>,
    ) -> SummarySave {
        SummarySave {
            text: text.into(),
            through_id,
            expected_previous,
            facts: Vec::new(),
            facts_max: usize::MAX,
        }
    }
}

/// Per-node numbers for `meshai stats`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NodeStats {
    pub(crate) node: NodeId,
    pub(crate) long_name: Option<String>,
    /// Stored messages (both roles); drops to 0 after a reset.
    pub(crate) messages: u64,
    /// Unix seconds the node was last heard, if it was ever touched.
    pub(crate) last_seen: Option<i64>,
    /// Length of the rolling summary in characters (0 without one).
    pub(crate) summary_chars: usize,
    pub(crate) llm_calls: u64,
    pub(crate) prompt_tokens: u64,
    pub(crate) completion_tokens: u64,
}
