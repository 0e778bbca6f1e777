//! One streamed attempt after another, until the answer is complete or given up: each
//! (`attempt`) pumps a `StreamedReply` (`core`, which decides what happens to the text) with
//! what the stream and the radio's report bring, and performs its steps — parts handed to the
//! outbox, the stream dropped at the budget, the reply's row rewritten as parts go (`row`). A
//! failure before any part went on air is retried (or fails over), one after that ends the
//! reply with a short notice part.

mod attempt;
mod core;
mod row;

use std::sync::atomic::Ordering;

use tokio::time::Instant;
use tracing::{debug, info, warn};

use self::attempt::{Attempt, Clock, Queued};
use self::core::End;
use self::row::ReplyRow;
use super::AnswerCtx;
use super::instead::Replaced;
use super::question::{Answered, Audience, Ending, Question, said_as_written};
use crate::llm::{LlmError, Server, Usage, health};
use crate::node::NodeId;
use crate::responder::reply::failure_text;

/// A streamed answer (see the module doc); `None` when no answer went out.
pub(crate) async fn streamed(ctx: &AnswerCtx, q: &Question<'_>) -> Option<Answered> {
    let started = Instant::now();
    let mut answer = Answer {
        ctx,
        q,
        clock: Clock {
            started,
            deadline: started + ctx.llm.timeout(),
        },
        attempt: 1,
        after: None,
        asked_again: false,
        // A DM's reply is stored as its parts are handed over; a channel's answer only lands
        // in the channel's public thread once it is over (`public`).
        row: match &q.audience {
            Audience::Dm { dest, kept } => {
                ReplyRow::new(dest.node(), kept.map(|k| (k.store.clone(), k.user_id)))
            }
            Audience::Channel { .. } => ReplyRow::new(NodeId::BROADCAST, None),
        },
    };
    loop {
        let run = attempt::run(
            ctx,
            q,
            answer.clock,
            answer.after,
            &mut answer.row,
            answer.asked_again,
        )
        .await;
        match answer.settle(run).await {
            Next::Again => {}
            Next::Over => return None,
            Next::Finished(finished) => return Some(answer.finish(finished).await),
        }
    }
}

/// What follows an attempt.
enum Next {
    /// Another attempt: a retry, or the next server.
    Again,
    /// No answer went out (or what went is all there is): nothing more to do.
    Over,
    /// The answer, or as much of it as the budget holds, was handed over.
    Finished(Finished),
}

/// An attempt that handed the answer over.
struct Finished {
    /// The parts the outbox took, in order.
    handed: Vec<String>,
    /// The reply, if it was queued.
    queued: Option<Queued>,
    usage: Option<Usage>,
    /// The answer as the model wrote it, as far as it was read.
    raw: String,
    /// Which of the daemon's texts went instead of the model's answer, if one did.
    replaced: Option<Replaced>,
    ending: Ending,
    /// The radio gave up on the reply before its end: its report already came.
    radio_gave_up: bool,
}

/// One streamed answer across its attempts.
struct Answer<'a, 'q> {
    ctx: &'a AnswerCtx,
    q: &'a Question<'q>,
    clock: Clock,
    /// Attempts whose stream opened.
    attempt: u32,
    /// After a stream that broke before anything went on air, the servers after this one.
    after: Option<Server>,
    /// The model refused the everyday question: it is asked with `Question::again` now.
    asked_again: bool,
    row: ReplyRow,
}

impl Answer<'_, '_> {
    /// What an attempt's end means for the answer.
    async fn settle(&mut self, run: Attempt) -> Next {
        let (ctx, q) = (self.ctx, self.q);
        let Attempt {
            end,
            opened,
            handed,
            queued,
            usage,
            raw,
            replaced,
        } = run;
        match end {
            End::Done {
                cut_at_budget,
                radio_gave_up,
            } => {
                if let Some(server) = opened {
                    ctx.llm.report(server, Ok(()));
                }
                Next::Finished(Finished {
                    handed,
                    queued,
                    usage,
                    raw,
                    replaced,
                    ending: if cut_at_budget {
                        Ending::CutAtBudget
                    } else {
                        Ending::Whole
                    },
                    radio_gave_up,
                })
            }
            End::Closed { queued: true } => {
                // What was handed over is stored already.
                debug!("the outbox closed while the answer streamed");
                public(q, &handed);
                Next::Over
            }
            End::Closed { queued: false } => {
                // Nothing of this attempt was queued; a row left by one taken back goes.
                debug!("the outbox closed while the answer streamed");
                self.row.discard().await;
                Next::Over
            }
            End::CutOff { error, notice } => {
                public(q, &handed);
                self.cut_off(&error, notice, handed.len(), queued).await;
                Next::Over
            }
            End::Refused => {
                // Nothing was queued. Asked again once, on the server that answered.
                if let Some(server) = opened {
                    ctx.llm.report(server, Ok(()));
                }
                info!(
                    "the model declined an everyday question: asked again without the documents' rule"
                );
                self.asked_again = true;
                Next::Again
            }
            End::Failed(error) => {
                // Nothing of a failed attempt is on air: the reply it queued was taken back.
                drop((handed, queued));
                self.failed(&error, opened).await
            }
        }
    }

