//! One node's worker: takes the node's jobs in order (a command, a text or `!more` with its
//! turn, a notice), settles what each DM may do (decided at the intake, or by its key now:
//! `trust`, by the rules of `identity`; a PKI DM or a command taken before is ignored,
//! `once`), answers commands (`commands`) and runs each turn
//! (`turn`: with the node's memory, or without it when the DM may not use it). The
//! background summary (`fold`) starts once a reply is queued.
//!
//! Every job carries a [`DmDest`](crate::responder::reply::DmDest): whatever a worker sends
//! goes to the DM's sender, never to a channel.

use std::sync::Arc;
use std::time::Duration;

use tokio::sync::mpsc;
use tracing::{debug, info, warn};

use crate::clock::unix_now;
use crate::node::NodeId;
use crate::radio::TextMessage;
use crate::responder::asker::{Asking, heard_names};
use crate::responder::commands;
use crate::responder::fold::SummaryState;
use crate::responder::identity::once::{self, Kind};
use crate::responder::identity::trust;
use crate::responder::identity::{self, Ask, Grant, Rule, Verdict, Who};
use crate::responder::job::{Dm, Job};
use crate::responder::schedule::gate::Turn;
use crate::responder::shared::Shared;
use crate::responder::turn::knowledge;
use crate::responder::turn::{self, Asks, Memory};

/// A worker with nothing to do for this long retires (a new one starts on the next message).
const IDLE_RETIRE: Duration = Duration::from_secs(600);

/// Answers `node`'s jobs from `rx` in order, until shutdown (then what is still queued is
/// stored, not answered) or until it was idle for [`IDLE_RETIRE`].
pub(super) async fn worker(shared: Arc<Shared>, node: NodeId, mut rx: mpsc::Receiver<Job>) {
    let summarizing = Arc::new(SummaryState::default());
    loop {
        let next = tokio::select! {
            _ = shared.stop.cancelled() => break,
            next = tokio::time::timeout(IDLE_RETIRE, rx.recv()) => next,
        };
        let job = match next {
            Ok(Some(job)) => job,
            Ok(None) => break,
            Err(_) => return retire(&shared, node, rx, &summarizing).await,
        };
        tokio::select! {
            _ = shared.stop.cancelled() => break,
            _ = handle(&shared, node, job, &summarizing) => {}
        }
    }
    // Shutting down: keep what users sent, answer nothing more.
    rx.close();
    while let Ok(job) = rx.try_recv() {
        job.keep_unanswered(&shared.store, &shared.keys).await;
    }
}

/// Retires a worker that was idle: jobs sent between the timeout and the close are still
/// answered.
async fn retire(
    shared: &Arc<Shared>,
    node: NodeId,
    mut rx: mpsc::Receiver<Job>,
    summarizing: &Arc<SummaryState>,
) {
    rx.close();
    while let Ok(job) = rx.try_recv() {
        handle(shared, node, job, summarizing).await;
    }
    debug!("worker retired after being idle");
}

async fn handle(shared: &Arc<Shared>, node: NodeId, job: Job, summarizing: &Arc<SummaryState>) {
    match job {
        Job::Notice {
            text,
            dest,
            reply_to,
        } => shared.out.notice(dest.into(), reply_to, &text).await,
        Job::Command { dm, call } => {
            if !once::first_time(&shared.store, &dm.msg, Kind::Command).await {
                return;
            }
            let Some((_, grant)) = settle(shared, &dm, call.ask()).await else {
                return;
            };
            if grant.memory {
                touch(shared, node, &dm.msg).await;
            }
            commands::run(shared, &call, grant, dm.dest, dm.msg.packet_id).await;
        }
        Job::Text { dm, turn } => text_turn(shared, &dm, turn, Asks::Text, summarizing).await,
        Job::More { dm, turn } => text_turn(shared, &dm, turn, Asks::More, summarizing).await,
    }
}

/// What `dm`, asking for `ask`, may do: its verdict and grant — decided at the intake, or now
/// by its key (`trust`) and the identity rules — or `None` when it runs nothing (its refusal
/// line sent).
async fn settle(shared: &Arc<Shared>, dm: &Dm, ask: Ask) -> Option<(Verdict, Grant)> {
    let msg = &dm.msg;
    // The text itself only at debug: logs are not the place for people's messages.
    info!(chars = msg.text.chars().count(), hops = ?msg.hops, pki = msg.pki, standing = %dm.dest.standing(), "message received");
    debug!(text = %msg.text, "message text");
    let (verdict, rule) = match dm.who {
        Who::Decided { verdict, grant } => (verdict, Rule::Run(grant)),
        Who::Key(key) => {
            let access = &shared.settings.access;
            let keys = &shared.keys;
            let verdict = trust::check_key(&shared.store, keys, access, msg.from, key).await;
            (verdict, identity::rule(verdict, ask))
        }
    };
    if verdict != Verdict::Own {
        info!(?verdict, "this message may not use the node's memory");
    }
    match rule {
        Rule::Run(grant) => Some((verdict, grant)),
        Rule::Refuse(line) => {
            shared
                .out
                .notice(dm.dest.into(), msg.packet_id, line.text())
                .await;
            None
        }
        Rule::Drop => None,
    }
}

/// A text or `!more`: its turn, with the node's memory when the DM may use it.
async fn text_turn(
    shared: &Arc<Shared>,
    dm: &Dm,
    turn: Turn,
    asks: Asks,
    summarizing: &Arc<SummaryState>,
) {
    if !once::first_time(&shared.store, &dm.msg, Kind::Text).await {
        return;
    }
    let Some((verdict, grant)) = settle(shared, dm, Ask::Text).await else {
        return;
    };
    let (msg, dest) = (&dm.msg, dm.dest);
    let memory = if grant.memory {
        Memory::Node {
            dest,
            passages: knowledge::passages_for(shared, msg, verdict),
            summaries: summarizing,
        }
    } else {
        Memory::Without { dest }
    };
    let s = &shared.settings;
    let asking = Asking::of(&s.zone, msg, &s.context);
    turn::run(shared, msg, turn, asks, asking, memory).await;
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
