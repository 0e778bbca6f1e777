//! One node's worker: takes the node's jobs in order (a command, a text or `!more` with its
//! turn, a text that joined a turn, a notice); the texts queued behind a text are answered
//! with it, in its turn (one model call, one reply), settles what each DM may do (decided at
//! the intake, or by its key now: `trust`, by the rules of `identity`; a PKI DM or a command
//! taken before is ignored, `once`), answers commands (`commands`) and runs each turn
//! (`turn`: with the node's memory, or without it when the DM may not use it). The
//! background summary (`fold`) starts once a reply is queued.
//!
//! Every job carries a [`DmDest`](crate::responder::reply::DmDest): whatever a worker sends
//! goes to the DM's sender, never to a channel.

use std::sync::Arc;
use std::time::Duration;

use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;
use tracing::{debug, info, warn};

use crate::clock::{Zone, unix_now};
use crate::config::{AccessConfig, ContextConfig};
use crate::knowledge::KnowledgeConfig;
use crate::lang::{Lang, Say, say};
use crate::mesh::Units;
use crate::node::{NodeId, Standing};
use crate::radio::TextMessage;
use crate::responder::commands::Runner;
use crate::responder::counters::Counters;
use crate::responder::fold::{FoldCtx, SummaryState};
use crate::responder::identity::keys::KeyTable;
use crate::responder::identity::once::{self, Kind};
use crate::responder::identity::trust::{self, keep_unanswered};
use crate::responder::identity::{self, Grant, Rule, Scope, Verdict, Who};
use crate::responder::job::{Dm, Job};
use crate::responder::language::{Languages, SEED_MESSAGES};
use crate::responder::reply::Outbound;
use crate::responder::schedule::admission::{self, Joining, Place};
use crate::responder::schedule::gate::{LlmGate, Turn};
use crate::responder::sender::{SenderIntro, heard_names};
use crate::responder::turn::knowledge;
use crate::responder::turn::{self, Memory, TurnCtx, Wants};
use crate::store::{Role, Store};

/// What a node's worker may touch: the store and the key table (a PKI DM's key checked, the
/// node's memory for its turns, what is not answered kept), the LLM gate (a place for a text
/// that joined too late), where notices go, the counters, the conversation languages, what
/// "who is asking" says, the commands ([`Runner`]), the turns and the folds.
pub(super) struct WorkerCtx {
    pub(super) store: Store,
    /// Whether the key table could be read (trust fails closed when not).
    pub(super) keys: Arc<KeyTable>,
    pub(super) gate: LlmGate,
    pub(super) out: Outbound,
    pub(super) counters: Arc<Counters>,
    pub(super) languages: Arc<Languages>,
    pub(super) access: AccessConfig,
    /// Who may get the knowledge folder's private passages.
    pub(super) knowledge: KnowledgeConfig,
    /// What the "who is asking" line says, in which time zone and units.
    pub(super) context: ContextConfig,
    pub(super) zone: Arc<Zone>,
    pub(super) units: Units,
    pub(super) commands: Runner,
    pub(super) turns: Arc<TurnCtx>,
    pub(super) folds: Arc<FoldCtx>,
    pub(super) stop: CancellationToken,
}

/// A known or proven node's worker with nothing to do for this long retires (a new one
/// starts on the next message).
pub(super) const IDLE_RETIRE: Duration = Duration::from_secs(600);

/// A new id's worker retires sooner: new ids' workers are bounded
/// (`intake::NEW_WORKERS_MAX`), and a flood's must make room for the next person.
pub(super) const NEW_IDLE_RETIRE: Duration = Duration::from_secs(30);

