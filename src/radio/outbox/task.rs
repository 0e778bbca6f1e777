//! The outbox task: moves requests, link events and link state into the core, sleeps until
//! the core's next deadline, and performs the core's actions. No sending decisions here.

use std::time::Duration;

use tokio::sync::mpsc::error::TrySendError;
use tokio::sync::{mpsc, oneshot, watch};
use tokio::time::{Instant, sleep_until};
use tracing::{debug, warn};

use super::Request;
use super::core::{Action, OutboxCore};
use crate::radio::{LinkEvent, LinkState, Outgoing, ReplyReport};

/// Who gets a reply's report: the sender half of the oneshot `send` returned.
type Reporter = oneshot::Sender<ReplyReport>;

/// Caps the drain time so that `Instant` arithmetic cannot overflow.
const MAX_DRAIN: Duration = Duration::from_secs(24 * 3600);

/// Everything the task owns.
pub(super) struct Channels {
    pub core: OutboxCore<Reporter>,
    pub state: watch::Receiver<LinkState>,
    pub events: mpsc::Receiver<LinkEvent>,
    pub writes: mpsc::Sender<Outgoing>,
    pub requests: mpsc::Receiver<Request>,
    pub drain: oneshot::Receiver<Duration>,
}

/// Runs until drained (or until every handle is gone and nothing is left to send).
pub(super) async fn run(ch: Channels) {
    let Channels {
        mut core,
        mut state,
        mut events,
        writes,
        mut requests,
        mut drain,
    } = ch;
    core.on_link(&state.borrow_and_update(), Instant::now().into_std());
    let (mut state_open, mut events_open, mut requests_open, mut drain_open) =
        (true, true, true, true);
    // Set once draining: the task ends at this instant at the latest.
    let mut drain_until: Option<Instant> = None;

    loop {
        let actions = core.poll(Instant::now().into_std());
        perform(actions, &writes);
        let done = if drain_until.is_some() {
            core.is_idle()
        } else {
            !requests_open && !drain_open && core.is_idle()
        };
        if done {
            break;
        }
        let deadline = core.next_deadline().map(Instant::from_std);
        tokio::select! {
            biased;
            d = &mut drain, if drain_open => {
                drain_open = false;
                // A dropped `OutboxTask` only means nobody will ask for a drain.
                if let Ok(d) = d {
                    debug!(drain = ?d, "outbox draining");
                    drain_until = Some(Instant::now() + d.min(MAX_DRAIN));
                    take_remaining(&mut requests, &mut core);
                    requests_open = false;
                }
            }
            ev = events.recv(), if events_open => match ev {
                Some(ev) => core.on_event(ev, Instant::now().into_std()),
                None => events_open = false,
            },
            changed = state.changed(), if state_open => match changed {
                Ok(()) => core.on_link(&state.borrow_and_update(), Instant::now().into_std()),
                Err(_) => {
                    state_open = false;
                    core.on_link(&LinkState::Closed, Instant::now().into_std());
                }
            },
            req = requests.recv(), if requests_open => match req {
                Some((req, reporter)) => core.enqueue(req, reporter),
                None => requests_open = false,
            },
            () = sleep_until_some(deadline) => {}
            () = sleep_until_some(drain_until) => break,
        }
    }

    take_remaining(&mut requests, &mut core);
    perform(core.shutdown(), &writes);
    debug!("outbox stopped");
}

/// Closes the request channel and queues what it still holds: `send` accepted those replies,
/// so they get a report too.
fn take_remaining(requests: &mut mpsc::Receiver<Request>, core: &mut OutboxCore<Reporter>) {
    requests.close();
    while let Ok((req, reporter)) = requests.try_recv() {
        core.enqueue(req, reporter);
    }
}

/// Hands writes to the link and reports to their receivers. Never waits for the link: a link
/// that does not take writes must not stall ACK handling or the drain.
fn perform(actions: Vec<Action<Reporter>>, writes: &mpsc::Sender<Outgoing>) {
    for action in actions {
        match action {
            Action::Write(out) => match writes.try_send(out) {
                Ok(()) => {}
                // In both cases a text stays in flight and its ACK timeout resends it later.
                Err(TrySendError::Full(_)) => warn!("link write queue full, write dropped"),
                Err(TrySendError::Closed(_)) => debug!("link gone, write dropped"),
            },
            Action::Report(reporter, report) => {
                // A dropped receiver means nobody waits for this report any more.
                let _ = reporter.send(report);
            }
        }
    }
}

async fn sleep_until_some(deadline: Option<Instant>) {
    match deadline {
        Some(deadline) => sleep_until(deadline).await,
        None => std::future::pending().await,
    }
}
