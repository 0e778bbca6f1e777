//! The bot's own texts — what it replies itself, never the model: notices, refusals, the
//! answers of its commands, the `!more` mark — in each of meshai's languages. Each is one
//! packet at most (the test below holds every one of them to [`PACKET_CHARS`] and
//! [`PACKET_BYTES`] with its placeholders filled at their longest); the English ones are
//! byte-identical to what the bot said before it spoke others.
//!
//! A text with a placeholder (`{mins}`, `{word}`, `{n}`, `{name}`, `{time}`) is filled by
//! [`fill`].

/// A packet's text: at most this many characters …
pub(crate) const PACKET_CHARS: usize = 150;
/// … and this many bytes (the firmware's 200-byte payload, less the room the radio's own
/// framing and the ` i/n` numbering take: `chunk::ChunkLimits`' default).
pub(crate) const PACKET_BYTES: usize = 200;

texts! {
    /// One of the bot's own texts.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub enum Say {
        /// SQLite failed (disk full, permissions): no raw error.
        StoreFailed,
        /// A command that needs the memory, with the database damaged.
        StoreDamaged,
        /// The LLM took too long.
        LlmTimeout,
        /// The LLM could not be reached or refused.
        LlmUnavailable,
        /// The LLM answered with nothing usable.
        LlmUnusable,
        /// A known or proven node's turn expired while it waited.
        TooBusy,
        /// No place among the waiting turns: the message is kept, not answered.
        NoRoom,
        /// The rate limit's one notice; `{mins}`: minutes until it answers again.
        RateLimited,
        /// A command in a channel mention.
        DmOnly,
        /// The last part of a streamed answer that broke off.
        CutOff,
        /// `!more` with nothing cut to continue.
        NothingMore,
        /// `!reset` done.
        ResetDone,
        /// `!reset` failed.
        ResetFailed,
        /// `!summary` with messages but no summary or fact yet.
        NoSummaryYet,
        /// `!summary` for a node with nothing stored.
        NothingRemembered,
        /// Opens `!summary`'s summary.
        IRemember,
        /// Opens `!summary`'s facts.
        YouToldMe,
        /// Opens `!help`.
        HelpIntro,
        /// `!help`'s line for `!more` (after `!more: `).
        HelpMore,
        /// `!help`'s line for `!summary`.
        HelpSummary,
        /// `!help`'s line for `!reset`.
        HelpReset,
        /// `!help`'s line for `!nodes`.
        HelpNodes,
        /// `!help`'s line for `!status`.
        HelpStatus,
        /// Before the help text, for a command we do not know; `{word}`: the word, ≤ 20 chars.
        UnknownCommand,
        /// A DM from a node that proved itself over PKI, arriving without it.
        Unproven,
        /// The node's key changed: its memory stays locked.
        KeyChanged,
        /// The key could not be checked now.
        Unchecked,
        /// The key table is unreadable: no commands.
        KeysUnreadable,
        /// Our node is in licensed mode: no encryption, no memory, no commands.
        Licensed,
        /// A command without PKI where it is required.
        PkiRequired,
        /// A command that came through MQTT.
        Mqtt,
        /// A key known under another number, on a number its chat may not move to.
        Renumbered,
        /// A DM without the signature the node's DMs carry.
        Unsigned,
        /// `!nodes` with `[mesh]` off.
        MeshOff,
        /// A node the node list does not hold.
        UnknownNode,
        /// A question about the mesh where there is no radio (`meshai chat`).
        NoRadio,
        /// A question about the operator's own world the documents do not answer.
        NotInNotes,
        /// What the person told, when the model only wrote it back (`answer::echo`).
        Noted,
        /// A line of the person's memory quoted back (`answer::recalled`); `{word}`: the line.
        YouWrote,
        /// `!nodes` with no node heard in the last hour; `{n}`: nodes in the list.
        NoneHeard,
        /// Opens `!nodes`' list; `{n}`: nodes heard in the last hour.
        Heard,
        /// `!nodes NAME` with no node by that name; `{word}`: the name asked.
        NoNodeNamed,
        /// `!help`'s line for `!tell`.
        HelpTell,
        /// `!tell` or `!mail` with `[mail]` off.
        MailOff,
        /// `!tell` without a name and a text.
        TellUsage,
        /// `!tell` to a name the node list does not hold; `{word}`: the name tried.
        TellNoSuchNode,
        /// `!tell` to the sender's own node.
        TellSelf,
        /// `!tell` from a node that is not known or proven yet.
        TellNotKnown,
        /// `!tell` done; `{name}`: the recipient, `{n}`: the days it is kept.
        TellKept,
        /// `!tell` from a sender with its quota waiting; `{n}`: how many.
        TellSenderFull,
        /// `!tell` to a recipient owed its quota; `{n}`: how many, `{name}`: whom.
        TellRecipientFull,
        /// Opens a delivered message; `{name}`: its sender.
        MailFrom,
        /// A message's receipt; `{name}`: its recipient, `{time}`: when.
        MailDelivered,
        /// A message sent whose ACK never came; `{name}`, `{time}`.
        MailSentNoReceipt,
        /// A message not delivered in time; `{name}`, `{n}`: days.
        MailExpired,
        /// A message given up after its tries; `{name}`, `{n}`: tries.
        MailFailed,
        /// `!mail` with nothing waiting.
        MailNone,
        /// Opens `!mail`'s list; `{n}`: how many.
        MailWaiting,
        /// `!mail cancel N` done; `{name}`: its recipient.
        MailCancelled,
        /// `!mail cancel N` for no message of the sender's; `{word}`: N.
        MailNoSuch,
        /// Before `!help`'s list of commands.
        HelpCommands,
        /// Ends `!help`: how to learn what one command does.
        HelpWord,
        /// `!help`'s line for `!mail`.
        HelpMail,
        /// `!help`'s line for `!watch`.
        HelpWatch,
        /// `!help`'s line for `!unwatch`.
        HelpUnwatch,
        /// `!watch NAME` without a condition it knows.
        WatchUsage,
        /// A watch set; `{name}`: the node, `{word}`: the condition.
        WatchSet,
        /// A watch set whose condition holds already; `{name}`, `{word}`.
        WatchHoldsNow,
        /// A watch its owner has already; `{name}`.
        WatchAlready,
        /// A watch past its owner's quota; `{n}`: how many it has.
        WatchFull,
        /// `!watch` with none set.
        WatchNone,
        /// Opens `!watch`'s list; `{n}`: how many.
        WatchList,
        /// `!unwatch N` done; `{name}`: the node.
        WatchRemoved,
        /// `!unwatch N` for no watch of the owner's; `{word}`: N.
        WatchNoSuch,
        /// A watch fired on a reading; `{name}`, `{word}`: the reading and the value.
        WatchReading,
        /// A quiet watch fired; `{name}`, `{word}`: how long.
        WatchQuiet,
        /// A back watch fired; `{name}`.
        WatchBack,
        /// `!help`'s line for `!subscribe`.
        HelpSubscribe,
        /// `!subscribe` on a bot without a bulletins folder.
        BulletinsOff,
        /// `!subscribe` alone; `{word}`: the topics, `{name}`: the sender's (or -).
        Topics,
        /// Subscribed; `{word}`: the topic, `{n}`: its daily cap.
        Subscribed,
        /// Subscribed before; `{word}`: the topic.
        SubscribedAlready,
        /// No more subscriptions (the sender's or the topic's); `{n}`: how many.
        SubscribeFull,
        /// `!subscribe` to a topic the folder does not have; `{word}`.
        NoTopic,
        /// `!unsubscribe TOPIC` done; `{word}`.
        Unsubscribed,
        /// `!unsubscribe` of a topic not subscribed; `{word}`.
        NotSubscribed,
        /// Ends the last part of an answer cut at the budget: the rest is had with `!more` (the
        /// command is the same word in every language; every mark ends with it).
        MoreMark,
    }
}

