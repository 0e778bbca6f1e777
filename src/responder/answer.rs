//! The answer to one message, once its prompt is built: the LLM call, the parts, the outbox,
//! and the reply stored in memory.
//!
//! Streamed (`[llm] stream`, the default): the answer is cleaned and chunked as it comes in,
//! and each part goes to the outbox as soon as its cut is certain, while the model writes on.
//! Once the reply budget is full the stream is dropped, which makes the server stop. A
//! failure before any part went on air is handled as a failed call (the parts handed over
//! are taken back, a retry is made if the error and the time budget allow, else one notice);
//! a failure after that ends the reply with one short notice part ([`CUT_OFF`]), and what
//! was handed to the outbox is stored as the answer: the user saw it, so the history and
//! the summary must know it.
//!
//! Not streamed: one call, the whole answer chunked and queued at once.
//!
//! Both ask [`crate::llm::LlmPool`], which fails over to the `[[llm.fallback]]` servers within
//! the one budget. A streamed answer that broke before any part went on air goes to the next
//! server at once; after that, never (the same line as for retries).

use std::sync::Arc;
use std::sync::atomic::Ordering;

use futures_util::FutureExt;
use tokio::sync::oneshot;
use tokio::time::Instant;
use tracing::{debug, info, warn};

use super::gate::ReplyPermit;
use super::reply::{failure_text, notice, queue, watch_report};
use super::{Destination, Shared, unix_now};
use crate::chunk::{ChunkLimits, StreamChunker, chunk, strip_marker};
use crate::llm::clean::StreamCleaner;
use crate::llm::{ChatMessage, ChatStream, LlmError, Server, Usage, health};
use crate::node::NodeId;
use crate::radio::{OutboxClosed, ReplyReport, ReplyRequest, ReplyStream};

/// The last part of a streamed reply that broke off after its first part went on air.
pub const CUT_OFF: &str = "… (answer cut off: the AI stopped)";

/// What the answer is for.
pub(super) struct Question<'a> {
    pub node: NodeId,
    /// The stored user message the reply answers.
    pub user_id: i64,
    /// The packet id of the DM, set as `reply_id` on the first part.
    pub packet_id: u32,
    pub dest: Destination,
    pub messages: &'a [ChatMessage],
    /// For the log.
    pub prompt_chars: usize,
    /// The llama.cpp server slot the node is pinned to, when the server has slots (the
    /// primary's: the pool never sends it to a fallback).
    pub slot: Option<u32>,
    /// This answer's parts: `[reply]`'s, or fewer when the channel is busy.
    pub limits: ChunkLimits,
}

/// Asks the model and sends the answer (or one notice), storing the reply. `_permit` is the
/// LLM gate's slot the caller took before reading the memory; it is held until the answer
/// is complete.
pub(super) async fn answer(shared: &Arc<Shared>, q: Question<'_>, _permit: ReplyPermit) {
    if shared.llm.streams() {
        streamed(shared, &q).await;
    } else {
        batch(shared, &q).await;
    }
}

async fn batch(shared: &Arc<Shared>, q: &Question<'_>) {
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
            notice(shared, q.dest, q.packet_id, &failure_text(&e)).await;
            return;
        }
    };
    c.llm_calls.fetch_add(1, Ordering::Relaxed);
    c.llm_ms_total
        .fetch_add(done.latency.as_millis() as u64, Ordering::Relaxed);
    let parts = chunk(&done.text, &q.limits);
    if parts.is_empty() {
        c.llm_failures.fetch_add(1, Ordering::Relaxed);
        warn!("the LLM answer was empty after clean-up");
        notice(shared, q.dest, q.packet_id, &failure_text(&LlmError::Empty)).await;
        return;
    }
    let said = parts
        .iter()
        .map(|p| strip_marker(p))
        .collect::<Vec<_>>()
        .join(" ");
    store(shared, q, said, done.usage).await;
    info!(
        parts = parts.len(),
        prompt_chars = q.prompt_chars,
        latency_ms = done.latency.as_millis() as u64,
        "answer ready"
    );
    c.replies.fetch_add(1, Ordering::Relaxed);
    queue(shared, q.dest, Some(q.packet_id), parts).await;
}

async fn store(shared: &Arc<Shared>, q: &Question<'_>, said: String, usage: Option<Usage>) {
    if let Err(e) = shared
        .store
        .append_reply(q.node, q.user_id, said, unix_now(), usage)
        .await
    {
        warn!(error = %e, "could not store the reply");
    }
}

/// A streamed reply queued with the outbox, and what was handed to it.
struct Sending {
    stream: Option<ReplyStream>,
    report: oneshot::Receiver<ReplyReport>,
    /// The report came before the reply was complete: the radio gave up on it.
    gave_up: bool,
    handed: Vec<String>,
}

