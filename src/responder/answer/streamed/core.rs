//! [`StreamedReply`]: one streamed attempt at an answer, from the model's raw text to the
//! parts handed to the outbox, as a sans-IO state machine. The pump (`streamed/mod.rs`) reads
//! the model's stream (and, once the reply is queued, the radio's report), feeds what it saw
//! here as an [`Event`], and performs the [`Step`] that comes back; it decides nothing about
//! the parts. A retry or a failover starts a fresh `StreamedReply`: what one attempt handed
//! over is either on air (then there is no retry) or was taken back.
//!
//! The rules it keeps (see the invariants in `docs/architecture.md`):
//! - Raw text goes through the cleaner (`llm::clean::StreamCleaner`), then the chunker
//!   (`chunk::StreamChunker`), which lets a part go only once its cut is certain.
//! - What has already arrived is taken in ([`Step::ReadArrived`]) until a lull
//!   ([`Event::Lull`]) before any part is handed over, so parts that complete together travel
//!   together: an answer that arrives whole is numbered ` i/n`, like a batch reply.
//! - The reply is queued with the outbox ([`Step::Open`]) when its first parts are ready.
//! - A part handed over early is never marked last. The last part goes with the end of the
//!   answer or with the budget, marked last (so it carries ` n/n`), also when the budget
//!   fills in the very batch where the answer ends.
//! - Once the budget is full the attempt ends: the pump drops the stream, and the server
//!   stops generating.
//! - A `</think>` without `<think>` drops the text before it, as long as no part was cut.
//! - A stream that breaks with nothing handed over, or whose reply the outbox takes back
//!   ([`Step::Retract`]), ends [`End::Failed`]: nothing went on air, and the pump may retry
//!   or fail over. Once a part went on air it ends [`End::CutOff`], with one notice part.
//! - The radio giving up on the reply (its report came before the last part) ends the
//!   attempt at once: nothing more is handed over, and the model is stopped.

use tracing::warn;

use crate::chunk::{ChunkLimits, CutMark, Parts, StreamChunker, chunk};
use crate::knowledge::check;
use crate::lang::Lang;
use crate::llm::LlmError;
use crate::llm::clean::StreamCleaner;
use crate::responder::answer::instead::{self, Guard, Replaced};

/// The last part of a streamed reply that broke off after its first part went on air, in
/// English (`Say::CutOff` in the answer's language).
#[cfg(test)]
pub(crate) const CUT_OFF: &str = "… (answer cut off: the AI stopped)";

/// What the pump saw.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Event {
    /// A piece of the raw answer arrived.
    Text(String),
    /// Nothing more has arrived yet (the answer to [`Step::ReadArrived`]).
    Lull,
    /// The answer is complete.
    Ended,
    /// The stream failed (the pump already told the pool, for the server's health).
    Broke(LlmError),
    /// The reply's report came while its parts were still coming: the radio gave up on it.
    GaveUp,
    /// The outbox queued the reply ([`Step::Open`]).
    Opened,
    /// The outbox took the parts ([`Step::Hand`]).
    Handed,
    /// The outbox is closed (shutting down): the reply, or its parts, were not queued.
    Refused,
    /// The outbox took the reply back: none of its parts went on air ([`Step::Retract`]).
    Retracted,
    /// The outbox could not take the reply back: a part went, or may have gone, on air.
    OnAir,
}

impl Event {
    /// The event's name, for the log.
    fn name(&self) -> &'static str {
        match self {
            Event::Text(_) => "text",
            Event::Lull => "lull",
            Event::Ended => "ended",
            Event::Broke(_) => "broke",
            Event::GaveUp => "gave up",
            Event::Opened => "opened",
            Event::Handed => "handed",
            Event::Refused => "refused",
            Event::Retracted => "retracted",
            Event::OnAir => "on air",
        }
    }
}

