//! The gate with real tasks in paused time: summaries against replies, and slots handed out
//! in the schedule's order.

use super::*;
use std::time::Duration;

const NONE: &[(NodeId, Standing)] = &[];

/// Room for `max_waiting` turns, each waiting at most 60 s.
fn bounds(max_waiting: usize) -> Bounds {
    Bounds {
        max_waiting,
        max_wait: Duration::from_secs(60),
    }
}

/// A gate with one slot, room for 10 turns.
fn gate(lane: SummaryLane) -> LlmGate {
    LlmGate::new(1, lane, bounds(10))
}

fn turn(gate: &LlmGate, node: u32, standing: Standing) -> Turn {
    match gate.admit(NodeId(node), standing, NONE, Joining::Alone) {
        Ok(Admitted::Turn { turn, .. }) => turn,
        other => panic!("admitted: {other:?}"),
    }
}

#[tokio::test(start_paused = true)]
async fn a_reply_cancels_a_running_summary() {
    let gate = gate(SummaryLane::Shared);
    let slot = gate.summary(Protection::Yields).await;
    let token = slot.token().clone();
    let g = gate.clone();
    let reply = tokio::spawn(async move {
        let t = turn(&g, 1, Standing::Known);
        g.reply(&t).await.map(|_| ())
    });
    token.cancelled().await;
    drop(slot);
    let permit = tokio::time::timeout(Duration::from_secs(1), reply).await;
    assert!(
        matches!(permit, Ok(Ok(Ok(())))),
        "the reply got the slot once the summary gave it up"
    );
}

#[tokio::test(start_paused = true)]
async fn a_summary_waits_for_replies() {
    let gate = gate(SummaryLane::Shared);
    let (t1, t2) = (
        turn(&gate, 1, Standing::Known),
        turn(&gate, 2, Standing::Known),
    );
    let first = gate.reply(&t1).await.expect("free slot");
    let g = gate.clone();
    let second = tokio::spawn(async move {
        let permit = g.reply(&t2).await;
        (permit, t2)
    });
    tokio::task::yield_now().await;
    let g = gate.clone();
    let summary = tokio::spawn(async move { g.summary(Protection::Yields).await });
    tokio::time::sleep(Duration::from_millis(10)).await;
    assert!(!summary.is_finished());
    drop(first);
    let (second, _t2) = second.await.unwrap();
    tokio::time::sleep(Duration::from_millis(10)).await;
    assert!(!summary.is_finished(), "still a reply holding the slot");
    drop(second);
    let slot = tokio::time::timeout(Duration::from_secs(1), summary).await;
    assert!(slot.is_ok());
}

#[tokio::test(start_paused = true)]
async fn a_protected_summary_is_not_cancelled_and_the_reply_waits() {
    let gate = gate(SummaryLane::Shared);
    let slot = gate.summary(Protection::Protected).await;
    let g = gate.clone();
    let reply = tokio::spawn(async move {
        let t = turn(&g, 1, Standing::Known);
        g.reply(&t).await.map(|p| p.waited_for_summary)
    });
    tokio::time::sleep(Duration::from_secs(5)).await;
    assert!(!slot.token().is_cancelled());
    assert!(
        !reply.is_finished(),
        "the reply waits for the protected summary"
    );
    drop(slot);
    let permit = tokio::time::timeout(Duration::from_secs(1), reply).await;
    let waited = permit.expect("reply got the slot").expect("join");
    assert_eq!(waited, Ok(true));
}