/// How one streamed attempt ended.
enum Attempt {
    /// The whole answer (or as much as the budget holds) was handed to the outbox.
    Done {
        server: Server,
        sending: Sending,
        usage: Option<Usage>,
        cut_at_budget: bool,
    },
    /// The outbox closed (shutting down): nothing more can be sent.
    Closed { sending: Option<Sending> },
    /// The call failed; `sending` holds the parts handed over, if any. `opened`: the server
    /// whose stream had started (the pool already retried, and failed over, a failure to open
    /// one).
    Failed {
        error: LlmError,
        sending: Option<Sending>,
        opened: Option<Server>,
    },
}

async fn streamed(shared: &Arc<Shared>, q: &Question<'_>) {
    let c = &shared.counters;
    let started = Instant::now();
    let deadline = started + shared.llm.timeout();
    let mut attempt = 1;
    // After a stream that broke before anything went on air, the servers after this one.
    let mut after: Option<Server> = None;
    let (sending, usage, cut) = loop {
        let error = match stream_once(shared, q, deadline, started, after).await {
            Attempt::Done {
                server,
                sending,
                usage,
                cut_at_budget,
            } => {
                shared.llm.report(server, Ok(()));
                break (sending, usage, cut_at_budget);
            }
            Attempt::Closed { sending } => {
                debug!("the outbox closed while the answer streamed");
                if let Some(sending) = sending {
                    store(shared, q, sending.handed.join(" "), None).await;
                }
                return;
            }
            Attempt::Failed {
                error,
                sending,
                opened,
            } => match sending {
                Some(sending) => match on_air(sending).await {
                    Some(sending) => {
                        cut_off(shared, q, sending, &error).await;
                        return;
                    }
                    None => (error, opened),
                },
                None => (error, opened),
            },
        };
        let (error, opened) = error;
        // A stream that broke with nothing on air fails over like one that did not open,
        // when a server after it is left (no wait: it is another server).
        if let Some(server) = opened
            && health::fails_over(&error)
            && shared.llm.has_after(server)
        {
            warn!(error = %error, "the LLM stream failed before anything went on air; trying the next server");
            after = Some(server);
            continue;
        }
        // Attempts count the streams that opened; failures to open one were retried by the
        // client already.
        let wait = opened.and_then(|_| shared.llm.retry_delay(attempt, &error, deadline));
        match wait {
            Some(wait) => {
                warn!(attempt, error = %error, ?wait, "the LLM stream failed, retrying");
                tokio::time::sleep(wait).await;
                attempt += 1;
            }
            None => {
                c.llm_failures.fetch_add(1, Ordering::Relaxed);
                warn!(attempt, error = %error, "the LLM call failed");
                notice(shared, q.dest, q.packet_id, &failure_text(&error)).await;
                return;
            }
        }
    };
    let latency = started.elapsed();
    c.llm_calls.fetch_add(1, Ordering::Relaxed);
    c.llm_ms_total
        .fetch_add(latency.as_millis() as u64, Ordering::Relaxed);
    c.replies.fetch_add(1, Ordering::Relaxed);
    let said = sending.handed.join(" ");
    info!(
        parts = sending.handed.len(),
        prompt_chars = q.prompt_chars,
        latency_ms = latency.as_millis() as u64,
        cut_at_budget = cut,
        radio_gave_up = sending.gave_up,
        "answer streamed"
    );
    store(shared, q, said, usage).await;
    if !sending.gave_up {
        watch_report(shared, sending.handed.len(), sending.report);
    }
}

/// Takes the reply back if nothing of it went on air yet (`None`: the call counts as failed
/// and may be retried); else hands it back to be ended with the notice.
async fn on_air(sending: Sending) -> Option<Sending> {
    let retracted = match &sending.stream {
        Some(stream) => !sending.gave_up && stream.retract().await,
        None => false,
    };
    if retracted {
        debug!(
            parts = sending.handed.len(),
            "nothing on air yet: reply taken back"
        );
        None
    } else {
        Some(sending)
    }
}

/// Ends a reply that broke off after its first part went on air: one notice part, and what
/// was handed over is stored as the answer.
async fn cut_off(shared: &Arc<Shared>, q: &Question<'_>, mut sending: Sending, error: &LlmError) {
    let c = &shared.counters;
    c.llm_failures.fetch_add(1, Ordering::Relaxed);
    c.notices.fetch_add(1, Ordering::Relaxed);
    warn!(
        error = %error,
        parts = sending.handed.len(),
        "the LLM stream broke off after the first part went on air"
    );
    if let Some(stream) = sending.stream.take() {
        let limits = notice_limits(&q.limits);
        let text = chunk(CUT_OFF, &limits).pop().unwrap_or_default();
        if stream.finish(vec![text]).await.is_err() {
            warn!("outbox closed; the cut-off notice was not queued");
        }
    }
    let said = sending.handed.join(" ");
    store(shared, q, said, None).await;
    if !sending.gave_up {
        watch_report(shared, sending.handed.len() + 1, sending.report);
    }
}

