//! One node's worker: takes the node's jobs in order (a message, a rate-limit notice),
//! settles what each message may do (`trust`: a PKI DM's key against the pinned one), answers
//! commands (`commands`), and runs one LLM turn: the user's message stored, the airtime
//! budget (a held reply waits here), the fold before the reply at the hard cap, the LLM gate
//! (which may give the turn up: displaced or waited too long, `fair`), the memory read, the
//! prompt with its per-turn notes (the knowledge folder's passages among them), then `answer`. The background summary
//! (`fold`) starts once the reply is queued. A DM that may not use the node's memory gets a
//! turn without it: nothing stored, nothing read, no summary.
//!
//! Every job carries a [`DmDest`]: whatever a worker sends goes to the DM's sender, never to
//! a channel.
//!
//! A damaged database ([`StoreError::damage`]) does not silence the bot: a message the store
//! cannot keep, or whose memory it cannot read, is answered from the system prompt and the
//! message alone (the store logs the damage once); only other store failures get the
//! `STORE_FAILED` notice.

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use tokio::sync::mpsc;
use tracing::{debug, info, warn};

use super::answer::{Audience, Question};
use super::asked::{Asked, load_context, more};
use super::asker::Asking;
use super::commands::{self, Parsed};
use super::dest::DmDest;
use super::fold::{self, Limits, SummaryState};
use super::gate::Turn;
use super::identity::{self, Rule, Verdict};
use super::reply::{STORE_FAILED, notice, send};
use super::{Job, Shared, store_unanswered, trust, unix_now};
use super::{airtime, answer, asker, fair, knowledge};
use crate::chunk::CutMark;
use crate::memory::prompt;
use crate::node::NodeId;
use crate::radio::TextMessage;
use crate::store::{Context, Role, Said, StoreError};

/// A worker with nothing to do for this long retires (a new one starts on the next message).
const IDLE_RETIRE: Duration = Duration::from_secs(600);

/// Answers `node`'s jobs from `rx` in order, until shutdown (then what is still queued is
/// stored, not answered) or until it was idle for [`IDLE_RETIRE`].
pub(super) async fn worker(shared: Arc<Shared>, node: NodeId, mut rx: mpsc::Receiver<Job>) {
    let summarizing = Arc::new(SummaryState::default());
    loop {
        let job = tokio::select! {
            _ = shared.stop.cancelled() => break,
            job = tokio::time::timeout(IDLE_RETIRE, rx.recv()) => match job {
                Ok(Some(job)) => job,
                Ok(None) => break,
                Err(_) => {
                    rx.close();
                    // Jobs sent between the timeout and close() are still answered.
                    while let Ok(job) = rx.try_recv() {
                        handle(&shared, node, job, &summarizing).await;
                    }
                    debug!("worker retired after being idle");
                    return;
                }
            },
        };
        tokio::select! {
            _ = shared.stop.cancelled() => break,
            _ = handle(&shared, node, job, &summarizing) => {}
        }
    }
    // Shutting down: keep what users sent, answer nothing more.
    rx.close();
    while let Ok(job) = rx.try_recv() {
        if let Job::Message { msg, grant, .. } = job {
            store_unanswered(&shared, &msg, grant).await;
        }
    }
}

