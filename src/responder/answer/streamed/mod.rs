//! One streamed attempt after another, until the answer is complete or given up: each pumps a
//! [`StreamedReply`] (which decides what happens to the text) with what the stream and the
//! radio's report bring, and performs its steps — parts handed to the outbox, the stream
//! dropped at the budget, the reply's row rewritten as parts go ([`ReplyRow`]); a failure
//! before any part went on air is retried (or fails over), one after that ends the reply
//! with a short notice part.

mod core;
mod row;

use std::sync::Arc;
use std::sync::atomic::Ordering;

use futures_util::FutureExt;
use tokio::sync::oneshot;
use tokio::time::Instant;
use tracing::{debug, info, warn};

use self::core::{End, Event, Step, StreamedReply};
use self::row::ReplyRow;
use super::question::{Answered, Audience, Question, said_as_written};
use crate::llm::{LlmError, Server, Usage, health};
use crate::radio::{OutboxClosed, ReplyReport, ReplyStream};
use crate::responder::reply::Destination;
use crate::responder::reply::{Stored, failure_text};
use crate::responder::shared::Shared;

/// A streamed reply queued with the outbox.
struct Queued {
    /// Gone once the last part went with it.
    stream: Option<ReplyStream>,
    report: oneshot::Receiver<ReplyReport>,
}

/// One streamed attempt, as it ended.
struct Attempt {
    end: End,
    /// The server whose stream opened; `None` when none did (the pool already retried,
    /// and failed over, a failure to open one).
    opened: Option<Server>,
    /// The parts the outbox took, in order.
    handed: Vec<String>,
    /// The reply, if it was queued.
    queued: Option<Queued>,
    usage: Option<Usage>,
    /// The answer as the model wrote it, as far as it was read.
    raw: String,
}

/// A streamed answer (see the module doc); `None` when no answer went out.
pub(crate) async fn streamed(shared: &Arc<Shared>, q: &Question<'_>) -> Option<Answered> {
    let c = &shared.counters;
    let started = Instant::now();
    let deadline = started + shared.llm.timeout();
    let mut attempt = 1;
    // After a stream that broke before anything went on air, the servers after this one.
    let mut after: Option<Server> = None;
    // A DM's reply is stored as its parts are handed over; a channel's answer only lands in
    // the channel's public thread once it is over (`public`).
    let mut row = match &q.audience {
        Audience::Dm { dest, stored } => ReplyRow::new(dest.node(), *stored),
        Audience::Channel { .. } => ReplyRow::new(crate::node::NodeId::BROADCAST, None),
    };
    let (handed, queued, usage, raw, cut, gave_up) = loop {
        let Attempt {
            end,
            opened,
            handed,
            queued,
            usage,
            raw,
        } = stream_once(shared, q, deadline, started, after, &mut row).await;
        let error = match end {
            End::Done {
                cut_at_budget,
                radio_gave_up,
            } => {
                if let Some(server) = opened {
                    shared.llm.report(server, Ok(()));
                }
                break (handed, queued, usage, raw, cut_at_budget, radio_gave_up);
            }
            End::Closed { queued: true } => {
                // What was handed over is stored already.
                debug!("the outbox closed while the answer streamed");
                public(q, &handed);
                return None;
            }
            End::Closed { queued: false } => {
                // Nothing of this attempt was queued; a row left by one taken back goes.
                debug!("the outbox closed while the answer streamed");
                row.discard(&shared.store).await;
                return None;
            }
            End::CutOff { error, notice } => {
                public(q, &handed);
                let stored = row.stored();
                cut_off(
                    shared,
                    q.audience.dest(),
                    handed,
                    queued,
                    &error,
                    notice,
                    stored,
                )
                .await;
                return None;
            }
            End::Failed(error) => error,
        };
        // Nothing of a failed attempt is on air: the reply it queued was taken back.
        drop((handed, queued));
        row.taken_back();
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
                row.discard(&shared.store).await;
                shared
                    .out
                    .notice(q.audience.dest(), q.packet_id, &failure_text(&error))
                    .await;
                return None;
            }
        }
    };
    let latency = started.elapsed();
    c.llm_calls.fetch_add(1, Ordering::Relaxed);
    c.llm_ms_total
        .fetch_add(latency.as_millis() as u64, Ordering::Relaxed);
    c.replies.fetch_add(1, Ordering::Relaxed);
    info!(
        parts = handed.len(),
        prompt_chars = q.prompt_chars,
        latency_ms = latency.as_millis() as u64,
        cut_at_budget = cut,
        radio_gave_up = gave_up,
        "answer streamed"
    );
    // Given up by the radio, what went on air is not known: the prompt says what was handed.
    let written = (!gave_up)
        .then(|| said_as_written(handed.join(" "), &raw, cut).prompt)
        .flatten();
    row.finish(&shared.store, usage, written.as_deref()).await;
    public(q, &handed);
    // A reply still open (the answer ended without its last part marked) is closed when
    // its stream goes, after this: the outbox numbers its parts ` i/?`.
    if let Some(queued) = queued
        && !gave_up
    {
        shared
            .out
            .watch_report(q.audience.dest(), handed.len(), queued.report, row.stored());
    }
    Some(Answered::of(shared, q, raw.chars().count(), usage))
}