/// One unnumbered part with room for the widest marker.
fn notice_limits(limits: &ChunkLimits) -> ChunkLimits {
    let room = format!(" {0}/{0}", limits.max_chunks.max(1)).len();
    ChunkLimits {
        max_chars: limits.max_chars.saturating_sub(room),
        max_bytes: limits.max_bytes.saturating_sub(room),
        max_chunks: 1,
    }
}

/// One streamed call: reads the answer, hands each part to the outbox as soon as it is
/// certain, and stops reading once the budget is full (dropping the stream closes the
/// connection, so the server stops generating).
async fn stream_once(
    shared: &Arc<Shared>,
    q: &Question<'_>,
    deadline: Instant,
    started: Instant,
    after: Option<Server>,
) -> Attempt {
    let s = &shared.settings;
    let (mut stream, server) = match shared
        .llm
        .stream(q.slot, q.messages, s.max_tokens, deadline, after)
        .await
    {
        Ok(opened) => opened,
        Err(error) => {
            return Attempt::Failed {
                error,
                sending: None,
                opened: None,
            };
        }
    };
    let mut cleaner = StreamCleaner::new();
    let mut chunker = StreamChunker::new(&q.limits);
    let mut sending: Option<Sending> = None;
    loop {
        let mut next = next_piece(&mut stream, &mut sending).await;
        let mut text = String::new();
        let ended = loop {
            match next {
                Ok(Some(raw)) => {
                    let cleaned = cleaner.push(&raw);
                    if cleaned.restart {
                        text.clear();
                        if !chunker.restart() {
                            warn!("a </think> came after the first part went on air");
                        }
                    }
                    text.push_str(&cleaned.text);
                }
                Ok(None) => {
                    text.push_str(&cleaner.finish().text);
                    break true;
                }
                Err(error) => {
                    shared.llm.report(server, Err(&error));
                    return Attempt::Failed {
                        error,
                        sending,
                        opened: Some(server),
                    };
                }
            }
            // Whatever has already arrived is taken in before parts are handed over, so
            // that parts completing together (an answer that came whole) travel together.
            match stream.next().now_or_never() {
                Some(more) => next = more,
                None => break false,
            }
        };
        let mut parts = chunker.push(&text);
        if ended {
            // The budget may have filled in this very batch: then `push` already gave the
            // last part and `finish` has nothing left, which must not unmark it.
            let rest = chunker.finish();
            parts.parts.extend(rest.parts);
            parts.last |= rest.last;
        }
        if sending.as_ref().is_some_and(|s| s.gave_up) {
            break;
        }
        if !parts.parts.is_empty()
            && hand(shared, q, &mut sending, parts.parts, parts.last, started)
                .await
                .is_err()
        {
            return Attempt::Closed { sending };
        }
        if parts.last || ended {
            break;
        }
    }
    let cut_at_budget = chunker.is_full();
    let usage = stream.usage();
    drop(stream);
    match sending {
        Some(sending) => Attempt::Done {
            server,
            sending,
            usage,
            cut_at_budget,
        },
        None => Attempt::Failed {
            error: LlmError::Empty,
            sending: None,
            opened: Some(server),
        },
    }
}

/// The next piece of the answer; notices meanwhile when the radio gives up on the reply.
async fn next_piece(
    stream: &mut ChatStream,
    sending: &mut Option<Sending>,
) -> Result<Option<String>, LlmError> {
    let Some(s) = sending.as_mut().filter(|s| !s.gave_up) else {
        return stream.next().await;
    };
    tokio::select! {
        next = stream.next() => next,
        _ = &mut s.report => {
            warn!("the radio gave up on the reply; stopping the model");
            s.gave_up = true;
            Ok(None)
        }
    }
}

/// Hands parts to the outbox, queueing the reply with the first ones.
async fn hand(
    shared: &Arc<Shared>,
    q: &Question<'_>,
    sending: &mut Option<Sending>,
    bodies: Vec<String>,
    last: bool,
    started: Instant,
) -> Result<(), OutboxClosed> {
    if sending.is_none() {
        debug!(
            after_ms = started.elapsed().as_millis() as u64,
            "first part ready"
        );
        let head = ReplyRequest {
            to: q.dest.to,
            channel: q.dest.channel,
            reply_to: Some(q.packet_id),
            parts: Vec::new(),
        };
        let (stream, report) = shared.sink.open(head).await?;
        *sending = Some(Sending {
            stream: Some(stream),
            report,
            gave_up: false,
            handed: Vec::new(),
        });
    }
    let Some(s) = sending.as_mut() else {
        return Ok(());
    };
    let queued = match s.stream.take() {
        Some(stream) if last => stream.finish(bodies.clone()).await,
        Some(stream) => {
            let queued = stream.parts(bodies.clone()).await;
            s.stream = Some(stream);
            queued
        }
        None => Ok(()),
    };
    if queued.is_ok() {
        s.handed.extend(bodies);
    }
    queued
}
