//! The intake loop: reads what the radio heard, never waiting on the LLM. A DM is parsed once
//! (`commands::parse`), passes the access lists, the identity screen (`screen`), the node's
//! rate limit (`ratelimit`) and, for a text or `!more`, its admission among the waiting turns
//! (`admission`: a turn, or a place in its node's waiting turn); then it goes to its node's
//! worker (`worker`, started on demand) as a typed [`Job`]. A channel mention goes to its channel's worker (`mention`). A text that is not
//! answered is still stored when it is the node's own (`identity::trust::keep_unanswered`).

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::Ordering;

use tokio::sync::{mpsc, watch};
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;
use tracing::{Instrument, debug, info, info_span};

use crate::config::{AccessConfig, LimitsConfig};
use crate::lang::{Say, fill, say};
use crate::node::{NodeId, Standing};
use crate::radio::{Inbound, LinkState, TextMessage};
use crate::responder::commands::{self, Parsed};
use crate::responder::counters::{Cause, Counters};
use crate::responder::identity::keys::KeyTable;
use crate::responder::identity::screen::{NodeMode, Screen, Screened};
use crate::responder::identity::trust::keep_unanswered;
use crate::responder::identity::{Line, Who};
use crate::responder::job::{Dm, Job};
use crate::responder::language::Languages;
use crate::responder::mention::{MentionCtx, Mentions};
use crate::responder::reply::{DmDest, Outbound};
use crate::responder::schedule::admission::{self, Joining, Place};
use crate::responder::schedule::gate::LlmGate;
use crate::responder::schedule::ratelimit::{Decision, RateLimiter};
use crate::responder::shared::licensed;
use crate::responder::worker::{self, WorkerCtx};
use crate::store::Store;

/// What the intake may touch: the store and the key table (the screen, what is not answered
/// kept), the LLM gate (standings, admission), the outbox's holders, the counters, the
/// languages of its notices, the access lists and limits, the link (whether our node is
/// licensed), the courier's queue of DMs heard, and what it starts: the node workers
/// ([`WorkerCtx`]) and the mentions ([`MentionCtx`]).
pub(super) struct IntakeCtx {
    pub(super) store: Store,
    /// Whether the key table could be read (trust fails closed when not).
    pub(super) keys: Arc<KeyTable>,
    pub(super) gate: LlmGate,
    pub(super) out: Outbound,
    pub(super) counters: Arc<Counters>,
    pub(super) languages: Arc<Languages>,
    pub(super) access: AccessConfig,
    pub(super) limits: LimitsConfig,
    pub(super) link: watch::Receiver<LinkState>,
    /// The nodes whose DMs the intake took, with when: each is heard live, for the courier
    /// (`responder::courier`), which delivers what waits for them; full, one is skipped
    /// (its next packet counts as well).
    pub(super) heard_dm: mpsc::Sender<(NodeId, i64)>,
    pub(super) workers: Arc<WorkerCtx>,
    pub(super) mentions: Arc<MentionCtx>,
    pub(super) tracker: TaskTracker,
    pub(super) stop: CancellationToken,
}

/// Reads `inbound` until shutdown or until the radio is gone.
pub(super) async fn run(ctx: IntakeCtx, mut inbound: mpsc::Receiver<Inbound>) {
    let ctx = Arc::new(ctx);
    let mut intake = Intake::new(ctx.clone()).await;
    tokio::select! {
        _ = ctx.stop.cancelled() => return,
        () = admission::know_stored(&ctx.store, &ctx.gate) => {}
    }
    loop {
        let event = tokio::select! {
            _ = ctx.stop.cancelled() => break,
            ev = inbound.recv() => match ev {
                Some(ev) => ev,
                None => break,
            },
        };
        match event {
            Inbound::Dm(msg) => intake.dm(msg).await,
            Inbound::Broadcast(msg) => intake.mentions.take(msg),
        }
    }
    debug!("intake stopped");
}

/// What a screened DM goes on to do.
enum Next {
    /// Run, as the sender's identity allows.
    Run(Who),
    /// Not run: this line is the answer.
    Refuse(Line),
}

/// Workers of new ids at most at once. Commands skip admission and every id gets a worker, so
/// without a bound 20,000 fresh ids held 20,000 workers (RSS 12 → 203 MB, issue 39); a new
/// id's worker retires after [`worker::NEW_IDLE_RETIRE`], so a flood's ids make room within
/// seconds of going quiet. Known and proven nodes are not counted and always get one.
pub(super) const NEW_WORKERS_MAX: usize = 256;

