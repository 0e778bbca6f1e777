//! The responder: turns inbound DMs, and channel mentions, into replies. This file only starts
//! it ([`Responder::spawn`]) and stops it; the work is in rooms, each importing only rooms
//! below it and never this file (the table under "Layers" in `docs/architecture.md`, checked
//! by `tests/it/layers`). From the top:
//!
//! - `intake`: the loop, which never waits on the LLM. It parses each DM once, screens who
//!   sent it (`identity`), applies the rate limit and admits a text for an LLM turn
//!   (`schedule`), and hands the node's worker a typed `job`; mentions go to `mention`.
//! - `worker`: one per node, its jobs in order — a PKI DM's key checked, commands run
//!   (`commands`), each text or `!more` run as a `turn`. `mention`: one worker per channel.
//! - `turn`: one turn for every answered message, its decisions a sans-IO core; it stores and
//!   reads the memory, waits for the airtime budget and the LLM gate, then `answer`s. `fold`
//!   summarises in the background after the reply.
//! - `shared`: every handle at once, for the commands only; below it `identity`, `reply` (where
//!   replies go and how they leave), `schedule` (the LLM gate and the fair order of turns) and
//!   the leaves (`airtime`, `asker`, `counters`).
//!
//! Each room gets a context holding only what it uses, built here once: `IntakeCtx`,
//! `WorkerCtx`, `MentionCtx`, `TurnCtx`, `AnswerCtx`, `FoldCtx`, `CourierCtx`. A room's file
//! shows in one type what it can touch; the mention path's holds no store.

mod answer;
mod budget;
pub mod commands;
mod counters;
mod courier;
mod fold;
pub(crate) mod identity;
mod intake;
mod job;
mod language;
pub(crate) mod mention;
mod reply;
pub(crate) mod schedule;
pub(crate) mod sender;
mod shared;
pub(crate) mod system_prompt;
mod turn;
mod worker;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::{mpsc, watch};
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;
use tracing::warn;

use crate::llm::LlmPool;
use crate::radio::{ChannelState, Inbound, LinkActivity, LinkState, MeshView};
use crate::store::Store;
use answer::AnswerCtx;
use counters::Counters;
use courier::CourierCtx;
use fold::FoldCtx;
use intake::IntakeCtx;
use mention::MentionCtx;
use reply::Outbound;
use schedule::gate::{LlmGate, SummaryLane};
use schedule::slots::SlotMap;
use schedule::turns::Bounds;
use shared::Shared;
use turn::TurnCtx;
use turn::knowledge::Documents;
use worker::WorkerCtx;

pub use crate::llm::PREFILL_TOKENS;
pub(crate) use budget::AirtimeStats;
pub use reply::{ConsoleReply, Sink};
pub use shared::ResponderSettings;

/// What the responder watches of the radio.
#[derive(Debug, Clone)]
pub struct RadioWatch {
    pub link: watch::Receiver<LinkState>,
    /// Our node's channel numbers, for the airtime policy.
    pub channel: watch::Receiver<ChannelState>,
    /// The link's counters (how often another client took the node), for `!status`.
    pub activity: Arc<LinkActivity>,
    /// The mesh view, for the mesh facts and `!nodes`.
    pub mesh: watch::Receiver<Arc<MeshView>>,
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
        tracker.spawn(budget::monitor(
            settings.airtime.clone(),
            radio.channel.clone(),
            store.clone(),
            airtime.clone(),
            stop.clone(),
        ));
        // With two llama.cpp slots or more, one is kept for summaries (`schedule::slots`).
        let lane = if settings.slots.is_some_and(|n| n >= 2) {
            SummaryLane::Own
        } else {
            SummaryLane::Shared
        };
        let gate = LlmGate::new(
            settings.concurrency,
            lane,
            Bounds {
                max_waiting: settings.limits.max_waiting,
                max_wait: settings.limits.max_turn_wait,
            },
        );
        let counters = Arc::new(Counters::default());
        let out = Outbound::new(
            sink,
            store.clone(),
            gate.clone(),
            tracker.clone(),
            counters.clone(),
            settings.chunk,
        );
        let slots = settings
            .slots
            .map(|n| Arc::new(Mutex::new(SlotMap::new(n))));
        let languages = Arc::new(language::Languages::new(settings.language));
        let (heard_dm, dms) = mpsc::channel(64);
        let shared = Arc::new(Shared {
            gate,
            keys: Arc::default(),
            settings,
            store,
            llm,
            out,
            link: radio.link,
            channel: radio.channel,
            mesh: radio.mesh,
            activity: radio.activity,
            counters,
            airtime,
            languages,
            started: tokio::time::Instant::now(),
        });
        let build = Build {
            shared: &shared,
            slots,
            stop: stop.clone(),
            tracker: tracker.clone(),
        };
        tracker.spawn(courier::run(Arc::new(build.courier()), dms));
        tracker.spawn(intake::run(build.intake(heard_dm), inbound));
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

/// What the rooms' contexts are built from: every handle ([`Shared`], which the commands
/// take whole) and those only tasks use (the slot map, the shutdown token, the tracker).
struct Build<'a> {
    shared: &'a Arc<Shared>,
    slots: Option<Arc<Mutex<SlotMap>>>,
    stop: CancellationToken,
    tracker: TaskTracker,
}