/// Answers `node`'s jobs from `rx` in order, until shutdown (then what is still queued is
/// stored, not answered) or until it was idle for `idle` with no summary of the node running
/// (then the jobs sent meanwhile are still answered).
pub(super) async fn worker(
    ctx: Arc<WorkerCtx>,
    node: NodeId,
    rx: mpsc::Receiver<Job>,
    idle: Duration,
) {
    let summarizing = Arc::new(SummaryState::default());
    let mut queue = Queue { rx, ahead: None };
    let mut retiring = false;
    loop {
        let job = match queue.ahead.take() {
            Some(job) => job,
            None if retiring => match queue.rx.try_recv() {
                Ok(job) => job,
                Err(_) => {
                    debug!("worker retired after being idle");
                    return;
                }
            },
            None => {
                let next = tokio::select! {
                    _ = ctx.stop.cancelled() => break,
                    next = tokio::time::timeout(idle, queue.rx.recv()) => next,
                };
                match next {
                    Ok(Some(job)) => job,
                    Ok(None) => break,
                    // The node's summary still runs in the background: its state is here.
                    Err(_) if summarizing.busy() => continue,
                    Err(_) => {
                        queue.rx.close();
                        retiring = true;
                        continue;
                    }
                }
            }
        };
        tokio::select! {
            _ = ctx.stop.cancelled() => break,
            _ = handle(&ctx, node, job, &mut queue, &summarizing) => {}
        }
    }
    // Shutting down: keep what users sent, answer nothing more.
    queue.rx.close();
    if let Some(job) = queue.ahead.take() {
        job.keep_unanswered(&ctx.store, &ctx.keys).await;
    }
    while let Ok(job) = queue.rx.try_recv() {
        job.keep_unanswered(&ctx.store, &ctx.keys).await;
    }
}

/// A node's queue of jobs, and the one job taken from it but not yet handled (the first that
/// could not join a turn's batch).
struct Queue {
    rx: mpsc::Receiver<Job>,
    ahead: Option<Job>,
}

impl Queue {
    /// The questions queued right behind `first` from the same sender, taken to be answered
    /// with it: texts that joined its turn or have turns of their own (those turns end here:
    /// the batch's turn answers them). Stops at the first other job, which is handled next.
    fn batch(&mut self, first: Box<Dm>) -> Vec<Dm> {
        let mut batch = vec![*first];
        while self.ahead.is_none() {
            let Ok(job) = self.rx.try_recv() else { break };
            let same = |dm: &Dm| dm.who == batch[0].who && dm.dest == batch[0].dest;
            match job {
                Job::Join { dm } if same(&dm) => batch.push(*dm),
                Job::Text { dm, turn } if same(&dm) => {
                    drop(turn);
                    batch.push(*dm);
                }
                other => self.ahead = Some(other),
            }
        }
        batch
    }
}

async fn handle(
    ctx: &WorkerCtx,
    node: NodeId,
    job: Job,
    queue: &mut Queue,
    summarizing: &Arc<SummaryState>,
) {
    match job {
        Job::Notice {
            text,
            dest,
            reply_to,
        } => ctx.out.notice(dest.into(), reply_to, &text).await,
        Job::Command { dm, call } => {
            if !once::first_time(&ctx.store, &dm.msg, Kind::Command).await {
                return;
            }
            let Some((_, grant)) = settle(ctx, &dm, call.scope()).await else {
                return;
            };
            if grant.memory {
                touch(ctx, node, &dm.msg).await;
                // Its answer speaks the conversation's language, after a restart too.
                seed_language(ctx, node).await;
            }
            ctx.commands
                .run(&call, grant, dm.dest, dm.msg.packet_id)
                .await;
        }
        Job::Text { dm, turn } => {
            // From now on the node's next message gets a turn of its own; what is queued
            // already is answered with this one.
            ctx.gate.seal(&turn);
            let batch = queue.batch(dm);
            text_turn(ctx, batch, turn, Wants::Text, summarizing).await;
        }
        Job::Join { dm } => {
            // It joined a turn its worker had already taken: it gets one of its own now.
            let (gate, counters) = (&ctx.gate, &ctx.counters);
            let standing = dm.dest.standing();
            let outbox = ctx.out.holders();
            match admission::admit(gate, counters, node, standing, &outbox, Joining::Alone) {
                Ok(Place::Turn(turn)) => {
                    ctx.gate.seal(&turn);
                    let batch = queue.batch(dm);
                    text_turn(ctx, batch, turn, Wants::Text, summarizing).await;
                }
                Ok(Place::Joined) | Err(_) => {
                    keep_unanswered(&ctx.store, &ctx.keys, &dm.msg, dm.who).await;
                    if standing > Standing::New {
                        ctx.out
                            .notice(
                                dm.dest.into(),
                                dm.msg.packet_id,
                                say(ctx.languages.of_text(&dm.msg.text), Say::NoRoom),
                            )
                            .await;
                    }
                }
            }
        }
        Job::More { dm, turn } => text_turn(ctx, vec![*dm], turn, Wants::More, summarizing).await,
    }
}

