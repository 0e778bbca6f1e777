//! `!nodes` (`!node`): the mesh as our node hears it, answered by the daemon without the
//! model — the nodes heard in the last hour, as many as fit one packet; with a name
//! (`!nodes hilltop`), that node: how it was heard, its readings, its distance. Through the
//! mesh lens (`[mesh]`): hidden nodes are never listed, positions only when they may be told.
//! It asks identity for the bot's state (like `!status`), nothing of the node's memory.

use super::context::{Packets, Roster};
use super::{Caller, Command, Takes};
use crate::clock::unix_now;
use crate::lang::{Lang, Say, say};
use crate::mesh::{listing, lookup};
use crate::responder::identity::Scope;

pub(super) const NODES: Command = Command {
    words: &["nodes", "node"],
    scope: Scope::Status,
    help: Some(Say::HelpNodes),
    takes: Takes::Name,
    args: " [NAME]",
    usage: None,
    answer: answer!(answer),
};

async fn answer(ctx: &(impl Roster + Packets), caller: Caller, name: &str, lang: Lang) -> String {
    let node = caller.node();
    let mesh = ctx.mesh();
    if !mesh.enabled {
        return say(lang, Say::MeshOff).to_string();
    }
    let view = ctx.view();
    let name = name.trim();
    if name.is_empty() {
        let chunk = ctx.chunk();
        listing::heard(
            &view,
            mesh,
            unix_now(),
            chunk.max_chars,
            chunk.max_bytes,
            lang,
        )
    } else {
        lookup::card(&view, mesh, name, node, unix_now(), lang)
    }
}