impl Build<'_> {
    fn intake(&self, heard_dm: mpsc::Sender<(crate::node::NodeId, i64)>) -> IntakeCtx {
        let s = self.shared;
        // One turn context for DMs and mentions: one token rate, one slot map.
        let turns = Arc::new(self.turn());
        IntakeCtx {
            store: s.store.clone(),
            keys: s.keys.clone(),
            gate: s.gate.clone(),
            out: s.out.clone(),
            counters: s.counters.clone(),
            languages: s.languages.clone(),
            access: s.settings.access.clone(),
            limits: s.settings.limits.clone(),
            link: s.link.clone(),
            heard_dm,
            workers: Arc::new(self.worker(turns.clone())),
            mentions: Arc::new(self.mention(turns)),
            tracker: self.tracker.clone(),
            stop: self.stop.clone(),
        }
    }

    fn worker(&self, turns: Arc<TurnCtx>) -> WorkerCtx {
        let s = self.shared;
        WorkerCtx {
            store: s.store.clone(),
            keys: s.keys.clone(),
            gate: s.gate.clone(),
            out: s.out.clone(),
            counters: s.counters.clone(),
            languages: s.languages.clone(),
            access: s.settings.access.clone(),
            knowledge: s.settings.knowledge.clone(),
            context: s.settings.context.clone(),
            zone: s.settings.zone.clone(),
            units: s.settings.mesh.units,
            commands: commands::Runner::new(s.clone()),
            turns,
            folds: Arc::new(self.fold()),
            stop: self.stop.clone(),
        }
    }

    fn mention(&self, turns: Arc<TurnCtx>) -> MentionCtx {
        let s = self.shared;
        MentionCtx {
            channels: s.settings.channels.clone(),
            access: s.settings.access.clone(),
            limits: s.settings.limits.clone(),
            gate: s.gate.clone(),
            counters: s.counters.clone(),
            out: s.out.clone(),
            languages: s.languages.clone(),
            context: s.settings.context.clone(),
            zone: s.settings.zone.clone(),
            units: s.settings.mesh.units,
            turns,
            tracker: self.tracker.clone(),
            stop: self.stop.clone(),
        }
    }

    fn turn(&self) -> TurnCtx {
        let s = self.shared;
        let settings = &s.settings;
        TurnCtx {
            answer: AnswerCtx {
                llm: s.llm.clone(),
                out: s.out.clone(),
                counters: s.counters.clone(),
                token_rate: Mutex::default(),
                max_tokens: settings.max_tokens,
            },
            documents: Documents::new(
                s.store.clone(),
                settings.knowledge.clone(),
                settings.embedder.clone(),
                settings.system_prompt.clone(),
            ),
            gate: s.gate.clone(),
            out: s.out.clone(),
            counters: s.counters.clone(),
            slots: self.slots.clone(),
            channel: s.channel.clone(),
            airtime: s.airtime.clone(),
            mesh: s.mesh.clone(),
            system_prompt: settings.system_prompt.clone(),
            chunk: settings.chunk,
            limits: settings.limits.clone(),
            memory: settings.memory.clone(),
            mesh_config: settings.mesh.clone(),
            airtime_config: settings.airtime.clone(),
        }
    }

    fn fold(&self) -> FoldCtx {
        let s = self.shared;
        FoldCtx {
            store: s.store.clone(),
            llm: s.llm.clone(),
            gate: s.gate.clone(),
            slots: self.slots.clone(),
            counters: s.counters.clone(),
            languages: s.languages.clone(),
            system_prompt: s.settings.system_prompt.clone(),
            memory: s.settings.memory.clone(),
            tracker: self.tracker.clone(),
            stop: self.stop.clone(),
        }
    }

    fn courier(&self) -> CourierCtx {
        let s = self.shared;
        CourierCtx {
            store: s.store.clone(),
            mesh: s.mesh.clone(),
            channel: s.channel.clone(),
            link: s.link.clone(),
            gate: s.gate.clone(),
            out: s.out.clone(),
            languages: s.languages.clone(),
            mail: s.settings.mail,
            bulletins: s.settings.bulletins.clone(),
            mesh_config: s.settings.mesh.clone(),
            airtime: s.settings.airtime.clone(),
            chunk: s.settings.chunk,
            zone: s.settings.zone.clone(),
            tracker: self.tracker.clone(),
            stop: self.stop.clone(),
        }
    }
}
