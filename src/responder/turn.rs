//! One node's worker: answers its messages in order (commands, LLM turns, notices) and starts
//! the background summary after a reply is queued.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use tokio::sync::{Mutex, OwnedMutexGuard, mpsc, oneshot};
use tracing::{Instrument, debug, info, warn};

use super::commands::{self, Command, Parsed};
use super::{Destination, Job, Shared, store_unanswered, unix_now, unix_time};
use super::{airtime, answer, asker};
use crate::chunk::{ChunkLimits, chunk};
use crate::llm::LlmError;
use crate::memory::store::{Context, StoreError, SummaryJob, SummarySave};
use crate::memory::{facts, prompt, summary};
use crate::node::NodeId;
use crate::radio::{LinkState, PartOutcome, ReplyReport, ReplyRequest, TextMessage};

/// A worker with nothing to do for this long retires (a new one starts on the next message).
const IDLE_RETIRE: Duration = Duration::from_secs(600);

/// The notice when SQLite fails (disk full, permissions): one packet, no raw error.
const STORE_FAILED: &str = "Sorry, my memory store failed. Try again later.";

/// Summary rounds per trigger: a backlog larger than this many batches waits for later turns.
const SUMMARY_ROUNDS: usize = 3;

/// A node's summaries: one at a time (the lock), and whether the current fold already
/// yielded to a reply once (then it is not cancelled again).
#[derive(Debug, Default)]
pub(super) struct SummaryState {
    lock: Arc<Mutex<()>>,
    yielded: AtomicBool,
}

/// Memory limits derived from `[memory]`.
struct Limits {
    /// Messages kept verbatim after a fold.
    keep: usize,
    /// A fold is due when more than `keep + threshold` messages are unsummarised.
    threshold: usize,
    /// At this many unsummarised messages the fold runs before the reply.
    hard_cap: usize,
    /// The prompt never carries more unsummarised messages than this (only reached when
    /// summaries keep failing).
    max_prompt: usize,
    /// Messages folded in one summary call at most.
    max_batch: usize,
}

impl Limits {
    fn of(m: &crate::config::MemoryConfig) -> Limits {
        let (keep, threshold) = (m.window_messages, m.summarize_threshold.max(1));
        Limits {
            keep,
            threshold,
            hard_cap: keep + 3 * threshold,
            max_prompt: keep + 4 * threshold,
            max_batch: 3 * threshold + 1,
        }
    }
}

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
        Job::Message { msg, dest } => {
            // The text itself only at debug: logs are not the place for people's messages.
            info!(chars = msg.text.chars().count(), hops = ?msg.hops, "message received");
            debug!(text = %msg.text, "message text");
            match commands::parse(&msg.text) {
                Parsed::Command(cmd) => {
                    touch(shared, node, &msg).await;
                    command(shared, node, cmd, dest, msg.packet_id).await
                }
                Parsed::Unknown(word) => {
                    touch(shared, node, &msg).await;
                    let text = format!("Unknown command !{word}. {}", commands::HELP);
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
                    llm_turn(shared, node, &msg, dest, summarizing).await;
                    start_summary(shared, node, summarizing);
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
    // it holds no LLM slot and no other node), and then be shortened.
    let budget = airtime::budget(&s.airtime, &shared.channel, &shared.airtime).await;
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
            let guard = summarizing.lock.clone().lock_owned().await;
            fold_rounds(shared, node, user_id, summarizing, true, &guard).await;
        }
        Ok(_) => {}
        Err(e) => warn!(error = %e, "could not count the unsummarised messages"),
    }
    let permit = shared.gate.reply().await;
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
    let notes: Vec<String> = asker::asker_line(&asker::Asker::of(msg), clock, &s.context)
        .into_iter()
        .chain(budget.note(&s.chunk))
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
        limits: budget.limits(s.chunk),
    };
    // The LLM slot taken above is held for the whole answer, streamed or not.
    answer::answer(shared, question, permit).await;
}