/// A channel's answer, once over, lands in the channel's public thread (a DM's is stored as
/// it goes, by its [`ReplyRow`]).
fn public(q: &Question<'_>, handed: &[String]) {
    if let Audience::Channel { said, .. } = &q.audience {
        // Set once per answer: a second value cannot come.
        let _ = said.set(handed.join(" "));
    }
}

/// Ends a reply that broke off after its first part went on air with the `notice` part
/// (what was handed over is stored already, as the answer; the notice is not).
async fn cut_off(
    shared: &Arc<Shared>,
    dest: Destination,
    handed: Vec<String>,
    mut queued: Option<Queued>,
    error: &LlmError,
    notice: String,
    stored: Option<Stored>,
) {
    let c = &shared.counters;
    c.llm_failures.fetch_add(1, Ordering::Relaxed);
    c.notices.fetch_add(1, Ordering::Relaxed);
    warn!(
        error = %error,
        parts = handed.len(),
        "the LLM stream broke off after the first part went on air"
    );
    if let Some(stream) = queued.as_mut().and_then(|out| out.stream.take())
        && stream.finish(vec![notice]).await.is_err()
    {
        warn!("outbox closed; the cut-off notice was not queued");
    }
    if let Some(queued) = queued {
        shared
            .out
            .watch_report(dest, handed.len() + 1, queued.report, stored);
    }
}

/// One streamed call: opens the stream and pumps it through a [`StreamedReply`], which says
/// what to do with each piece; parts the outbox took go into the reply's `row` at once.
/// Stops reading once the attempt ends (dropping the stream closes the connection, so the
/// server stops generating).
async fn stream_once(
    shared: &Arc<Shared>,
    q: &Question<'_>,
    deadline: Instant,
    started: Instant,
    after: Option<Server>,
    row: &mut ReplyRow,
) -> Attempt {
    let s = &shared.settings;
    let (mut stream, server) = match shared
        .llm
        .stream(q.slot, q.messages, s.max_tokens, deadline, after)
        .await
    {
        Ok(opened) => opened,
        Err(error) => {
            return Attempt {
                end: End::Failed(error),
                opened: None,
                handed: Vec::new(),
                queued: None,
                usage: None,
                raw: String::new(),
            };
        }
    };
    // The stream's outcome as an event; a failure is reported to the pool (the server's
    // health) as it happens.
    let piece = |next: Result<Option<String>, LlmError>| match next {
        Ok(Some(raw)) => Event::Text(raw),
        Ok(None) => Event::Ended,
        Err(error) => {
            shared.llm.report(server, Err(&error));
            Event::Broke(error)
        }
    };
    let mut reply = StreamedReply::new(&q.limits, q.mark);
    let mut queued: Option<Queued> = None;
    let mut step = Step::Read;
    let end = loop {
        let event = match step {
            Step::Read => match queued.as_mut() {
                // Once the reply is queued its report may come early: the radio gave up.
                Some(out) => tokio::select! {
                    next = stream.next() => piece(next),
                    _ = &mut out.report => {
                        warn!("the radio gave up on the reply; stopping the model");
                        Event::GaveUp
                    }
                },
                None => piece(stream.next().await),
            },
            // Whatever has already arrived is taken in before parts are handed over, so
            // that parts completing together (an answer that came whole) travel together.
            Step::ReadArrived => match stream.next().now_or_never() {
                Some(next) => piece(next),
                None => Event::Lull,
            },
            Step::Open => {
                debug!(
                    after_ms = started.elapsed().as_millis() as u64,
                    "first part ready"
                );
                let dest = q.audience.dest();
                let head = dest.request(Some(q.packet_id), Vec::new());
                match shared.out.open(head, dest.standing()).await {
                    Ok((stream, report)) => {
                        queued = Some(Queued {
                            stream: Some(stream),
                            report,
                        });
                        Event::Opened
                    }
                    Err(OutboxClosed) => Event::Refused,
                }
            }
            Step::Hand { parts, last } => match hand(queued.as_mut(), parts.clone(), last).await {
                Ok(()) => {
                    row.handed(&shared.store, &parts).await;
                    Event::Handed
                }
                Err(OutboxClosed) => Event::Refused,
            },
            Step::Retract => {
                let stream = queued.as_ref().and_then(|out| out.stream.as_ref());
                match stream {
                    Some(stream) if stream.retract().await => {
                        debug!(
                            parts = reply.handed().len(),
                            "nothing on air yet: reply taken back"
                        );
                        Event::Retracted
                    }
                    _ => Event::OnAir,
                }
            }
            Step::Stop(end) => break end,
        };
        step = reply.on(event);
    };
    let usage = stream.usage();
    drop(stream);
    Attempt {
        end,
        opened: Some(server),
        handed: reply.handed().to_vec(),
        queued,
        usage,
        raw: reply.raw().to_string(),
    }
}

/// Hands parts to the queued reply; `last` closes it.
async fn hand(
    queued: Option<&mut Queued>,
    parts: Vec<String>,
    last: bool,
) -> Result<(), OutboxClosed> {
    let Some(out) = queued else {
        return Err(OutboxClosed);
    };
    match out.stream.take() {
        Some(stream) if last => stream.finish(parts).await,
        Some(stream) => {
            let handed = stream.parts(parts).await;
            out.stream = Some(stream);
            handed
        }
        None => Err(OutboxClosed),
    }
}
