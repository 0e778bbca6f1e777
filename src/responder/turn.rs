//! One node's worker: answers its messages in order (commands, LLM turns, notices) and starts
//! the background summary after a reply is queued.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use tokio::sync::{mpsc, oneshot};
use tracing::{Instrument, debug, info, warn};

use super::answer;
use super::commands::{self, Command, Parsed};
use super::{Destination, Job, Shared, store_unanswered, unix_now};
use crate::chunk::{ChunkLimits, chunk};
use crate::llm::LlmError;
use crate::memory::store::StoreError;
use crate::memory::{prompt, summary};
use crate::node::NodeId;
use crate::radio::{LinkState, PartOutcome, ReplyReport, ReplyRequest, TextMessage};

/// A worker with nothing to do for this long retires (a new one starts on the next message).
const IDLE_RETIRE: Duration = Duration::from_secs(600);

/// The notice when SQLite fails (disk full, permissions): one packet, no raw error.
const STORE_FAILED: &str = "Sorry, my memory store failed. Try again later.";

/// Summary rounds per trigger: a backlog larger than this many batches waits for later turns.
const SUMMARY_ROUNDS: usize = 3;

pub(super) async fn worker(shared: Arc<Shared>, node: NodeId, mut rx: mpsc::Receiver<Job>) {
    let summarizing = Arc::new(AtomicBool::new(false));
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

async fn handle(shared: &Arc<Shared>, node: NodeId, job: Job, summarizing: &Arc<AtomicBool>) {
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
                    llm_turn(shared, node, &msg, dest).await;
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

async fn llm_turn(shared: &Arc<Shared>, node: NodeId, msg: &TextMessage, dest: Destination) {
    let s = &shared.settings;
    // The user's message is stored before the LLM is called, with the node's names.
    let loaded = async {
        let user_id = shared
            .store
            .append_heard(node, heard_names(msg), msg.text.clone(), unix_now())
            .await?;
        let (window, retrieve) = (s.memory.window_messages, s.memory.retrieve_exchanges);
        let ctx = shared
            .store
            .context(node, user_id, window, &msg.text, retrieve)
            .await?;
        Ok::<_, StoreError>((user_id, ctx))
    };
    let (user_id, ctx) = match loaded.await {
        Ok(loaded) => loaded,
        Err(e) => {
            warn!(error = %e, "memory store failed");
            notice(shared, dest, msg.packet_id, STORE_FAILED).await;
            return;
        }
    };
    let messages = prompt::reply_prompt(&s.system_prompt, &ctx, &msg.text);
    let chars = prompt::prompt_chars(&messages);
    debug!(
        prompt_chars = chars,
        messages = messages.len(),
        "asking the LLM"
    );
    let question = answer::Question {
        node,
        user_id,
        packet_id: msg.packet_id,
        dest,
        messages: &messages,
        prompt_chars: chars,
    };
    answer::answer(shared, question).await;
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
            let text = match shared.store.summary(node).await {
                Ok(Some(s)) => format!("I remember: {}", s.text),
                Ok(None) => match shared.store.history(node, 1).await {
                    Ok(h) if !h.is_empty() => {
                        "No summary yet: I only have our recent messages.".into()
                    }
                    _ => "I don't remember anything about you yet.".into(),
                },
                Err(e) => {
                    warn!(error = %e, "could not read the summary");
                    STORE_FAILED.into()
                }
            };
            let two = ChunkLimits {
                max_chunks: 2.min(limits.max_chunks),
                ..limits
            };
            send(shared, dest, Some(id), &text, two).await;
            return;
        }
    };
    send(shared, dest, Some(id), &text, limits).await;
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
             {} summaries ({} failed).",
            c.dms.load(Ordering::Relaxed),
            c.replies.load(Ordering::Relaxed),
            c.notices.load(Ordering::Relaxed),
            c.llm_failures.load(Ordering::Relaxed),
            c.summaries.load(Ordering::Relaxed),
            c.summary_failures.load(Ordering::Relaxed),
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

/// Starts the background summary for this node unless one is already running.
fn start_summary(shared: &Arc<Shared>, node: NodeId, summarizing: &Arc<AtomicBool>) {
    if summarizing.swap(true, Ordering::SeqCst) {
        return;
    }
    let shared2 = shared.clone();
    let flag = summarizing.clone();
    shared.tracker.spawn(
        async move {
            tokio::select! {
                _ = shared2.stop.cancelled() => {}
                _ = summarize(&shared2, node) => {}
            }
            flag.store(false, Ordering::SeqCst);
        }
        .in_current_span(),
    );
}

/// Folds messages that left the window into the node's summary, one batch per round.
async fn summarize(shared: &Arc<Shared>, node: NodeId) {
    let m = &shared.settings.memory;
    let max_tokens = (m.summary_max_chars as u32 / 2).max(64);
    for _ in 0..SUMMARY_ROUNDS {
        let job = match shared
            .store
            .pending_summary(
                node,
                m.window_messages,
                m.summarize_threshold,
                m.summarize_threshold,
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
        let Some(through) = job.evicted.last().map(|m| m.id) else {
            return;
        };
        let previous = job.previous.as_ref().map(|s| s.text.as_str());
        let expected = job.previous.as_ref().map(|s| s.through_id);
        let messages = summary::summary_prompt(previous, &job.evicted, m.summary_max_chars);
        let mut saved = false;
        for attempt in 1..=2 {
            let slot = shared.gate.summary().await;
            let result = tokio::select! {
                _ = slot.token().cancelled() => {
                    debug!("summary yielded to a reply; retried at a later turn");
                    return;
                }
                r = shared.llm.complete(&messages, max_tokens) => r,
            };
            drop(slot);
            let text = match result {
                Ok(done) => match summary::accept_summary(&done.text, m.summary_max_chars) {
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
            match shared
                .store
                .save_summary(node, text, through, expected)
                .await
            {
                Ok(true) => {
                    shared.counters.summaries.fetch_add(1, Ordering::Relaxed);
                    info!(folded = job.evicted.len(), through, "summary updated");
                    saved = true;
                }
                Ok(false) => debug!("history changed meanwhile; summary discarded"),
                Err(e) => warn!(error = %e, "could not save the summary"),
            }
            break;
        }
        if !saved {
            shared
                .counters
                .summary_failures
                .fetch_add(1, Ordering::Relaxed);
            return;
        }
    }
}
