//! The airtime policy at work: each answer's budget (and the wait of a held reply), the log
//! of the channel's state, the counters `!status` shows, and the row `meshai stats` reads.
//!
//! The decisions are `crate::airtime`'s; this file only waits, counts, logs and stores.
//! A held reply waits in its node's worker before the LLM is asked, so it takes no LLM slot
//! and holds up no other node; the radio reader only publishes readings and never waits.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use tokio::sync::watch;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;
use tracing::{debug, info, warn};

use crate::airtime::{AirtimeConfig, Decision, Level, Why, budget_note};
use crate::chunk::ChunkLimits;
use crate::clock::unix_now;
use crate::lang::Lang;
use crate::radio::ChannelState;
use crate::store::{AirtimeRecord, Store};

/// How often counters that moved since the last save are saved, between readings.
const COUNTS_EVERY: Duration = Duration::from_secs(10);

/// What the policy did since the daemon started.
#[derive(Debug, Default)]
pub(crate) struct AirtimeStats {
    /// Answers sent with fewer parts (after a wait or not).
    pub(crate) shortened: AtomicU64,
    /// Replies that waited for a calmer channel.
    pub(crate) held: AtomicU64,
    /// Replies waiting right now.
    pub(crate) waiting: AtomicU64,
    /// How long replies waited in all, in milliseconds.
    pub(crate) waited_ms: AtomicU64,
}

impl AirtimeStats {
    fn counts(&self) -> (u64, u64, u64) {
        (
            self.shortened.load(Ordering::Relaxed),
            self.held.load(Ordering::Relaxed),
            self.waited_ms.load(Ordering::Relaxed) / 1000,
        )
    }
}

/// What one answer may use: as configured, or shortened.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Budget(Decision);

impl Default for Budget {
    /// As configured.
    fn default() -> Budget {
        Budget(Decision::Normal)
    }
}

impl From<Decision> for Budget {
    fn from(decision: Decision) -> Budget {
        Budget(decision)
    }
}

impl Budget {
    /// The chunk limits of this answer: `max_chunks` lowered when shortened.
    pub(super) fn limits(&self, base: ChunkLimits) -> ChunkLimits {
        match self.0 {
            Decision::Shorten { max_parts, .. } => ChunkLimits {
                max_chunks: max_parts.clamp(1, base.max_chunks.max(1)),
                ..base
            },
            Decision::Normal | Decision::Hold { .. } => base,
        }
    }

    /// The per-turn note that tells the model the smaller budget, when shortened.
    pub(super) fn note(&self, lang: Lang, base: &ChunkLimits) -> Option<String> {
        match self.0 {
            Decision::Shorten { max_parts, why } => Some(budget_note(lang, max_parts, base, why)),
            Decision::Normal | Decision::Hold { .. } => None,
        }
    }
}

/// Counts a waiting reply while it waits, and its wait when it ends (released or dropped at
/// shutdown).
struct Waiting<'a> {
    stats: &'a AirtimeStats,
    since: Instant,
}

impl<'a> Waiting<'a> {
    fn start(stats: &'a AirtimeStats) -> Self {
        stats.held.fetch_add(1, Ordering::Relaxed);
        stats.waiting.fetch_add(1, Ordering::Relaxed);
        Waiting {
            stats,
            since: Instant::now(),
        }
    }
}

impl Drop for Waiting<'_> {
    fn drop(&mut self) {
        let ms = u64::try_from(self.since.elapsed().as_millis()).unwrap_or(u64::MAX);
        self.stats.waited_ms.fetch_add(ms, Ordering::Relaxed);
        self.stats.waiting.fetch_sub(1, Ordering::Relaxed);
    }
}

