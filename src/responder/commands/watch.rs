//! `!watch NAME CONDITION`: tell me once when that node goes quiet (`quiet 2h`), comes back
//! (`back`), reports a low battery (`battery 20`) or a sensor past a value (`temperature <
//! 0`); `!watch` lists one's watches, `!unwatch N` stops the N-th. The courier looks at them
//! (`responder::courier::watches`). NAME as `!tell` takes it, through the mesh lens (a hidden
//! node cannot be watched). For a sender whose DM may use its memory and who is known or
//! proven, at most [`PER_OWNER`] each: every alert is airtime.

use tracing::info;

use super::context::{Roster, Watches};
use super::tell::{Miss, NAME_CHARS, addressee};
use super::{Caller, Command, Takes, nth, numbered, store_failed};
use crate::clock::unix_now;
use crate::lang::{Lang, Say, fill, say};
use crate::mesh::lens::Lens;
use crate::mesh::watch::Condition;
use crate::node::Standing;
use crate::responder::identity::Scope;
use crate::store::{Added, NewWatch, Watch};
use crate::text::{cap, one_line};

/// The most watches one node may set.
pub(crate) const PER_OWNER: usize = 5;

pub(super) const WATCH: Command = Command {
    words: &["watch", "alert"],
    scope: Scope::Memory,
    help: Some(Say::HelpWatch),
    takes: Takes::NameText,
    args: " NAME CONDITION",
    usage: Some(Say::WatchUsage),
    answer: answer!(watch),
};

pub(super) const UNWATCH: Command = Command {
    words: &["unwatch"],
    scope: Scope::Memory,
    help: Some(Say::HelpUnwatch),
    takes: Takes::Name,
    args: " N",
    usage: None,
    answer: answer!(unwatch),
};

async fn watch(ctx: &(impl Watches + Roster), caller: Caller, words: &str, lang: Lang) -> String {
    let mesh = ctx.mesh();
    if !mesh.enabled {
        return say(lang, Say::MeshOff).to_string();
    }
    let owner = caller.node();
    if words.trim().is_empty() {
        return match ctx.watches_of(owner).await {
            Ok(w) => listing(&w, lang),
            Err(e) => store_failed(lang, owner, "read the node's watches", &e),
        };
    }
    if caller.dest.standing() == Standing::New {
        return say(lang, Say::TellNotKnown).to_string();
    }
    let view = ctx.view();
    let lens = Lens::new(mesh, &view);
    let (target, rest) = match addressee(&lens, words) {
        Ok(found) => found,
        Err(Miss::Usage) => return say(lang, Say::WatchUsage).to_string(),
        Err(Miss::NoSuch(name)) => {
            return fill(say(lang, Say::TellNoSuchNode), &[("word", &cap(&name, 20))]);
        }
    };
    let Some(condition) = Condition::parse(&rest) else {
        return say(lang, Say::WatchUsage).to_string();
    };
    let name = target
        .names()
        .map(|n| one_line(&n.long_name))
        .filter(|n| !n.is_empty())
        .map_or_else(|| target.id.to_string(), |n| cap(&n, NAME_CHARS));
    let now = unix_now();
    let held = condition
        .holds(Some(target.node), now, mesh.units)
        .unwrap_or(false);
    let new = NewWatch {
        owner,
        target: target.id,
        target_name: name.clone(),
        condition: condition.to_string(),
        lang,
        at: now,
        held,
    };
    let values = [("name", name.as_str()), ("word", &condition.to_string())];
    match ctx.add_watch(new, PER_OWNER).await {
        Ok(Added::New(id)) => {
            info!(owner = %owner, node = %target.id, watch = id, %condition, "watch set");
            let what = if held {
                Say::WatchHoldsNow
            } else {
                Say::WatchSet
            };
            fill(say(lang, what), &values)
        }
        Ok(Added::Already) => fill(say(lang, Say::WatchAlready), &values),
        Ok(Added::Full(n)) => fill(say(lang, Say::WatchFull), &[("n", &n.to_string())]),
        Err(e) => store_failed(lang, owner, "set a watch", &e),
    }
}

async fn unwatch(ctx: &impl Watches, caller: Caller, words: &str, lang: Lang) -> String {
    let owner = caller.node();
    let watches = match ctx.watches_of(owner).await {
        Ok(w) => w,
        Err(e) => return store_failed(lang, owner, "read the node's watches", &e),
    };
    let which = words.trim();
    let Some(w) = nth(&watches, which) else {
        if which.is_empty() {
            return listing(&watches, lang);
        }
        return fill(say(lang, Say::WatchNoSuch), &[("word", &cap(which, 20))]);
    };
    match ctx.remove_watch(owner, w.id).await {
        Ok(true) => {
            info!(owner = %owner, watch = w.id, "watch stopped");
            fill(say(lang, Say::WatchRemoved), &[("name", &w.target_name)])
        }
        Ok(false) => fill(say(lang, Say::WatchNoSuch), &[("word", &cap(which, 20))]),
        Err(e) => store_failed(lang, owner, "stop a watch", &e),
    }
}

/// `!watch`'s list: "2 watches (!unwatch N): 1 Hilltop Relay battery < 20, 2 Lakeside back".
fn listing(watches: &[Watch], lang: Lang) -> String {
    let items = watches
        .iter()
        .map(|w| (w.target_name.as_str(), w.condition.clone()));
    numbered(lang, (Say::WatchList, Say::WatchNone), items)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::node::NodeId;

    #[test]
    fn the_list_numbers_each_watch_with_its_node_and_condition() {
        let w = |id, name: &str, condition: &str| Watch {
            id,
            owner: NodeId(1),
            target: NodeId(2),
            target_name: name.into(),
            condition: condition.into(),
            lang: Lang::En,
            created_at: 0,
            held: false,
        };
        assert_eq!(
            listing(
                &[
                    w(4, "Hilltop Relay", "battery < 20"),
                    w(9, "Lakeside", "back")
                ],
                Lang::En
            ),
            "2 watches (!unwatch N): 1 Hilltop Relay battery < 20, 2 Lakeside back"
        );
        assert!(listing(&[], Lang::En).starts_with("You watch nothing."));
    }
}
