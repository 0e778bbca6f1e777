//! A TCP node shared with another client (issue 18): the node serves one API client and
//! force-closes the previous one when another connects, as the simulated node does. A client
//! that keeps taking the node back (the phone app over WiFi) makes the link yield instead of
//! fighting; a single drop still reconnects at once; `yield_to_other_clients = false` never
//! yields. Paused time: minutes of fighting cost none.

use std::io::Write;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use meshai::radio::{DownReason, LinkState};
use meshtastic::protobufs::to_radio;
use tokio::time::Instant;

use super::{Rig, WAIT, sim_config, within};
use crate::support::rival::{Rival, is_rivals};

/// The warning the link logs once when it starts yielding.
const WHY: &str = "another client took the node's API; retrying in 60 s — use a serial link or \
                   a multi-client proxy to share it";

/// The log of everything run on this thread (a current-thread runtime: the link's task too).
struct Logs {
    buf: Arc<Mutex<Vec<u8>>>,
    _guard: tracing::subscriber::DefaultGuard,
}

struct Sink(Arc<Mutex<Vec<u8>>>);

impl Write for Sink {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .extend_from_slice(bytes);
        Ok(bytes.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Logs {
    fn capture() -> Logs {
        let buf = Arc::new(Mutex::new(Vec::new()));
        let writer = buf.clone();
        let subscriber = tracing_subscriber::fmt()
            .with_max_level(tracing::Level::INFO)
            .with_ansi(false)
            .with_writer(move || Sink(writer.clone()))
            .finish();
        Logs {
            buf,
            _guard: tracing::subscriber::set_default(subscriber),
        }
    }

    fn text(&self) -> String {
        String::from_utf8_lossy(&self.buf.lock().unwrap_or_else(|e| e.into_inner())).into_owned()
    }
}

/// When the daemon's link asked for the config: one per connection it made.
fn our_connections(rig: &Rig) -> Vec<Instant> {
    rig.sim
        .to_radio()
        .into_iter()
        .filter(|r| {
            matches!(r.msg.payload_variant,
                Some(to_radio::PayloadVariant::WantConfigId(n)) if !is_rivals(n))
        })
        .map(|r| r.at)
        .collect()
}

/// The most of `times` (sorted) that fall in any window of `width`.
fn most_within(times: &[Instant], width: Duration) -> usize {
    (0..times.len())
        .map(|i| {
            times[i..]
                .iter()
                .take_while(|t| **t < times[i] + width)
                .count()
        })
        .max()
        .unwrap_or(0)
}

/// Waits until the link is down; returns why and the wait it announced.
async fn down(rig: &mut Rig) -> (DownReason, Duration) {
    let state = within(
        WAIT,
        "link down",
        rig.state.wait_for(|s| matches!(s, LinkState::Down { .. })),
    )
    .await
    .expect("the link task is running")
    .clone();
    match state {
        LinkState::Down { reason, retry_in } => (reason, retry_in),
        other => unreachable!("wait_for returned {other:?}"),
    }
}

#[tokio::test(start_paused = true)]
async fn another_client_that_keeps_taking_the_node_gets_it_and_the_log_says_why() {
    let logs = Logs::capture();
    let mut rig = Rig::start(sim_config()).await;
    let start = Instant::now();
    // The app: back one second after each time it is kicked.
    let rival = Rival::start(rig.sim.addr(), Duration::from_secs(1));

    // The first close is taken as a restart: back at once, which kicks the app.
    let (reason, retry_in) = down(&mut rig).await;
    assert_eq!(reason, DownReason::ClosedByNode);
    assert!(retry_in <= Duration::from_millis(1200), "{retry_in:?}");
    // The app takes it back: now the link yields.
    rig.state.wait_for(LinkState::is_ready).await.unwrap();
    let (reason, retry_in) = down(&mut rig).await;
    assert_eq!(reason, DownReason::TakenOver);
    assert_eq!(retry_in, Duration::from_secs(60));

    // Ten minutes of it.
    tokio::time::sleep_until(start + Duration::from_secs(600)).await;
    let ours = our_connections(&rig);
    assert!(
        most_within(&ours, Duration::from_secs(60)) <= 3,
        "meshai connected at {:?}",
        ours.iter()
            .map(|t| t.duration_since(start))
            .collect::<Vec<_>>()
    );
    assert_eq!(
        ours.len(),
        5,
        "the first link, back after ~1 s, then after 60, 120 and 240 s: {:?}",
        ours.iter()
            .map(|t| t.duration_since(start))
            .collect::<Vec<_>>()
    );
    assert!(
        rival.connections() as usize >= ours.len(),
        "the app took its node back each time"
    );
    let log = logs.text();
    assert_eq!(log.matches(WHY).count(), 1, "said once:\n{log}");
    assert_eq!(
        log.matches("WARN").count(),
        2,
        "the first close (taken for a restart) and the why, no warning per kick:\n{log}"
    );

    // The app goes away: the link takes the node back and keeps it.
    drop(rival);
    within(
        WAIT,
        "the node back",
        rig.state.wait_for(LinkState::is_ready),
    )
    .await
    .unwrap();
    let held = rig.sim.connections();
    tokio::time::sleep(Duration::from_secs(900)).await;
    assert_eq!(rig.sim.connections(), held);
    assert!(rig.state.borrow().is_ready());
}

#[tokio::test(start_paused = true)]
async fn a_plain_link_drop_still_reconnects_within_the_usual_backoff() {
    let mut rig = Rig::start(sim_config()).await;
    for generation in [2, 3] {
        let dropped = Instant::now();
        rig.sim.drop_connection();
        let (reason, retry_in) = down(&mut rig).await;
        assert_eq!(reason, DownReason::ClosedByNode);
        assert!(retry_in <= Duration::from_millis(1200), "{retry_in:?}");
        rig.ready(generation).await;
        assert!(dropped.elapsed() <= Duration::from_millis(1200));
        // Held for ten minutes: the next drop is a single one again.
        tokio::time::sleep(Duration::from_secs(601)).await;
    }
    assert_eq!(rig.sim.kicked(), 0);
}

#[tokio::test(start_paused = true)]
async fn a_node_that_is_ours_alone_is_taken_back_every_time() {
    let logs = Logs::capture();
    let rig = Rig::start_with(sim_config(), |c| c.yield_to_other_clients = false).await;
    let start = Instant::now();
    let _rival = Rival::start(rig.sim.addr(), Duration::from_secs(1));
    tokio::time::sleep(Duration::from_secs(60)).await;
    let ours = our_connections(&rig);
    assert!(
        ours.len() >= 5,
        "the first link, then the usual backoff (1, 2, 4, 8, 16 s): {:?}",
        ours.iter()
            .map(|t| t.duration_since(start))
            .collect::<Vec<_>>()
    );
    assert!(
        !logs.text().contains("another client took"),
        "{}",
        logs.text()
    );
    assert_ne!(
        *rig.state.borrow(),
        LinkState::Down {
            reason: DownReason::TakenOver,
            retry_in: Duration::from_secs(60)
        }
    );
}
