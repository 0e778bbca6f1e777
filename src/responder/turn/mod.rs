//! One LLM turn, the same for every answered message: a DM with its node's memory, a DM
//! without it, a channel mention — the [`Memory`] is the parameter. What to read, whether to
//! answer now, how many parts and which notice are the sans-IO core's (`core`: events in,
//! actions out, table-tested); this file only performs its actions: the gate, the store, the
//! airtime wait, the fold at the hard cap, the knowledge search (`knowledge`), the prompt
//! (`prompt`) and the answer (`answer`). The background summary (`fold`) starts once the
//! reply is queued.
//!
//! A DM's answer goes to its sender ([`DmDest`]), never to a channel; a mention's to its
//! channel, from its public [`Thread`], and nothing of it is stored.
//!
//! A damaged database ([`StoreError::damage`]) does not silence the bot: a message the store
//! cannot keep, or whose memory it cannot read, is answered from the system prompt and the
//! message alone (the store logs the damage once); only other store failures get the
//! `STORE_FAILED` notice.

mod core;
pub mod knowledge;
mod messages;
mod thread;

use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex, OnceLock};

use tokio::sync::{OwnedRwLockReadGuard, watch};
use tokio::time::Instant;
use tracing::{debug, info, warn};

use self::core::{
    Action, End, Event, History, Kind, Last, Limits, ModelCall, Notice, Read, Slot, Start, Stored,
    TurnCore,
};
use self::knowledge::{Documents, Passages};
use crate::airtime::AirtimeConfig;
use crate::chunk::{ChunkLimits, chunk, ends_cut, strip_marker};
use crate::clock::unix_now;
use crate::config::{LimitsConfig, MemoryConfig};
use crate::lang::{Lang, Say, say};
use crate::memory::layout::prompt_chars;
use crate::mesh::MeshConfig;
use crate::radio::{ChannelState, MeshView, TextMessage};
use crate::responder::answer::{self, AnswerCtx, Audience, Check, Kept, Lines, Question};
use crate::responder::budget::{self, AirtimeStats};
use crate::responder::counters::Counters;
use crate::responder::fold::{self, Due, FoldCtx, Limits as FoldLimits, Rounds, SummaryState};
use crate::responder::identity::trust;
use crate::responder::reply::{self, Destination, DmDest, Outbound};
use crate::responder::schedule::gate::{LlmGate, Protection, ReplyPermit, Turn};
use crate::responder::schedule::slots::SlotMap;
use crate::responder::schedule::turns::Unanswered;
use crate::responder::sender::{SenderIntro, heard_names};
use crate::responder::system_prompt::SystemPrompt;
use crate::store::{Context, Role, Said, Store, StoreError};

pub(super) use self::core::Wants;
pub(super) use thread::{THREAD_IDLE, Thread};

/// What a turn may touch, whatever its [`Memory`]: the LLM gate, where replies go, the
/// counters, the channel's airtime, the mesh view, the server's slots, the knowledge folder's
/// passages ([`Documents`]) and the answer ([`AnswerCtx`]), with the settings they read.
/// Nothing of the store: a node's memory comes only with [`Memory::Node`], so a mention's
/// turn cannot reach one.
pub(super) struct TurnCtx {
    pub(super) answer: AnswerCtx,
    pub(super) documents: Documents,
    pub(super) gate: LlmGate,
    pub(super) out: Outbound,
    pub(super) counters: Arc<Counters>,
    /// Which server slot each call names, when the server is llama.cpp (shared with the folds).
    pub(super) slots: Option<Arc<Mutex<SlotMap>>>,
    /// Our node's channel numbers and what the airtime policy did, for the answer's budget.
    pub(super) channel: watch::Receiver<ChannelState>,
    pub(super) airtime: Arc<AirtimeStats>,
    /// The mesh as our node hears it, for the mesh facts.
    pub(super) mesh: watch::Receiver<Arc<MeshView>>,
    pub(super) system_prompt: SystemPrompt,
    pub(super) chunk: ChunkLimits,
    pub(super) limits: LimitsConfig,
    pub(super) memory: MemoryConfig,
    pub(super) mesh_config: MeshConfig,
    pub(super) airtime_config: AirtimeConfig,
}

