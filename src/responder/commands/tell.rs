//! `!tell NAME TEXT`: a message for another node, kept in the database until that node is
//! heard live, then delivered by the courier (`responder::courier`) with the sender's name,
//! and the sender told when its ACK came. NAME is a node's long or short name as the node
//! list has it (`!nodes`), any case, or its `!id`; `NAME: TEXT` settles a name the text
//! could run into. Only for a sender whose DM may use its memory (its identity holds) and who
//! is known or proven: a fresh id cannot make the bot carry its words. Never in a prompt.

use tracing::info;

use super::context::{Mailroom, Roster};
use super::{Caller, Command, Takes, store_failed};
use crate::clock::unix_now;
use crate::lang::{Lang, Say, fill, say};
use crate::mesh::lens::{Lens, Seen};
use crate::mesh::matcher::fold;
use crate::node::{NodeId, Standing};
use crate::responder::identity::Scope;
use crate::store::{MailQuota, NewMail, Posted};
use crate::text::{cap, one_line};

pub(super) const TELL: Command = Command {
    words: &["tell"],
    scope: Scope::Memory,
    help: Some(Say::HelpTell),
    takes: Takes::NameText,
    args: " NAME TEXT",
    usage: Some(Say::TellUsage),
    answer: answer!(answer),
};

/// How many words a name may have.
const NAME_WORDS: usize = 6;
/// How many characters of a node's name the texts carry.
pub(crate) const NAME_CHARS: usize = 24;

async fn answer(ctx: &(impl Mailroom + Roster), caller: Caller, words: &str, lang: Lang) -> String {
    tell(ctx, caller, words, lang).await
}

async fn tell(ctx: &(impl Mailroom + Roster), caller: Caller, words: &str, lang: Lang) -> String {
    let cfg = ctx.mail();
    if !cfg.enabled {
        return say(lang, Say::MailOff).to_string();
    }
    if caller.dest.standing() == Standing::New {
        return say(lang, Say::TellNotKnown).to_string();
    }
    let view = ctx.view();
    let lens = Lens::new(ctx.mesh(), &view);
    let (to, text) = match addressee(&lens, words) {
        Ok(found) => found,
        Err(Miss::Usage) => return say(lang, Say::TellUsage).to_string(),
        Err(Miss::NoSuch(name)) => {
            return fill(say(lang, Say::TellNoSuchNode), &[("word", &cap(&name, 20))]);
        }
    };
    let sender = caller.node();
    if to.id == sender {
        return say(lang, Say::TellSelf).to_string();
    }
    let name_of = |seen: Option<Seen<'_>>, id: NodeId| {
        seen.and_then(|s| s.names().map(|n| one_line(&n.long_name)))
            .filter(|n| !n.is_empty())
            .map_or_else(|| id.to_string(), |n| cap(&n, NAME_CHARS))
    };
    let recipient_key = match ctx.node_key(to.id).await {
        Ok(key) => key.map(|k| k.pinned),
        Err(e) => return store_failed(lang, to.id, "read the recipient's key for !tell", &e),
    };
    let now = unix_now();
    let mail = NewMail {
        sender,
        sender_name: name_of(view.node(sender).map(|n| lens_seen(sender, n)), sender),
        recipient: to.id,
        recipient_name: name_of(Some(to), to.id),
        recipient_key,
        text,
        sender_lang: lang,
        at: now,
        expires_at: now + i64::from(cfg.keep_days) * 86_400,
    };
    let recipient = mail.recipient_name.clone();
    let quota = MailQuota {
        per_sender: cfg.per_sender,
        per_recipient: cfg.per_recipient,
    };
    match ctx.post_mail(mail, quota).await {
        Ok(Posted::Kept(id)) => {
            info!(from = %sender, to = %to.id, mail = id, "message kept until its node is heard");
            fill(
                say(lang, Say::TellKept),
                &[("name", &recipient), ("n", &cfg.keep_days.to_string())],
            )
        }
        Ok(Posted::SenderFull(n)) => fill(say(lang, Say::TellSenderFull), &[("n", &n.to_string())]),
        Ok(Posted::RecipientFull(n)) => fill(
            say(lang, Say::TellRecipientFull),
            &[("n", &n.to_string()), ("name", &recipient)],
        ),
        Err(e) => store_failed(lang, sender, "keep a !tell message", &e),
    }
}

/// The sender as a [`Seen`], for its name only (the lens may hide it from descriptions, but
/// its own name is the sender's to give).
fn lens_seen(id: NodeId, node: &crate::radio::view::NodeView) -> Seen<'_> {
    Seen {
        id,
        node,
        position: None,
    }
}

/// Why `!tell`'s (or `!watch`'s) words name no node.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Miss {
    /// No name and text at all.
    Usage,
    /// The first words name no node the lens shows; the first word, as written.
    NoSuch(String),
}

