//! The privacy lens: which nodes of the mesh view may be described, and with what. A node the
//! operator lists as hidden (`[mesh] hidden`, by id or name) is never described, named or
//! counted apart; with `[mesh] positions = false` no position reaches the facts, so no
//! distance or direction either. Everything else in the view is what nodes broadcast (the
//! radio keeps DMs out of it), at the precision they chose to share.

use super::MeshConfig;
use super::matcher::fold;
use crate::node::NodeId;
use crate::radio::view::{Heard, MeshView, NodeView};
use crate::radio::{GeoPoint, NodeNames};

/// A node hidden by the operator.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Hidden {
    /// By its number (`!a1b2c3d4`).
    Node(NodeId),
    /// By its long or short name, folded (case and diacritics ignored).
    Name(String),
}

impl Hidden {
    /// The entry for `raw`: a node id when it parses as one (`!a1b2c3d4`), else a name.
    pub fn parse(raw: &str) -> Hidden {
        let raw = raw.trim();
        match raw
            .strip_prefix('!')
            .and_then(|_| raw.parse::<NodeId>().ok())
        {
            Some(id) => Hidden::Node(id),
            None => Hidden::Name(fold(raw)),
        }
    }

    /// Whether this entry hides node `id` with `names` now and `earlier` before: a name
    /// hides the node that ever had it (a rename does not reveal it).
    fn hides(&self, id: NodeId, names: Option<&NodeNames>, earlier: &[NodeNames]) -> bool {
        match self {
            Hidden::Node(n) => *n == id,
            Hidden::Name(name) => names
                .into_iter()
                .chain(earlier)
                .any(|n| fold(n.long_name.trim()) == *name || fold(n.short_name.trim()) == *name),
        }
    }
}

/// A node as the lens lets it be described.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Seen<'a> {
    pub(crate) id: NodeId,
    pub(crate) node: &'a NodeView,
    /// Its position, when it shared one and positions are on.
    pub(crate) position: Option<Heard<GeoPoint>>,
}

impl Seen<'_> {
    /// Its names, when known.
    pub fn names(&self) -> Option<&NodeNames> {
        self.node.names.as_ref()
    }
}

/// The lens over one view.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Lens<'a> {
    cfg: &'a MeshConfig,
    view: &'a MeshView,
}

impl<'a> Lens<'a> {
    pub fn new(cfg: &'a MeshConfig, view: &'a MeshView) -> Lens<'a> {
        Lens { cfg, view }
    }

    fn hidden(&self, id: NodeId, n: &NodeView) -> bool {
        self.cfg
            .hidden
            .iter()
            .any(|h| h.hides(id, n.names.as_ref(), &n.earlier_names))
    }

    fn seen(&self, id: NodeId, node: &'a NodeView) -> Seen<'a> {
        Seen {
            id,
            node,
            position: node.position.filter(|_| self.cfg.positions),
        }
    }

    /// Every node that may be described, but our own, the one known longest first (its
    /// first time heard, then its number): where two nodes have one name, the matcher takes
    /// the one known by it longest (issue 39: three clones of "Hilltop Relay" pushed the real
    /// one out of the facts).
    pub(crate) fn nodes(&self) -> Vec<Seen<'a>> {
        let me = self.view.me();
        let mut nodes: Vec<Seen<'a>> = self
            .view
            .nodes()
            .filter(|(id, n)| Some(*id) != me && !self.hidden(*id, n))
            .map(|(id, n)| self.seen(id, n))
            .collect();
        nodes.sort_by_key(|s| (s.node.first_heard.unwrap_or(i64::MAX), s.id.0));
        nodes
    }

    /// `id`, when it may be described (our own node is not among [`Lens::nodes`], but may be).
    pub fn node(&self, id: NodeId) -> Option<Seen<'a>> {
        let n = self.view.node(id)?;
        (!self.hidden(id, n)).then(|| self.seen(id, n))
    }

    /// Where our node is, when it may be said.
    pub(crate) fn our_position(&self) -> Option<GeoPoint> {
        let me = self.view.me()?;
        self.node(me)?.position.map(|p| p.value)
    }

    /// How many nodes the view holds that may be described, ours excluded.
    #[cfg(test)]
    pub(crate) fn count(&self) -> usize {
        self.nodes().len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::radio::NodeNames;

    fn names(l: &str, s: &str) -> NodeNames {
        NodeNames {
            long_name: l.into(),
            short_name: s.into(),
        }
    }

    fn view() -> MeshView {
        let mut v = MeshView::new();
        v.set_me(NodeId(1));
        let here = GeoPoint {
            lat: 47.0,
            lon: 8.0,
            uncertainty_km: 0.0,
        };
        v.insert(NodeId(1), names("Bot", "BOT"));
        v.set_position(NodeId(1), here, 10);
        v.insert(NodeId(2), names("Hilltop Relay", "HILL"));
        v.set_position(NodeId(2), here, 10);
        v.insert(NodeId(3), names("Chalet Müller", "CM"));
        v.insert(NodeId(4), names("Secret Cabin", "SC"));
        v
    }

    #[test]
    fn hidden_nodes_by_id_or_name_are_never_seen() {
        let v = view();
        let cfg = MeshConfig {
            hidden: vec![Hidden::parse("!00000004"), Hidden::parse("chalet MULLER")],
            ..MeshConfig::default()
        };
        let lens = Lens::new(&cfg, &v);
        let mut ids: Vec<u32> = lens.nodes().iter().map(|s| s.id.0).collect();
        ids.sort_unstable();
        assert_eq!(ids, [2], "ours is not listed, hidden ones never");
        assert!(lens.node(NodeId(3)).is_none() && lens.node(NodeId(4)).is_none());
        assert!(lens.node(NodeId(1)).is_some());
        assert_eq!(lens.count(), 1);
        assert_eq!(Hidden::parse("Alice"), Hidden::Name("alice".into()));
    }

    /// Issue 39: a node hidden by name was revealed by one rename broadcast.
    #[test]
    fn a_node_hidden_by_name_stays_hidden_after_a_rename() {
        let mut v = view();
        let cfg = MeshConfig {
            hidden: vec![Hidden::parse("Secret Cabin")],
            ..MeshConfig::default()
        };
        assert!(Lens::new(&cfg, &v).node(NodeId(4)).is_none());
        v.insert(NodeId(4), names("Totally Public", "TP"));
        v.insert(NodeId(4), names("Another Name", "AN"));
        assert!(
            Lens::new(&cfg, &v).node(NodeId(4)).is_none(),
            "renamed twice"
        );
        // Five renames later the hidden name has left the node's earlier names.
        for i in 0..5 {
            v.insert(NodeId(4), names(&format!("Name {i}"), "N"));
        }
        assert!(Lens::new(&cfg, &v).node(NodeId(4)).is_some());
    }

    #[test]
    fn positions_off_leaves_every_position_out() {
        let v = view();
        let on = MeshConfig::default();
        let lens = Lens::new(&on, &v);
        assert!(lens.our_position().is_some());
        assert!(lens.node(NodeId(2)).and_then(|s| s.position).is_some());
        let off = MeshConfig {
            positions: false,
            ..MeshConfig::default()
        };
        let lens = Lens::new(&off, &v);
        assert!(lens.our_position().is_none());
        assert!(lens.nodes().iter().all(|s| s.position.is_none()));
    }
}