/// What the pump does next.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Step {
    /// Wait for the model's next piece, its end or its failure; once the reply is queued,
    /// also for its report ([`Event::GaveUp`]).
    Read,
    /// Take in what the model has already sent, without waiting: its next piece, end or
    /// failure, else [`Event::Lull`].
    ReadArrived,
    /// Queue the reply with the outbox; its first parts are ready. [`Event::Opened`] or
    /// [`Event::Refused`].
    Open,
    /// Hand these parts to the outbox. [`Event::Handed`] or [`Event::Refused`].
    Hand(Handing),
    /// Ask the outbox to take the reply back. [`Event::Retracted`] or [`Event::OnAir`].
    Retract,
    /// The attempt is over; [`StreamedReply::handed`] is what the outbox got.
    Stop(End),
}

/// Parts for the outbox.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Handing {
    /// Bodies, without markers.
    pub(crate) parts: Vec<String>,
    /// The last of them closes the reply.
    pub(crate) last: bool,
}

/// What a batch of cleaned text runs up to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Upto {
    /// A lull: more may come.
    Lull,
    /// The end of the answer.
    End,
}

/// How an attempt ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum End {
    /// The answer, or as much of it as the budget holds, was handed over.
    Done {
        /// The budget filled: the last part ends with `…`.
        cut_at_budget: bool,
        /// The radio gave up on the reply before its end: its report already came.
        radio_gave_up: bool,
    },
    /// Nothing of the answer went on air: the call failed with this error (`Empty` when
    /// the answer had no text left after clean-up) and may be retried.
    Failed(LlmError),
    /// The stream broke with `error` after a part went on air: the reply ends with the one
    /// `notice` part, and what was handed over is the answer.
    CutOff { error: LlmError, notice: String },
    /// The outbox is closed: nothing more can be sent. `queued`: the reply was queued, and
    /// what was handed over is the answer.
    Closed { queued: bool },
    /// The answer was a refusal ([`StreamedReply::asking_again`]), told before any part
    /// was queued: nothing was, and the question is asked again.
    Refused,
}

/// Parts ready for the outbox.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Batch {
    parts: Vec<String>,
    /// The last of `parts` ends the reply.
    last: bool,
    /// The attempt ends once they are handed over: they are the last, or the answer ended.
    ends: bool,
}

/// Where the attempt stands.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Phase {
    /// Reading the answer; no part is ready yet, and the outbox knows nothing of the reply.
    Unsent,
    /// Asked the outbox to queue the reply; the batch goes once it has.
    Opening(Batch),
    /// Reading the answer; the reply is queued and has parts.
    Sending,
    /// Handed the batch to the outbox; waiting for it to take them.
    Handing(Batch),
    /// The stream broke with this error after parts were handed over; asked the outbox to
    /// take the reply back.
    Retracting(LlmError),
    /// The attempt ended so; every later event gets the same stop.
    Over(End),
}

/// One streamed attempt: the cleaner, the chunker, what was handed over, and the phase.
#[derive(Debug)]
pub(crate) struct StreamedReply {
    /// The last part when the stream broke off after a part went on air.
    cut_off: &'static str,
    phase: Phase,
    /// The reply's limits (the budget: `max_chunks` parts).
    limits: ChunkLimits,
    cleaner: StreamCleaner,
    chunker: StreamChunker,
    /// Cleaned text taken in since the last lull, for the chunker once the batch is in.
    batch: String,
    /// The parts the outbox took, in order.
    handed: Vec<String>,
    /// Every raw piece the model sent, in order: the answer as it wrote it.
    raw: String,
    /// What tells an answer the daemon replaces ([`StreamedReply::with_guard`]).
    guard: Option<Guard>,
    /// The daemon's text went instead of the model's answer.
    replaced: Option<Replaced>,
    /// A refusal in this language ends the attempt ([`StreamedReply::asking_again`]).
    again: Option<Lang>,
}

