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

pub mod asker;
pub mod commands;
mod counters;
mod dest;
mod fair;
mod fold;
pub mod gate;
pub mod identity;
mod intake;
mod job;
mod knowledge;
pub mod mention;
pub mod ratelimit;
mod reply;
mod reply_row;
pub mod schedule;
mod screen;
mod shared;
mod sink;
pub mod slots;
mod streamed_reply;
mod trust;
mod turn;
mod worker;

use std::sync::Arc;
use std::time::Duration;

use tokio::sync::{mpsc, watch};
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;
use tracing::warn;

use crate::llm::LlmPool;
use crate::memory::store::Store;
use crate::radio::{ChannelState, Inbound, LinkActivity, LinkState};
use counters::Counters;
use shared::Shared;

pub use airtime::AirtimeStats;
pub use shared::ResponderSettings;
pub use sink::{ConsoleReply, Sink};

/// What the responder watches of the radio.
#[derive(Debug, Clone)]
pub struct RadioWatch {
    pub link: watch::Receiver<LinkState>,
    /// Our node's channel numbers, for the airtime policy.
    pub channel: watch::Receiver<ChannelState>,
    /// The link's counters (how often another client took the node), for `!status`.
    pub activity: Arc<LinkActivity>,
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
