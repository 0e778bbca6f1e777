//! `!subscribe TOPIC`: the operator's bulletins on a topic (a file in `[bulletins] dir`,
//! `responder::courier::bulletins`) as DMs; `!subscribe` alone lists the topics and one's
//! own; `!unsubscribe TOPIC` stops one. For a sender whose DM may use its memory and who is
//! known or proven (every bulletin is airtime for each subscriber), within
//! [`TOPICS_PER_NODE`] and [`PER_TOPIC`].

use tracing::info;

use super::context::Bulletins;
use super::{Caller, Command, Takes, store_failed};
use crate::clock::unix_now;
use crate::lang::{Lang, Say, fill, say};
use crate::node::Standing;
use crate::responder::identity::Scope;
use crate::store::Subscribed;
use crate::text::cap;

/// The most topics one node may subscribe to.
pub(crate) const TOPICS_PER_NODE: usize = 10;
/// The most subscribers one topic may have.
pub(crate) const PER_TOPIC: usize = 200;

pub(super) const SUBSCRIBE: Command = Command {
    words: &["subscribe", "sub"],
    scope: Scope::Memory,
    help: Some(Say::HelpSubscribe),
    takes: Takes::Name,
    args: " [TOPIC]",
    usage: None,
    answer: answer!(subscribe),
};

pub(super) const UNSUBSCRIBE: Command = Command {
    words: &["unsubscribe", "unsub"],
    scope: Scope::Memory,
    help: None,
    takes: Takes::Name,
    args: " TOPIC",
    usage: None,
    answer: answer!(unsubscribe),
};

/// A topic as typed: lowercase, without a `#` or the file's extension.
fn topic(words: &str) -> String {
    let t = words.trim().trim_start_matches('#').to_lowercase();
    t.strip_suffix(".txt")
        .or_else(|| t.strip_suffix(".md"))
        .unwrap_or(&t)
        .to_string()
}

async fn subscribe(ctx: &impl Bulletins, caller: Caller, words: &str, lang: Lang) -> String {
    let cfg = ctx.bulletins();
    if cfg.dir.is_none() {
        return say(lang, Say::BulletinsOff).to_string();
    }
    let node = caller.node();
    let dir = cfg.clone();
    let topics = tokio::task::spawn_blocking(move || dir.topics())
        .await
        .unwrap_or_default();
    let wanted = topic(words);
    if wanted.is_empty() {
        let mine = match ctx.subscriptions_of(node).await {
            Ok(m) => m,
            Err(e) => return store_failed(lang, node, "read the node's subscriptions", &e),
        };
        let list = |t: &[String]| {
            if t.is_empty() {
                "-".to_string()
            } else {
                cap(&t.join(", "), 60)
            }
        };
        return fill(
            say(lang, Say::Topics),
            &[("word", &list(&topics)), ("name", &list(&mine))],
        );
    }
    if caller.dest.standing() == Standing::New {
        return say(lang, Say::TellNotKnown).to_string();
    }
    if !topics.contains(&wanted) {
        return fill(say(lang, Say::NoTopic), &[("word", &cap(&wanted, 20))]);
    }
    let limits = (TOPICS_PER_NODE, PER_TOPIC);
    let done = ctx
        .subscribe(node, wanted.clone(), lang, unix_now(), limits)
        .await;
    let word = [("word", wanted.as_str())];
    match done {
        Ok(Subscribed::New) => {
            info!(node = %node, topic = %wanted, "subscribed to a topic");
            let per_day = cfg.per_day.to_string();
            fill(
                say(lang, Say::Subscribed),
                &[("word", &wanted), ("n", &per_day)],
            )
        }
        Ok(Subscribed::Already) => fill(say(lang, Say::SubscribedAlready), &word),
        Ok(Subscribed::NodeFull(n) | Subscribed::TopicFull(n)) => {
            fill(say(lang, Say::SubscribeFull), &[("n", &n.to_string())])
        }
        Err(e) => store_failed(lang, node, "subscribe", &e),
    }
}

async fn unsubscribe(ctx: &impl Bulletins, caller: Caller, words: &str, lang: Lang) -> String {
    let node = caller.node();
    let wanted = topic(words);
    let word = [("word", wanted.as_str())];
    match ctx.unsubscribe(node, wanted.clone()).await {
        Ok(true) => {
            info!(node = %node, topic = %wanted, "unsubscribed from a topic");
            fill(say(lang, Say::Unsubscribed), &word)
        }
        Ok(false) => fill(
            say(lang, Say::NotSubscribed),
            &[("word", &cap(&wanted, 20))],
        ),
        Err(e) => store_failed(lang, node, "unsubscribe", &e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_topic_as_typed() {
        for (typed, want) in [
            ("Weather", "weather"),
            ("#weather", "weather"),
            ("weather.txt", "weather"),
            (" club-news.md ", "club-news"),
            ("", ""),
        ] {
            assert_eq!(topic(typed), want, "{typed:?}");
        }
    }
}