/// What a turn's answer may draw on, and where it goes.
pub(super) enum Memory<'a> {
    /// The DM's node's memory: its message stored, its memory read in `store`, then
    /// summarised (`folds`; one fold at a time per node: `summaries`); `passages`: what of the
    /// knowledge folder it may get. The only way a turn reaches the store's memory.
    Node {
        dest: DmDest,
        passages: Passages,
        store: &'a Store,
        folds: &'a Arc<FoldCtx>,
        summaries: &'a Arc<SummaryState>,
    },
    /// A DM answered without the node's memory: nothing stored, nothing read.
    Without { dest: DmDest },
    /// A mention, answered to `dest` (its channel, as far as the mention came): its public
    /// thread, nothing stored.
    Channel {
        dest: Destination,
        thread: &'a mut Thread,
    },
}

impl<'a> Memory<'a> {
    fn kind(&self) -> Kind {
        match self {
            Memory::Node { passages, .. } => Kind::Node(*passages),
            Memory::Without { .. } => Kind::Without,
            Memory::Channel { .. } => Kind::Channel,
        }
    }

    /// The node's memory, for a DM's turn with it; the core asks for nothing of it otherwise.
    fn store(&self) -> Option<&'a Store> {
        match self {
            Memory::Node { store, .. } => Some(*store),
            Memory::Without { .. } | Memory::Channel { .. } => None,
        }
    }

    fn dest(&self) -> Destination {
        match self {
            Memory::Node { dest, .. } | Memory::Without { dest } => (*dest).into(),
            Memory::Channel { dest, .. } => *dest,
        }
    }
}

/// Runs `msg`'s turn, for what it `wants`, with `memory`; `intro` is who is asking, as the first
/// message of a conversation says it. `earlier`: the node's messages before `msg` that the
/// turn answers too, in order.
pub(super) async fn run(
    ctx: &TurnCtx,
    msg: &TextMessage,
    earlier: &[String],
    turn: Turn,
    wants: Wants,
    intro: SenderIntro,
    memory: Memory<'_>,
) {
    let lang = intro.lang();
    let mut core = TurnCore::new(Start {
        kind: memory.kind(),
        wants,
        text: msg.text.clone(),
        earlier: earlier.to_vec(),
        intro,
        standing: turn.standing,
        limits: Limits {
            chunk: ctx.chunk,
            new_node_parts: ctx.limits.new_node_parts,
            hard_cap: FoldLimits::of(&ctx.memory).hard_cap,
        },
        mesh: ctx.mesh_config.enabled,
        lang,
    });
    let mut driver = Driver {
        ctx,
        msg,
        earlier,
        turn,
        permit: None,
        reading: None,
        memory,
        said: OnceLock::new(),
        newest: None,
        lang,
    };
    let mut action = core.start();
    loop {
        action = match action {
            Action::End(end) => return driver.end(end),
            action => {
                let event = driver.perform(action).await;
                core.on(event)
            }
        };
    }
}

/// What performs one turn's actions: the turn, its LLM slot once granted, its memory.
struct Driver<'a> {
    ctx: &'a TurnCtx,
    msg: &'a TextMessage,
    /// The node's messages before `msg` that the turn answers too.
    earlier: &'a [String],
    turn: Turn,
    permit: Option<ReplyPermit>,
    /// Held from asking for the slot until the memory is read: the node's fold saves after
    /// that read (`fold::SummaryState::reading`).
    reading: Option<OwnedRwLockReadGuard<()>>,
    memory: Memory<'a>,
    /// The id of the newest message this turn stored (its reply, once stored): the
    /// background summary takes only what came up to it, not a message the node sent
    /// meanwhile, which the next prompt must keep.
    newest: Option<i64>,
    /// What a mention's answer said, for its thread.
    said: OnceLock<String>,
    /// The turn's language: its notices'.
    lang: Lang,
}

