//! The answer to one message, once its prompt is built: the LLM call, the parts, the outbox,
//! and the reply stored in memory.
//!
//! Streamed (`[llm] stream`, the default): each attempt pumps a
//! `StreamedReply` (`streamed/core.rs`), which decides what happens to the text (cleaned,
//! chunked, each part handed to the outbox as soon as its cut is certain, the stop at the
//! budget); the pump (`streamed/mod.rs`) only reads the stream and the radio's report and
//! performs its steps. Once the reply budget is full the stream is dropped, which makes the
//! server stop.
//! A failure before any part went on air is handled as a failed call (the parts handed over
//! are taken back, a retry is made if the error and the time budget allow, else one notice);
//! a failure after that ends the reply with one short notice part. What the outbox took is
//! stored as it is handed over (`ReplyRow`, `streamed/row.rs`): the user saw it, so the
//! history and the summary must know it, even if the daemon dies mid-answer.
//!
//! Not streamed: one call, the whole answer chunked, stored and queued at once. So is an
//! answer with the documents' notes (`Question::check`): checked whole for values its prompt
//! does not hold (`knowledge::check`), and replaced before anything goes on air.
//!
//! An answer that only writes the person's message back is not sent: the daemon's "Noted."
//! (or, to a question, its unusable-answer notice) goes instead, and is what the memory keeps
//! (`echo`).
//!
//! A turn without memory (the database is damaged) stores nothing.
//!
//! Both ask [`crate::llm::LlmPool`], which fails over to the `[[llm.fallback]]` servers within
//! the one budget. A streamed answer that broke before any part went on air goes to the next
//! server at once; after that, never (the same line as for retries).

mod batch;
mod echo;
mod instead;
mod question;
mod recalled;
mod streamed;

use std::sync::{Arc, Mutex};

use crate::llm::LlmPool;
use crate::memory::layout::TokenRate;
use crate::responder::counters::Counters;
use crate::responder::reply::Outbound;
use crate::responder::schedule::gate::ReplyPermit;

pub(crate) use question::{Answered, Audience, Check, Kept, Lines, Question};

/// What an answer may touch: the model, where replies go, the counters and the token rate.
/// Nothing of the store: a DM's reply reaches its node's memory only through its audience
/// ([`Audience::Dm`]'s [`Kept`]), a channel's answer not at all.
pub(crate) struct AnswerCtx {
    /// The primary server and its fallbacks.
    pub(super) llm: Arc<LlmPool>,
    pub(super) out: Outbound,
    pub(super) counters: Arc<Counters>,
    /// Tokens per character of the server's prompts, learnt from its answers: what an answer
    /// cost, for the fold's token budget.
    pub(super) token_rate: Mutex<TokenRate>,
    /// `[llm] max_tokens`.
    pub(super) max_tokens: u32,
}

/// Asks the model and sends the answer (or one notice), storing the reply. `_permit` is the
/// LLM gate's slot the caller took before reading the memory; it is held until the answer
/// is complete. `None` when no answer went out.
pub(crate) async fn answer(
    ctx: &AnswerCtx,
    q: Question<'_>,
    _permit: ReplyPermit,
) -> Option<Answered> {
    // An answer to be checked is held until complete: a streamed part may be on air before
    // the value it carries could be checked, and a replacement after it would contradict it.
    if ctx.llm.streams() && q.check.is_none() {
        streamed::streamed(ctx, &q).await
    } else {
        batch::batch(ctx, &q).await
    }
}
