//! The airtime policy (`[airtime]`): how busy the radio channel is, and what that means for
//! the next answer. Pure: the channel state and the time are arguments.
//!
//! Our node measures the channel (see `radio::telemetry`): `channel_utilization`, everything it
//! heard in the last minute, and `air_util_tx`, its own sending in the last hour. The
//! firmware's own thresholds (polite 25 %, max 40 %) only throttle its automatic traffic,
//! never a client's texts, so the bot throttles itself:
//!
//! - above `shorten_above` (25 %) an answer gets at most `shorten_parts` (2) parts, and the
//!   model is asked for a shorter one (a per-turn note, [`budget_note`]);
//! - above `wait_above` (40 %) a reply waits for a reading under it, at most `max_wait`
//!   (120 s), then goes shortened;
//! - where the region limits the duty cycle (EU_868: 10 % of any hour), our own `air_util_tx`
//!   at `duty_cycle_shorten_at` (80 %) of the limit shortens, and at the limit itself holds
//!   like a very busy channel: the firmware would refuse the packets anyway (DUTY_CYCLE_LIMIT).
//!
//! A reading `stale_after` old (10 min; the node reports every minute) is ignored: answers
//! are then as long as without the policy.

use std::time::{Duration, Instant};

use crate::chunk::{ChunkLimits, budget_chars};
use crate::lang::parts::sentences;
use crate::lang::{Lang, Part, fill, part};
use crate::radio::{ChannelReading, ChannelState};

/// `[airtime]`, validated.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct AirtimeConfig {
    /// Off: answers ignore the channel (it is still read, logged and shown).
    pub(crate) enabled: bool,
    /// Channel utilization (percent) above which answers are shortened.
    pub(crate) shorten_above: f32,
    /// Parts a shortened answer may have at most.
    pub(crate) shorten_parts: usize,
    /// Channel utilization (percent) above which replies wait for a calmer channel.
    pub(crate) wait_above: f32,
    /// How long a reply waits at most; then it goes, shortened. Zero: never waits.
    pub(crate) max_wait: Duration,
    /// A reading this old is ignored.
    pub(crate) stale_after: Duration,
    /// Overrides the region's duty-cycle limit (percent of any hour; 100 = none); `None`
    /// takes the limit of the node's region.
    pub(crate) duty_cycle: Option<f32>,
    /// Share of the duty-cycle limit (percent) at which answers are shortened.
    pub(crate) duty_cycle_shorten_at: f32,
}

impl Default for AirtimeConfig {
    fn default() -> Self {
        AirtimeConfig {
            enabled: true,
            shorten_above: 25.0,
            shorten_parts: 2,
            wait_above: 40.0,
            max_wait: Duration::from_secs(120),
            stale_after: Duration::from_secs(600),
            duty_cycle: None,
            duty_cycle_shorten_at: 80.0,
        }
    }
}

/// How the channel is, for the log and `!status`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Level {
    /// No reading yet.
    NoReading,
    /// The last reading is `stale_after` old.
    Stale,
    Calm,
    /// Answers are shortened.
    Busy,
    /// Replies wait.
    VeryBusy,
}

/// Why an answer is shortened or waits.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Why {
    /// The channel utilization, in percent.
    Channel { utilization: f32 },
    /// Our own sending in the last hour, near or at the region's limit (both in percent).
    DutyCycle { tx: f32, limit: f32 },
    /// A held reply waited `max_wait` for a calmer channel.
    Waited,
}

/// What the policy asks of one answer.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Decision {
    /// As configured (`[reply] max_chunks`).
    Normal,
    /// At most `max_parts` parts, and the model is told the smaller budget.
    Shorten { max_parts: usize, why: Why },
    /// Wait for a reading that allows more (at most `max_wait`), then decide again.
    Hold { why: Why },
}

impl AirtimeConfig {
    /// The duty-cycle limit in force, in percent: the configured one, else the region's.
    pub(crate) fn duty_cycle(&self, state: &ChannelState) -> Option<f32> {
        match self.duty_cycle {
            Some(p) if p >= 100.0 => None,
            Some(p) => Some(p),
            None => state.region.and_then(|r| r.duty_cycle).map(f32::from),
        }
    }