/// The budget of the next answer. A reply the policy holds waits here for a reading that
/// allows it (or for the reading to go stale), at most `max_wait`, then goes shortened.
/// Dropping the future (shutdown) ends the wait.
pub(super) async fn budget(
    config: &AirtimeConfig,
    channel: &watch::Receiver<ChannelState>,
    stats: &AirtimeStats,
) -> Budget {
    let mut rx = channel.clone();
    let state = *rx.borrow_and_update();
    let why = match config.decide(&state, Instant::now().into_std()) {
        Decision::Hold { why } => why,
        decision => return settled(decision, None, stats),
    };
    let waiting = Waiting::start(stats);
    info!(
        why = %describe(why),
        max_wait_secs = config.max_wait.as_secs(),
        "reply held to save airtime: waiting for a reading that allows it"
    );
    let deadline = waiting.since + config.max_wait;
    let mut open = true;
    let decision = loop {
        let state = *rx.borrow_and_update();
        let now = Instant::now();
        match config.decide(&state, now.into_std()) {
            Decision::Hold { .. } => {}
            decision => break decision,
        }
        // Woken by a new reading, the current one going stale, or the bound.
        let recheck = config
            .stale_at(&state)
            .map(Instant::from_std)
            .filter(|&t| t > now)
            .map_or(deadline, |t| t.min(deadline));
        tokio::select! {
            changed = rx.changed(), if open => open = changed.is_ok(),
            _ = tokio::time::sleep_until(recheck) => {
                if Instant::now() >= deadline {
                    break config.after_wait();
                }
            }
        }
    };
    let waited = waiting.since.elapsed();
    drop(waiting);
    settled(decision, Some(waited), stats)
}

/// Counts and logs the final decision for one answer.
fn settled(decision: Decision, waited: Option<Duration>, stats: &AirtimeStats) -> Budget {
    let waited_secs = waited.map(|w| w.as_secs());
    match decision {
        Decision::Shorten { max_parts, why } => {
            stats.shortened.fetch_add(1, Ordering::Relaxed);
            let why = describe(why);
            info!(max_parts, %why, ?waited_secs, "answer shortened to save airtime");
        }
        Decision::Normal | Decision::Hold { .. } => {
            if let Some(secs) = waited_secs {
                info!(
                    waited_secs = secs,
                    "reply released: the channel allows it now"
                );
            }
        }
    }
    Budget(decision)
}

/// A reason in words, for the log.
fn describe(why: Why) -> String {
    match why {
        Why::Channel { utilization } => format!("channel {utilization:.1} % busy"),
        Why::DutyCycle { tx, limit } => {
            format!("our sending at {tx:.1} % of the hour, limit {limit:.0} %")
        }
        Why::Waited => "no calmer reading within the wait's bound".to_string(),
    }
}

/// A percentage for `!status`: `10`, `4.1`.
fn pct(v: f32) -> String {
    if (v - v.round()).abs() < 0.05 || v >= 10.0 {
        format!("{v:.0}")
    } else {
        format!("{v:.1}")
    }
}

/// An age in `!status`'s few characters: `40s`, `12m`, `3h`.
fn age(d: Duration) -> String {
    match d.as_secs() {
        s @ 0..60 => format!("{s}s"),
        s @ 60..3600 => format!("{}m", s / 60),
        s => format!("{}h", s / 3600),
    }
}

/// `!status`'s channel part, e.g. `Chan 31% busy, TX 4.1%/h (max 10%), 40s old; 3 shortened,
/// 1 held.`; `None` before the first reading.
pub(super) fn status_line(
    config: &AirtimeConfig,
    state: &ChannelState,
    stats: &AirtimeStats,
    now: Instant,
) -> Option<String> {
    let reading = state.reading?;
    let m = reading.metrics;
    let mut text = format!("Chan {}% busy", pct(m.channel_utilization));
    if let Some(tx) = m.air_util_tx {
        text.push_str(&format!(", TX {}%/h", pct(tx)));
        if let Some(limit) = config.duty_cycle(state) {
            text.push_str(&format!(" (max {}%)", pct(limit)));
        }
    }
    let now = now.into_std();
    text.push_str(&format!(
        ", {} old",
        age(now.saturating_duration_since(reading.at))
    ));
    if config.assess(state, now).0 == Level::Stale {
        text.push_str(", stale");
    }
    if !config.enabled {
        text.push_str("; policy off.");
        return Some(text);
    }
    let (shortened, held, _) = stats.counts();
    text.push_str(&format!("; {shortened} shortened, {held} held"));
    match stats.waiting.load(Ordering::Relaxed) {
        0 => {}
        n => text.push_str(&format!(", {n} waiting")),
    }
    text.push('.');
    Some(text)
}