/// The one short packet a user gets when the LLM fails: never the raw error.
pub(super) fn failure_text(e: &LlmError) -> String {
    match e {
        LlmError::Timeout => "Sorry, the AI took too long to answer. Please try again later.",
        LlmError::Connect(_) | LlmError::Status { .. } | LlmError::Setup(_) => {
            "Sorry, the AI is unavailable right now. Please try again later."
        }
        LlmError::BadResponse(_) | LlmError::Empty => {
            "Sorry, the AI gave an unusable answer. Please try again."
        }
    }
    .to_string()
}

async fn command(shared: &Arc<Shared>, node: NodeId, cmd: Command, dest: Destination, id: u32) {
    let limits = shared.settings.chunk;
    let text = match cmd {
        Command::Help => commands::HELP.to_string(),
        Command::Reset => match shared.store.reset(node).await {
            Ok(()) => {
                info!("history and summary forgotten on request");
                "Done: I forgot our conversation and everything I remembered about you.".into()
            }
            Err(e) => {
                warn!(error = %e, "reset failed");
                "Sorry, I could not reset your history. Try again later.".into()
            }
        },
        Command::Status => status(shared, node).await,
        Command::Summary => {
            let text = match summary_text(shared, node).await {
                Ok(text) => text,
                Err(e) => {
                    warn!(error = %e, "could not read the summary");
                    STORE_FAILED.into()
                }
            };
            send(shared, dest, Some(id), &text, limits).await;
            return;
        }
    };
    send(shared, dest, Some(id), &text, limits).await;
}

/// What `!summary` tells a user: the summary and the facts kept about them.
async fn summary_text(shared: &Arc<Shared>, node: NodeId) -> Result<String, StoreError> {
    let summary = shared.store.summary(node).await?;
    let facts = shared.store.facts(node).await?;
    let mut text = String::new();
    if let Some(s) = summary.filter(|s| !s.text.trim().is_empty()) {
        text.push_str("I remember: ");
        text.push_str(s.text.trim());
    }
    if !facts.is_empty() {
        if !text.is_empty() {
            text.push(' ');
        }
        text.push_str("You told me: ");
        text.push_str(&facts.join(" / "));
    }
    if text.is_empty() {
        let any = !shared.store.history(node, 1).await?.is_empty();
        text = if any {
            "No summary yet: I only have our recent messages.".into()
        } else {
            "I don't remember anything about you yet.".into()
        };
    }
    Ok(text)
}

async fn status(shared: &Arc<Shared>, node: NodeId) -> String {
    let up = shared.started.elapsed().as_secs();
    let uptime = format!("{}d{}h{}m", up / 86_400, up % 86_400 / 3600, up % 3600 / 60);
    let radio = match &*shared.link.borrow() {
        LinkState::Ready { .. } => "ok",
        _ => "reconnecting",
    };
    // One aggregate query (per-node counts), not the node's whole history.
    let stats = shared.store.stats().await.unwrap_or_default();
    let mine = stats
        .iter()
        .find(|s| s.node == node)
        .map_or(0, |s| s.messages);
    let mut text = format!(
        "meshai up {uptime}, radio {radio}, model {}. I hold {mine} messages of ours.",
        shared.settings.model
    );
    if shared.llm.len() > 1
        && let Some(server) = shared.llm.last_answered()
    {
        text.push_str(&format!(" LLM: {server}."));
    }
    let channel = *shared.channel.borrow();
    let now = tokio::time::Instant::now();
    if let Some(line) =
        airtime::status_line(&shared.settings.airtime, &channel, &shared.airtime, now)
    {
        text.push(' ');
        text.push_str(&line);
    }
    if shared.settings.access.admins.contains(&node) {
        let c = &shared.counters;
        let calls = c.llm_calls.load(Ordering::Relaxed);
        let avg = c
            .llm_ms_total
            .load(Ordering::Relaxed)
            .checked_div(calls)
            .unwrap_or(0);
        let nodes = stats.len();
        text.push_str(&format!(
            " Admin: {nodes} nodes, {} DMs, {} replies, {} notices, {} LLM fails, avg {avg} ms, \
             summaries {} started, {} saved, {} yielded, {} failed, {} at the cap.",
            c.dms.load(Ordering::Relaxed),
            c.replies.load(Ordering::Relaxed),
            c.notices.load(Ordering::Relaxed),
            c.llm_failures.load(Ordering::Relaxed),
            c.summaries_started.load(Ordering::Relaxed),
            c.summaries.load(Ordering::Relaxed),
            c.summaries_cancelled.load(Ordering::Relaxed),
            c.summary_failures.load(Ordering::Relaxed),
            c.folds_at_cap.load(Ordering::Relaxed),
        ));
    }
    text
}