/// What `dm`, asking for `ask`, may do: its verdict and grant — decided at the intake, or now
/// by its key (`trust`) and the identity rules — or `None` when it runs nothing (its refusal
/// line sent).
async fn settle(ctx: &WorkerCtx, dm: &Dm, scope: Scope) -> Option<(Verdict, Grant)> {
    let msg = &dm.msg;
    // The text itself only at debug: logs are not the place for people's messages.
    info!(chars = msg.text.chars().count(), hops = ?msg.hops, pki = msg.pki, standing = %dm.dest.standing(), "message received");
    debug!(text = %msg.text, "message text");
    let (verdict, rule) = match dm.who {
        Who::Decided { verdict, grant } => (verdict, Rule::Run(grant)),
        Who::Key(key) => {
            let verdict = trust::check_key(&ctx.store, &ctx.keys, &ctx.access, msg.from, key).await;
            (verdict, identity::rule(verdict, scope))
        }
    };
    if verdict != Verdict::Own {
        info!(?verdict, "this message may not use the node's memory");
    }
    match rule {
        Rule::Run(grant) => Some((verdict, grant)),
        Rule::Refuse(line) => {
            // In the message's own language: a refused DM learns nothing of the node's.
            let text = say(ctx.languages.of_text(&msg.text), line.say());
            ctx.out.notice(dm.dest.into(), msg.packet_id, text).await;
            None
        }
        Rule::Drop => None,
    }
}

/// A text or `!more` (with the texts queued behind it, `batch` in order): one turn, with the
/// node's memory when the DM may use it, answering the last and the ones before it together.
async fn text_turn(
    ctx: &WorkerCtx,
    mut batch: Vec<Dm>,
    turn: Turn,
    wants: Wants,
    summarizing: &Arc<SummaryState>,
) {
    let Some(dm) = batch.pop() else { return };
    if !once::first_time(&ctx.store, &dm.msg, Kind::Text).await {
        return;
    }
    let Some((verdict, grant)) = settle(ctx, &dm, Scope::Text).await else {
        for earlier in batch {
            keep_unanswered(&ctx.store, &ctx.keys, &earlier.msg, earlier.who).await;
        }
        return;
    };
    if !batch.is_empty() {
        ctx.counters
            .combined(dm.dest.standing(), batch.len() as u64);
        debug!(messages = batch.len() + 1, "messages answered together");
    }
    let earlier: Vec<String> = batch.into_iter().map(|d| d.msg.text).collect();
    let (msg, dest) = (&dm.msg, dm.dest);
    let lang = language(ctx, grant, msg, &earlier).await;
    let memory = if grant.memory {
        Memory::Node {
            dest,
            passages: knowledge::passages_for(&ctx.knowledge, &ctx.access, msg, verdict),
            store: &ctx.store,
            folds: &ctx.folds,
            summaries: summarizing,
        }
    } else {
        Memory::Without { dest }
    };
    let intro = SenderIntro::of(&ctx.zone, msg, &ctx.context, ctx.units, lang);
    turn::run(&ctx.turns, msg, &earlier, turn, wants, intro, memory).await;
}

/// Seeds `node`'s conversation language from its last stored messages, once after a start.
async fn seed_language(ctx: &WorkerCtx, node: NodeId) {
    let languages = &ctx.languages;
    if !languages.needs_seed(node) {
        return;
    }
    match ctx.store.history(node, SEED_MESSAGES).await {
        Ok(history) => languages.seed(
            node,
            history
                .iter()
                .filter(|m| m.role == Role::User)
                .map(|m| m.text.as_str()),
        ),
        Err(e) => debug!(error = %e, "could not read the node's messages for its language"),
    }
}

/// The language a turn speaks: where `grant` gives the node's memory, its conversation's
/// after these messages (seeded from its last stored messages when the daemon has not heard
/// it since it started); without, the message's own.
async fn language(ctx: &WorkerCtx, grant: Grant, msg: &TextMessage, earlier: &[String]) -> Lang {
    let languages = &ctx.languages;
    if !grant.memory {
        return languages.of_text(&msg.text);
    }
    let node = msg.from;
    seed_language(ctx, node).await;
    let texts: Vec<&str> = earlier
        .iter()
        .map(String::as_str)
        .chain([msg.text.as_str()])
        .collect();
    languages.hear(node, &texts)
}

/// Records that the node was heard (a command, which stores no message).
async fn touch(ctx: &WorkerCtx, node: NodeId, msg: &TextMessage) {
    let (long, short) = heard_names(msg);
    match ctx.store.touch_node(node, long, short, unix_now()).await {
        Ok(()) => {}
        Err(e) if e.damage().is_some() => debug!(error = %e, "could not update node info"),
        Err(e) => warn!(error = %e, "could not update node info"),
    }
}
