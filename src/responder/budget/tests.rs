//! A held reply in paused time against a `watch` channel the test feeds; the status line as a
//! table; the monitor's row in a real database.

use std::time::Duration;

use super::*;
use crate::radio::{ChannelMetrics, ChannelReading, LoraRegion, ReadingSource};

const EU_868: LoraRegion = LoraRegion {
    name: "EU_868",
    duty_cycle: Some(10),
    overridden: false,
};

/// A state with a reading taken now.
fn reading(cu: f32, tx: Option<f32>, n: u64) -> ChannelState {
    ChannelState {
        reading: Some(ChannelReading {
            metrics: ChannelMetrics {
                channel_utilization: cu,
                air_util_tx: tx,
            },
            at: Instant::now().into_std(),
            source: ReadingSource::DeviceMetrics,
        }),
        region: Some(EU_868),
        readings: n,
    }
}

fn counts(stats: &AirtimeStats) -> (u64, u64, u64, u64) {
    let (s, h, w) = stats.counts();
    (s, h, w, stats.waiting.load(Ordering::Relaxed))
}

#[tokio::test(start_paused = true)]
async fn calm_or_unknown_channels_change_nothing_and_busy_ones_shorten() {
    let config = AirtimeConfig::default();
    let stats = AirtimeStats::default();
    let limits = ChunkLimits::default();
    let (tx, rx) = watch::channel(ChannelState::default());
    let b = budget(&config, &rx, &stats).await;
    assert_eq!(
        (b.limits(limits), b.note(crate::lang::Lang::En, &limits)),
        (limits, None)
    );
    tx.send_replace(reading(10.0, Some(1.0), 1));
    assert_eq!(budget(&config, &rx, &stats).await, Budget(Decision::Normal));
    assert_eq!(counts(&stats), (0, 0, 0, 0));

    tx.send_replace(reading(30.0, Some(1.0), 2));
    let b = budget(&config, &rx, &stats).await;
    assert_eq!(b.limits(limits).max_chunks, 2);
    assert_eq!(
        b.note(crate::lang::Lang::En, &limits).as_deref(),
        Some(
            "The radio channel is busy: answer in at most 2 short sentences, under 280 characters."
        )
    );
    // Never more parts than configured.
    let one = ChunkLimits {
        max_chunks: 1,
        ..limits
    };
    assert_eq!(b.limits(one).max_chunks, 1);
    // Near the duty-cycle limit.
    tx.send_replace(reading(5.0, Some(8.5), 3));
    let b = budget(&config, &rx, &stats).await;
    assert!(
        b.note(crate::lang::Lang::En, &limits)
            .is_some_and(|n| n.starts_with("The radio is near its legal transmit limit")),
        "{b:?}"
    );
    assert_eq!(counts(&stats), (2, 0, 0, 0));
}

#[tokio::test(start_paused = true)]
async fn a_held_reply_goes_when_a_calmer_reading_comes() {
    let config = AirtimeConfig::default();
    let stats = Arc::new(AirtimeStats::default());
    let (tx, rx) = watch::channel(reading(45.0, None, 1));
    let started = Instant::now();
    let task = {
        let stats = stats.clone();
        tokio::spawn(async move { budget(&config, &rx, &stats).await })
    };
    tokio::time::sleep(Duration::from_secs(20)).await;
    assert_eq!(counts(&stats), (0, 1, 0, 1), "waiting");
    // Still very busy: it keeps waiting.
    tx.send_replace(reading(42.0, None, 2));
    tokio::time::sleep(Duration::from_secs(10)).await;
    assert!(!task.is_finished());
    tx.send_replace(reading(15.0, None, 3));
    let b = task.await.unwrap();
    assert_eq!(b, Budget(Decision::Normal));
    assert_eq!(started.elapsed(), Duration::from_secs(30));
    assert_eq!(counts(&stats), (0, 1, 30, 0));
}

#[tokio::test(start_paused = true)]
async fn a_held_reply_goes_shortened_after_max_wait() {
    let config = AirtimeConfig::default();
    let stats = AirtimeStats::default();
    // Our sending over the EU_868 limit: held like a very busy channel.
    let (_tx, rx) = watch::channel(reading(5.0, Some(10.5), 1));
    let started = Instant::now();
    let b = budget(&config, &rx, &stats).await;
    assert_eq!(started.elapsed(), config.max_wait);
    assert_eq!(b, Budget(config.after_wait()));
    assert_eq!(b.limits(ChunkLimits::default()).max_chunks, 2);
    assert_eq!(counts(&stats), (1, 1, 120, 0));
}

#[tokio::test(start_paused = true)]
async fn a_held_reply_goes_when_the_reading_goes_stale_or_the_radio_is_gone() {
    let config = AirtimeConfig {
        stale_after: Duration::from_secs(60),
        max_wait: Duration::from_secs(300),
        ..AirtimeConfig::default()
    };
    let stats = AirtimeStats::default();
    let (tx, rx) = watch::channel(reading(45.0, None, 1));
    let started = Instant::now();
    assert_eq!(budget(&config, &rx, &stats).await, Budget(Decision::Normal));
    assert_eq!(started.elapsed(), Duration::from_secs(60));

    // No more readings can come: it waits out the bound without spinning.
    tx.send_replace(reading(45.0, None, 2));
    drop(tx);
    let config = AirtimeConfig {
        max_wait: Duration::from_secs(30),
        ..config
    };
    let started = Instant::now();
    assert_eq!(
        budget(&config, &rx, &stats).await,
        Budget(config.after_wait())
    );
    assert_eq!(started.elapsed(), Duration::from_secs(30));
}