impl Driver<'_> {
    async fn perform(&mut self, action: Action) -> Event {
        let ctx = self.ctx;
        match action {
            Action::Check => Event::Checked(ctx.gate.check(&self.turn)),
            Action::KeepUnanswered => {
                if let Some(store) = self.memory.store() {
                    for text in self.earlier {
                        let said = TextMessage {
                            text: text.clone(),
                            ..self.msg.clone()
                        };
                        trust::store_unanswered(store, &said).await;
                    }
                    trust::store_unanswered(store, self.msg).await;
                }
                Event::Done
            }
            Action::GiveUp(why) => {
                self.give_up(why);
                Event::Done
            }
            Action::Notice(which) => {
                self.notice(which).await;
                Event::Done
            }
            Action::Reply { text, stored } => {
                self.reply(text, stored).await;
                Event::Done
            }
            Action::ReadLast => Event::Last {
                last: self.last().await,
                now: unix_now(),
            },
            Action::Store(said) => {
                let stored = self.store(said).await;
                if let Stored::Id(id) = stored {
                    self.newest = Some(id);
                }
                Event::Stored(stored)
            }
            Action::Airtime => {
                let held_from = Instant::now();
                let budget = budget::budget(&ctx.airtime_config, &ctx.channel, &ctx.airtime).await;
                Event::Budget {
                    budget,
                    held: held_from.elapsed(),
                }
            }
            Action::Extend(held) => {
                ctx.gate.extend(&self.turn, held);
                Event::Done
            }
            Action::Backlog(id) => Event::Backlog(self.backlog(id).await),
            Action::Fold {
                before,
                unsummarized,
            } => {
                self.fold(before, unsummarized).await;
                Event::Done
            }
            Action::Slot => Event::Slot(self.slot().await),
            Action::ReadMemory { user_id, query } => {
                let read = self.read(user_id, &query).await;
                drop(self.reading.take());
                Event::Read(read)
            }
            Action::ReadThread => Event::Read(self.thread()),
            Action::Search(search) => {
                let previous = search.previous.as_deref();
                let note = knowledge::note(
                    &ctx.documents,
                    &search.question,
                    previous,
                    search.passages,
                    self.lang,
                );
                Event::Found(note.await)
            }
            Action::Mesh(text) => Event::Mesh(self.mesh(&text)),
            Action::Answer(call) => Event::Answered(self.answer(*call).await),
            Action::End(_) => Event::Done,
        }
    }

    /// The turn is over: the slot and the turn go, then the summary, when one is due.
    fn end(self, end: End) {
        let Driver {
            msg,
            turn,
            permit,
            memory,
            newest,
            ..
        } = self;
        drop(permit);
        drop(turn);
        if let (
            End::Summarize(size),
            Memory::Node {
                folds, summaries, ..
            },
        ) = (end, memory)
        {
            let before = newest.map_or(i64::MAX, |id| id.saturating_add(1));
            fold::start_summary(folds, msg.from, summaries, size, before);
        }
    }

    /// A DM's turn that got no LLM slot (its message stored when it is the node's own):
    /// counted and logged. Whether the node is told is the core's decision.
    fn give_up(&self, why: Unanswered) {
        match why {
            // Counted when it was displaced, at intake.
            Unanswered::Displaced => debug!("turn displaced by a message of higher standing"),
            Unanswered::Expired => {
                let ctx = self.ctx;
                ctx.counters.turns_expired.fetch_add(1, Ordering::Relaxed);
                let max = ctx.limits.max_turn_wait.as_secs();
                info!(standing = %self.turn.standing, max_turn_wait_secs = max, "turn waited too long: not answered");
            }
        }
    }

    /// One packet instead of the answer: it needs no LLM slot.
    async fn notice(&mut self, which: Notice) {
        drop(self.permit.take());
        let text = say(
            self.lang,
            match which {
                Notice::NothingMore => Say::NothingMore,
                Notice::StoreFailed => Say::StoreFailed,
                Notice::TooBusy => Say::TooBusy,
            },
        );
        self.ctx
            .out
            .notice(self.memory.dest(), self.msg.packet_id, text)
            .await;
    }

    /// The daemon's own answer, sent within the turn's parts and kept as an answer is: in
    /// the node's memory after message `stored` (cut back to what went on air), or in a
    /// mention's thread. It needs no LLM slot.
    async fn reply(&mut self, text: String, stored: Option<i64>) {
        drop(self.permit.take());
        let ctx = self.ctx;
        let parts = chunk(&text, &ctx.chunk);
        let kept = match (&self.memory, stored) {
            (Memory::Node { dest, store, .. }, Some(user_id)) => {
                let node = dest.node();
                let said = Said::plain(
                    parts
                        .iter()
                        .map(|p| strip_marker(p))
                        .collect::<Vec<_>>()
                        .join(" "),
                );
                match store
                    .append_reply(node, user_id, said, unix_now(), None)
                    .await
                {
                    Ok(id) => Some(reply::Stored {
                        node,
                        id,
                        parts: parts.iter().map(|p| strip_marker(p).to_string()).collect(),
                    }),
                    Err(e) => {
                        if !damaged(&e, "the daemon's answer could not be stored") {
                            warn!(error = %e, "could not store the daemon's answer");
                        }
                        None
                    }
                }
            }
            _ => None,
        };
        if let Memory::Channel { thread, .. } = &mut self.memory {
            thread.push(&self.msg.text, &text, Instant::now());
        }
        ctx.counters.replies.fetch_add(1, Ordering::Relaxed);
        ctx.out
            .queue(self.memory.dest(), Some(self.msg.packet_id), parts, kept)
            .await;
    }

    async fn last(&self) -> Last {
        let Some(store) = self.memory.store() else {
            return Last::Unknown;
        };
        match store.last_message(self.msg.from).await {
            Ok(last) => Last::Known {
                at: last.as_ref().map(|m| m.at),
                cut: last.is_some_and(|m| m.role == Role::Assistant && ends_cut(&m.text)),
            },
            Err(e) => {
                debug!(error = %e, "could not read the node's last message");
                Last::Unknown
            }
        }
    }

    /// The user's message, stored before the LLM is called, with the node's names.
    async fn store(&self, said: Said) -> Stored {
        let Some(store) = self.memory.store() else {
            return Stored::Failed;
        };
        let msg = self.msg;
        match store
            .append_heard(msg.from, heard_names(msg), said, unix_now())
            .await
        {
            Ok(id) => Stored::Id(id),
            Err(e) if damaged(&e, "the message could not be stored") => Stored::Damaged,
            Err(e) => {
                warn!(error = %e, "memory store failed");
                Stored::Failed
            }
        }
    }

    async fn backlog(&self, id: i64) -> Option<usize> {
        let store = self.memory.store()?;
        match store.unsummarized(self.msg.from, id).await {
            Ok(n) => Some(n),
            Err(e) => {
                let what = "could not count the unsummarised messages";
                if !damaged(&e, what) {
                    warn!(error = %e, "{what}");
                }
                None
            }
        }
    }

    /// The fold before the reply, at the backlog's hard cap, once the node's background
    /// summary (if one runs) is done.
    async fn fold(&self, before: i64, unsummarized: usize) {
        let Memory::Node {
            folds, summaries, ..
        } = &self.memory
        else {
            return;
        };
        info!(
            unsummarized,
            hard_cap = FoldLimits::of(&self.ctx.memory).hard_cap,
            "memory backlog at its hard cap: summarising before the reply"
        );
        self.ctx
            .counters
            .folds_at_cap
            .fetch_add(1, Ordering::Relaxed);
        let guard = summaries.lock().await;
        let rounds = Rounds {
            before,
            protection: Protection::Protected,
            due: Due::Backstop,
        };
        // No warm-up: this reply reads its prompt next.
        fold::fold_rounds(folds, self.msg.from, rounds, summaries, &guard).await;
    }

    async fn slot(&mut self) -> Result<(), Unanswered> {
        if let Memory::Node { summaries, .. } = &self.memory {
            self.reading = Some(summaries.reading().await);
        }
        match self.ctx.gate.reply(&self.turn).await {
            Ok(permit) => {
                if permit.waited_for_summary {
                    info!("the reply waited for a summary that had already yielded once");
                }
                self.permit = Some(permit);
                Ok(())
            }
            Err(why) => {
                drop(self.reading.take());
                if let Memory::Channel { .. } = self.memory {
                    debug!("a mention's turn gave way: not answered");
                }
                Err(why)
            }
        }
    }

    /// The node's memory for answering message `user_id` (summary, facts, the unsummarised
    /// messages, what `query` retrieves).
    async fn read(&self, user_id: i64, query: &str) -> Read {
        let Some(store) = self.memory.store() else {
            return Read::Damaged;
        };
        let limits = FoldLimits::of(&self.ctx.memory);
        let retrieve = self.ctx.memory.retrieve_exchanges;
        let loaded = store
            .context(self.msg.from, user_id, limits.window(), query, retrieve)
            .await;
        match loaded {
            Ok(ctx) => Read::Memory(shape(ctx, &limits)),
            Err(e) if damaged(&e, "the memory could not be read") => Read::Damaged,
            Err(e) => {
                warn!(error = %e, "memory store failed");
                Read::Failed
            }
        }
    }

    /// The mesh facts for `text` from the view as the link last published it: the same
    /// public facts for a DM and a mention, nothing of anyone's memory.
    fn mesh(&self, text: &str) -> Option<crate::mesh::Answer> {
        let view = self.ctx.mesh.borrow().clone();
        let s = &self.ctx.mesh_config;
        let answer = crate::mesh::answer(&view, s, text, self.msg.from, unix_now(), self.lang);
        if let Some(a) = &answer {
            debug!(?a, nodes = view.len(), "mesh facts for the turn");
        }
        answer
    }

    fn thread(&mut self) -> Read {
        match &mut self.memory {
            Memory::Channel { thread, .. } => {
                let now = Instant::now();
                Read::Thread(thread.current(now).iter().cloned().collect())
            }
            Memory::Node { .. } | Memory::Without { .. } => Read::Damaged,
        }
    }

    /// Asks the model and sends the answer; the tokens of its prompt and reply when it went
    /// out.
    async fn answer(&mut self, call: ModelCall) -> Option<usize> {
        let ctx = self.ctx;
        let messages = messages::messages(ctx.system_prompt.current(call.lang), &call);
        // Built only when the model declines (`Question::again`).
        let again = match (&call.again, ctx.system_prompt.without_hint(call.lang)) {
            (Some(notes), Some(system)) => Some(|| messages::with_notes(system, &call, notes)),
            _ => None,
        };
        let chars = prompt_chars(&messages);
        let slot = match call.slot {
            Slot::Node => {
                if let History::Memory(ctx) = &call.history {
                    debug!(
                        prompt_chars = chars,
                        messages = messages.len(),
                        unsummarized = ctx.unsummarized,
                        "asking the LLM"
                    );
                }
                ctx.slots.as_ref().map(|m| match m.lock() {
                    Ok(mut map) => map.for_node(self.msg.from),
                    Err(poisoned) => poisoned.into_inner().for_node(self.msg.from),
                })
            }
            Slot::Any => None,
        };
        let permit = self.permit.take()?;
        let audience = match &self.memory {
            Memory::Node { dest, store, .. } => Audience::Dm {
                dest: *dest,
                kept: call.stored.map(|user_id| Kept { store, user_id }),
            },
            // The core keeps nothing of a turn without memory (`call.stored` is `None`).
            Memory::Without { dest } => Audience::Dm {
                dest: *dest,
                kept: None,
            },
            Memory::Channel { dest, .. } => Audience::Channel {
                dest: *dest,
                said: &self.said,
            },
        };
        let lines = match &call.history {
            History::Memory(ctx) => Lines::of(ctx, &call.message),
            History::Thread(_) => Lines::default(),
        };
        let question = Question {
            audience,
            packet_id: self.msg.packet_id,
            messages: &messages,
            prompt_chars: chars,
            slot,
            limits: call.limits,
            mark: call.mark,
            lang: call.lang,
            message: &call.message,
            previous: match &call.history {
                History::Memory(ctx) => last_exchange(&ctx.window),
                History::Thread(_) => None,
            },
            lines: &lines,
            check: call.checked.as_deref().map(|notes| Check {
                notes,
                question: &call.question,
            }),
            again: again
                .as_ref()
                .map(|f| f as &(dyn Fn() -> Vec<crate::llm::ChatMessage> + Sync)),
        };
        // The LLM slot taken before the memory was read is held for the whole answer.
        let answered = answer::answer(&ctx.answer, question, permit).await;
        if let Memory::Channel { thread, .. } = &mut self.memory
            && let Some(said) = self.said.get()
        {
            thread.push(&call.message, said, Instant::now());
        }
        // The background fold after the turn continues the conversation through its reply,
        // as the next reply's prompt does: on a one-slot server the fold then leaves the
        // conversation cached for the next reply, whether it is saved or yields.
        if let Some(id) = answered.and_then(|a| a.reply) {
            self.newest = Some(id);
        }
        answered.map(|a| a.tokens)
    }
}

