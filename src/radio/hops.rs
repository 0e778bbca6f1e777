//! How far a reply goes: the firmware's own rule for answering a request
//! (`RoutingModule::getHopLimitForResponse`, 2.7.19+), read from the request's hop fields.
//!
//! Sans-IO. The hops a request used are `hop_start − hop_limit` (`getHopsAway`; unknown
//! when `hop_start` is 0 from a sender too old to say, pre-2.3, or below `hop_limit`). A
//! reply goes at the hops used + 2 while that is below our node's limit, at the hops used
//! when they exceed the limit, else at the limit; a request sent as a zero-hop packet
//! (`hop_start` 0 from a sender that sets `Data.bitfield`, 2.5+) is answered at 0. The
//! operator's `[radio] reply_hops` caps that further. A reply at 0 hops goes without
//! `want_ack` (the router resets a zero-hop send that asks for an ACK to the default
//! limit), so no ACK can come for it: the outbox sends it once and waits for nothing
//! (docs/mesh.md, "How far replies go").

use meshtastic::protobufs::{MeshPacket, mesh_packet};

/// The most hops a packet can be sent with (the firmware's `HOP_MAX`).
pub(crate) const HOP_MAX: u32 = 7;

/// A received packet's hop fields, as they came: what the reply rule reads. The default is
/// a packet whose hops are unknown (answered at our node's limit).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct HopFields {
    pub(crate) hop_start: u32,
    pub(crate) hop_limit: u32,
    /// Its `Data.bitfield` was set (senders since 2.5 always set it): then `hop_start` 0
    /// means a zero-hop packet, not a sender too old to fill it in.
    pub(crate) bitfield: bool,
}

impl HopFields {
    pub(crate) fn of(p: &MeshPacket) -> HopFields {
        let bitfield = matches!(
            &p.payload_variant,
            Some(mesh_packet::PayloadVariant::Decoded(d)) if d.bitfield.is_some()
        );
        HopFields {
            hop_start: p.hop_start,
            hop_limit: p.hop_limit,
            bitfield,
        }
    }

    /// The fields of a packet that came `hops` hops, for a message to a node that asked
    /// nothing (a `!tell` delivery): it goes as far as an answer to that node would, and
    /// never at zero hops (it waits for an ACK).
    pub(crate) fn away(hops: u32) -> HopFields {
        HopFields {
            hop_start: HOP_MAX,
            hop_limit: HOP_MAX.saturating_sub(hops),
            bitfield: true,
        }
    }

    /// The hops the packet used (`getHopsAway`), when they can be told.
    pub(crate) fn used(&self) -> Option<u32> {
        if self.hop_start == 0 && !self.bitfield {
            return None;
        }
        self.hop_start.checked_sub(self.hop_limit)
    }
}

/// The hop limit for a reply to a packet that came with `asked`, from a node whose own limit
/// is `ours` (never 0), capped by `cap` (`[radio] reply_hops`): see the module comment.
pub(crate) fn reply_hop_limit(asked: HopFields, ours: u32, cap: Option<u32>) -> u32 {
    let rule = match asked.used() {
        Some(used) if used > ours => used,
        Some(_) if asked.hop_start == 0 => 0,
        Some(used) if used + 2 < ours => used + 2,
        _ => ours,
    };
    rule.min(cap.unwrap_or(HOP_MAX)).min(HOP_MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn asked(hop_start: u32, hop_limit: u32, bitfield: bool) -> HopFields {
        HopFields {
            hop_start,
            hop_limit,
            bitfield,
        }
    }

    #[test]
    fn replies_go_as_far_as_the_firmware_answers_its_own_requests() {
        // (request's hop_start, hop_limit, bitfield; our limit; cap; reply's hop limit)
        let cases = [
            // A neighbour heard directly: 0 used, answered at 2.
            ((3, 3, true), 7, None, 2),
            ((7, 7, true), 7, None, 2),
            // One hop away: at 3; two: at 4.
            ((3, 2, true), 7, None, 3),
            ((7, 5, true), 7, None, 4),
            // Used + 2 not below our limit: at the limit.
            ((3, 1, true), 3, None, 3),
            ((7, 2, true), 7, None, 7),
            ((3, 2, true), 3, None, 3),
            // More hops than our limit: as many as it used.
            ((7, 2, true), 3, None, 5),
            // A zero-hop request: answered at 0.
            ((0, 0, true), 7, None, 0),
            // hop_start 0 from a sender too old to set it (no bitfield): unknown, the limit.
            ((0, 0, false), 7, None, 7),
            // hop_start below hop_limit (invalid): unknown, the limit.
            ((2, 3, true), 5, None, 5),
            // The operator's cap.
            ((3, 2, true), 7, Some(2), 2),
            ((7, 2, true), 3, Some(4), 4),
            ((0, 0, false), 7, Some(0), 0),
            ((3, 3, true), 7, Some(7), 2),
            // Never past HOP_MAX.
            ((15, 0, true), 7, None, 7),
        ];
        for ((start, limit, bitfield), ours, cap, want) in cases {
            let got = reply_hop_limit(asked(start, limit, bitfield), ours, cap);
            assert_eq!(
                got, want,
                "{start}/{limit} bitfield {bitfield}, ours {ours}, cap {cap:?}"
            );
        }
        assert_eq!(reply_hop_limit(HopFields::default(), 5, None), 5, "unknown");
    }
}