/// Follows the channel: one info line when its level changes (calm, busy, very busy, stale),
/// a debug line per reading, and the row for `meshai stats` saved at each reading (and once
/// more at the end, when the counters moved since). Returns when `stop` is cancelled or the
/// radio is gone.
pub(super) async fn monitor(
    config: AirtimeConfig,
    mut channel: watch::Receiver<ChannelState>,
    store: Store,
    stats: Arc<AirtimeStats>,
    stop: CancellationToken,
) {
    let started_at = unix_now();
    let mut level = Level::NoReading;
    let mut seen = 0;
    let mut saved: Option<(AirtimeRecord, (u64, u64, u64))> = None;
    loop {
        let state = *channel.borrow_and_update();
        let (now_level, why) = config.assess(&state, Instant::now().into_std());
        if state.readings != seen {
            seen = state.readings;
            if let Some(r) = state.reading {
                debug!(
                    channel_utilization = r.metrics.channel_utilization,
                    air_util_tx = ?r.metrics.air_util_tx,
                    source = ?r.source,
                    "channel reading"
                );
            }
            saved = save(&config, &state, &store, &stats, started_at)
                .await
                .or(saved);
        }
        if now_level != level {
            log_level(&config, level, now_level, why);
            level = now_level;
        }
        let stale_at = config
            .stale_at(&state)
            .map(Instant::from_std)
            .filter(|_| level != Level::Stale && level != Level::NoReading);
        tokio::select! {
            _ = stop.cancelled() => break,
            changed = channel.changed() => if changed.is_err() { break },
            _ = sleep_until_some(stale_at) => {}
            _ = tokio::time::sleep(COUNTS_EVERY) => {
                // Counters that moved since the last reading are saved without waiting for
                // the next one (a minute, or never on a quiet link): `meshai stats` said "0
                // answers shortened" after the log said two (issue 36).
                if let Some((record, counts)) = &saved
                    && *counts != stats.counts()
                {
                    let state = *channel.borrow();
                    saved = save(&config, &state, &store, &stats, record.started_at)
                        .await
                        .or(saved);
                }
            }
        }
    }
    if let Some((record, counts)) = saved
        && counts != stats.counts()
    {
        let state = *channel.borrow();
        save(&config, &state, &store, &stats, record.started_at).await;
    }
}

async fn sleep_until_some(at: Option<Instant>) {
    match at {
        Some(at) => tokio::time::sleep_until(at).await,
        None => std::future::pending().await,
    }
}

/// Saves the reading and the counters; returns what was saved.
async fn save(
    config: &AirtimeConfig,
    state: &ChannelState,
    store: &Store,
    stats: &AirtimeStats,
    started_at: i64,
) -> Option<(AirtimeRecord, (u64, u64, u64))> {
    let reading = state.reading?;
    let counts = stats.counts();
    let age = Instant::now()
        .into_std()
        .saturating_duration_since(reading.at);
    let record = AirtimeRecord {
        started_at,
        read_at: unix_now() - i64::try_from(age.as_secs()).unwrap_or(0),
        channel_utilization: f64::from(reading.metrics.channel_utilization),
        air_util_tx: reading.metrics.air_util_tx.map(f64::from),
        region: state.region.map(|r| r.name.to_string()),
        duty_cycle: config.duty_cycle(state).map(f64::from),
        shortened: counts.0,
        held: counts.1,
        waited_secs: counts.2,
    };
    match store.save_airtime(record.clone()).await {
        Ok(()) => Some((record, counts)),
        Err(e) => {
            // The store logs a damaged file once; this runs at every reading.
            if e.damage().is_none() {
                warn!(error = %e, "could not save the channel reading");
            }
            None
        }
    }
}

/// The one info line for a change of the channel's level.
fn log_level(config: &AirtimeConfig, from: Level, to: Level, why: Option<Why>) {
    let effect = |on: String| {
        if config.enabled {
            on
        } else {
            "airtime policy off: answers unchanged".to_string()
        }
    };
    let why = why.map(describe).unwrap_or_default();
    match to {
        Level::NoReading => {}
        Level::Stale => info!(
            stale_secs = config.stale_after.as_secs(),
            "no channel reading lately: answers at full length until the next"
        ),
        Level::Calm if matches!(from, Level::Busy | Level::VeryBusy) => {
            info!("channel calm again: answers at full length")
        }
        Level::Calm => info!("channel calm: answers at full length"),
        Level::Busy => info!(
            %why,
            "channel busy: {}",
            effect(format!(
                "answers shortened to {} parts",
                config.shorten_parts
            ))
        ),
        Level::VeryBusy => info!(
            %why,
            "channel very busy: {}",
            effect(format!(
                "replies wait up to {} s for it to calm down",
                config.max_wait.as_secs()
            ))
        ),
    }
}

#[cfg(test)]
mod tests;
