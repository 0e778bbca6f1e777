//! The answer to one message, once its prompt is built: the LLM call, the parts, the outbox,
//! and the reply stored in memory.
//!
//! Streamed (`[llm] stream`, the default): each attempt pumps a
//! [`StreamedReply`](super::streamed_reply), which decides what happens to the text (cleaned,
//! chunked, each part handed to the outbox as soon as its cut is certain, the stop at the
//! budget); the pump (`answer/streamed.rs`) only reads the stream and the radio's report and
//! performs its steps. Once the reply budget is full the stream is dropped, which makes the server stop.
//! A failure before any part went on air is handled as a failed call (the parts handed over
//! are taken back, a retry is made if the error and the time budget allow, else one notice);
//! a failure after that ends the reply with one short notice part. What the outbox took is
//! stored as it is handed over ([`ReplyRow`](super::reply_row)): the user saw it, so the
//! history and the summary must know it, even if the daemon dies mid-answer.
//!
//! Not streamed: one call, the whole answer chunked, stored and queued at once.
//!
//! A turn without memory (the database is damaged) stores nothing.
//!
//! Both ask [`crate::llm::LlmPool`], which fails over to the `[[llm.fallback]]` servers within
//! the one budget. A streamed answer that broke before any part went on air goes to the next
//! server at once; after that, never (the same line as for retries).

mod streamed;

use std::sync::atomic::Ordering;
use std::sync::{Arc, OnceLock};

use tracing::{debug, info, warn};

use super::dest::{Destination, DmDest};
use super::gate::ReplyPermit;
use super::reply::{Stored, failure_text, notice, queue};
use super::{Shared, unix_now};
use crate::chunk::{ChunkLimits, CutMark, MORE, chunk_cut, strip_marker};
use crate::llm::clean::{as_written, written_until};
use crate::llm::{ChatMessage, LlmError, Usage};
use crate::node::NodeId;
use crate::store::Said;

/// Who the answer is for, and where what was said is kept.
pub(super) enum Audience<'a> {
    /// The sender of a DM. `stored`: the stored user message the reply answers (the reply
    /// is stored after it, in the node's memory); `None` for an answer without memory,
    /// which is not stored.
    Dm { dest: DmDest, stored: Option<i64> },
    /// Everyone on a channel: a public answer, never stored; what was said lands in `said`
    /// for the channel's public thread.
    Channel {
        dest: Destination,
        said: &'a OnceLock<String>,
    },
}

impl Audience<'_> {
    fn dest(&self) -> Destination {
        match self {
            Audience::Dm { dest, .. } => (*dest).into(),
            Audience::Channel { dest, .. } => *dest,
        }
    }
}

/// What the answer is for.
pub(super) struct Question<'a> {
    pub audience: Audience<'a>,
    /// The packet id of the message, set as `reply_id` on the first part.
    pub packet_id: u32,
    pub messages: &'a [ChatMessage],
    /// For the log.
    pub prompt_chars: usize,
    /// The llama.cpp server slot the node is pinned to, when the server has slots (the
    /// primary's: the pool never sends it to a fallback).
    pub slot: Option<u32>,
    /// This answer's parts: `[reply]`'s, or fewer when the channel is busy.
    pub limits: ChunkLimits,
    /// What ends an answer cut at the budget: `!more` only where the rest can be asked for
    /// (a DM whose conversation is stored).
    pub mark: CutMark,
}

/// What an answer that went out cost.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Answered {
    /// Tokens of the prompt and the reply: as the server counted them, or estimated from
    /// their characters (`memory::prompt::TokenRate`) when it did not say.
    pub(super) tokens: usize,
}

