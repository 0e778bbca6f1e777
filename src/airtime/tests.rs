//! The policy as a table: reading, region, configuration and age in; level and decision out.

use std::time::{Duration, Instant};

use super::*;
use crate::radio::{ChannelMetrics, LoraRegion, ReadingSource};

const EU_868: LoraRegion = LoraRegion {
    name: "EU_868",
    duty_cycle: Some(10),
    overridden: false,
};
const US: LoraRegion = LoraRegion {
    name: "US",
    duty_cycle: None,
    overridden: false,
};

/// A state read `age` before `now`.
fn state(cu: f32, tx: Option<f32>, region: LoraRegion, now: Instant, age: u64) -> ChannelState {
    ChannelState {
        reading: Some(ChannelReading {
            metrics: ChannelMetrics {
                channel_utilization: cu,
                air_util_tx: tx,
            },
            at: now - Duration::from_secs(age),
            source: ReadingSource::DeviceMetrics,
        }),
        region: Some(region),
        readings: 1,
    }
}

fn shorten(why: Why) -> Decision {
    Decision::Shorten { max_parts: 2, why }
}

fn channel(utilization: f32) -> Option<Why> {
    Some(Why::Channel { utilization })
}

fn duty(tx: f32, limit: f32) -> Option<Why> {
    Some(Why::DutyCycle { tx, limit })
}

#[test]
fn levels_and_decisions() {
    let now = Instant::now() + Duration::from_secs(3600);
    let d = AirtimeConfig::default();
    let off = AirtimeConfig {
        enabled: false,
        ..AirtimeConfig::default()
    };
    let no_wait = AirtimeConfig {
        max_wait: Duration::ZERO,
        ..AirtimeConfig::default()
    };
    let limit_5 = AirtimeConfig {
        duty_cycle: Some(5.0),
        ..AirtimeConfig::default()
    };
    let no_limit = AirtimeConfig {
        duty_cycle: Some(100.0),
        ..AirtimeConfig::default()
    };
    let s = |cu, tx, region, age| state(cu, tx, region, now, age);
    let cases = [
        (
            "no reading",
            &d,
            ChannelState::default(),
            Level::NoReading,
            None,
            Decision::Normal,
        ),
        (
            "calm",
            &d,
            s(10.0, Some(1.0), US, 30),
            Level::Calm,
            None,
            Decision::Normal,
        ),
        (
            "at 25 % is not above",
            &d,
            s(25.0, None, US, 0),
            Level::Calm,
            None,
            Decision::Normal,
        ),
        (
            "busy",
            &d,
            s(30.0, Some(1.0), US, 30),
            Level::Busy,
            channel(30.0),
            shorten(Why::Channel { utilization: 30.0 }),
        ),
        (
            "at 40 % is only busy",
            &d,
            s(40.0, None, US, 0),
            Level::Busy,
            channel(40.0),
            shorten(Why::Channel { utilization: 40.0 }),
        ),
        (
            "very busy",
            &d,
            s(45.0, None, US, 0),
            Level::VeryBusy,
            channel(45.0),
            Decision::Hold {
                why: Why::Channel { utilization: 45.0 },
            },
        ),
        (
            "very busy, max_wait 0",
            &no_wait,
            s(45.0, None, US, 0),
            Level::VeryBusy,
            channel(45.0),
            shorten(Why::Channel { utilization: 45.0 }),
        ),
        (
            "policy off",
            &off,
            s(45.0, Some(12.0), EU_868, 0),
            Level::VeryBusy,
            channel(45.0),
            Decision::Normal,
        ),
        (
            "stale at 10 min",
            &d,
            s(45.0, Some(12.0), EU_868, 600),
            Level::Stale,
            None,
            Decision::Normal,
        ),
        (
            "fresh at 9:59",
            &d,
            s(45.0, None, US, 599),
            Level::VeryBusy,
            channel(45.0),
            Decision::Hold {
                why: Why::Channel { utilization: 45.0 },
            },
        ),
        // The duty cycle: shortened from 80 % of the region's limit, held at it.
        (
            "EU_868, TX 7.9 %",
            &d,
            s(5.0, Some(7.9), EU_868, 0),
            Level::Calm,
            None,
            Decision::Normal,
        ),
        (
            "EU_868, TX 8 %",
            &d,
            s(5.0, Some(8.0), EU_868, 0),
            Level::Busy,
            duty(8.0, 10.0),
            shorten(Why::DutyCycle {
                tx: 8.0,
                limit: 10.0,
            }),
        ),
        (
            "EU_868, TX 10 %",
            &d,
            s(5.0, Some(10.0), EU_868, 0),
            Level::VeryBusy,
            duty(10.0, 10.0),
            Decision::Hold {
                why: Why::DutyCycle {
                    tx: 10.0,
                    limit: 10.0,
                },
            },
        ),
        (
            "EU_868, TX unknown",
            &d,
            s(5.0, None, EU_868, 0),
            Level::Calm,
            None,
            Decision::Normal,
        ),
        (
            "US has no limit",
            &d,
            s(5.0, Some(50.0), US, 0),
            Level::Calm,
            None,
            Decision::Normal,
        ),
        (
            "overridden in the node",
            &d,
            s(
                5.0,
                Some(50.0),
                LoraRegion {
                    duty_cycle: None,
                    overridden: true,
                    ..EU_868
                },
                0,
            ),
            Level::Calm,
            None,
            Decision::Normal,
        ),
        (
            "configured 5 %",
            &limit_5,
            s(5.0, Some(4.5), US, 0),
            Level::Busy,
            duty(4.5, 5.0),
            shorten(Why::DutyCycle {
                tx: 4.5,
                limit: 5.0,
            }),
        ),
        (
            "configured 100 %: none",
            &no_limit,
            s(5.0, Some(50.0), EU_868, 0),
            Level::Calm,
            None,
            Decision::Normal,
        ),
        // Both: the higher level's reason; the channel's on a tie.
        (
            "busy channel, duty at limit",
            &d,
            s(30.0, Some(11.0), EU_868, 0),
            Level::VeryBusy,
            duty(11.0, 10.0),
            Decision::Hold {
                why: Why::DutyCycle {
                    tx: 11.0,
                    limit: 10.0,
                },
            },
        ),
        (
            "very busy channel, duty near",
            &d,
            s(50.0, Some(9.0), EU_868, 0),
            Level::VeryBusy,
            channel(50.0),
            Decision::Hold {
                why: Why::Channel { utilization: 50.0 },
            },
        ),
        (
            "both busy",
            &d,
            s(30.0, Some(9.0), EU_868, 0),
            Level::Busy,
            channel(30.0),
            shorten(Why::Channel { utilization: 30.0 }),
        ),
    ];
    for (name, cfg, st, level, why, decision) in cases {
        assert_eq!(cfg.assess(&st, now), (level, why), "{name}");
        assert_eq!(cfg.decide(&st, now), decision, "{name}");
    }
}