async fn handle(shared: &Arc<Shared>, node: NodeId, job: Job, summarizing: &Arc<SummaryState>) {
    match job {
        Job::Notice {
            text,
            dest,
            reply_to,
        } => {
            notice(shared, dest.into(), reply_to, &text).await;
        }
        Job::Message {
            msg,
            dest,
            grant,
            turn,
        } => {
            // The text itself only at debug: logs are not the place for people's messages.
            info!(chars = msg.text.chars().count(), hops = ?msg.hops, pki = msg.pki, standing = %dest.standing(), "message received");
            let intake_grant = grant;
            debug!(text = %msg.text, "message text");
            let verdict = trust::verdict(shared, &msg, grant).await;
            if verdict != Verdict::Own {
                info!(?verdict, "this message may not use the node's memory");
            }
            let parsed = commands::parse(&msg.text);
            let rule = identity::rule(verdict, trust::ask(&msg.text));
            let grant = match rule {
                Rule::Run(grant) => grant,
                Rule::Refuse(line) => {
                    notice(shared, dest.into(), msg.packet_id, line.text()).await;
                    return;
                }
                Rule::Drop => return,
            };
            match parsed {
                Parsed::Command(cmd) => {
                    if grant.memory {
                        touch(shared, node, &msg).await;
                    }
                    commands::run(shared, cmd, grant, dest, msg.packet_id).await
                }
                Parsed::Unknown(word) => {
                    if grant.memory {
                        touch(shared, node, &msg).await;
                    }
                    let text = commands::unknown(&word);
                    send(
                        shared,
                        dest.into(),
                        Some(msg.packet_id),
                        &text,
                        shared.settings.chunk,
                    )
                    .await;
                }
                Parsed::Text | Parsed::More => {
                    // Intake admits every text (and `!more`) it hands over with a turn.
                    let Some(turn) = turn else {
                        warn!("a text without a turn: not answered");
                        store_unanswered(shared, &msg, intake_grant).await;
                        return;
                    };
                    if let Err(why) = shared.gate.check(&turn) {
                        fair::not_reached(shared, &msg, intake_grant, dest.into(), &turn, why)
                            .await;
                        return;
                    }
                    let asked = match parsed {
                        Parsed::More => match more(shared, node, grant).await {
                            Some(asked) => asked,
                            None => {
                                notice(shared, dest.into(), msg.packet_id, commands::NOTHING_MORE)
                                    .await;
                                return;
                            }
                        },
                        _ => Asked::text(&msg.text),
                    };
                    if !grant.memory {
                        turn_without_memory(shared, &msg, dest, &turn).await;
                    } else if let Memory::Used { size } = llm_turn(
                        shared,
                        node,
                        &msg,
                        asked,
                        Recipient {
                            dest,
                            private: knowledge::private_for(shared, &msg, verdict),
                        },
                        &turn,
                        summarizing,
                    )
                    .await
                    {
                        drop(turn);
                        fold::start_summary(shared, node, summarizing, size);
                    }
                }
            }
        }
    }
}

/// The node's names as heard with `msg`: unknown ones are `None`, so the store keeps names
/// learned earlier.
fn heard_names(msg: &TextMessage) -> (Option<String>, Option<String>) {
    match msg.names.clone() {
        Some(n) => (Some(n.long_name), Some(n.short_name)),
        None => (None, None),
    }
}

/// Records that the node was heard (a command, which stores no message).
async fn touch(shared: &Arc<Shared>, node: NodeId, msg: &TextMessage) {
    let (long, short) = heard_names(msg);
    match shared.store.touch_node(node, long, short, unix_now()).await {
        Ok(()) => {}
        Err(e) if e.damage().is_some() => debug!(error = %e, "could not update node info"),
        Err(e) => warn!(error = %e, "could not update node info"),
    }
}

/// Whether a turn had the node's memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Memory {
    /// The message was stored (and its memory read, unless the turn ended early). `size`:
    /// the tokens of its prompt and reply, when it was answered.
    Used { size: Option<usize> },
    /// The database is damaged: the turn was answered without memory, or not at all.
    Missing,
}

/// A damaged store's error, logged at debug (the store logs the damage once); `None` for
/// any other error, which the caller handles.
fn without_memory(e: StoreError, what: &str) -> Option<StoreError> {
    if e.damage().is_some() {
        debug!(error = %e, "{what}: answering without memory");
        None
    } else {
        Some(e)
    }
}

/// Where a turn's answer goes, and what of the knowledge folder it may use.
#[derive(Debug, Clone, Copy)]
struct Recipient {
    dest: DmDest,
    /// The DM may get private passages (`knowledge::private_for`).
    private: bool,
}

