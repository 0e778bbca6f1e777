//! Where a reply goes, as types that keep direct messages and channels apart.
//!
//! A [`DmDest`] is the sender of a direct message: the only destination a reply built from a
//! node's memory may have. It cannot be made for the broadcast address (nor for node 0), so
//! whatever a node's worker sends, and every command that reads memory, goes to that one
//! node. A [`Destination`] is any reply's address: a `DmDest`, or everyone on a channel
//! ([`Destination::channel`], for mentions, whose answers are public).

use crate::node::{NodeId, PublicKey, Standing};
use crate::radio::{HopFields, ReplyRequest, TextMessage};

/// How a DM's replies are sealed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Seal {
    /// PKI-encrypted or not at all (the node talks PKI: see `ReplyRequest::pki`).
    Pki,
    /// As the firmware can: PKI when it knows the node's key, else the channel key.
    Any,
}

/// The sender of a DM, on the channel it came in on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct DmDest {
    to: NodeId,
    channel: u32,
    /// Replies go PKI-encrypted or not at all (see `ReplyRequest::pki`).
    pki: bool,
    /// How far the sender is established: the outbox serves higher standing first.
    standing: Standing,
    /// The DM's hop fields: its replies and notices go as far as the firmware's rule says.
    asked: HopFields,
    /// The sender's key: the DM's own when it came PKI, else the one the bot pinned.
    key: Option<PublicKey>,
}

impl DmDest {
    /// The sender of `msg`, a DM to us; `None` when `msg` is not one (a broadcast, or a
    /// `from` that is no node's); its replies go sealed as `seal` says.
    pub(crate) fn of(msg: &TextMessage, seal: Seal) -> Option<DmDest> {
        let a_node = |n: NodeId| n != NodeId::BROADCAST && n != NodeId(0);
        (a_node(msg.from) && a_node(msg.to)).then_some(DmDest {
            to: msg.from,
            channel: msg.channel,
            pki: seal == Seal::Pki,
            standing: Standing::New,
            asked: msg.hop_fields,
            key: msg.public_key.filter(|_| msg.pki),
        })
    }

    /// The same sender, with `pinned` (the key the bot holds for it) when its DM brought none.
    pub(crate) fn with_pinned(self, pinned: Option<PublicKey>) -> DmDest {
        DmDest {
            key: self.key.or(pinned),
            ..self
        }
    }

    /// The same sender, at `standing` (decided at intake: `schedule::standing::standing`).
    pub(crate) fn with_standing(self, standing: Standing) -> DmDest {
        DmDest { standing, ..self }
    }

    /// How far the sender is established.
    pub(crate) fn standing(&self) -> Standing {
        self.standing
    }

    /// The node the reply goes to: the DM's sender.
    pub fn node(&self) -> NodeId {
        self.to
    }
}

/// Where one reply goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Destination {
    to: NodeId,
    channel: u32,
    pki: bool,
    standing: Standing,
    /// The hop fields of the message answered (see `ReplyRequest::asked`).
    asked: HopFields,
    /// Its parts wait for their ACKs whoever the node is (see `ReplyRequest::receipt`).
    receipt: bool,
    /// The node's key, handed back to our node if it lost it (see `ReplyRequest::pinned`).
    key: Option<PublicKey>,
}

impl From<DmDest> for Destination {
    fn from(d: DmDest) -> Destination {
        Destination {
            to: d.to,
            channel: d.channel,
            pki: d.pki,
            standing: d.standing,
            asked: d.asked,
            receipt: false,
            key: d.key,
        }
    }
}

impl Destination {
    /// Everyone on `channel`: a public reply, readable by every holder of the channel key. It
    /// goes after every DM's reply (the lowest standing: a channel's `from` proves nothing).
    pub fn channel(channel: u32) -> Destination {
        Destination {
            to: NodeId::BROADCAST,
            channel,
            pki: false,
            standing: Standing::New,
            asked: HopFields::default(),
            receipt: false,
            key: None,
        }
    }