/// `template` with each `{name}` of `values` replaced.
pub fn fill(template: &str, values: &[(&str, &str)]) -> String {
    let mut out = template.to_string();
    for (name, value) in values {
        out = out.replace(&format!("{{{name}}}"), value);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lang::{Lang, say};

    /// Each placeholder at its longest: minutes of a day, a 20-character word, a node list
    /// of thousands, a node's name as the mail room caps it, a time of day.
    const LONGEST: [(&str, &str); 5] = [
        ("mins", "1440"),
        ("word", "wwwwwwwwwwwwwwwwwwww"),
        ("n", "99999"),
        ("name", "nnnnnnnnnnnnnnnnnnnnnnnn"),
        ("time", "23:59"),
    ];

    #[test]
    fn every_text_in_every_language_fits_one_packet() {
        for lang in Lang::ALL {
            for s in Say::ALL {
                let text = fill(say(lang, s), &LONGEST);
                assert!(
                    text.chars().count() <= PACKET_CHARS && text.len() <= PACKET_BYTES,
                    "{lang} {s:?}: {} chars, {} bytes: {text}",
                    text.chars().count(),
                    text.len()
                );
                assert!(
                    !text.contains('{') && !text.trim().is_empty(),
                    "{lang} {s:?}"
                );
            }
        }
    }

    #[test]
    fn every_language_has_its_own_texts_with_the_same_placeholders() {
        for lang in Lang::ALL.into_iter().skip(1) {
            for s in Say::ALL {
                let (en, it) = (say(Lang::En, s), say(lang, s));
                for p in ["{mins}", "{word}", "{n}", "{name}", "{time}"] {
                    assert_eq!(en.contains(p), it.contains(p), "{lang} {s:?}: {p}");
                }
            }
            let own = Say::ALL
                .iter()
                .filter(|s| say(lang, **s) != say(Lang::En, **s))
                .count();
            assert!(say(lang, Say::MoreMark).ends_with("!more"), "{lang}");
            // "the mesh" may be a loan word; everything else is translated.
            assert!(
                own + 2 >= Say::ALL.len(),
                "{lang}: only {own} texts of its own"
            );
        }
    }
}