/// Sends a notice: always exactly one packet.
pub(super) async fn notice(shared: &Arc<Shared>, dest: Destination, reply_to: u32, text: &str) {
    shared.counters.notices.fetch_add(1, Ordering::Relaxed);
    let one = ChunkLimits {
        max_chunks: 1,
        ..shared.settings.chunk
    };
    send(shared, dest, Some(reply_to), text, one).await;
}

async fn send(
    shared: &Arc<Shared>,
    dest: Destination,
    reply_to: Option<u32>,
    text: &str,
    limits: ChunkLimits,
) {
    let parts = chunk(text, &limits);
    queue(shared, dest, reply_to, parts).await;
}

/// Hands the parts to the sink and logs the outcome when it comes back.
pub(super) async fn queue(
    shared: &Arc<Shared>,
    dest: Destination,
    reply_to: Option<u32>,
    parts: Vec<String>,
) {
    if parts.is_empty() {
        return;
    }
    let n = parts.len();
    let req = ReplyRequest {
        to: dest.to,
        channel: dest.channel,
        reply_to,
        parts,
    };
    match shared.sink.send(req).await {
        Ok(report) => watch_report(shared, n, report),
        Err(e) => warn!(error = %e, "reply dropped"),
    }
}

/// Logs the outcome of a reply of `n` parts when its report comes back.
pub(super) fn watch_report(shared: &Arc<Shared>, n: usize, report: oneshot::Receiver<ReplyReport>) {
    shared.tracker.spawn(
        async move {
            let Ok(report) = report.await else { return };
            let count = |o: PartOutcome| report.parts.iter().filter(|p| **p == o).count();
            let delivered = count(PartOutcome::Delivered);
            let relayed = count(PartOutcome::Relayed);
            let unconfirmed = count(PartOutcome::Unconfirmed);
            match report.parts.iter().find_map(|p| match p {
                PartOutcome::Failed(r) => Some(r.clone()),
                _ => None,
            }) {
                None => info!(parts = n, delivered, relayed, unconfirmed, "reply sent"),
                Some(reason) => {
                    warn!(
                        parts = n,
                        delivered,
                        relayed,
                        unconfirmed,
                        ?reason,
                        "reply not fully sent"
                    )
                }
            }
        }
        .in_current_span(),
    );
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

/// Starts the background summary for this node unless one is already running.
fn start_summary(shared: &Arc<Shared>, node: NodeId, state: &Arc<SummaryState>) {
    let Ok(guard) = state.lock.clone().try_lock_owned() else {
        return;
    };
    let shared2 = shared.clone();
    let state = state.clone();
    shared.tracker.spawn(
        async move {
            let protected = state.yielded.load(Ordering::SeqCst);
            tokio::select! {
                _ = shared2.stop.cancelled() => {}
                _ = fold_rounds(&shared2, node, i64::MAX, &state, protected, &guard) => {}
            }
            drop(guard);
        }
        .in_current_span(),
    );
}

/// How one fold ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Fold {
    Saved,
    /// A reply needed the LLM slot; retried after the next reply, protected.
    Yielded,
    /// The LLM failed or the summary was refused twice, or the store failed.
    Failed,
    /// The history changed meanwhile (reset, another save).
    Discarded,
}