impl StreamedReply {
    /// An attempt at a reply within `limits`, its last part ending with `mark` when the
    /// budget fills; the pump's first step is [`Step::Read`].
    pub fn new(limits: &ChunkLimits, mark: CutMark, cut_off: &'static str) -> StreamedReply {
        StreamedReply {
            cut_off,
            phase: Phase::Unsent,
            limits: *limits,
            cleaner: StreamCleaner::new(),
            chunker: StreamChunker::with_mark(limits, mark),
            batch: String::new(),
            handed: Vec::new(),
            raw: String::new(),
            guard: None,
            replaced: None,
            again: None,
        }
    }

    /// An answer in `lang` that refuses (`knowledge::check::refuses`) ends the attempt
    /// [`End::Refused`] instead of going out; the pump asks again. Judged on what is ready
    /// when the first parts are: "Not in my notes." is shorter than a part, so it is whole
    /// then; meshai's prompt recited is told by its first six words (the German bench's
    /// "Wenn die Nachricht nach den Club, die Relais, … fragt" to an everyday question).
    pub(crate) fn asking_again(mut self, lang: Lang) -> StreamedReply {
        self.again = Some(lang);
        self
    }

    /// An answer that `guard` catches goes out as the daemon's text (`answer::instead`: an
    /// echo, a neighbouring line of memory). Caught when the whole answer is ready before any
    /// part is (an answer longer than a part has its first part on air before its end).
    pub(crate) fn with_guard(mut self, guard: Guard) -> StreamedReply {
        self.guard = Some(guard);
        self
    }

    /// The answer as the model wrote it, as far as it was read.
    pub(crate) fn raw(&self) -> &str {
        &self.raw
    }

    /// Which of the daemon's texts went instead of the model's answer, if one did: the
    /// model's answer is then no answer of the bot's.
    pub(crate) fn replaced(&self) -> Option<Replaced> {
        self.replaced
    }

    /// The parts the outbox took so far, in order (bodies, without markers).
    pub(crate) fn handed(&self) -> &[String] {
        &self.handed
    }

    /// Takes what the pump saw; returns what it does next. An event that does not answer the
    /// last step (a bug in the pump) ends the attempt as if the outbox had closed, so that
    /// nothing is sent twice.
    pub(crate) fn on(&mut self, event: Event) -> Step {
        let phase = std::mem::replace(&mut self.phase, Phase::Unsent);
        let (phase, step) = match (phase, event) {
            (phase @ (Phase::Unsent | Phase::Sending), Event::Text(raw)) => {
                self.take(&raw);
                (phase, Step::ReadArrived)
            }
            (phase @ (Phase::Unsent | Phase::Sending), Event::Lull) => {
                let parts = self.chunker.push(&std::mem::take(&mut self.batch));
                self.ready(phase, parts, Upto::Lull)
            }
            (phase @ (Phase::Unsent | Phase::Sending), Event::Ended) => {
                let parts = self.finish();
                self.ready(phase, parts, Upto::End)
            }
            (Phase::Unsent, Event::Broke(error)) => self.stop(End::Failed(error)),
            (Phase::Sending, Event::Broke(error)) => (Phase::Retracting(error), Step::Retract),
            (Phase::Sending, Event::GaveUp) => {
                // Whatever was held back is of no use now; finishing keeps `is_full` true
                // to the text the model sent.
                self.finish();
                self.stop(End::Done {
                    cut_at_budget: self.chunker.is_full(),
                    radio_gave_up: true,
                })
            }
            (Phase::Opening(batch), Event::Opened) => {
                let step = Step::Hand(Handing {
                    parts: batch.parts.clone(),
                    last: batch.last,
                });
                (Phase::Handing(batch), step)
            }
            (Phase::Opening(_), Event::Refused) => self.stop(End::Closed { queued: false }),
            (Phase::Handing(batch), Event::Handed) => {
                self.handed.extend(batch.parts);
                if batch.ends {
                    self.done()
                } else {
                    (Phase::Sending, Step::Read)
                }
            }
            (Phase::Handing(_), Event::Refused) => self.stop(End::Closed { queued: true }),
            (Phase::Retracting(error), Event::Retracted) => self.stop(End::Failed(error)),
            (Phase::Retracting(error), Event::OnAir) => {
                let notice = chunk(self.cut_off, &notice_limits(&self.limits))
                    .pop()
                    .unwrap_or_default();
                self.stop(End::CutOff { error, notice })
            }
            (Phase::Over(end), _) => (Phase::Over(end.clone()), Step::Stop(end)),
            (phase, event) => {
                // Names only: the phase and the event may carry the answer's text.
                let queued = !matches!(phase, Phase::Unsent | Phase::Opening(_));
                let event = event.name();
                warn!(
                    event,
                    queued, "streamed reply: an event out of turn ends the attempt"
                );
                self.stop(End::Closed { queued })
            }
        };
        self.phase = phase;
        step
    }

