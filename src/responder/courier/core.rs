//! The courier's decisions, sans-IO: which waiting messages go now and which expire
//! ([`due`]), and what a delivery's report means for its sender ([`Outcome::of`]).

use std::collections::HashSet;

use crate::node::NodeId;
use crate::radio::{FailReason, NakReason, PartOutcome};
use crate::store::Mail;

/// The most deliveries under way at once: the outbox holds at most 4 parts waiting for
/// their ACKs, and the people asking the bot come first.
pub(super) const IN_FLIGHT: usize = 2;

/// A delivery that did not arrive is tried again only after this long, at the next live
/// hearing: a forged packet in the recipient's name costs at most one try per interval.
pub(super) const RETRY_AFTER_SECS: i64 = 600;

/// Tries before a message is given up (its sender told).
pub(super) const MAX_ATTEMPTS: u32 = 5;

/// What to do with a waiting message now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Step {
    /// Past its expiry: deleted, its sender told.
    Expire(Mail),
    /// Its recipient was heard live since it was left (or last tried; the same second counts:
    /// only a packet heard as it happened is live): deliver it to `to`,
    /// the recipient's number or, where it renumbered, the number its key implies.
    Deliver(Mail, NodeId),
}

/// The steps due at `now` for `waiting` (oldest first), given when each node was last heard
/// live (`live`), whether the airtime policy holds replies (`hold`: nothing is delivered,
/// expiry still runs) and the messages being delivered (`busy`).
pub(super) fn due(
    waiting: &[Mail],
    live: impl Fn(NodeId) -> Option<i64>,
    now: i64,
    hold: bool,
    busy: &HashSet<i64>,
) -> Vec<Step> {
    let mut places = IN_FLIGHT.saturating_sub(busy.len());
    let mut steps = Vec::new();
    for m in waiting.iter().filter(|m| !busy.contains(&m.id)) {
        if now >= m.expires_at {
            steps.push(Step::Expire(m.clone()));
            continue;
        }
        if hold || places == 0 {
            continue;
        }
        if m.tried_at.is_some_and(|t| now - t < RETRY_AFTER_SECS) {
            continue;
        }
        let since = m.tried_at.unwrap_or(m.created_at).max(m.created_at);
        let implied = m.recipient_key.map(|k| k.node());
        let heard = [Some(m.recipient), implied]
            .into_iter()
            .flatten()
            .find(|n| live(*n).is_some_and(|at| at >= since));
        if let Some(to) = heard {
            places -= 1;
            steps.push(Step::Deliver(m.clone(), to));
        }
    }
    steps
}

/// What a delivery's report means.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Outcome {
    /// Every part ACKed by the recipient.
    Delivered,
    /// Every part went on air, but not every ACK came (a relay heard, a link lost after the
    /// node took it): most likely there, not proven.
    Sent,
    /// A part failed: not delivered; tried again at a later hearing.
    Failed,
}

impl Outcome {
    pub(super) fn of(parts: &[PartOutcome]) -> Outcome {
        if parts.is_empty() {
            return Outcome::Failed;
        }
        if parts.iter().all(|p| *p == PartOutcome::Delivered) {
            return Outcome::Delivered;
        }
        let failed = parts.iter().any(|p| {
            matches!(
                p,
                PartOutcome::Failed(
                    FailReason::Nak(_)
                        | FailReason::AckTimeout
                        | FailReason::EarlierPartFailed
                        | FailReason::Shutdown
                )
            )
        });
        if failed {
            Outcome::Failed
        } else {
            Outcome::Sent
        }
    }
}

