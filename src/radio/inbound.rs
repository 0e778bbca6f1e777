//! Which incoming packets are messages for the daemon: the DM filter and the dedup cache.
//!
//! Sans-IO: [`DmFilter::accept`] takes a packet and `now` and returns a [`Verdict`]. The
//! rules are PROTOCOL.md's "What counts as a DM to answer". The filter lives as long as the
//! link supervisor, so its dedup memory survives reconnects: a packet heard again after a
//! reconnect is still a duplicate.

use std::collections::{HashMap, VecDeque};
use std::time::{Duration, Instant, SystemTime};

use meshtastic::protobufs::{MeshPacket, PortNum, mesh_packet};

use super::packet;
use super::view::MeshView;
use super::{HopFields, TextMessage};
use crate::node::{NodeId, PublicKey};

/// How long a `(from, id)` is remembered. Duplicates arrive over other hops within seconds,
/// but our own packets have been seen echoing back ~30 minutes later (firmware #8149, #8790).
pub(crate) const DEDUP_TTL: Duration = Duration::from_secs(2 * 3600);
/// How many `(from, id)` pairs are remembered at most; the oldest go first.
pub(crate) const DEDUP_CAPACITY: usize = 10_000;

/// Why a packet is not passed on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SkipReason {
    /// Encrypted with a channel key the node does not have, or no payload at all.
    NotDecoded,
    /// Not a TEXT_MESSAGE_APP packet.
    NotText,
    FromUs,
    FromZero,
    /// `from` is the broadcast address: no node has it, and an answer to it would go to
    /// everyone.
    FromBroadcast,
    /// A tapback reaction (`emoji != 0`), not a message.
    Tapback,
    /// The same `(from, id)` was accepted before.
    Duplicate,
    /// Nothing left after trimming whitespace.
    Empty,
    /// A DM for another node (or our number is not known yet).
    NotForUs,
}

/// What to do with a packet.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Verdict {
    Dm(TextMessage),
    Broadcast(TextMessage),
    Skip(SkipReason),
}

/// Remembers recently accepted `(from, id)` pairs for `ttl`, at most `capacity` of them.
#[derive(Debug)]
pub(crate) struct DedupCache {
    ttl: Duration,
    capacity: usize,
    /// When each pair was first accepted.
    seen: HashMap<(u32, u32), Instant>,
    /// The same pairs, oldest first: expiry and eviction pop from the front.
    order: VecDeque<((u32, u32), Instant)>,
}

impl DedupCache {
    pub fn new(ttl: Duration, capacity: usize) -> Self {
        DedupCache {
            ttl,
            capacity: capacity.max(1),
            seen: HashMap::new(),
            order: VecDeque::new(),
        }
    }

    /// Records `key` and returns `true` if it is new (not seen within the TTL).
    pub(crate) fn insert(&mut self, key: (u32, u32), now: Instant) -> bool {
        while let Some(&(old, at)) = self.order.front() {
            if now.saturating_duration_since(at) < self.ttl {
                break;
            }
            self.order.pop_front();
            self.seen.remove(&old);
        }
        if self.seen.contains_key(&key) {
            return false;
        }
        if self.seen.len() >= self.capacity {
            if let Some((old, _)) = self.order.pop_front() {
                self.seen.remove(&old);
            }
        }
        self.seen.insert(key, now);
        self.order.push_back((key, now));
        true
    }

    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.seen.len()
    }
}

/// The DM filter: our node number (known after each handshake) plus the dedup memory.
#[derive(Debug)]
pub(crate) struct DmFilter {
    me: Option<NodeId>,
    dedup: DedupCache,
}

impl Default for DmFilter {
    fn default() -> Self {
        Self::new()
    }
}

impl DmFilter {
    pub fn new() -> Self {
        Self::with_cache(DedupCache::new(DEDUP_TTL, DEDUP_CAPACITY))
    }

    pub(crate) fn with_cache(dedup: DedupCache) -> Self {
        DmFilter { me: None, dedup }
    }

    /// Sets our node number; called after every handshake (it could change if the daemon
    /// is pointed at another node).
    pub(crate) fn set_local(&mut self, me: NodeId) {
        self.me = Some(me);
    }

    /// Decides what `p` is. Only packets that would be passed on are remembered for dedup,
    /// so skipped traffic does not fill the cache.
    pub(crate) fn accept(
        &mut self,
        p: &MeshPacket,
        signed: bool,
        now: Instant,
        db: &MeshView,
        received_at: SystemTime,
    ) -> Verdict {
        let Some(mesh_packet::PayloadVariant::Decoded(data)) = &p.payload_variant else {
            return Verdict::Skip(SkipReason::NotDecoded);
        };
        if data.portnum != PortNum::TextMessageApp as i32 {
            return Verdict::Skip(SkipReason::NotText);
        }
        if p.from == 0 {
            return Verdict::Skip(SkipReason::FromZero);
        }
        if NodeId(p.from) == NodeId::BROADCAST {
            return Verdict::Skip(SkipReason::FromBroadcast);
        }
        if Some(NodeId(p.from)) == self.me {
            return Verdict::Skip(SkipReason::FromUs);
        }
        let to = NodeId(p.to);
        let broadcast = to == NodeId::BROADCAST;
        if !broadcast && Some(to) != self.me {
            return Verdict::Skip(SkipReason::NotForUs);
        }
        if data.emoji != 0 {
            return Verdict::Skip(SkipReason::Tapback);
        }
        let text = String::from_utf8_lossy(&data.payload).trim().to_string();
        if text.is_empty() {
            return Verdict::Skip(SkipReason::Empty);
        }
        // Id 0 is not a real packet id: such packets cannot be told apart, so none is
        // treated as a duplicate of another.
        if p.id != 0 && !self.dedup.insert((p.from, p.id), now) {
            return Verdict::Skip(SkipReason::Duplicate);
        }
        let from = NodeId(p.from);
        let msg = TextMessage {
            from,
            to,
            channel: p.channel,
            packet_id: p.id,
            text,
            hops: (p.hop_start > 0)
                .then(|| p.hop_start.checked_sub(p.hop_limit))
                .flatten(),
            hop_fields: HopFields::of(p),
            snr: packet::rx_snr(p),
            position: db.position(from),
            local_position: self.me.and_then(|me| db.position(me)),
            received_at,
            names: db.get(from).cloned(),
            pki: p.pki_encrypted,
            public_key: p
                .pki_encrypted
                .then(|| PublicKey::from_slice(&p.public_key))
                .flatten(),
            via_mqtt: p.via_mqtt,
            // A PKI DM proves more (its key): a signature on one adds nothing.
            signed: signed && !p.pki_encrypted,
        };
        if broadcast {
            Verdict::Broadcast(msg)
        } else {
            Verdict::Dm(msg)
        }
    }
}

#[cfg(test)]
mod tests;