    /// Takes in one raw piece: cleaned, into the batch.
    fn take(&mut self, raw: &str) {
        self.raw.push_str(raw);
        let cleaned = self.cleaner.push(raw);
        if cleaned.restart {
            self.batch.clear();
            if !self.chunker.restart() {
                warn!("a </think> came after the first part went on air");
            }
        }
        self.batch.push_str(&cleaned.text);
    }

    /// The answer is complete: the batch and whatever the cleaner and the chunker held back.
    fn finish(&mut self) -> Parts {
        self.batch.push_str(&self.cleaner.finish().text);
        let mut parts = self.chunker.push(&std::mem::take(&mut self.batch));
        // The budget may have filled in this very batch: then `push` already gave the last
        // part and `finish` has nothing left, which must not unmark it.
        let rest = self.chunker.finish();
        parts.parts.extend(rest.parts);
        parts.last |= rest.last;
        parts
    }

    /// What follows a batch: its parts go to the outbox (queueing the reply first), or,
    /// with none, the next read, or the end when the batch runs `upto` the answer's end.
    fn ready(&mut self, phase: Phase, parts: Parts, upto: Upto) -> (Phase, Step) {
        let Parts { parts, last } = parts;
        if parts.is_empty() {
            return match (upto, phase) {
                (Upto::Lull, phase) => (phase, Step::Read),
                (Upto::End, Phase::Unsent) => self.stop(End::Failed(LlmError::Empty)),
                // The parts handed over are the whole answer, though none was marked last
                // (the outbox numbers them ` i/?` when the pump lets go of the reply).
                (Upto::End, _) => self.done(),
            };
        }
        if let Some(lang) = self.again
            && matches!(phase, Phase::Unsent)
            && check::refuses(&parts.join(" "), lang)
        {
            return self.stop(End::Refused);
        }
        let instead = match (&phase, upto, &self.guard) {
            (Phase::Unsent, Upto::End, Some(guard)) => guard.instead_of(&parts.join(" ")),
            _ => None,
        };
        let parts = match instead {
            Some((text, replaced)) => {
                instead::log(replaced);
                self.replaced = Some(replaced);
                // Cut as a streamed answer is: bodies the outbox numbers.
                let mut cut = StreamChunker::with_mark(&self.limits, CutMark::Ellipsis);
                let mut parts = cut.push(&text).parts;
                parts.extend(cut.finish().parts);
                parts
            }
            None => parts,
        };
        let batch = Batch {
            ends: last || upto == Upto::End,
            parts,
            last,
        };
        match phase {
            Phase::Unsent => (Phase::Opening(batch), Step::Open),
            _ => {
                let step = Step::Hand(Handing {
                    parts: batch.parts.clone(),
                    last: batch.last,
                });
                (Phase::Handing(batch), step)
            }
        }
    }

    /// The answer, or as much as the budget holds, is with the outbox.
    fn done(&self) -> (Phase, Step) {
        self.stop(End::Done {
            cut_at_budget: self.chunker.is_full(),
            radio_gave_up: false,
        })
    }

    fn stop(&self, end: End) -> (Phase, Step) {
        (Phase::Over(end.clone()), Step::Stop(end))
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

#[cfg(test)]
mod tests;
