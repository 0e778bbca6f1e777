//! An answer not streamed: one call, the whole answer cleaned and chunked, stored in the
//! node's memory (or the channel's thread) and queued at once.

use std::sync::atomic::Ordering;

use tracing::{debug, info, warn};

use super::AnswerCtx;
use super::instead::{self, Guard, Replaced};
use super::question::{Answered, Audience, Check, Ending, Kept, Question, said_as_written};
use crate::chunk::{chunk_cut, strip_marker};
use crate::clock::unix_now;
use crate::knowledge::check::{self, Checked};
use crate::lang::{Say, say};
use crate::llm::{LlmError, Usage};
use crate::node::NodeId;
use crate::responder::reply::{Stored, failure_text};
use crate::store::Said;

pub(super) async fn batch(ctx: &AnswerCtx, q: &Question<'_>) -> Option<Answered> {
    let c = &ctx.counters;
    let mut asked = ctx
        .llm
        .complete_in(q.slot, q.messages, ctx.max_tokens)
        .await;
    // An everyday question the model refused is asked once more without the documents'
    // rule (`Question::again`).
    if let (Ok(done), Some(again)) = (&asked, q.again)
        && check::refuses(&done.text, q.lang)
    {
        info!("the model declined an everyday question: asked again without the documents' rule");
        asked = ctx.llm.complete_in(q.slot, &again(), ctx.max_tokens).await;
    }
    let done = match asked {
        Ok(done) => done,
        Err(e) => {
            c.llm_failures.fetch_add(1, Ordering::Relaxed);
            warn!(error = %e, "the LLM call failed");
            ctx.out
                .notice(q.audience.dest(), q.packet_id, &failure_text(q.lang, &e))
                .await;
            return None;
        }
    };
    c.llm_calls.fetch_add(1, Ordering::Relaxed);
    c.llm_ms_total
        .fetch_add(done.latency.as_millis() as u64, Ordering::Relaxed);
    let (text, replaced) = match q.check {
        Some(check) => checked(q, check, &done.text),
        None => (done.text.clone(), false),
    };
    // A sentence of the notes put in by the check is the daemon's, not the model's.
    let instead = match replaced {
        true => None,
        false => Guard::new(q.message, q.previous, q.lines, q.lang).instead_of(&text),
    };
    let echoed = instead.as_ref().map(|(_, r)| *r);
    let (text, replaced) = match instead {
        Some((instead, r)) => {
            instead::log(r);
            (instead, true)
        }
        None => (text, replaced),
    };
    let (parts, cut) = chunk_cut(&text, &q.limits, q.mark);
    if parts.is_empty() {
        c.llm_failures.fetch_add(1, Ordering::Relaxed);
        warn!("the LLM answer was empty after clean-up");
        ctx.out
            .notice(
                q.audience.dest(),
                q.packet_id,
                &failure_text(q.lang, &LlmError::Empty),
            )
            .await;
        return None;
    }
    let said = parts
        .iter()
        .map(|p| strip_marker(p))
        .collect::<Vec<_>>()
        .join(" ");
    let mut answered = Answered::of(ctx, q, done.raw.chars().count(), done.usage);
    let ending = if cut {
        Ending::CutAtBudget
    } else {
        Ending::Whole
    };
    // A replaced answer is said as the daemon wrote it: the model's is not the bot's.
    let said = match (echoed.and_then(Replaced::prompt), replaced) {
        (Some(prompt), _) => Said::with_prompt(said, prompt),
        (None, true) => Said::plain(said),
        (None, false) => said_as_written(said, &done.raw, ending),
    };
    let bodies: Vec<String> = parts.iter().map(|p| strip_marker(p).to_string()).collect();
    let stored = store(q, said, done.usage).await.map(|(node, id)| Stored {
        node,
        id,
        parts: bodies,
    });
    answered.reply = stored.as_ref().map(|s| s.id);
    info!(
        parts = parts.len(),
        prompt_chars = q.prompt_chars,
        latency_ms = done.latency.as_millis() as u64,
        "answer ready"
    );
    c.replies.fetch_add(1, Ordering::Relaxed);
    ctx.out
        .queue(q.audience.dest(), Some(q.packet_id), parts, stored)
        .await;
    Some(answered)
}

/// `text`, the model's answer, checked against the turn's notes: kept, or replaced by the
/// passages' own sentence or "Not in my notes." when it carries a value its prompt does not
/// hold (then `true`).
fn checked(q: &Question<'_>, check: Check<'_>, text: &str) -> (String, bool) {
    let prompt: String = q
        .messages
        .iter()
        .map(|m| m.content.as_str())
        .collect::<Vec<_>>()
        .join("\n");
    let (replacement, added) = match check::check(
        text,
        check.question,
        &prompt,
        check.notes,
        q.lang,
    ) {
        Checked::Kept => return (text.to_string(), false),
        Checked::Sentence { sentence, added } => (sentence, added),
        Checked::NotInNotes { added } => (say(q.lang, Say::NotInNotes).to_string(), added),
        Checked::Unanswered { sentence, kind } => {
            info!(
                ?kind,
                "the answer held nothing of what the question asks: the notes' sentence instead"
            );
            return (sentence, true);
        }
        Checked::OtherLine { sentence, kind } => {
            info!(
                ?kind,
                "the answer's value came from another line than the one asked about: that line instead"
            );
            return (sentence, true);
        }
        Checked::OtherCode { sentence } => {
            info!(
                "the answer's code came from another line than the one asked about: that line instead"
            );
            return (sentence, true);
        }
        Checked::Holder { sentence } => {
            info!("the answer named a job for a who, not its holder: the notes' line instead");
            return (sentence, true);
        }
        Checked::NoOne => {
            info!("the answer to a who named no one of the notes: Not in my notes instead");
            return (say(q.lang, Say::NotInNotes).to_string(), true);
        }
        Checked::StartForEnd => {
            info!("the answer gave a start time for an end: Not in my notes instead");
            return (say(q.lang, Say::NotInNotes).to_string(), true);
        }
        Checked::Recited { sentence } => {
            info!("the answer recited the instructions: the notes' sentence instead");
            let text = sentence.unwrap_or_else(|| say(q.lang, Say::NotInNotes).to_string());
            return (text, true);
        }
        Checked::Empty { sentence } => {
            info!(
                "the answer said nothing (the question's words, a passage's label): the notes' sentence instead"
            );
            let text = sentence.unwrap_or_else(|| say(q.lang, Say::NotInNotes).to_string());
            return (text, true);
        }
    };
    info!(
        values = added.len(),
        "the answer carried values its notes do not hold: replaced"
    );
    debug!(?added, "values the notes do not hold");
    (replacement, true)
}

/// Keeps what was said: in the node's memory after the message it answers (then the node
/// and the reply's row id come back), in the channel's public thread, or nowhere (an answer
/// without memory).
async fn store(q: &Question<'_>, said: Said, usage: Option<Usage>) -> Option<(NodeId, i64)> {
    match &q.audience {
        Audience::Dm {
            dest,
            kept: Some(Kept { store, user_id }),
        } => match store
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
        Audience::Dm { kept: None, .. } => None,
        Audience::Channel { said: slot, .. } => {
            // Set once per answer: a second value cannot come.
            let _ = slot.set(said.text);
            None
        }
    }
}