/// The node `words` start with and the text after it: `!id`, or a long or short name as the
/// node list has it (folded: any case, any accents), the longest that fits first; `NAME:`
/// ends a name. Of two nodes with one name, the one known longest ([`Lens::nodes`]).
pub(super) fn addressee<'a>(lens: &Lens<'a>, words: &str) -> Result<(Seen<'a>, String), Miss> {
    let words = words.trim();
    let text_after = |rest: &str| {
        let t = rest.trim().trim_start_matches([':', ',']).trim();
        (!t.is_empty()).then(|| t.to_string())
    };
    let first = words.split_whitespace().next().ok_or(Miss::Usage)?;
    let no_such = || Miss::NoSuch(first.trim_end_matches(':').to_string());
    if let Some(id) = first.trim_end_matches(':').strip_prefix('!') {
        let node = format!("!{id}").parse::<NodeId>().map_err(|_| no_such())?;
        let seen = lens
            .nodes()
            .into_iter()
            .find(|s| s.id == node)
            .ok_or_else(no_such)?;
        let text = text_after(&words[first.len()..]).ok_or(Miss::Usage)?;
        return Ok((seen, text));
    }
    let nodes = lens.nodes();
    let named = |name: &str| {
        let name = fold(name.trim());
        nodes.iter().copied().find(|s| {
            s.names().is_some_and(|n| {
                !name.is_empty()
                    && (fold(n.long_name.trim()) == name || fold(n.short_name.trim()) == name)
            })
        })
    };
    if let Some((name, rest)) = words.split_once(':')
        && let Some(seen) = named(name)
    {
        return text_after(rest).map(|t| (seen, t)).ok_or(Miss::Usage);
    }
    // Word boundaries: where each word ends, in bytes.
    let ends: Vec<usize> = words
        .char_indices()
        .zip(words.chars().skip(1).chain([' ']))
        .filter(|((_, c), next)| !c.is_whitespace() && next.is_whitespace())
        .map(|((i, c), _)| i + c.len_utf8())
        .take(NAME_WORDS)
        .collect();
    for &end in ends.iter().rev() {
        if let Some(seen) = named(words[..end].trim_end_matches([',', ';'])) {
            return text_after(&words[end..])
                .map(|t| (seen, t))
                .ok_or(Miss::Usage);
        }
    }
    Err(no_such())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mesh::MeshConfig;
    use crate::radio::{MeshView, NodeNames};

    fn view() -> MeshView {
        let mut v = MeshView::new();
        v.set_me(NodeId(1));
        let names = [
            (0xc0, "Carol", "CARO"),
            (0xb0, "Hilltop Relay", "HILL"),
            (0xb1, "Hilltop", "HTOP"),
            (0xd0, "Dörte Müller", "DM"),
        ];
        for (num, long, short) in names {
            v.insert(
                NodeId(num),
                NodeNames {
                    long_name: long.into(),
                    short_name: short.into(),
                },
            );
        }
        v
    }

    #[test]
    fn the_first_words_name_the_node_and_the_rest_is_the_text() {
        let v = view();
        let cfg = MeshConfig::default();
        let lens = Lens::new(&cfg, &v);
        let ok = |node: u32, text: &str| Ok((node, text.to_string()));
        type Found = Result<(u32, String), Miss>;
        let cases: &[(&str, Found)] = &[
            ("Carol see you at 6", ok(0xc0, "see you at 6")),
            ("carol: see you at 6", ok(0xc0, "see you at 6")),
            ("CARO back at 6", ok(0xc0, "back at 6")),
            // The longest name that fits first: "Hilltop Relay", not "Hilltop".
            ("hilltop relay is down", ok(0xb0, "is down")),
            ("Hilltop is up again", ok(0xb1, "is up again")),
            ("Hilltop: Relay is down", ok(0xb1, "Relay is down")),
            ("dorte muller, dinner at 7", ok(0xd0, "dinner at 7")),
            ("!000000c0 hi", ok(0xc0, "hi")),
            ("!000000c0: hi", ok(0xc0, "hi")),
            ("Carol", Err(Miss::Usage)),
            ("Carol:  ", Err(Miss::Usage)),
            ("", Err(Miss::Usage)),
            ("Bob hi there", Err(Miss::NoSuch("Bob".into()))),
            ("!0000beef hi", Err(Miss::NoSuch("!0000beef".into()))),
            ("!zz hi", Err(Miss::NoSuch("!zz".into()))),
            // Our own node is not among those a message may go to.
            ("!00000001 hi", Err(Miss::NoSuch("!00000001".into()))),
        ];
        for (words, want) in cases {
            let got = addressee(&lens, words).map(|(s, t)| (s.id.0, t));
            assert_eq!(&got, want, "{words:?}");
        }
    }

    #[test]
    fn a_hidden_node_is_no_one_to_tell() {
        let v = view();
        let cfg = MeshConfig {
            hidden: vec![crate::mesh::Hidden::parse("Carol")],
            ..MeshConfig::default()
        };
        let lens = Lens::new(&cfg, &v);
        assert_eq!(
            addressee(&lens, "Carol hi").map(|(s, _)| s.id),
            Err(Miss::NoSuch("Carol".into()))
        );
    }
}
