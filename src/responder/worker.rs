//! One node's worker: takes the node's jobs in order (a message, a rate-limit notice),
//! answers commands (`commands`), and runs one LLM turn: the user's message stored, the
//! airtime budget (a held reply waits here), the fold before the reply at the hard cap, the
//! LLM gate (which may give the turn up: displaced or waited too long, `fair`), the memory
//! read, the prompt with its per-turn notes, then `answer`. The background summary (`fold`)
//! starts once the reply is queued.

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use tokio::sync::mpsc;
use tracing::{debug, info, warn};

use super::commands::{self, Parsed};
use super::fold::{self, Limits, SummaryState};
use super::gate::Turn;
use super::reply::{STORE_FAILED, notice, send};
use super::{Destination, Job, Shared, store_unanswered, unix_now, unix_time};
use super::{airtime, answer, asker, fair};
use crate::memory::prompt;
use crate::memory::store::{Context, StoreError};
use crate::node::NodeId;
use crate::radio::TextMessage;

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
        if let Job::Message { msg, .. } = job {
            store_unanswered(&shared, &msg).await;
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
            notice(shared, dest, reply_to, &text).await;
        }
        Job::Message { msg, dest, turn } => {
            // The text itself only at debug: logs are not the place for people's messages.
            info!(chars = msg.text.chars().count(), hops = ?msg.hops, standing = %dest.standing, "message received");
            debug!(text = %msg.text, "message text");
            match commands::parse(&msg.text) {
                Parsed::Command(cmd) => {
                    touch(shared, node, &msg).await;
                    commands::run(shared, node, cmd, dest, msg.packet_id).await
                }
                Parsed::Unknown(word) => {
                    touch(shared, node, &msg).await;
                    let text = commands::unknown(&word);
                    send(
                        shared,
                        dest,
                        Some(msg.packet_id),
                        &text,
                        shared.settings.chunk,
                    )
                    .await;
                }
                Parsed::Text => {
                    // Intake admits every text it hands over with a turn.
                    let Some(turn) = turn else {
                        warn!("a text without a turn: not answered");
                        store_unanswered(shared, &msg).await;
                        return;
                    };
                    if let Err(why) = shared.gate.check(&turn) {
                        fair::not_reached(shared, &msg, dest, &turn, why).await;
                        return;
                    }
                    llm_turn(shared, node, &msg, dest, &turn, summarizing).await;
                    drop(turn);
                    fold::start_summary(shared, node, summarizing);
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
    if let Err(e) = shared.store.touch_node(node, long, short, unix_now()).await {
        warn!(error = %e, "could not update node info");
    }
}

async fn llm_turn(
    shared: &Arc<Shared>,
    node: NodeId,
    msg: &TextMessage,
    dest: Destination,
    turn: &Turn,
    summarizing: &Arc<SummaryState>,
) {
    let s = &shared.settings;
    let limits = Limits::of(&s.memory);
    // The user's message is stored before the LLM is called, with the node's names.
    let user_id = match shared
        .store
        .append_heard(node, heard_names(msg), msg.text.clone(), unix_now())
        .await
    {
        Ok(id) => id,
        Err(e) => {
            warn!(error = %e, "memory store failed");
            notice(shared, dest, msg.packet_id, STORE_FAILED).await;
            return;
        }
    };
    // A busy channel shapes the answer: the reply may wait here, before the LLM is asked (so
    // it holds no LLM slot and no other node), and then be shortened. That wait has its own
    // bound and does not count against the turn's.
    let held_from = tokio::time::Instant::now();
    let budget = airtime::budget(&s.airtime, &shared.channel, &shared.airtime).await;
    shared.gate.extend(turn, held_from.elapsed());
    match shared.store.unsummarized(node, user_id).await {
        Ok(n) if n >= limits.hard_cap => {
            // Background summaries could not keep up (or kept failing): fold now, before
            // the reply, so the prompt stays bounded and nothing leaves it unsummarised.
            info!(
                unsummarized = n,
                hard_cap = limits.hard_cap,
                "memory backlog at its hard cap: summarising before the reply"
            );
            shared.counters.folds_at_cap.fetch_add(1, Ordering::Relaxed);
            let guard = summarizing.lock().await;
            fold::fold_rounds(shared, node, user_id, summarizing, true, &guard).await;
        }
        Ok(_) => {}
        Err(e) => warn!(error = %e, "could not count the unsummarised messages"),
    }
    let permit = match shared.gate.reply(turn).await {
        Ok(permit) => permit,
        Err(why) => {
            fair::gave_up(shared, dest, msg.packet_id, turn, why).await;
            return;
        }
    };
    if permit.waited_for_summary {
        info!("the reply waited for a summary that had already yielded once");
    }
    // The memory is read once the LLM is ours: a summary saved while we waited is used.
    let ctx = match load_context(shared, node, user_id, &msg.text, &limits).await {
        Ok(ctx) => ctx,
        Err(e) => {
            drop(permit);
            warn!(error = %e, "memory store failed");
            notice(shared, dest, msg.packet_id, STORE_FAILED).await;
            return;
        }
    };
    // Who is asking, as of this message, and a shortened answer's budget: per-turn notes
    // only, never stored or summarised.
    let clock = asker::LocalClock {
        now: msg.received_at,
        utc_offset_secs: s.zone.offset_at(unix_time(msg.received_at)),
    };
    // A node heard for the first time gets a smaller answer (unless the channel's budget is
    // smaller still).
    let (limits, first_note) = fair::budget(
        budget.limits(s.chunk),
        turn.standing,
        s.limits.new_node_parts,
    );
    let notes: Vec<String> = asker::asker_line(&asker::Asker::of(msg), clock, &s.context)
        .into_iter()
        .chain(budget.note(&s.chunk))
        .chain(first_note)
        .collect();
    let messages = prompt::reply_prompt(&s.system_prompt, &ctx, &notes, &msg.text);
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
    let question = answer::Question {
        node,
        user_id,
        packet_id: msg.packet_id,
        dest,
        messages: &messages,
        prompt_chars: chars,
        slot,
        limits,
    };
    // The LLM slot taken above is held for the whole answer, streamed or not.
    answer::answer(shared, question, permit).await;
}

/// Loads the node's memory for answering message `user_id`.
async fn load_context(
    shared: &Arc<Shared>,
    node: NodeId,
    user_id: i64,
    text: &str,
    limits: &Limits,
) -> Result<Context, StoreError> {
    let retrieve = shared.settings.memory.retrieve_exchanges;
    let ctx = shared
        .store
        .context(node, user_id, limits.max_prompt, text, retrieve)
        .await?;
    if ctx.unsummarized > ctx.window.len() {
        warn!(
            unsummarized = ctx.unsummarized,
            in_prompt = ctx.window.len(),
            "summaries keep failing: the oldest unsummarised messages are left out of the prompt"
        );
    }
    Ok(ctx)
}