/// Whether a failure can only repeat however often it is tried (the node refuses the text
/// itself): the message is given up at once.
pub(super) fn hopeless(parts: &[PartOutcome]) -> bool {
    parts.iter().any(|p| {
        matches!(
            p,
            PartOutcome::Failed(FailReason::Nak(NakReason::TooLarge | NakReason::NoChannel))
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lang::Lang;
    use crate::node::PublicKey;

    const NOW: i64 = 1_000_000;
    const CAROL: NodeId = NodeId(0xc0);

    fn mail(id: i64, created_at: i64) -> Mail {
        Mail {
            id,
            sender: NodeId(0xa0),
            sender_name: "Ann".into(),
            recipient: CAROL,
            recipient_name: "Carol".into(),
            recipient_key: None,
            text: "hi".into(),
            sender_lang: Lang::En,
            created_at,
            expires_at: created_at + 7 * 86_400,
            tried_at: None,
            attempts: 0,
        }
    }

    fn ids(steps: &[Step]) -> Vec<String> {
        steps
            .iter()
            .map(|s| match s {
                Step::Expire(m) => format!("expire {}", m.id),
                Step::Deliver(m, to) => format!("deliver {} to {to}", m.id),
            })
            .collect()
    }

    #[test]
    fn a_message_goes_when_its_recipient_is_heard_live_after_it_was_left() {
        let key = PublicKey([5; 32]);
        assert_eq!(
            key.node(),
            NodeId(0x55af_b009),
            "the key's number in the table"
        );
        let renumbered = Mail {
            recipient_key: Some(key),
            ..mail(4, NOW - 50)
        };
        // (Carol's number heard live at, the key's number heard live at, hold, busy, steps)
        type Case = (
            Option<i64>,
            Option<i64>,
            bool,
            &'static [i64],
            &'static [&'static str],
        );
        let both = &["deliver 1 to !000000c0", "deliver 2 to !000000c0"];
        let cases: &[Case] = &[
            // Heard only before it was left (a replay's time, the packet before the !tell).
            (Some(NOW - 200), None, false, &[], &[]),
            (Some(NOW - 10), None, false, &[], both),
            // Two under way at most.
            (
                Some(NOW - 10),
                None,
                false,
                &[1],
                &["deliver 2 to !000000c0"],
            ),
            (Some(NOW - 10), None, false, &[1, 2], &[]),
            // The airtime policy holds replies.
            (Some(NOW - 10), None, true, &[], &[]),
            // Renumbered: heard at the number its key implies.
            (
                None,
                Some(NOW - 10),
                false,
                &[],
                &["deliver 4 to !55afb009"],
            ),
            (None, None, false, &[], &[]),
        ];
        for (carol, moved, hold, busy, want) in cases {
            let waiting = [mail(1, NOW - 100), mail(2, NOW - 60), renumbered.clone()];
            let live = |n: NodeId| match n {
                CAROL => *carol,
                n if n == key.node() => *moved,
                _ => None,
            };
            let busy: HashSet<i64> = busy.iter().copied().collect();
            let got = ids(&due(&waiting, live, NOW, *hold, &busy));
            assert_eq!(got, *want, "{carol:?} {moved:?} {hold} {busy:?}");
        }
        // Past its expiry: it goes, held channel or not, heard or not.
        let old = Mail {
            expires_at: NOW,
            ..mail(3, NOW - 8 * 86_400)
        };
        for hold in [false, true] {
            let got = ids(&due(
                std::slice::from_ref(&old),
                |_| Some(NOW),
                NOW,
                hold,
                &HashSet::new(),
            ));
            assert_eq!(got, ["expire 3"]);
        }
        // A failed try goes again at a hearing after it, not within the interval.
        let tried = |id, ago| Mail {
            tried_at: Some(NOW - ago),
            attempts: 1,
            ..mail(id, NOW - 5000)
        };
        let waiting = [tried(5, 700), tried(6, 100)];
        let got = ids(&due(
            &waiting,
            |_| Some(NOW - 10),
            NOW,
            false,
            &HashSet::new(),
        ));
        assert_eq!(got, ["deliver 5 to !000000c0"]);
        let got = ids(&due(
            &waiting,
            |_| Some(NOW - 800),
            NOW,
            false,
            &HashSet::new(),
        ));
        assert!(got.is_empty(), "{got:?}");
    }

    #[test]
    fn a_delivery_counts_when_every_part_was_acked_by_its_recipient() {
        use PartOutcome::*;
        let nak = |r| Failed(FailReason::Nak(r));
        let cases: &[(&[PartOutcome], Outcome, bool)] = &[
            (&[Delivered], Outcome::Delivered, false),
            (&[Delivered, Delivered], Outcome::Delivered, false),
            (&[Delivered, Relayed], Outcome::Sent, false),
            (&[Unconfirmed], Outcome::Sent, false),
            (&[Sent], Outcome::Sent, false),
            (&[Failed(FailReason::AckTimeout)], Outcome::Failed, false),
            (
                &[Delivered, nak(NakReason::MaxRetransmit)],
                Outcome::Failed,
                false,
            ),
            (&[nak(NakReason::PkiUnknownPubkey)], Outcome::Failed, false),
            (&[nak(NakReason::TooLarge)], Outcome::Failed, true),
            (&[Failed(FailReason::Shutdown)], Outcome::Failed, false),
            (&[], Outcome::Failed, false),
        ];
        for (parts, want, give_up) in cases {
            assert_eq!(Outcome::of(parts), *want, "{parts:?}");
            assert_eq!(hopeless(parts), *give_up, "{parts:?}");
        }
    }
}