/// A node's worker as the intake sees it: where its jobs go, and its node's standing when
/// it started.
struct WorkerHandle {
    tx: mpsc::Sender<Job>,
    standing: Standing,
}

/// The intake's state: the node workers, the rate limit, the screen, the mentions.
struct Intake {
    ctx: Arc<IntakeCtx>,
    workers: HashMap<NodeId, WorkerHandle>,
    limiter: RateLimiter,
    screen: Screen,
    mentions: Mentions,
}

impl Intake {
    async fn new(ctx: Arc<IntakeCtx>) -> Intake {
        let limits = &ctx.limits;
        Intake {
            workers: HashMap::new(),
            limiter: RateLimiter::new(limits.node_messages, limits.node_window),
            screen: Screen::load(&ctx.store, ctx.keys.clone()).await,
            mentions: Mentions::new(ctx.mentions.clone()),
            ctx,
        }
    }

    /// Takes one DM: access, screen, standing, rate limit, then its job.
    async fn dm(&mut self, msg: TextMessage) {
        let ctx = self.ctx.clone();
        let node = msg.from;
        if !ctx.access.permits(node) {
            debug!(node = %node, "not answered: access list");
            return;
        }
        ctx.counters.dms.fetch_add(1, Ordering::Relaxed);
        let now = Instant::now();
        let parsed = commands::parse(&msg.text);
        // Proven: a PKI DM with a key pinned before (seen in an exchange hours ago, or pinned
        // by the operator), never a key made a minute ago; the schedule serves it first.
        let key = msg.public_key.filter(|_| msg.pki);
        // A person is their key: a new number with a key pinned for another number (firmware
        // 2.8 renumbered it) earns what that number earned. Asked before the screen learns it.
        let owner = key
            .and_then(|k| self.screen.owner(&k))
            .filter(|o| *o != node);
        let access = &ctx.access;
        let mode = if licensed(&ctx.link) {
            NodeMode::Licensed
        } else {
            NodeMode::Pki
        };
        let (dest, next) = match self.screen.admit(&msg, parsed.scope(), access, now, mode) {
            Screened::Pass { dest, who } => (dest, Next::Run(who)),
            Screened::Refused { dest, line } => (dest, Next::Refuse(line)),
            Screened::Unproven { dest, line } => {
                if let Some(text) = line {
                    // A full queue drops the warning: another comes within the hour.
                    let _ = self.dispatch(node, notice(text, dest, &msg));
                }
                return;
            }
            Screened::Drop => return,
        };
        // Heard live: what waits for it may go (`courier`); a full queue skips one.
        let _ = ctx
            .heard_dm
            .try_send((node, crate::clock::unix_time(msg.received_at)));
        let standing = ctx.gate.standing(node, key);
        let standing = owner.map_or(standing, |o| standing.max(ctx.gate.standing(o, key)));
        let dest = dest.with_standing(standing).with_pinned(ctx.gate.key(node));
        match self.limiter.check(node, now) {
            Decision::Answer => self.answer(msg, dest, next, parsed).await,
            Decision::Notify { retry_in } => {
                info!(node = %node, "rate limit reached; one notice, then silence");
                // Not answered, but part of the conversation record like the silent ones.
                self.unanswered(&msg, &next, &parsed).await;
                let mins = retry_in.as_secs().div_ceil(60).max(1).to_string();
                let lang = ctx.languages.of_text(&msg.text);
                let text = fill(say(lang, Say::RateLimited), &[("mins", &mins)]);
                self.hand(node, notice(&text, dest, &msg)).await;
            }
            Decision::Silent => {
                debug!(node = %node, "rate limited: silent");
                ctx.counters.tally.note(Cause::RateLimited, 1);
                // Stored anyway, so the conversation record is complete.
                self.unanswered(&msg, &next, &parsed).await;
            }
        }
        if self.workers.len() > NEW_WORKERS_MAX {
            self.workers.retain(|_, w| !w.tx.is_closed());
        }
    }

