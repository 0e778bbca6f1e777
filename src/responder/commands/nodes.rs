//! `!nodes` (`!node`): the mesh as our node hears it, answered by the daemon without the
//! model — the nodes heard in the last hour, as many as fit one packet; with a name
//! (`!nodes hilltop`), that node: how it was heard, its readings, its distance. Through the
//! mesh lens (`[mesh]`): hidden nodes are never listed, positions only when they may be told.
//! It asks identity for the bot's state (like `!status`), nothing of the node's memory.

use super::{Caller, Command, Takes};
use crate::clock::unix_now;
use crate::lang::{Lang, Say, say};
use crate::mesh::{listing, lookup};
use crate::responder::identity::Ask;
use crate::responder::shared::Shared;

pub(super) const NODES: Command = Command {
    words: &["nodes", "node"],
    ask: Ask::Status,
    help: Some(Say::HelpNodes),
    takes: Takes::Name,
    args: " [NAME]",
    usage: None,
    answer: answer!(answer),
};

async fn answer(shared: &Shared, caller: Caller, name: &str, lang: Lang) -> String {
    let node = caller.node();
    let s = &shared.settings;
    if !s.mesh.enabled {
        return say(lang, Say::MeshOff).to_string();
    }
    let view = shared.mesh.borrow().clone();
    let name = name.trim();
    if name.is_empty() {
        listing::heard(
            &view,
            &s.mesh,
            unix_now(),
            s.chunk.max_chars,
            s.chunk.max_bytes,
            lang,
        )
    } else {
        lookup::card(&view, &s.mesh, name, node, unix_now(), lang)
    }
}