async fn llm_turn(
    shared: &Arc<Shared>,
    node: NodeId,
    msg: &TextMessage,
    asked: Asked<'_>,
    to: Recipient,
    turn: &Turn,
    summarizing: &Arc<SummaryState>,
) -> Memory {
    let Recipient { dest, private } = to;
    let s = &shared.settings;
    let limits = Limits::of(&s.memory);
    // The first message of a conversation carries who is asking and when: stored with it,
    // so every later prompt repeats it as the model first saw it.
    let starts = match shared.store.last_message(node).await {
        Ok(last) => asker::starts_conversation(last.map(|m| m.at), unix_now()),
        Err(_) => true,
    };
    let asking = Asking::of(&s.zone, msg, &s.context, starts);
    let said = Said::with_prompt(asked.text, asking.message(asked.prompt));
    // The user's message is stored before the LLM is called, with the node's names.
    let user_id = match shared
        .store
        .append_heard(node, heard_names(msg), said.clone(), unix_now())
        .await
    {
        Ok(id) => Some(id),
        Err(e) => match without_memory(e, "the message could not be stored") {
            None => None,
            Some(e) => {
                warn!(error = %e, "memory store failed");
                notice(shared, dest.into(), msg.packet_id, STORE_FAILED).await;
                return Memory::Used { size: None };
            }
        },
    };
    // A busy channel shapes the answer: the reply may wait here, before the LLM is asked (so
    // it holds no LLM slot and no other node), and then be shortened. That wait has its own
    // bound and does not count against the turn's.
    let held_from = tokio::time::Instant::now();
    let budget = airtime::budget(&s.airtime, &shared.channel, &shared.airtime).await;
    shared.gate.extend(turn, held_from.elapsed());
    let unsummarized = match user_id {
        Some(id) => shared.store.unsummarized(node, id).await.map(|n| (id, n)),
        None => Ok((0, 0)),
    };
    match unsummarized {
        Ok((user_id, n)) if n >= limits.hard_cap => {
            // Background summaries could not keep up (or kept failing): fold now, before
            // the reply, so the prompt stays bounded and nothing leaves it unsummarised.
            info!(
                unsummarized = n,
                hard_cap = limits.hard_cap,
                "memory backlog at its hard cap: summarising before the reply"
            );
            shared.counters.folds_at_cap.fetch_add(1, Ordering::Relaxed);
            let guard = summarizing.lock().await;
            fold::fold_rounds(shared, node, user_id, summarizing, true, false, &guard).await;
        }
        Ok(_) => {}
        Err(e) => {
            if let Some(e) = without_memory(e, "could not count the unsummarised messages") {
                warn!(error = %e, "could not count the unsummarised messages");
            }
        }
    }
    let permit = match shared.gate.reply(turn).await {
        Ok(permit) => permit,
        Err(why) => {
            fair::gave_up(shared, dest.into(), msg.packet_id, turn, why).await;
            return Memory::Used { size: None };
        }
    };
    if permit.waited_for_summary {
        info!("the reply waited for a summary that had already yielded once");
    }
    // The memory is read once the LLM is ours: a summary saved while we waited is used.
    let loaded = match user_id {
        Some(id) => load_context(shared, node, id, asked.query, &limits).await,
        None => Ok(Context::default()),
    };
    let (ctx, used) = match loaded {
        Ok(ctx) => (ctx, user_id.is_some()),
        Err(e) => match without_memory(e, "the memory could not be read") {
            None => (Context::default(), false),
            Some(e) => {
                drop(permit);
                warn!(error = %e, "memory store failed");
                notice(shared, dest.into(), msg.packet_id, STORE_FAILED).await;
                return Memory::Used { size: None };
            }
        },
    };
    // How the message came and a shortened answer's budget: notes for this turn only, never
    // stored or summarised. A node heard for the first time gets a smaller answer (unless
    // the channel's budget is smaller still).
    let (limits, first_note) = fair::budget(
        budget.limits(s.chunk),
        turn.standing,
        s.limits.new_node_parts,
    );
    // The operator's documents for this question (a short follow-up is read with the
    // asker's message before it): a per-turn note, last, nearest the question. `!more`
    // (no query of its own) searches with the question whose answer it continues.
    let mut asked_before = ctx
        .window
        .iter()
        .rev()
        .filter(|m| m.role == Role::User && commands::parse(&m.text) != Parsed::More)
        .map(|m| m.text.as_str());
    let (question, previous) = match asked.query {
        "" => (asked_before.next(), None),
        query => (Some(query), asked_before.next()),
    };
    let documents = match question {
        Some(question) => knowledge::note(shared, question, previous, private).await,
        None => None,
    };
    let mut notes: Vec<String> = asking.notes(knowledge::Note::grounds(&documents));
    notes.extend(budget.note(&s.chunk));
    notes.extend(first_note);
    notes.extend(documents.map(|n| n.text));
    let message = said.prompt.as_deref().unwrap_or(&said.text);
    let messages = prompt::reply_prompt(
        &s.system_prompt,
        &ctx,
        prompt::Turn {
            message,
            notes: &notes,
        },
    );
    let chars = prompt::prompt_chars(&messages);
    debug!(
        prompt_chars = chars,
        messages = messages.len(),
        unsummarized = ctx.unsummarized,
        "asking the LLM"
    );
    let slot = shared.slots.as_ref().map(|m| match m.lock() {
        Ok(mut map) => map.for_node(node),
        Err(poisoned) => poisoned.into_inner().for_node(node),
    });
    let question = Question {
        audience: Audience::Dm {
            dest,
            stored: user_id,
        },
        packet_id: msg.packet_id,
        messages: &messages,
        prompt_chars: chars,
        slot,
        limits,
        // The rest of a cut answer can be asked for only where the conversation is kept.
        mark: if user_id.is_some() {
            CutMark::More
        } else {
            CutMark::Ellipsis
        },
    };
    // The LLM slot taken above is held for the whole answer, streamed or not.
    let answered = answer::answer(shared, question, permit).await;
    if used {
        Memory::Used {
            size: answered.map(|a| a.tokens),
        }
    } else {
        Memory::Missing
    }
}

