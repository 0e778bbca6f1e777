//! `!mail`: the messages the sender left with `!tell` that still wait, numbered, with their
//! recipient and age; `!mail cancel N` deletes the N-th. The sender's own only: it asks
//! identity for the memory, like `!summary`.

use tracing::info;

use super::context::Mailroom;
use super::{Caller, Command, Takes, nth, numbered, store_failed};
use crate::clock::unix_now;
use crate::lang::{Lang, Say, fill, say};
use crate::responder::identity::Scope;
use crate::store::Mail;
use crate::text::cap;

pub(super) const MAIL: Command = Command {
    words: &["mail", "inbox"],
    scope: Scope::Memory,
    help: Some(Say::HelpMail),
    takes: Takes::Name,
    args: " [cancel N]",
    usage: None,
    answer: answer!(answer),
};

/// The words that cancel one.
const CANCEL: [&str; 3] = ["cancel", "delete", "del"];

async fn answer(ctx: &impl Mailroom, caller: Caller, words: &str, lang: Lang) -> String {
    if !ctx.mail().enabled {
        return say(lang, Say::MailOff).to_string();
    }
    let sender = caller.node();
    let waiting = match ctx.mail_from(sender).await {
        Ok(w) => w,
        Err(e) => return store_failed(lang, sender, "read the node's waiting mail", &e),
    };
    let mut w = words.split_whitespace();
    let cancel = w
        .next()
        .is_some_and(|word| CANCEL.contains(&word.to_lowercase().as_str()));
    if !cancel {
        return listing(&waiting, unix_now(), lang);
    }
    let which = w.next().unwrap_or_default();
    let Some(mail) = nth(&waiting, which) else {
        return fill(say(lang, Say::MailNoSuch), &[("word", &cap(which, 20))]);
    };
    match ctx.cancel_mail(sender, mail.id).await {
        Ok(Some(gone)) => {
            info!(from = %sender, mail = gone.id, "waiting message cancelled by its sender");
            fill(
                say(lang, Say::MailCancelled),
                &[("name", &gone.recipient_name)],
            )
        }
        // Delivered or expired in the meantime.
        Ok(None) => fill(say(lang, Say::MailNoSuch), &[("word", &cap(which, 20))]),
        Err(e) => store_failed(lang, sender, "cancel a waiting message", &e),
    }
}

/// The waiting messages as `!mail` lists them: "2 waiting (!mail cancel N): 1 Carol 3h, 2 Bob
/// 1d".
fn listing(waiting: &[Mail], now: i64, lang: Lang) -> String {
    let items = waiting
        .iter()
        .map(|m| (m.recipient_name.as_str(), age(now - m.created_at)));
    numbered(lang, (Say::MailWaiting, Say::MailNone), items)
}

/// An age as short as a packet wants it: 40s, 5m, 3h, 2d.
fn age(secs: i64) -> String {
    let secs = secs.max(0);
    match secs {
        s if s < 60 => format!("{s}s"),
        s if s < 3600 => format!("{}m", s / 60),
        s if s < 86_400 => format!("{}h", s / 3600),
        s => format!("{}d", s / 86_400),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::node::NodeId;

    fn mail(id: i64, to: &str, at: i64) -> Mail {
        Mail {
            id,
            sender: NodeId(1),
            sender_name: "Ann".into(),
            recipient: NodeId(2),
            recipient_name: to.into(),
            recipient_key: None,
            text: "secret words".into(),
            sender_lang: Lang::En,
            created_at: at,
            expires_at: at + 7 * 86_400,
            tried_at: None,
            attempts: 0,
        }
    }

    #[test]
    fn the_list_numbers_each_message_with_its_recipient_and_age_but_not_its_text() {
        let now = 1_000_000;
        let list = listing(
            &[
                mail(7, "Carol", now - 3 * 3600),
                mail(9, "Hilltop Relay Station North", now - 90_000),
            ],
            now,
            Lang::En,
        );
        assert_eq!(
            list,
            "2 waiting (!mail cancel N): 1 Carol 3h, 2 Hilltop Relay S… 1d"
        );
        assert!(!list.contains("secret"));
        assert_eq!(
            listing(&[], now, Lang::En),
            "Nothing of yours is waiting. !tell NAME TEXT leaves a message for a node."
        );
        assert_eq!(
            [age(-5), age(59), age(61), age(7200), age(200_000)],
            ["0s", "59s", "1m", "2h", "2d"]
        );
    }
}
