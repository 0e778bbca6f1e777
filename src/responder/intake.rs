//! The intake loop: reads what the radio heard, never waiting on the LLM. A DM passes the
//! access lists, the identity screen (`screen`), the node's rate limit (`ratelimit`) and,
//! for a text, its admission among the waiting turns (`admission`), then goes to its node's
//! worker (`worker`, started on demand); a channel mention goes to its channel's worker
//! (`mention`). A message that is not answered is still stored when it is the node's own
//! (`trust::keep_unanswered`).

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::Ordering;

use tokio::sync::mpsc;
use tracing::{Instrument, debug, info, info_span, warn};

use crate::node::NodeId;
use crate::radio::Inbound;
use crate::responder::job::Job;
use crate::responder::shared::Shared;
use crate::responder::trust::keep_unanswered;
use crate::responder::{admission, mention, ratelimit, screen, worker};

/// Reads `inbound` until shutdown or until the radio is gone.
pub(super) async fn run(shared: Arc<Shared>, mut inbound: mpsc::Receiver<Inbound>) {
    let mut workers: HashMap<NodeId, mpsc::Sender<Job>> = HashMap::new();
    let mut limiter = ratelimit::RateLimiter::new(
        shared.settings.limits.node_messages,
        shared.settings.limits.node_window,
    );
    let mut screen = screen::Screen::load(&shared.store).await;
    let mut mentions = mention::Mentions::new(&shared);
    let mut admission = admission::Admission::default();
    tokio::select! {
        _ = shared.stop.cancelled() => return,
        () = admission::know_stored(&shared) => {}
    }
    loop {
        let event = tokio::select! {
            _ = shared.stop.cancelled() => break,
            ev = inbound.recv() => match ev {
                Some(ev) => ev,
                None => break,
            },
        };
        let msg = match event {
            Inbound::Dm(msg) => msg,
            Inbound::Broadcast(msg) => {
                mentions.take(&shared, msg);
                continue;
            }
        };
        let node = msg.from;
        if !shared.settings.access.permits(node) {
            debug!(node = %node, "not answered: access list");
            continue;
        }
        shared.counters.dms.fetch_add(1, Ordering::Relaxed);
        let now = tokio::time::Instant::now();
        // Proven: a PKI DM from a node that talked to us over PKI before (a first PKI DM is a
        // new key to pin, which anyone can make); the schedule serves it first.
        let proven = msg.pki && screen.uses_pki(node);
        let (dest, grant) = match screen.admit(&msg, &shared.settings.access, now) {
            screen::Admit::Job { dest, grant } => (dest, grant),
            screen::Admit::Refuse { dest, line } => {
                if let Some(text) = line {
                    let job = Job::Notice {
                        text: text.to_string(),
                        dest,
                        reply_to: msg.packet_id,
                    };
                    // A full queue drops the warning: another comes within the hour.
                    let _ = dispatch(&shared, &mut workers, node, job);
                }
                continue;
            }
            screen::Admit::Drop => continue,
        };
        let dest = dest.with_standing(shared.gate.standing(node, proven));
        let job = match limiter.check(node, now) {
            ratelimit::Decision::Answer => match admission.admit(&shared, &msg, dest.standing()) {
                Ok(turn) => Job::Message {
                    msg: Box::new(msg),
                    dest,
                    grant,
                    turn,
                },
                Err(_) => {
                    // Not answered, but stored like every accepted message.
                    keep_unanswered(&shared, &msg, grant).await;
                    continue;
                }
            },
            ratelimit::Decision::Notify { retry_in } => {
                info!(node = %node, "rate limit reached; one notice, then silence");
                // Not answered, but part of the conversation record like the silent ones.
                keep_unanswered(&shared, &msg, grant).await;
                let mins = retry_in.as_secs().div_ceil(60).max(1);
                Job::Notice {
                    text: format!(
                        "You're sending faster than I can answer. I'll reply again in about {mins} min."
                    ),
                    dest,
                    reply_to: msg.packet_id,
                }
            }
            ratelimit::Decision::Silent => {
                debug!(node = %node, "rate limited: silent");
                // Stored anyway, so the conversation record is complete.
                keep_unanswered(&shared, &msg, grant).await;
                continue;
            }
        };
        if let Some(Job::Message { msg, grant, .. }) = dispatch(&shared, &mut workers, node, job) {
            keep_unanswered(&shared, &msg, grant).await;
        }
        if workers.len() > 256 {
            workers.retain(|_, tx| !tx.is_closed());
        }
    }
    debug!("intake stopped");
}

/// Hands a job to the node's worker, starting one if there is none (or it just retired).
/// Returns the job when the node's queue is full: it is not answered.
#[must_use]
fn dispatch(
    shared: &Arc<Shared>,
    workers: &mut HashMap<NodeId, mpsc::Sender<Job>>,
    node: NodeId,
    job: Job,
) -> Option<Job> {
    let job = match workers.get(&node) {
        None => job,
        Some(tx) => match tx.try_send(job) {
            Ok(()) => return None,
            Err(mpsc::error::TrySendError::Full(job)) => {
                warn!(node = %node, "too many messages waiting for this node; one not answered");
                return Some(job);
            }
            // The worker retired after being idle: start a new one.
            Err(mpsc::error::TrySendError::Closed(job)) => job,
        },
    };
    let (tx, rx) = mpsc::channel(shared.settings.limits.node_queue);
    // A fresh channel has room for at least one job.
    let _ = tx.try_send(job);
    workers.insert(node, tx);
    let span = info_span!("node", node = %node);
    shared
        .tracker
        .spawn(worker::worker(shared.clone(), node, rx).instrument(span));
    None
}