/// Answers `msg` without the node's memory: nothing is stored or read, no summary follows.
/// The prompt is the system prompt, the per-turn notes and the message.
async fn turn_without_memory(shared: &Arc<Shared>, msg: &TextMessage, dest: DmDest, turn: &Turn) {
    let s = &shared.settings;
    let held_from = tokio::time::Instant::now();
    let budget = airtime::budget(&s.airtime, &shared.channel, &shared.airtime).await;
    shared.gate.extend(turn, held_from.elapsed());
    let permit = match shared.gate.reply(turn).await {
        Ok(permit) => permit,
        Err(why) => {
            fair::gave_up(shared, dest.into(), msg.packet_id, turn, why).await;
            return;
        }
    };
    let (limits, first_note) = fair::budget(
        budget.limits(s.chunk),
        turn.standing,
        s.limits.new_node_parts,
    );
    // No history: the message always says who is asking and how it came.
    let asking = Asking::of(&s.zone, msg, &s.context, true);
    // Without the node's memory nothing proves the sender: public passages only.
    let documents = knowledge::note(shared, &msg.text, None, false).await;
    let mut notes: Vec<String> = asking.notes(knowledge::Note::grounds(&documents));
    notes.extend(budget.note(&s.chunk));
    notes.extend(first_note);
    notes.extend(documents.map(|n| n.text));
    let message = asking.message(&msg.text);
    let messages = prompt::reply_prompt(
        &s.system_prompt,
        &Context::default(),
        prompt::Turn {
            message: &message,
            notes: &notes,
        },
    );
    let question = Question {
        audience: Audience::Dm { dest, stored: None },
        packet_id: msg.packet_id,
        prompt_chars: prompt::prompt_chars(&messages),
        messages: &messages,
        // The node's slot holds its memory's prompt: leave it be.
        slot: None,
        limits,
        mark: CutMark::Ellipsis,
    };
    answer::answer(shared, question, permit).await;
}