    /// When the current reading stops counting.
    pub(crate) fn stale_at(&self, state: &ChannelState) -> Option<Instant> {
        state.reading.map(|r| r.at + self.stale_after)
    }

    /// The reading, when there is one that still counts at `now`.
    fn fresh<'a>(
        &self,
        state: &'a ChannelState,
        now: Instant,
    ) -> Result<&'a ChannelReading, Level> {
        let reading = state.reading.as_ref().ok_or(Level::NoReading)?;
        if now.saturating_duration_since(reading.at) >= self.stale_after {
            return Err(Level::Stale);
        }
        Ok(reading)
    }

    /// How busy the channel is at `now`, and why when it is busy (the reason of the higher
    /// level; the channel's on a tie). Independent of `enabled`.
    pub(crate) fn assess(&self, state: &ChannelState, now: Instant) -> (Level, Option<Why>) {
        let reading = match self.fresh(state, now) {
            Ok(r) => r,
            Err(level) => return (level, None),
        };
        let utilization = reading.metrics.channel_utilization;
        let channel = if utilization > self.wait_above {
            Level::VeryBusy
        } else if utilization > self.shorten_above {
            Level::Busy
        } else {
            Level::Calm
        };
        let duty = match (self.duty_cycle(state), reading.metrics.air_util_tx) {
            (Some(limit), Some(tx)) if tx >= limit => Some((Level::VeryBusy, tx, limit)),
            (Some(limit), Some(tx)) if tx >= limit * self.duty_cycle_shorten_at / 100.0 => {
                Some((Level::Busy, tx, limit))
            }
            _ => None,
        };
        match duty {
            Some((level, tx, limit)) if rank(level) > rank(channel) => {
                (level, Some(Why::DutyCycle { tx, limit }))
            }
            _ if channel == Level::Calm => (Level::Calm, None),
            _ => (channel, Some(Why::Channel { utilization })),
        }
    }

    /// What the next answer may use, at `now`.
    pub(crate) fn decide(&self, state: &ChannelState, now: Instant) -> Decision {
        if !self.enabled {
            return Decision::Normal;
        }
        match self.assess(state, now) {
            (Level::Busy, Some(why)) => Decision::Shorten {
                max_parts: self.shorten_parts,
                why,
            },
            (Level::VeryBusy, Some(why)) if self.max_wait.is_zero() => Decision::Shorten {
                max_parts: self.shorten_parts,
                why,
            },
            (Level::VeryBusy, Some(why)) => Decision::Hold { why },
            _ => Decision::Normal,
        }
    }

    /// What a reply that waited `max_wait` in vain gets.
    pub(crate) fn after_wait(&self) -> Decision {
        Decision::Shorten {
            max_parts: self.shorten_parts,
            why: Why::Waited,
        }
    }
}

/// Orders the busy levels: the others rank as calm.
fn rank(level: Level) -> u8 {
    match level {
        Level::VeryBusy => 2,
        Level::Busy => 1,
        Level::NoReading | Level::Stale | Level::Calm => 0,
    }
}

/// The per-turn note that tells the model the smaller budget of a shortened answer, e.g.
/// "The radio channel is busy: answer in at most 2 short sentences, under 280 characters."
/// `limits` are the configured ones; the characters are what `max_parts` of them hold.
pub(crate) fn budget_note(lang: Lang, max_parts: usize, limits: &ChunkLimits, why: Why) -> String {
    let parts = max_parts.clamp(1, limits.max_chunks.max(1));
    let chars = budget_chars(&ChunkLimits {
        max_chunks: parts,
        ..*limits
    });
    let sentences = sentences(lang, parts);
    let state = match why {
        Why::DutyCycle { .. } => part(lang, Part::DutyCycle),
        Why::Channel { .. } | Why::Waited => part(lang, Part::ChannelBusy),
    };
    let chars = chars.to_string();
    fill(
        part(lang, Part::Shorten),
        &[
            ("state", state),
            ("sentences", &sentences),
            ("chars", &chars),
        ],
    )
}

#[cfg(test)]
mod tests;