    /// Node `to` on the primary channel, though it sent nothing to answer (a `!tell`
    /// delivery, a sender's receipt): `None` for the broadcast address and node 0. It goes
    /// PKI with `key` when there is one (else as the firmware can), at `standing`, as far as
    /// `asked` says.
    pub fn node(
        to: NodeId,
        key: Option<PublicKey>,
        standing: Standing,
        asked: HopFields,
    ) -> Option<Destination> {
        (to != NodeId::BROADCAST && to != NodeId(0)).then_some(Destination {
            to,
            channel: 0,
            pki: key.is_some(),
            standing,
            asked,
            receipt: false,
            key,
        })
    }

    /// The same, its parts held until their ACKs (a delivery its sender is told of).
    pub(crate) fn with_receipt(self) -> Destination {
        Destination {
            receipt: true,
            ..self
        }
    }

    /// Everyone on the channel `mention` came in on, as far as the firmware's rule answers
    /// it from the mention's hop fields.
    pub(crate) fn mention(mention: &TextMessage) -> Destination {
        Destination {
            asked: mention.hop_fields,
            ..Destination::channel(mention.channel)
        }
    }

    /// The node the reply goes to (the broadcast address for a channel).
    pub fn to(&self) -> NodeId {
        self.to
    }

    /// The standing the outbox serves this reply at.
    pub(crate) fn standing(&self) -> Standing {
        self.standing
    }

    /// Whether the reply goes PKI-encrypted.
    pub fn pki(&self) -> bool {
        self.pki
    }

    /// The request for a reply to packet `reply_to` made of `parts`.
    pub(crate) fn request(&self, reply_to: Option<u32>, parts: Vec<String>) -> ReplyRequest {
        ReplyRequest {
            to: self.to,
            channel: self.channel,
            reply_to,
            parts,
            pki: self.pki,
            asked: self.asked,
            receipt: self.receipt,
            pinned: self.key.filter(|_| self.pki),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::SystemTime;

    fn msg(from: u32, to: u32) -> TextMessage {
        TextMessage {
            from: NodeId(from),
            to: NodeId(to),
            channel: 2,
            packet_id: 1,
            text: "hi".into(),
            hops: None,
            hop_fields: HopFields {
                hop_start: 3,
                hop_limit: 2,
                bitfield: true,
            },
            snr: None,
            position: None,
            local_position: None,
            received_at: SystemTime::UNIX_EPOCH,
            names: None,
            pki: false,
            public_key: None,
            via_mqtt: false,
            signed: false,
        }
    }

    #[test]
    fn a_dm_destination_is_never_the_broadcast_address() {
        let bcast = NodeId::BROADCAST.0;
        let cases = [
            (7, 100, Some(7)),
            (bcast, 100, None),
            (0, 100, None),
            // A broadcast is not a DM: it has no DM destination.
            (7, bcast, None),
        ];
        for (from, to, want) in cases {
            let got = DmDest::of(&msg(from, to), Seal::Pki).map(|d| d.node().0);
            assert_eq!(got, want, "from {from:x} to {to:x}");
        }
        let d = DmDest::of(&msg(7, 100), Seal::Pki).expect("a dm");
        let req = Destination::from(d).request(Some(1), vec!["a".into()]);
        assert_eq!((req.to, req.channel, req.pki), (NodeId(7), 2, true));
        assert_eq!(
            req.asked,
            msg(7, 100).hop_fields,
            "the DM's hops go with its reply"
        );
        let public = Destination::channel(1).request(None, Vec::new());
        assert_eq!(
            (public.to, public.channel, public.pki),
            (NodeId::BROADCAST, 1, false)
        );
        let mention = Destination::mention(&msg(7, bcast)).request(None, Vec::new());
        assert_eq!(
            (mention.to, mention.channel, mention.asked),
            (NodeId::BROADCAST, 2, msg(7, bcast).hop_fields)
        );
    }
}