/// The memory as the prompt takes it: after a fold, the messages it left verbatim; a warning
/// when summaries keep failing and the oldest messages are left out.
fn shape(mut ctx: Context, limits: &FoldLimits) -> Context {
    ctx.kept = limits.kept(&ctx);
    if ctx.unsummarized > ctx.window.len() {
        warn!(
            unsummarized = ctx.unsummarized,
            in_prompt = ctx.window.len(),
            "more unsummarised messages than the prompt carries (summaries failing, or a \
             flood stored): the oldest are left out of it"
        );
    }
    ctx
}

/// Whether `e` is a damaged store's, which the turn answers without memory (logged at debug:
/// the store logs the damage once).
fn damaged(e: &StoreError, what: &str) -> bool {
    let damaged = e.damage().is_some();
    if damaged {
        debug!(error = %e, "{what}: answering without memory");
    }
    damaged
}

/// The last exchange of `window` as the prompt carries it: the person's message and the
/// bot's answer after it (an answer the prompt leaves out does not count).
fn last_exchange(window: &[crate::store::StoredMessage]) -> Option<(&str, &str)> {
    let at = window
        .iter()
        .rposition(|m| m.role == Role::Assistant && !m.prompt_text().is_empty())?;
    let asked = window
        .get(..at)?
        .iter()
        .rev()
        .find(|m| m.role == Role::User)?;
    Some((asked.text.as_str(), window.get(at)?.prompt_text()))
}