#[test]
fn a_reading_goes_stale_after_the_limit() {
    let now = Instant::now() + Duration::from_secs(3600);
    let cfg = AirtimeConfig::default();
    let st = state(45.0, None, US, now, 0);
    assert_eq!(cfg.stale_at(&st), Some(now + Duration::from_secs(600)));
    assert_eq!(cfg.stale_at(&ChannelState::default()), None);
    assert_eq!(cfg.after_wait(), shorten(Why::Waited));
    let region_only = ChannelState {
        region: Some(EU_868),
        ..ChannelState::default()
    };
    assert_eq!(cfg.duty_cycle(&region_only), Some(10.0));
}

#[test]
fn budget_notes() {
    let limits = ChunkLimits::default();
    let cases = [
        (
            2,
            limits,
            Why::Channel { utilization: 30.0 },
            "The radio channel is busy: answer in at most 2 short sentences, under 280 characters.",
        ),
        (
            1,
            limits,
            Why::Waited,
            "The radio channel is busy: answer in at most one short sentence, under 150 characters.",
        ),
        (
            3,
            ChunkLimits {
                max_chars: 100,
                ..limits
            },
            Why::DutyCycle {
                tx: 9.0,
                limit: 10.0,
            },
            "The radio is near its legal transmit limit: answer in at most 3 short sentences, under 270 characters.",
        ),
        // Never more parts than the reply may have.
        (
            5,
            ChunkLimits {
                max_chunks: 2,
                ..limits
            },
            Why::Waited,
            "The radio channel is busy: answer in at most 2 short sentences, under 280 characters.",
        ),
    ];
    for (parts, limits, why, want) in cases {
        assert_eq!(
            budget_note(crate::lang::Lang::En, parts, &limits, why),
            want
        );
    }
}