/// Folds due messages (those before `before_id`) into the node's summary, one batch per
/// round, while folds are due. The caller holds the node's summary lock (`_guard`).
async fn fold_rounds(
    shared: &Arc<Shared>,
    node: NodeId,
    before_id: i64,
    state: &SummaryState,
    protected: bool,
    _guard: &OwnedMutexGuard<()>,
) {
    let limits = Limits::of(&shared.settings.memory);
    let c = &shared.counters;
    for _ in 0..SUMMARY_ROUNDS {
        let job = match shared
            .store
            .pending_fold(
                node,
                before_id,
                limits.keep,
                limits.threshold,
                limits.max_batch,
            )
            .await
        {
            Ok(Some(job)) => job,
            Ok(None) => return,
            Err(e) => {
                warn!(error = %e, "could not load messages to summarize");
                return;
            }
        };
        let protected = protected || state.yielded.load(Ordering::SeqCst);
        c.summaries_started.fetch_add(1, Ordering::Relaxed);
        match fold(shared, node, &job, protected).await {
            Fold::Saved => {
                c.summaries.fetch_add(1, Ordering::Relaxed);
                state.yielded.store(false, Ordering::SeqCst);
            }
            Fold::Yielded => {
                c.summaries_cancelled.fetch_add(1, Ordering::Relaxed);
                state.yielded.store(true, Ordering::SeqCst);
                return;
            }
            Fold::Failed => {
                c.summary_failures.fetch_add(1, Ordering::Relaxed);
                return;
            }
            Fold::Discarded => return,
        }
    }
}

/// One summary call (two attempts) for `job`, and the save of the summary with the facts
/// found in the folded messages.
async fn fold(shared: &Arc<Shared>, node: NodeId, job: &SummaryJob, protected: bool) -> Fold {
    let m = &shared.settings.memory;
    let max_tokens = (m.summary_max_chars as u32 / 2).max(64);
    let Some(through) = job.evicted.last().map(|m| m.id) else {
        return Fold::Discarded;
    };
    let previous = job.previous.as_ref().map(|s| s.text.as_str());
    let messages = summary::summary_prompt(previous, &job.evicted, m.summary_max_chars);
    let slot = shared.slots.as_ref().map(|map| match map.lock() {
        Ok(map) => map.summary_slot(),
        Err(poisoned) => poisoned.into_inner().summary_slot(),
    });
    for attempt in 1..=2 {
        let lane = shared.gate.summary(protected).await;
        let started = tokio::time::Instant::now();
        let result = tokio::select! {
            // Dropping the call closes its connection: llama.cpp's server then stops
            // generating (its log says "cancel task").
            _ = lane.token().cancelled() => {
                info!(folded = job.evicted.len(), "summary yielded to a reply; it runs again after it");
                return Fold::Yielded;
            }
            r = shared.llm.complete_in(slot, &messages, max_tokens) => r,
        };
        drop(lane);
        let text = match result {
            Ok(done) => match summary::accept_summary(&done.text, m.summary_max_chars, previous) {
                Ok(text) => text,
                Err(e) => {
                    warn!(attempt, error = %e, "summary rejected");
                    continue;
                }
            },
            Err(e) => {
                warn!(attempt, error = %e, "summary call failed");
                continue;
            }
        };
        let save = SummarySave {
            text,
            through_id: through,
            expected_previous: job.previous.as_ref().map(|s| s.through_id),
            facts: picked_facts(job, m.facts_max),
            facts_max: m.facts_max,
        };
        let kept = save.facts.len();
        return match shared.store.save_summary(node, save).await {
            Ok(true) => {
                info!(
                    folded = job.evicted.len(),
                    through,
                    facts = kept,
                    ms = started.elapsed().as_millis() as u64,
                    "summary updated"
                );
                Fold::Saved
            }
            Ok(false) => {
                debug!("history changed meanwhile; summary discarded");
                Fold::Discarded
            }
            Err(e) => {
                warn!(error = %e, "could not save the summary");
                Fold::Failed
            }
        };
    }
    Fold::Failed
}

/// The user's statements about themselves in the folded messages, with their message ids.
fn picked_facts(job: &SummaryJob, max: usize) -> Vec<(String, i64)> {
    if max == 0 {
        return Vec::new();
    }
    job.evicted
        .iter()
        .filter(|m| m.role == crate::memory::Role::User)
        .flat_map(|m| {
            facts::statements(&m.text)
                .into_iter()
                .map(move |f| (f, m.id))
        })
        .collect()
}