    /// The job of a DM within its rate limit: a text or `!more` takes a turn, if it gets one.
    async fn answer(&mut self, msg: TextMessage, dest: DmDest, next: Next, parsed: Parsed) {
        let who = match next {
            Next::Run(who) => who,
            Next::Refuse(line) => {
                return self.hand(msg.from, notice(line.text(), dest, &msg)).await;
            }
        };
        let node = msg.from;
        let job = match parsed {
            Parsed::Command(call) => Job::Command {
                dm: Box::new(Dm { msg, dest, who }),
                call,
            },
            Parsed::Text | Parsed::More => {
                let ctx = &self.ctx;
                let joining = match parsed {
                    Parsed::More => Joining::Alone,
                    _ => Joining::Join,
                };
                let standing = dest.standing();
                let (gate, counters) = (&ctx.gate, &ctx.counters);
                let outbox = ctx.out.holders();
                let admitted = admission::admit(gate, counters, node, standing, &outbox, joining);
                let dm = Box::new(Dm { msg, dest, who });
                match (admitted, joining) {
                    (Ok(Place::Turn(turn)), Joining::Alone) => Job::More { dm, turn },
                    (Ok(Place::Turn(turn)), _) => Job::Text { dm, turn },
                    (Ok(Place::Joined), _) => Job::Join { dm },
                    (Err(_), _) => {
                        // Not answered, but stored like every accepted message; a known or
                        // proven node is told (a never-heard id is not: every notice costs
                        // airtime, and forged ids are free).
                        self.unanswered(&dm.msg, &Next::Run(who), &parsed).await;
                        if standing == Standing::New {
                            return;
                        }
                        let lang = self.ctx.languages.of_text(&dm.msg.text);
                        notice(say(lang, Say::NoRoom), dest, &dm.msg)
                    }
                }
            }
        };
        self.hand(node, job).await;
    }

    /// A DM that will not be answered: stored when it is a text and the node's own.
    async fn unanswered(&self, msg: &TextMessage, next: &Next, parsed: &Parsed) {
        if let (Next::Run(who), Parsed::Text) = (next, parsed) {
            keep_unanswered(&self.ctx.store, &self.ctx.keys, msg, *who).await;
        }
    }

    /// Hands `job` to the node's worker; when its queue is full, what the job leaves is kept.
    async fn hand(&mut self, node: NodeId, job: Job) {
        if let Some(job) = self.dispatch(node, job) {
            job.keep_unanswered(&self.ctx.store, &self.ctx.keys).await;
        }
    }

    /// Hands a job to the node's worker, starting one if there is none (or it just retired).
    /// Returns the job when the node's queue is full, or when it is a new id's and
    /// [`NEW_WORKERS_MAX`] new ids' workers run: it is not answered.
    #[must_use]
    fn dispatch(&mut self, node: NodeId, job: Job) -> Option<Job> {
        let job = match self.workers.get(&node) {
            None => job,
            Some(w) => match w.tx.try_send(job) {
                Ok(()) => return None,
                Err(mpsc::error::TrySendError::Full(job)) => {
                    debug!(node = %node, "too many messages waiting for this node; one not answered");
                    self.ctx.counters.tally.note(Cause::QueueFull, 1);
                    return Some(job);
                }
                // The worker retired after being idle: start a new one.
                Err(mpsc::error::TrySendError::Closed(job)) => job,
            },
        };
        let standing = job.standing();
        if standing == Standing::New && self.new_workers() >= NEW_WORKERS_MAX {
            debug!(node = %node, "as many new ids' workers as allowed run; not answered");
            self.ctx.counters.tally.note(Cause::NoWorker, 1);
            return Some(job);
        }
        let ctx = &self.ctx;
        let (tx, rx) = mpsc::channel(ctx.limits.node_queue);
        // A fresh channel has room for at least one job.
        let _ = tx.try_send(job);
        self.workers.insert(node, WorkerHandle { tx, standing });
        let idle = match standing {
            Standing::New => worker::NEW_IDLE_RETIRE,
            Standing::Known | Standing::Proven => worker::IDLE_RETIRE,
        };
        let span = info_span!("node", node = %node);
        ctx.tracker
            .spawn(worker::worker(ctx.workers.clone(), node, rx, idle).instrument(span));
        None
    }

    /// The new ids' workers still running (those retired are dropped from the map here).
    fn new_workers(&mut self) -> usize {
        let count = |w: &HashMap<NodeId, WorkerHandle>| {
            w.values()
                .filter(|w| w.standing == Standing::New && !w.tx.is_closed())
                .count()
        };
        if count(&self.workers) >= NEW_WORKERS_MAX {
            self.workers.retain(|_, w| !w.tx.is_closed());
        }
        count(&self.workers)
    }
}

/// One packet to the sender of `msg`, in reply to it.
fn notice(text: &str, dest: DmDest, msg: &TextMessage) -> Job {
    Job::Notice {
        text: text.to_string(),
        dest,
        reply_to: msg.packet_id,
    }
}
