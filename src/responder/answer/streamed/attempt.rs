//! One streamed attempt: opens the model's stream and pumps it through a [`StreamedReply`],
//! which says what to do with each piece, and performs each step — the reply queued with the
//! outbox, parts handed over (and written into the reply's row at once), the reply taken back.
//! It stops reading once the attempt ends: dropping the stream closes the connection, so the
//! server stops generating.

use futures_util::FutureExt;
use tokio::sync::oneshot;
use tokio::time::Instant;
use tracing::{debug, warn};

use super::core::{End, Event, Handing, Step, StreamedReply};
use super::row::ReplyRow;
use crate::llm::{ChatStream, LlmError, LlmPool, Server, Usage};
use crate::radio::{OutboxClosed, ReplyReport, ReplyStream};
use crate::responder::answer::AnswerCtx;
use crate::responder::answer::instead::{Guard, Replaced};
use crate::responder::answer::question::Question;

/// A streamed reply queued with the outbox.
pub(super) struct Queued {
    /// Gone once the last part went with it.
    pub(super) stream: Option<ReplyStream>,
    pub(super) report: oneshot::Receiver<ReplyReport>,
}

/// One streamed attempt, as it ended.
pub(super) struct Attempt {
    pub(super) end: End,
    /// The server whose stream opened; `None` when none did (the pool already retried,
    /// and failed over, a failure to open one).
    pub(super) opened: Option<Server>,
    /// The parts the outbox took, in order.
    pub(super) handed: Vec<String>,
    /// The reply, if it was queued.
    pub(super) queued: Option<Queued>,
    pub(super) usage: Option<Usage>,
    /// The answer as the model wrote it, as far as it was read.
    pub(super) raw: String,
    /// Which of the daemon's texts went instead of the model's answer, if one did.
    pub(super) replaced: Option<Replaced>,
}

/// When the answer started, and until when it may take.
#[derive(Debug, Clone, Copy)]
pub(super) struct Clock {
    pub(super) started: Instant,
    pub(super) deadline: Instant,
}

/// Runs one attempt at `q`'s answer on the first server that answers (after `after`, when
/// the last stream broke); the parts the outbox takes go into `row`. `asked_again`: the
/// model refused an everyday question, which is asked with `q.again` now
/// ([`Question::again`]); before, a refusal ends the attempt ([`End::Refused`]).
pub(super) async fn run(
    ctx: &AnswerCtx,
    q: &Question<'_>,
    clock: Clock,
    after: Option<Server>,
    row: &mut ReplyRow,
    asked_again: bool,
) -> Attempt {
    let anew;
    let messages = match (asked_again, q.again) {
        (true, Some(again)) => {
            anew = again();
            &anew
        }
        _ => q.messages,
    };
    let opened = ctx
        .llm
        .stream(q.slot, messages, ctx.max_tokens, clock.deadline, after)
        .await;
    let (stream, server) = match opened {
        Ok(opened) => opened,
        Err(error) => {
            return Attempt {
                end: End::Failed(error),
                opened: None,
                handed: Vec::new(),
                queued: None,
                usage: None,
                raw: String::new(),
                replaced: None,
            };
        }
    };
    let mut pump = Pump {
        ctx,
        q,
        started: clock.started,
        server,
        stream,
        reply: StreamedReply::new(
            &q.limits,
            q.mark,
            crate::lang::say(q.lang, crate::lang::Say::CutOff),
        )
        .with_guard(Guard::new(q.message, q.previous, q.lines, q.lang)),
        queued: None,
    };
    if q.again.is_some() && !asked_again {
        pump.reply = pump.reply.asking_again(q.lang);
    }
    let mut step = Step::Read;
    let end = loop {
        let event = match step {
            Step::Stop(end) => break end,
            step => pump.perform(step, row).await,
        };
        step = pump.reply.on(event);
    };
    pump.over(end)
}

