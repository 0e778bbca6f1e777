//! Which llama.cpp server slot each request goes to. Sans-IO.
//!
//! llama.cpp's server keeps one KV cache per slot (`--parallel N`) and, with `cache_prompt`,
//! evaluates only what follows the longest prefix a new prompt shares with the slot's last
//! one. Conversations that take turns on one slot evict each other's cache (the server's
//! prompt cache in RAM, `--cache-ram`, can bring one back). So with two or more slots the last
//! one is kept for summaries, and each talking node gets a slot of its own among the others:
//! the same slot for as long as it keeps talking, the least recently used one when there are
//! more nodes than slots. On a one-slot server (a Raspberry Pi) a fold shares the node's slot:
//! its request begins with the node's conversation (`memory::summary::summary_prompt`), which
//! the slot holds, so the server evaluates only the request.

use crate::node::NodeId;

#[derive(Debug, Clone)]
pub(crate) struct SlotMap {
    total: u32,
    /// Per reply slot: the node pinned to it and when it last used it (a counter).
    pinned: Vec<Option<(NodeId, u64)>>,
    tick: u64,
}

impl SlotMap {
    /// For a server with `total` slots (at least 1).
    pub fn new(total: u32) -> SlotMap {
        let total = total.max(1);
        let replies = if total >= 2 { total - 1 } else { 1 };
        SlotMap {
            total,
            pinned: vec![None; replies as usize],
            tick: 0,
        }
    }

    /// Whether summaries have a slot to themselves.
    #[cfg(test)]
    pub(crate) fn summaries_apart(&self) -> bool {
        self.total >= 2
    }

    /// The slot summaries use: the last one (shared with replies on a one-slot server).
    pub(crate) fn summary_slot(&self) -> u32 {
        self.total - 1
    }

    /// The slot for a reply to `node`: its pinned slot, else a free one, else the least
    /// recently used one (whose node loses its pin).
    pub(crate) fn for_node(&mut self, node: NodeId) -> u32 {
        self.tick += 1;
        let tick = self.tick;
        let index = match self
            .pinned
            .iter()
            .position(|p| p.is_some_and(|(n, _)| n == node))
        {
            Some(i) => i,
            None => self
                .pinned
                .iter()
                .position(Option::is_none)
                .or_else(|| {
                    self.pinned
                        .iter()
                        .enumerate()
                        .min_by_key(|(_, p)| p.map_or(0, |(_, t)| t))
                        .map(|(i, _)| i)
                })
                .unwrap_or(0),
        };
        if let Some(p) = self.pinned.get_mut(index) {
            *p = Some((node, tick));
        }
        u32::try_from(index).unwrap_or(0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const A: NodeId = NodeId(1);
    const B: NodeId = NodeId(2);
    const C: NodeId = NodeId(3);
    const D: NodeId = NodeId(4);

    #[test]
    fn pins_nodes_and_keeps_the_last_slot_for_summaries() {
        // (total slots, nodes asking in order, the slots they get)
        let cases: &[(u32, &[NodeId], &[u32])] = &[
            (1, &[A, B, A], &[0, 0, 0]),
            (2, &[A, B, A], &[0, 0, 0]),
            (4, &[A, B, C, A, B, C], &[0, 1, 2, 0, 1, 2]),
            // D takes the least recently used slot (A's), then A takes B's.
            (4, &[A, B, C, B, C, D, A], &[0, 1, 2, 1, 2, 0, 1]),
        ];
        for (total, asks, want) in cases {
            let mut map = SlotMap::new(*total);
            let got: Vec<u32> = asks.iter().map(|n| map.for_node(*n)).collect();
            assert_eq!(got, *want, "total {total}");
            assert_eq!(map.summary_slot(), total - 1);
            assert_eq!(map.summaries_apart(), *total >= 2);
            assert!(got.iter().all(|s| *total < 2 || *s < total - 1));
        }
        assert_eq!(SlotMap::new(0).summary_slot(), 0);
    }
}