#[tokio::test(start_paused = true)]
async fn on_its_own_lane_a_summary_never_blocks_a_reply() {
    let gate = gate(SummaryLane::Own);
    assert!(gate.has_summary_lane());
    let slot = gate.summary(Protection::Yields).await;
    let t = turn(&gate, 1, Standing::Known);
    let reply = tokio::time::timeout(Duration::from_millis(1), gate.reply(&t)).await;
    let reply = reply.expect("the reply does not wait for the summary lane");
    assert!(!reply.expect("a slot").waited_for_summary);
    assert!(!slot.token().is_cancelled());
    // A second summary waits for the lane, even while replies are idle.
    let g = gate.clone();
    let second = tokio::spawn(async move { g.summary(Protection::Yields).await });
    tokio::time::sleep(Duration::from_millis(10)).await;
    assert!(!second.is_finished());
    drop(slot);
    assert!(
        tokio::time::timeout(Duration::from_secs(1), second)
            .await
            .is_ok()
    );
}

/// Turns of `(node, standing)` ask for the one slot, held by someone else, in this order;
/// returns the order in which they get it.
async fn grant_order(asks: &[(u32, Standing)]) -> Vec<u32> {
    let gate = gate(SummaryLane::Shared);
    let holder = turn(&gate, 999, Standing::Known);
    let held = gate.reply(&holder).await.expect("free slot");
    let (order_tx, mut order) = tokio::sync::mpsc::channel(asks.len());
    for &(node, standing) in asks {
        let (g, tx) = (gate.clone(), order_tx.clone());
        let t = turn(&gate, node, standing);
        tokio::spawn(async move {
            let permit = g.reply(&t).await.expect("a slot");
            tx.send(node).await.expect("recorded");
            // Hold it a moment, so the next grant happens after this one.
            tokio::time::sleep(Duration::from_millis(10)).await;
            drop(permit);
        });
        tokio::task::yield_now().await;
    }
    drop(held);
    let mut got = Vec::new();
    for _ in asks {
        got.push(order.recv().await.expect("every turn gets the slot"));
    }
    got
}

#[tokio::test(start_paused = true)]
async fn slots_go_by_standing_then_to_the_node_that_waited_longest() {
    use Standing::*;
    /// Who asks, in order, and who gets the slot, in order.
    type Case = (&'static [(u32, Standing)], &'static [u32]);
    let cases: [Case; 3] = [
        (&[(1, New), (2, Known), (3, Proven)], &[3, 2, 1]),
        (&[(1, Known), (2, Known), (3, Known)], &[1, 2, 3]),
        // A proven node is never queued behind a crowd of new ids.
        (
            &[(1, New), (2, New), (3, New), (4, New), (5, Proven)],
            &[5, 1, 2, 3, 4],
        ),
    ];
    for (asks, want) in cases {
        assert_eq!(grant_order(asks).await, want, "{asks:?}");
    }
}

#[tokio::test(start_paused = true)]
async fn a_turn_displaced_or_waiting_too_long_gets_no_slot() {
    let gate = LlmGate::new(1, SummaryLane::Shared, bounds(2));
    let holder = turn(&gate, 999, Standing::Known);
    let held = gate.reply(&holder).await.expect("free slot");
    let newcomer = turn(&gate, 1, Standing::New);
    let g = gate.clone();
    let waiting = tokio::spawn(async move { g.reply(&newcomer).await.map(|_| ()) });
    tokio::task::yield_now().await;
    assert_eq!(gate.status().waiting, [1, 0, 0]);
    // Full: the proven message takes the new turn's place.
    let Ok(Admitted::Turn {
        turn: proven,
        displaced,
    }) = gate.admit(NodeId(2), Standing::Proven, NONE, Joining::Join)
    else {
        panic!("admitted");
    };
    assert_eq!(displaced, Some(NodeId(1)));
    assert_eq!(waiting.await.unwrap(), Err(Unanswered::Displaced));
    // The proven turn waits 60 s for the slot held all along, then gives up.
    let started = Instant::now();
    assert_eq!(
        gate.reply(&proven).await.map(|_| ()),
        Err(Unanswered::Expired)
    );
    assert_eq!(started.elapsed(), Duration::from_secs(60));
    drop(held);
    assert_eq!(
        gate.status().running,
        1,
        "the holder's turn is still running"
    );
    drop(holder);
    assert_eq!(gate.status(), QueueStatus::default());
}
