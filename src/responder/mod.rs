//! The responder: turns inbound DMs into replies.
//!
//! The intake loop never waits on the LLM: it checks access, who may have sent the DM
//! (`screen`, deciding by `identity`) and the rate limit, decides the sender's standing and
//! admits a text for an LLM turn (`admission`, `schedule`), and hands each message to its
//! node's worker (`worker`; a PKI DM's key is checked there, by `trust`); channel mentions
//! go to their channel's worker (`mention`), which sees no memory. A
//! worker answers one node's messages in order, one LLM call at a time; the
//! [`gate::LlmGate`] caps LLM calls across nodes, grants them by standing then round-robin
//! across nodes, and lets replies go before summaries. Summaries run in the background after
//! the reply is queued. A busy radio channel shortens an answer or holds it in its worker
//! before the LLM is asked (`airtime`).

mod admission;
mod airtime;
mod answer;
mod asked;
pub mod asker;
pub mod commands;
mod dest;
mod fair;
mod fold;
pub mod gate;
pub mod identity;
mod knowledge;
pub mod mention;
pub mod ratelimit;
mod reply;
mod reply_row;
pub mod schedule;
mod screen;
mod sink;
pub mod slots;
mod streamed_reply;
mod trust;
mod worker;

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use tokio::sync::{mpsc, watch};
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;
use tracing::{Instrument, debug, info, info_span, warn};

use crate::airtime::AirtimeConfig;
use crate::chunk::ChunkLimits;
use crate::config::{AccessConfig, ChannelsConfig, ContextConfig, LimitsConfig, MemoryConfig};
use crate::knowledge::KnowledgeConfig;
use crate::llm::LlmPool;
use crate::node::NodeId;
use crate::radio::{ChannelState, Inbound, LinkActivity, LinkState, TextMessage};
use crate::store::Store;
use dest::DmDest;

pub use airtime::AirtimeStats;
pub use sink::{ConsoleReply, Sink};

/// What the responder needs to know, already validated.
#[derive(Debug, Clone)]
pub struct ResponderSettings {
    /// The full system prompt, budget sentence included; byte-identical across turns.
    pub system_prompt: String,
    pub model: String,
    pub max_tokens: u32,
    pub memory: MemoryConfig,
    pub chunk: ChunkLimits,
    pub limits: LimitsConfig,
    pub access: AccessConfig,
    pub channels: ChannelsConfig,
    /// What the per-turn "who is asking" line says.
    pub context: ContextConfig,
    /// The local time zone for that line (the system's, or a fixed offset).
    pub zone: Arc<crate::clock::Zone>,
    pub concurrency: usize,
    /// llama.cpp server slots (configured or detected); `None`: plain OpenAI requests.
    pub slots: Option<u32>,
    /// How a busy radio channel shortens or holds answers.
    pub airtime: AirtimeConfig,
    /// The operator's documents the answers may come from (`dir` unset: none).
    pub knowledge: KnowledgeConfig,
    /// The embedding model's client for `[knowledge.embeddings]` (shared with the daemon's
    /// indexer: one connection pool); `None` without it.
    pub embedder: Option<crate::knowledge::Embedder>,
}

/// What the responder watches of the radio.
#[derive(Debug, Clone)]
pub struct RadioWatch {
    pub link: watch::Receiver<LinkState>,
    /// Our node's channel numbers, for the airtime policy.
    pub channel: watch::Receiver<ChannelState>,
    /// The link's counters (how often another client took the node), for `!status`.
    pub activity: Arc<LinkActivity>,
}

/// Counters for an admin's `!status`.
#[derive(Debug, Default)]
pub struct Counters {
    pub dms: AtomicU64,
    pub replies: AtomicU64,
    pub notices: AtomicU64,
    pub llm_failures: AtomicU64,
    pub llm_ms_total: AtomicU64,
    pub llm_calls: AtomicU64,
    /// Summary calls started, saved, cancelled by a reply, and failed (LLM error or refused).
    pub summaries_started: AtomicU64,
    pub summaries: AtomicU64,
    pub summaries_cancelled: AtomicU64,
    pub summary_failures: AtomicU64,
    /// Folds run before a reply because the backlog reached its hard cap.
    pub folds_at_cap: AtomicU64,
    /// Texts not answered because too many turns waited (or a new node's earlier one did).
    pub turns_refused: AtomicU64,
    /// New nodes' turns that gave way to a message of higher standing.
    pub turns_displaced: AtomicU64,
    /// Turns not given the LLM within `[limits] max_turn_wait_secs`.
    pub turns_expired: AtomicU64,
}