impl Answered {
    /// For a reply of `reply_chars` to `q`'s prompt: the server's `usage` (which also
    /// teaches the rate), else an estimate.
    fn of(shared: &Shared, q: &Question<'_>, reply_chars: usize, usage: Option<Usage>) -> Answered {
        let mut rate = match shared.token_rate.lock() {
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
        Answered { tokens }
    }
}

/// Asks the model and sends the answer (or one notice), storing the reply. `_permit` is the
/// LLM gate's slot the caller took before reading the memory; it is held until the answer
/// is complete. `None` when no answer went out.
pub(super) async fn answer(
    shared: &Arc<Shared>,
    q: Question<'_>,
    _permit: ReplyPermit,
) -> Option<Answered> {
    if shared.llm.streams() {
        streamed::streamed(shared, &q).await
    } else {
        batch(shared, &q).await
    }
}

async fn batch(shared: &Arc<Shared>, q: &Question<'_>) -> Option<Answered> {
    let s = &shared.settings;
    let c = &shared.counters;
    let done = match shared
        .llm
        .complete_in(q.slot, q.messages, s.max_tokens)
        .await
    {
        Ok(done) => done,
        Err(e) => {
            c.llm_failures.fetch_add(1, Ordering::Relaxed);
            warn!(error = %e, "the LLM call failed");
            notice(shared, q.audience.dest(), q.packet_id, &failure_text(&e)).await;
            return None;
        }
    };
    c.llm_calls.fetch_add(1, Ordering::Relaxed);
    c.llm_ms_total
        .fetch_add(done.latency.as_millis() as u64, Ordering::Relaxed);
    let (parts, cut) = chunk_cut(&done.text, &q.limits, q.mark);
    if parts.is_empty() {
        c.llm_failures.fetch_add(1, Ordering::Relaxed);
        warn!("the LLM answer was empty after clean-up");
        notice(
            shared,
            q.audience.dest(),
            q.packet_id,
            &failure_text(&LlmError::Empty),
        )
        .await;
        return None;
    }
    let said = parts
        .iter()
        .map(|p| strip_marker(p))
        .collect::<Vec<_>>()
        .join(" ");
    let answered = Answered::of(shared, q, done.raw.chars().count(), done.usage);
    let said = said_as_written(said, &done.raw, cut);
    let bodies: Vec<String> = parts.iter().map(|p| strip_marker(p).to_string()).collect();
    let stored = store(shared, q, said, done.usage)
        .await
        .map(|(node, id)| Stored {
            node,
            id,
            parts: bodies,
        });
    info!(
        parts = parts.len(),
        prompt_chars = q.prompt_chars,
        latency_ms = done.latency.as_millis() as u64,
        "answer ready"
    );
    c.replies.fetch_add(1, Ordering::Relaxed);
    queue(shared, q.audience.dest(), Some(q.packet_id), parts, stored).await;
    Some(answered)
}

/// Keeps what was said: in the node's memory after the message it answers (then the node
/// and the reply's row id come back), in the channel's public thread, or nowhere (an answer
/// without memory).
async fn store(
    shared: &Arc<Shared>,
    q: &Question<'_>,
    said: Said,
    usage: Option<Usage>,
) -> Option<(NodeId, i64)> {
    match &q.audience {
        Audience::Dm {
            dest,
            stored: Some(user_id),
        } => match shared
            .store
            .append_reply(dest.node(), *user_id, said, unix_now(), usage)
            .await
        {
            Ok(id) => Some((dest.node(), id)),
            // The store logs a damaged file once.
            Err(e) if e.damage().is_some() => {
                debug!(error = %e, "could not store the reply");
                None
            }
            Err(e) => {
                warn!(error = %e, "could not store the reply");
                None
            }
        },
        Audience::Dm { stored: None, .. } => None,
        Audience::Channel { said: slot, .. } => {
            // Set once per answer: a second value cannot come.
            let _ = slot.set(said.text);
            None
        }
    }
}

/// What was `said` of an answer the model wrote as `raw`, with what the next prompt should
/// repeat: the answer as the model wrote it — up to where the user's part of it ended, and
/// then `…`, when it was `cut` at the budget — so the server's cache of its own answer still
/// matches. Only the text when the written answer cannot be lined up with what was said.
fn said_as_written(said: String, raw: &str, cut: bool) -> Said {
    let written = if cut {
        let shown = said.strip_suffix(MORE).unwrap_or(&said);
        written_until(raw, shown).map(|w| format!("{w}…"))
    } else {
        as_written(raw).map(str::to_string)
    };
    match written {
        Some(w) => Said::with_prompt(said, w),
        None => Said::plain(said),
    }
}
