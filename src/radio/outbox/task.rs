//! The outbox task: moves requests, streamed parts, link events and link state into the core,
//! sleeps until the core's next deadline, and performs the core's actions. No sending
//! decisions here.

use std::time::Duration;

use futures_util::stream::{self, BoxStream, SelectAll, StreamExt};
use tokio::sync::mpsc::error::TrySendError;
use tokio::sync::{mpsc, oneshot, watch};
use tokio::time::{Instant, sleep_until};
use tracing::{debug, warn};

use super::core::{Action, OutboxCore, ReplyId};
use super::{Gauge, Reporter, Request, StreamMsg};
use crate::radio::{LinkEvent, LinkState, Outgoing};

/// The parts of every open streamed reply, merged; `None` once a producer is gone.
type Parts = SelectAll<BoxStream<'static, (ReplyId, Option<StreamMsg>)>>;

/// Caps the drain time so that `Instant` arithmetic cannot overflow.
const MAX_DRAIN: Duration = Duration::from_secs(24 * 3600);

/// Everything the task owns.
pub(super) struct Channels {
    pub(crate) core: OutboxCore<Reporter>,
    pub(crate) state: watch::Receiver<LinkState>,
    pub(crate) events: mpsc::Receiver<LinkEvent>,
    pub(crate) writes: mpsc::Sender<Outgoing>,
    pub(crate) requests: mpsc::Receiver<Request>,
    pub(crate) drain: oneshot::Receiver<Duration>,
    /// Where the replies the core holds are counted for the responder.
    pub(crate) gauge: std::sync::Arc<Gauge>,
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
        gauge,
    } = ch;
    core.on_link(&state.borrow_and_update(), Instant::now().into_std());
    let (mut state_open, mut events_open, mut requests_open, mut drain_open) =
        (true, true, true, true);
    let mut parts = Parts::new();
    // Set once draining: the task ends at this instant at the latest.
    let mut drain_until: Option<Instant> = None;

    loop {
        let actions = core.poll(Instant::now().into_std());
        perform(actions, &writes);
        gauge.set(core.queued(), core.holders());
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
                    take_remaining(&mut requests, &mut core, &mut parts);
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
                Some(req) => take(req, &mut core, &mut parts),
                None => requests_open = false,
            },
            Some((id, msg)) = parts.next(), if !parts.is_empty() => match msg {
                Some(StreamMsg::Parts { bodies, last }) => core.push(id, bodies, last),
                Some(StreamMsg::Retract(answer)) => {
                    // A producer that stopped waiting needs no answer.
                    let _ = answer.send(core.retract(id));
                }
                None => core.close(id),
            },
            () = sleep_until_some(deadline) => {}
            () = sleep_until_some(drain_until) => break,
        }
    }

    take_remaining(&mut requests, &mut core, &mut parts);
    perform(core.shutdown(), &writes);
    gauge.set(core.queued(), core.holders());
    debug!("outbox stopped");
}

/// Closes the request channel and queues what it still holds: `send` accepted those replies,
/// so they get a report too.
fn take_remaining(
    requests: &mut mpsc::Receiver<Request>,
    core: &mut OutboxCore<Reporter>,
    parts: &mut Parts,
) {
    requests.close();
    while let Ok(req) = requests.try_recv() {
        take(req, core, parts);
    }
}

/// Queues a request; a streamed one's parts join the merged stream.
fn take(req: Request, core: &mut OutboxCore<Reporter>, parts: &mut Parts) {
    match req {
        Request::Reply(req, standing, reporter) => core.enqueue(req, standing, reporter),
        Request::Open(head, standing, reporter, mut rx) => {
            let id = core.open(head, standing, reporter);
            let messages = stream::poll_fn(move |cx| rx.poll_recv(cx)).map(move |m| (id, Some(m)));
            let end = stream::once(std::future::ready((id, None)));
            parts.push(messages.chain(end).boxed());
        }
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