/// Everything a worker shares with the others.
struct Shared {
    settings: ResponderSettings,
    store: Store,
    /// The primary server and its fallbacks.
    llm: Arc<LlmPool>,
    sink: Sink,
    gate: gate::LlmGate,
    /// Which server slot each call names, when the server is llama.cpp.
    slots: Option<std::sync::Mutex<slots::SlotMap>>,
    link: watch::Receiver<LinkState>,
    channel: watch::Receiver<ChannelState>,
    activity: Arc<LinkActivity>,
    counters: Arc<Counters>,
    /// What the airtime policy did.
    airtime: Arc<AirtimeStats>,
    /// Tokens per character of the server's prompts, for the fold's token budget.
    token_rate: std::sync::Mutex<crate::memory::prompt::TokenRate>,
    started: tokio::time::Instant,
    stop: CancellationToken,
    tracker: TaskTracker,
}

/// A unit of work for a node's worker: always for the sender of a DM.
#[derive(Debug)]
enum Job {
    Message {
        /// Boxed: a message is far larger than a notice.
        msg: Box<TextMessage>,
        dest: DmDest,
        /// What the message may do (its identity, as far as the intake knows).
        grant: trust::Grant,
        /// The LLM turn of a text (none for a command).
        turn: Option<gate::Turn>,
    },
    Notice {
        text: String,
        dest: DmDest,
        reply_to: u32,
    },
}

/// The running responder.
pub struct Responder {
    stop: CancellationToken,
    tracker: TaskTracker,
}

impl Responder {
    /// Starts the intake loop reading `inbound`, the probe of skipped LLM servers when there
    /// are fallbacks, and the channel monitor (log and `meshai stats` row).
    pub fn spawn(
        settings: ResponderSettings,
        store: Store,
        llm: LlmPool,
        sink: Sink,
        radio: RadioWatch,
        inbound: mpsc::Receiver<Inbound>,
    ) -> Responder {
        let stop = CancellationToken::new();
        let tracker = TaskTracker::new();
        let llm = Arc::new(llm);
        if llm.len() > 1 {
            let (llm, stop) = (llm.clone(), stop.clone());
            tracker.spawn(async move { llm.probe_loop(stop).await });
        }
        let airtime = Arc::new(AirtimeStats::default());
        tracker.spawn(airtime::monitor(
            settings.airtime.clone(),
            radio.channel.clone(),
            store.clone(),
            airtime.clone(),
            stop.clone(),
        ));
        let shared = Arc::new(Shared {
            gate: gate::LlmGate::new(
                settings.concurrency,
                settings.slots.is_some_and(|n| n >= 2),
                schedule::Bounds {
                    max_waiting: settings.limits.max_waiting,
                    max_wait: settings.limits.max_turn_wait,
                    new_node_turns: settings.limits.new_node_turns,
                },
            ),
            slots: settings
                .slots
                .map(|n| std::sync::Mutex::new(slots::SlotMap::new(n))),
            settings,
            store,
            llm,
            sink,
            link: radio.link,
            channel: radio.channel,
            activity: radio.activity,
            counters: Arc::new(Counters::default()),
            airtime,
            token_rate: std::sync::Mutex::default(),
            started: tokio::time::Instant::now(),
            stop: stop.clone(),
            tracker: tracker.clone(),
        });
        tracker.spawn(intake(shared, inbound));
        Responder { stop, tracker }
    }

    /// Stops taking messages and abandons LLM calls in flight; messages still queued are
    /// stored (so nothing a user sent is lost) but not answered. Waits up to `grace`.
    pub async fn stop(self, grace: Duration) {
        self.stop.cancel();
        self.tracker.close();
        if tokio::time::timeout(grace, self.tracker.wait())
            .await
            .is_err()
        {
            warn!("responder tasks did not stop within {grace:?}");
        }
    }
}

// The clock helpers live in `crate::clock`; the workers still find them here.
pub(crate) use crate::clock::unix_now;

async fn intake(shared: Arc<Shared>, mut inbound: mpsc::Receiver<Inbound>) {
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
                    store_unanswered(&shared, &msg, grant).await;
                    continue;
                }
            },
            ratelimit::Decision::Notify { retry_in } => {
                info!(node = %node, "rate limit reached; one notice, then silence");
                // Not answered, but part of the conversation record like the silent ones.
                store_unanswered(&shared, &msg, grant).await;
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
                store_unanswered(&shared, &msg, grant).await;
                continue;
            }
        };
        if let Some(Job::Message { msg, grant, .. }) = dispatch(&shared, &mut workers, node, job) {
            store_unanswered(&shared, &msg, grant).await;
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

/// Stores a message that will not be answered (rate limited or shutting down), when it is
/// the node's own (`trust::may_store`).
async fn store_unanswered(shared: &Shared, msg: &TextMessage, grant: trust::Grant) {
    if commands::parse(&msg.text) != commands::Parsed::Text
        || !trust::may_store(shared, msg, grant).await
    {
        return;
    }
    if let Err(e) = shared
        .store
        .append_user(msg.from, msg.text.clone(), unix_now())
        .await
    {
        warn!(node = %msg.from, error = %e, "could not store a message");
    }
}