    /// A failed attempt, with nothing on air: the next server, a retry, or one notice.
    async fn failed(&mut self, error: &LlmError, opened: Option<Server>) -> Next {
        let (ctx, q) = (self.ctx, self.q);
        self.row.taken_back();
        // A stream that broke with nothing on air fails over like one that did not open,
        // when a server after it is left (no wait: it is another server).
        if let Some(server) = opened
            && health::fails_over(error)
            && ctx.llm.has_after(server)
        {
            warn!(error = %error, "the LLM stream failed before anything went on air; trying the next server");
            self.after = Some(server);
            return Next::Again;
        }
        // Attempts count the streams that opened; failures to open one were retried by the
        // client already.
        let attempt = self.attempt;
        let deadline = self.clock.deadline;
        match opened.and_then(|_| ctx.llm.retry_delay(attempt, error, deadline)) {
            Some(wait) => {
                warn!(attempt, error = %error, ?wait, "the LLM stream failed, retrying");
                tokio::time::sleep(wait).await;
                self.attempt += 1;
                Next::Again
            }
            None => {
                ctx.counters.llm_failures.fetch_add(1, Ordering::Relaxed);
                warn!(attempt, error = %error, "the LLM call failed");
                self.row.discard().await;
                let dest = q.audience.dest();
                ctx.out
                    .notice(dest, q.packet_id, &failure_text(q.lang, error))
                    .await;
                Next::Over
            }
        }
    }

    /// Ends a reply that broke off after its first part went on air with the `notice` part
    /// (what was handed over, `handed` parts, is stored already as the answer; the notice is
    /// not).
    async fn cut_off(
        &self,
        error: &LlmError,
        notice: String,
        handed: usize,
        mut queued: Option<Queued>,
    ) {
        let c = &self.ctx.counters;
        c.llm_failures.fetch_add(1, Ordering::Relaxed);
        c.notices.fetch_add(1, Ordering::Relaxed);
        warn!(
            error = %error,
            parts = handed,
            "the LLM stream broke off after the first part went on air"
        );
        if let Some(stream) = queued.as_mut().and_then(|out| out.stream.take())
            && stream.finish(vec![notice]).await.is_err()
        {
            warn!("outbox closed; the cut-off notice was not queued");
        }
        if let Some(queued) = queued {
            let dest = self.q.audience.dest();
            let stored = self.row.stored();
            self.ctx
                .out
                .watch_report(dest, handed + 1, queued.report, stored);
        }
    }

    /// The answer went out: counted, logged, its row finished, its report followed.
    async fn finish(mut self, finished: Finished) -> Answered {
        let (ctx, q) = (self.ctx, self.q);
        let Finished {
            handed,
            queued,
            usage,
            raw,
            replaced,
            ending,
            radio_gave_up,
        } = finished;
        let c = &ctx.counters;
        let latency = self.clock.started.elapsed();
        c.llm_calls.fetch_add(1, Ordering::Relaxed);
        c.llm_ms_total
            .fetch_add(latency.as_millis() as u64, Ordering::Relaxed);
        c.replies.fetch_add(1, Ordering::Relaxed);
        info!(
            parts = handed.len(),
            prompt_chars = q.prompt_chars,
            latency_ms = latency.as_millis() as u64,
            cut_at_budget = ending == Ending::CutAtBudget,
            radio_gave_up,
            "answer streamed"
        );
        // Given up by the radio, what went on air is not known: the prompt says what was
        // handed.
        let written = match replaced {
            Some(replaced) => replaced.prompt().map(str::to_string),
            None => (!radio_gave_up)
                .then(|| said_as_written(handed.join(" "), &raw, ending).prompt)
                .flatten(),
        };
        self.row.finish(usage, written.as_deref()).await;
        public(q, &handed);
        // A reply still open (the answer ended without its last part marked) is closed when
        // its stream goes, after this: the outbox numbers its parts ` i/?`.
        if let Some(queued) = queued
            && !radio_gave_up
        {
            let (dest, n) = (q.audience.dest(), handed.len());
            ctx.out
                .watch_report(dest, n, queued.report, self.row.stored());
        }
        Answered {
            reply: self.row.stored().map(|s| s.id),
            ..Answered::of(ctx, q, raw.chars().count(), usage)
        }
    }
}

/// A channel's answer, once over, lands in the channel's public thread (a DM's is stored as
/// it goes, by its [`ReplyRow`]).
fn public(q: &Question<'_>, handed: &[String]) {
    if let Audience::Channel { said, .. } = &q.audience {
        // Set once per answer: a second value cannot come.
        let _ = said.set(handed.join(" "));
    }
}