/// One attempt under way: the model's stream, the reply's decisions, the queued reply.
struct Pump<'a, 'q> {
    ctx: &'a AnswerCtx,
    q: &'a Question<'q>,
    started: Instant,
    server: Server,
    stream: ChatStream,
    reply: StreamedReply,
    queued: Option<Queued>,
}

impl Pump<'_, '_> {
    /// Performs `step` (never [`Step::Stop`]); returns what came of it.
    async fn perform(&mut self, step: Step, row: &mut ReplyRow) -> Event {
        match step {
            Step::Read => self.read().await,
            // Whatever has already arrived is taken in before parts are handed over, so
            // that parts completing together (an answer that came whole) travel together.
            Step::ReadArrived => match self.stream.next().now_or_never() {
                Some(next) => piece(&self.ctx.llm, self.server, next),
                None => Event::Lull,
            },
            Step::Open => self.open().await,
            Step::Hand(handing) => self.hand(handing, row).await,
            Step::Retract => self.retract().await,
            Step::Stop(_) => Event::Refused,
        }
    }

    /// The model's next piece, its end or its failure; once the reply is queued its report
    /// may come first: the radio gave up.
    async fn read(&mut self) -> Event {
        let (llm, server) = (&self.ctx.llm, self.server);
        let Some(out) = self.queued.as_mut() else {
            return piece(llm, server, self.stream.next().await);
        };
        tokio::select! {
            next = self.stream.next() => piece(llm, server, next),
            _ = &mut out.report => {
                warn!("the radio gave up on the reply; stopping the model");
                Event::GaveUp
            }
        }
    }

    /// Queues the reply with the outbox: its first parts are ready.
    async fn open(&mut self) -> Event {
        debug!(
            after_ms = self.started.elapsed().as_millis() as u64,
            "first part ready"
        );
        let dest = self.q.audience.dest();
        let head = dest.request(Some(self.q.packet_id), Vec::new());
        match self.ctx.out.open(head, dest.standing()).await {
            Ok((stream, report)) => {
                self.queued = Some(Queued {
                    stream: Some(stream),
                    report,
                });
                Event::Opened
            }
            Err(OutboxClosed) => Event::Refused,
        }
    }

    /// Hands parts to the queued reply (the last closes it) and writes them into its row.
    async fn hand(&mut self, handing: Handing, row: &mut ReplyRow) -> Event {
        let Some(stream) = self.queued.as_mut().and_then(|out| out.stream.take()) else {
            return Event::Refused;
        };
        let parts = handing.parts.clone();
        let handed = if handing.last {
            stream.finish(parts).await
        } else {
            let handed = stream.parts(parts).await;
            if let Some(out) = self.queued.as_mut() {
                out.stream = Some(stream);
            }
            handed
        };
        match handed {
            Ok(()) => {
                row.handed(&handing.parts).await;
                Event::Handed
            }
            Err(OutboxClosed) => Event::Refused,
        }
    }

    /// Asks the outbox to take the reply back: it can while none of its parts went on air.
    async fn retract(&self) -> Event {
        let stream = self.queued.as_ref().and_then(|out| out.stream.as_ref());
        match stream {
            Some(stream) if stream.retract().await => {
                let parts = self.reply.handed().len();
                debug!(parts, "nothing on air yet: reply taken back");
                Event::Retracted
            }
            _ => Event::OnAir,
        }
    }

    /// The attempt as it ended; the stream goes with the pump.
    fn over(self, end: End) -> Attempt {
        Attempt {
            end,
            opened: Some(self.server),
            handed: self.reply.handed().to_vec(),
            usage: self.stream.usage(),
            queued: self.queued,
            raw: self.reply.raw().to_string(),
            replaced: self.reply.replaced(),
        }
    }
}

/// The stream's outcome as an event; a failure is reported to the pool (the server's health)
/// as it happens.
fn piece(llm: &LlmPool, server: Server, next: Result<Option<String>, LlmError>) -> Event {
    match next {
        Ok(Some(raw)) => Event::Text(raw),
        Ok(None) => Event::Ended,
        Err(error) => {
            llm.report(server, Err(&error));
            Event::Broke(error)
        }
    }
}
