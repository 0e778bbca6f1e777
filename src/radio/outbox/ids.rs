//! Packet ids for outgoing texts: non-zero and never reused within a recent window.
//!
//! The firmware drops a packet whose id it saw recently, so every send (including a resend of
//! the same part) needs an id of its own. The source of randomness is injectable so the core's
//! tests see predictable ids.

use std::collections::{HashSet, VecDeque};

/// Where raw ids come from: `rand::random` in the daemon, a counter in tests.
pub(crate) type IdSource = Box<dyn FnMut() -> u32 + Send>;

/// How many recently used ids are remembered. A reply has a handful of parts with a few
/// resends each, so this covers hours of sending.
const REMEMBER: usize = 1024;

/// How often the source may produce 0 or a recent id before a deterministic fallback kicks in,
/// so a broken source cannot hang the outbox.
const MAX_DRAWS: usize = 32;

/// Hands out fresh packet ids.
pub(crate) struct PacketIds {
    source: IdSource,
    /// Recently used ids in the order they were handed out, oldest first.
    recent: VecDeque<u32>,
    /// The same ids as `recent`, for fast lookups.
    used: HashSet<u32>,
}

impl PacketIds {
    /// Ids drawn from `source`, filtered for 0 and repeats.
    pub fn new(source: IdSource) -> Self {
        PacketIds {
            source,
            recent: VecDeque::with_capacity(REMEMBER),
            used: HashSet::with_capacity(REMEMBER),
        }
    }

    /// Random ids from the thread-local generator.
    pub(crate) fn random() -> Self {
        PacketIds::new(Box::new(rand::random::<u32>))
    }

    /// A fresh id: non-zero and not among the last `REMEMBER` handed out.
    pub(crate) fn next_id(&mut self) -> u32 {
        let drawn = (0..MAX_DRAWS)
            .map(|_| (self.source)())
            .find(|id| *id != 0 && !self.used.contains(id));
        let id = match drawn {
            Some(id) => id,
            None => self.scan_from(self.recent.back().copied().unwrap_or(0)),
        };
        self.remember(id);
        id
    }

    /// The next unused non-zero id after `start`; terminates because at most `REMEMBER` ids
    /// are in use.
    fn scan_from(&self, start: u32) -> u32 {
        let mut id = start;
        loop {
            id = id.wrapping_add(1);
            if id != 0 && !self.used.contains(&id) {
                return id;
            }
        }
    }

    fn remember(&mut self, id: u32) {
        if self.recent.len() >= REMEMBER {
            if let Some(old) = self.recent.pop_front() {
                self.used.remove(&old);
            }
        }
        self.recent.push_back(id);
        self.used.insert(id);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn from_list(list: &'static [u32]) -> PacketIds {
        let mut i = 0;
        PacketIds::new(Box::new(move || {
            let id = list.get(i % list.len()).copied().unwrap_or(0);
            i += 1;
            id
        }))
    }

    #[test]
    fn skips_zero_and_repeats() {
        let cases: &[(&[u32], &[u32])] = &[
            (&[5, 6, 7], &[5, 6, 7]),
            (&[0, 5, 0, 6], &[5, 6]),
            (&[5, 5, 6, 5, 7], &[5, 6, 7]),
            // A source stuck on one value falls back to counting upwards.
            (&[9], &[9, 10, 11]),
            // A source stuck on 0 still yields non-zero ids, wrapping past u32::MAX.
            (&[0], &[1, 2]),
            (&[u32::MAX], &[u32::MAX, 1]),
        ];
        for (source, want) in cases {
            let mut ids = from_list(source);
            let got: Vec<u32> = want.iter().map(|_| ids.next_id()).collect();
            assert_eq!(&got, want, "source {source:?}");
        }
    }

    #[test]
    fn forgets_after_the_window() {
        let window = REMEMBER as u32;
        let mut n = 0u32;
        // 1, 2, ..., window + 1, then 1 again: allowed once it left the window.
        let mut ids = PacketIds::new(Box::new(move || {
            n += 1;
            (n - 1) % (window + 1) + 1
        }));
        for want in 1..=window + 1 {
            assert_eq!(ids.next_id(), want);
        }
        assert_eq!(ids.next_id(), 1);
    }

    #[test]
    fn random_ids_are_fresh() {
        let mut ids = PacketIds::random();
        let got: HashSet<u32> = (0..REMEMBER).map(|_| ids.next_id()).collect();
        assert_eq!(got.len(), REMEMBER);
        assert!(!got.contains(&0));
    }
}
