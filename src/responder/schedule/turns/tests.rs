//! Table tests of the schedule: scripts of admissions, arrivals at the gate, grants and ends,
//! in virtual time, compared line by line with the trace they produce.

use std::time::{Duration, Instant};

use super::*;
use Standing::{Known, New, Proven};

/// One step of a script; turns are named by the order of admission (1, 2, ...), wakers by
/// their turn.
#[derive(Debug, Clone, Copy)]
enum Step {
    /// Virtual time moves to this many seconds.
    At(u64),
    /// A text of node `n` with this standing; the outbox holds replies for these nodes.
    Admit(u32, Standing, &'static [(u32, Standing)]),
    /// A `!more` of node `n` (it never joins a turn); no outbox.
    Alone(u32, Standing),
    /// The turn's worker takes it: nothing joins it any more.
    Seal(TurnId),
    /// The turn's worker reaches the gate.
    Arrive(TurnId),
    /// A slot frees up.
    Grant,
    /// The turn's wait at the gate ran out.
    Leave(TurnId),
    /// The turn's worker asks whether it may go on.
    Check(TurnId),
    /// The turn's worker is done with it.
    Finish(TurnId),
    /// The turn's reply was held for airtime this many seconds.
    Extend(TurnId, u64),
}
use Step::*;

const NONE: &[(u32, Standing)] = &[];

/// `max_waiting` places, 300 s of wait.
fn bounds(max_waiting: usize) -> Bounds {
    Bounds {
        max_waiting,
        max_wait: Duration::from_secs(300),
    }
}

/// The trace line of an admission.
fn admitted(n: u32, standing: Standing, a: Result<Admission<TurnId>, Refusal>) -> String {
    match a {
        Ok(Admission::Turn { turn, displaced }) => match displaced {
            None => format!("n{n} {standing}: t{turn}"),
            Some(d) => format!(
                "n{n} {standing}: t{turn}, displaces t{} (n{} {}{})",
                d.turn,
                d.node.0,
                d.standing,
                if d.waker.is_some() {
                    ", at the gate"
                } else {
                    ""
                }
            ),
        },
        Ok(Admission::Joined(turn)) => format!("n{n} {standing}: joins t{turn}"),
        Err(r) => format!("n{n} {standing}: {r:?}"),
    }
}

fn run(max_waiting: usize, script: &[Step]) -> (Vec<String>, Schedule<TurnId>) {
    let t0 = Instant::now();
    let mut now = t0;
    let mut s: Schedule<TurnId> = Schedule::new(bounds(max_waiting));
    let mut trace = Vec::new();
    for step in script {
        let line = match *step {
            At(secs) => {
                now = t0 + Duration::from_secs(secs);
                continue;
            }
            Admit(n, standing, outbox) => {
                let outbox: Vec<(NodeId, Standing)> =
                    outbox.iter().map(|(n, s)| (NodeId(*n), *s)).collect();
                let a = s.admit(NodeId(n), standing, now, &outbox, Joining::Join);
                admitted(n, standing, a)
            }
            Alone(n, standing) => {
                let a = s.admit(NodeId(n), standing, now, &[], Joining::Alone);
                admitted(n, standing, a)
            }
            Seal(t) => {
                s.seal(t);
                continue;
            }
            Arrive(t) => match s.arrive(t, t, now) {
                Ok(_) => continue,
                Err(why) => format!("t{t} arrives: {why:?}"),
            },
            Grant => match s.grant() {
                Some((t, waker)) => {
                    assert_eq!(t, waker);
                    format!("grant t{t}")
                }
                None => "grant none".into(),
            },
            Leave(t) => format!("t{t} leaves: {}", s.leave(t)),
            Check(t) => format!("t{t}: {:?}", s.check(t, now)),
            Finish(t) => {
                s.finish(t);
                continue;
            }
            Extend(t, secs) => {
                s.extend(t, Duration::from_secs(secs));
                continue;
            }
        };
        trace.push(line);
    }
    (trace, s)
}

fn check(max_waiting: usize, script: &[Step], expect: &[&str]) {
    let (trace, _) = run(max_waiting, script);
    assert_eq!(trace, expect, "trace:\n{}", trace.join("\n"));
}

#[test]
fn a_full_bound_refuses_new_ids_and_higher_standing_displaces_the_newest_new_turn() {
    check(
        3,
        &[
            Admit(1, New, NONE),
            Admit(2, New, NONE),
            Admit(3, New, NONE),
            Admit(4, New, NONE),
            Arrive(2),
            Admit(5, Known, NONE),
            Admit(6, Proven, NONE),
            Admit(7, Known, NONE),
            Admit(8, Known, NONE),
            Admit(9, Proven, NONE),
            Check(3),
            Check(5),
        ],
        &[
            "n1 new: t1",
            "n2 new: t2",
            "n3 new: t3",
            "n4 new: Full",
            // The newest waiting new turn goes, queued or at the gate.
            "n5 known: t4, displaces t3 (n3 new)",
            "n6 proven: t5, displaces t2 (n2 new, at the gate)",
            "n7 known: t6, displaces t1 (n1 new)",
            // Three turns of known standing or higher: full for known ids.
            "n8 known: Full",
            // Known turns are never displaced: a proven message only goes above the total.
            "n9 proven: t7",
            "t3: Err(Displaced)",
            "t5: Ok(())",
        ],
    );
}

#[test]
fn replies_in_the_outbox_hold_places_once_per_node() {
    const NEW_REPLIES: &[(u32, Standing)] = &[(10, New), (11, New)];
    const MIXED: &[(u32, Standing)] = &[(10, New), (11, New), (12, Known), (13, Proven)];
    const PROVEN: &[(u32, Standing)] = &[(13, Proven), (14, Proven)];
    check(
        3,
        &[
            Admit(1, New, NEW_REPLIES),
            Admit(2, New, NEW_REPLIES),
            // A node whose reply is in the outbox holds its place already: its next message
            // is not refused.
            Admit(10, New, NEW_REPLIES),
            // Two new replies in the outbox do not hold known ids back; the new turn waiting
            // goes instead.
            Admit(3, Known, NEW_REPLIES),
            Admit(4, Known, MIXED),
            Admit(5, Proven, MIXED),
            Admit(6, Proven, PROVEN),
        ],
        &[
            "n1 new: t1",
            "n2 new: Full",
            "n10 new: t2",
            "n3 known: t3, displaces t2 (n10 new)",
            "n4 known: Full",
            "n5 proven: t4, displaces t1 (n1 new)",
            "n6 proven: Full",
        ],
    );
}

#[test]
fn a_nodes_later_messages_join_its_waiting_turn_whatever_its_standing() {
    check(
        1,
        &[
            Admit(1, New, NONE),
            // Joins: no place needed, never refused.
            Admit(1, New, NONE),
            Admit(1, New, NONE),
            // Its worker took the turn: the next message gets a turn of its own, and its
            // node holds its place already.
            Seal(1),
            Admit(1, New, NONE),
            Admit(1, New, NONE),
            // `!more` never joins.
            Alone(1, New),
            // Another new node finds no place.
            Admit(2, New, NONE),
            // A known node: the same; a turn at the gate is taken too.
            Admit(3, Known, NONE),
            Admit(3, Known, NONE),
            Arrive(4),
            Admit(3, Known, NONE),
            // Node 1's displaced turns are over; the one its worker took still holds its place.
            Check(3),
            Admit(1, New, NONE),
        ],
        &[
            "n1 new: t1",
            "n1 new: joins t1",
            "n1 new: joins t1",
            "n1 new: t2",
            "n1 new: joins t2",
            "n1 new: t3",
            "n2 new: Full",
            // Two places held, one allowed: the newest waiting new turn goes.
            "n3 known: t4, displaces t3 (n1 new)",
            "n3 known: joins t4",
            "n3 known: t5, displaces t2 (n1 new)",
            "t3: Err(Displaced)",
            "n1 new: t6",
        ],
    );
}

#[test]
fn slots_go_by_standing_then_round_robin_across_nodes() {
    check(
        10,
        &[
            // Node 1 has three turns queued (its worker took each before the next message
            // came), then nodes 2 (known) and 3 (new) one each.
            Admit(1, Known, NONE),
            Seal(1),
            Admit(1, Known, NONE),
            Seal(2),
            Admit(1, Known, NONE),
            Admit(2, Known, NONE),
            Admit(3, New, NONE),
            Arrive(1),
            Arrive(5),
            Grant,
            Finish(1),
            // Node 1's second turn reaches the gate before node 2's, yet node 2 goes first:
            // it has waited since before node 1's last grant.
            Arrive(2),
            Arrive(4),
            Grant,
            Finish(4),
            // A proven turn arriving last goes before every other.
            Admit(4, Proven, NONE),
            Arrive(6),
            Grant,
            Finish(6),
            Grant,
            Finish(2),
            Arrive(3),
            Grant,
            Grant,
            Grant,
        ],
        &[
            "n1 known: t1",
            "n1 known: t2",
            "n1 known: t3",
            "n2 known: t4",
            "n3 new: t5",
            "grant t1",
            "grant t4",
            "n4 proven: t6",
            "grant t6",
            "grant t2",
            // Known before new, whatever the order of arrival.
            "grant t3",
            "grant t5",
            "grant none",
        ],
    );
}

#[test]
fn a_turn_that_waits_too_long_expires_and_airtime_holds_do_not_count() {
    check(
        10,
        &[
            Admit(1, Known, NONE),
            Admit(2, Known, NONE),
            Admit(3, Known, NONE),
            At(120),
            Extend(2, 60),
            Arrive(1),
            At(299),
            Check(3),
            At(300),
            Leave(1),
            Check(2),
            Check(3),
            At(360),
            Arrive(2),
            Grant,
        ],
        &[
            "n1 known: t1",
            "n2 known: t2",
            "n3 known: t3",
            "t3: Ok(())",
            "t1 leaves: true",
            "t2: Ok(())",
            "t3: Err(Expired)",
            "t2 arrives: Expired",
            "grant none",
        ],
    );
}

#[test]
fn a_granted_turn_is_not_displaced_and_only_a_known_node_is_known() {
    let (trace, mut s) = run(
        1,
        &[
            Admit(1, New, NONE),
            Arrive(1),
            Grant,
            Leave(1),
            Admit(2, Proven, NONE),
        ],
    );
    assert_eq!(
        trace,
        [
            "n1 new: t1",
            "grant t1",
            "t1 leaves: false",
            "n2 proven: t2"
        ]
    );
    // Being answered does not make a node known; its ACK does (the gate is told).
    assert_eq!(s.standing(NodeId(1), None, 0), New);
    assert!(s.know(NodeId(1)));
    assert_eq!(s.standing(NodeId(1), None, 0), Known);
    assert_eq!(s.standing(NodeId(2), None, 0), New);
    // A key proves its node only once seasoned.
    let key = PublicKey([7; 32]);
    assert_eq!(s.standing(NodeId(2), Some(key), 0), New);
    assert!(s.season(NodeId(2), key, Seasoned::Vouched));
    assert_eq!(s.standing(NodeId(2), Some(key), 0), Proven);
}

#[test]
fn status_counts_waiting_turns_by_standing_and_the_oldest_wait() {
    let (_, mut s) = run(
        10,
        &[
            Admit(1, New, NONE),
            At(5),
            Admit(2, Known, NONE),
            Admit(3, Proven, NONE),
            Arrive(3),
            Grant,
            Arrive(2),
        ],
    );
    let now = Instant::now() + Duration::from_secs(20);
    let status = s.status(now);
    assert_eq!(status.waiting, [1, 1, 0]);
    assert_eq!(status.running, 1);
    assert!(status.oldest.is_some_and(|d| d >= Duration::from_secs(20)));
    assert_eq!(s.at_gate(), 1);
    s.finish(1);
    s.finish(2);
    s.finish(3);
    assert_eq!(s.status(now), QueueStatus::default());
}