#[tokio::test(start_paused = true)]
async fn a_wait_dropped_at_shutdown_is_counted_and_ends() {
    let config = AirtimeConfig::default();
    let stats = AirtimeStats::default();
    let (_tx, rx) = watch::channel(reading(45.0, None, 1));
    let held = tokio::time::timeout(Duration::from_secs(5), budget(&config, &rx, &stats)).await;
    assert!(held.is_err(), "still waiting after 5 s");
    assert_eq!(counts(&stats), (0, 1, 5, 0));
}

#[tokio::test(start_paused = true)]
async fn status_lines() {
    let d = AirtimeConfig::default();
    let off = AirtimeConfig {
        enabled: false,
        ..AirtimeConfig::default()
    };
    let stats = AirtimeStats::default();
    stats.shortened.store(3, Ordering::Relaxed);
    stats.held.store(1, Ordering::Relaxed);
    let waiting = AirtimeStats::default();
    waiting.waiting.store(2, Ordering::Relaxed);
    let now = Instant::now();
    let at = |secs| now + Duration::from_secs(secs);
    let us = ChannelState {
        region: Some(LoraRegion {
            name: "US",
            duty_cycle: None,
            overridden: false,
        }),
        ..reading(12.0, Some(0.5), 1)
    };
    let cases = [
        (&d, ChannelState::default(), &stats, at(0), None),
        (
            &d,
            reading(31.4, Some(4.12), 1),
            &stats,
            at(40),
            Some("Chan 31% busy, TX 4.1%/h (max 10%), 40s old; 3 shortened, 1 held."),
        ),
        (
            &d,
            us,
            &waiting,
            at(125),
            Some("Chan 12% busy, TX 0.5%/h, 2m old; 0 shortened, 0 held, 2 waiting."),
        ),
        (
            &d,
            reading(45.0, None, 1),
            &stats,
            at(601),
            Some("Chan 45% busy, 10m old, stale; 3 shortened, 1 held."),
        ),
        (
            &off,
            reading(45.0, Some(2.0), 1),
            &stats,
            at(7300),
            Some("Chan 45% busy, TX 2%/h (max 10%), 2h old, stale; policy off."),
        ),
    ];
    for (config, state, stats, now, want) in cases {
        let got = status_line(config, &state, stats, now);
        assert_eq!(got.as_deref(), want);
        assert!(got.is_none_or(|t| t.chars().count() <= 80));
    }
}

#[tokio::test]
async fn the_monitor_saves_each_reading_and_the_counters_at_the_end() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("meshai.db")).unwrap();
    let stats = Arc::new(AirtimeStats::default());
    let (tx, rx) = watch::channel(ChannelState::default());
    let stop = CancellationToken::new();
    let task = tokio::spawn(monitor(
        AirtimeConfig::default(),
        rx,
        store.clone(),
        stats.clone(),
        stop.clone(),
    ));
    // A region alone is no reading: nothing saved.
    tx.send_replace(ChannelState {
        region: Some(EU_868),
        ..ChannelState::default()
    });
    tx.send_replace(reading(31.5, Some(4.0), 1));
    let mut saved = None;
    for _ in 0..500 {
        saved = store.airtime().await.unwrap();
        if saved.is_some() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let saved = saved.expect("the reading was saved");
    assert_eq!(saved.channel_utilization, 31.5);
    assert_eq!(saved.air_util_tx, Some(4.0));
    assert_eq!(saved.region.as_deref(), Some("EU_868"));
    assert_eq!(saved.duty_cycle, Some(10.0));
    assert_eq!((saved.shortened, saved.held), (0, 0));

    stats.shortened.fetch_add(2, Ordering::Relaxed);
    stats.held.fetch_add(1, Ordering::Relaxed);
    stop.cancel();
    task.await.unwrap();
    let last = store.airtime().await.unwrap().expect("a row");
    assert_eq!((last.shortened, last.held), (2, 1));
    assert_eq!(last.started_at, saved.started_at);
    store.close().await.unwrap();
}

/// Issue 36: `meshai stats` said "0 answers shortened" after the log said two — counters
/// were saved only with the next reading. Now they are saved within 10 s of
/// moving, with no reading between.
#[tokio::test(start_paused = true)]
async fn moved_counters_are_saved_between_readings() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("meshai.db")).unwrap();
    let stats = Arc::new(AirtimeStats::default());
    let (tx, rx) = watch::channel(ChannelState::default());
    let stop = CancellationToken::new();
    let task = tokio::spawn(monitor(
        AirtimeConfig::default(),
        rx,
        store.clone(),
        stats.clone(),
        stop.clone(),
    ));
    tx.send_replace(reading(12.0, None, 1));
    let saved_with = |want: u64| {
        let store = store.clone();
        async move {
            for _ in 0..600 {
                if let Some(r) = store.airtime().await.unwrap()
                    && r.shortened == want
                {
                    return true;
                }
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
            false
        }
    };
    assert!(saved_with(0).await, "the reading was saved");
    stats.shortened.fetch_add(2, Ordering::Relaxed);
    // No bound on the paused clock here: while the store's thread works, the runtime is idle
    // and the clock jumps to the monitor's next tick, so under load one save can take several
    // ticks of it. That the counters reach the store at all, with no reading after them, is
    // what failed before (`COUNTS_EVERY` is the wait).
    assert!(
        saved_with(2).await,
        "the counters were saved without a new reading"
    );
    stop.cancel();
    task.await.unwrap();
    store.close().await.unwrap();
}
