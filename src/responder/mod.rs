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
//! - `shared`: the handle every task holds; below it `identity`, `reply` (where replies go and
//!   how they leave), `schedule` (the LLM gate and the fair order of turns) and the leaves
//!   (`airtime`, `asker`, `counters`).

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

use std::sync::Arc;
use std::time::Duration;

use tokio::sync::{mpsc, watch};
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;
use tracing::warn;

use crate::llm::LlmPool;
use crate::radio::{ChannelState, Inbound, LinkActivity, LinkState, MeshView};
use crate::store::Store;
use counters::Counters;
use reply::Outbound;
use schedule::gate::{LlmGate, SummaryLane};
use schedule::slots::SlotMap;
use schedule::turns::Bounds;
use shared::Shared;

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
        let language_setting = settings.language;
        let (heard_dm, dms) = mpsc::channel(64);
        let shared = Arc::new(Shared {
            gate,
            keys: Arc::default(),
            slots: settings
                .slots
                .map(|n| std::sync::Mutex::new(SlotMap::new(n))),
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
            token_rate: std::sync::Mutex::default(),
            languages: language::Languages::new(language_setting),
            heard_dm,
            started: tokio::time::Instant::now(),
            stop: stop.clone(),
            tracker: tracker.clone(),
        });
        tracker.spawn(courier::run(shared.clone(), dms));
        tracker.spawn(intake::run(shared, inbound));
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
