//! The bot's own texts — what it replies itself, never the model: notices, refusals, the
//! answers of its commands, the `!more` mark — in each of meshai's languages. Each is one
//! packet at most (the test below holds every one of them to [`PACKET_CHARS`] and
//! [`PACKET_BYTES`] with its placeholders filled at their longest); the English ones are
//! byte-identical to what the bot said before it spoke others.
//!
//! A text with a placeholder (`{mins}`, `{word}`, `{n}`, `{name}`, `{time}`) is filled by
//! [`fill`].

use super::Lang;

/// A packet's text: at most this many characters …
pub const PACKET_CHARS: usize = 150;
/// … and this many bytes (the firmware's 200-byte payload, less the room the radio's own
/// framing and the ` i/n` numbering take: `chunk::ChunkLimits`' default).
pub const PACKET_BYTES: usize = 200;

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
    /// `!nodes` with no node heard in the last hour; `{n}`: nodes in the list.
    NoneHeard,
    /// Opens `!nodes`' list; `{n}`: nodes heard in the last hour.
    Heard,
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

impl Say {
    /// Every text, for the tests.
    pub const ALL: [Say; 84] = [
        Say::StoreFailed,
        Say::StoreDamaged,
        Say::LlmTimeout,
        Say::LlmUnavailable,
        Say::LlmUnusable,
        Say::TooBusy,
        Say::NoRoom,
        Say::RateLimited,
        Say::DmOnly,
        Say::CutOff,
        Say::NothingMore,
        Say::ResetDone,
        Say::ResetFailed,
        Say::NoSummaryYet,
        Say::NothingRemembered,
        Say::IRemember,
        Say::YouToldMe,
        Say::HelpIntro,
        Say::HelpMore,
        Say::HelpSummary,
        Say::HelpReset,
        Say::HelpNodes,
        Say::HelpStatus,
        Say::UnknownCommand,
        Say::Unproven,
        Say::KeyChanged,
        Say::Unchecked,
        Say::KeysUnreadable,
        Say::Licensed,
        Say::PkiRequired,
        Say::Mqtt,
        Say::Renumbered,
        Say::Unsigned,
        Say::MeshOff,
        Say::UnknownNode,
        Say::NoRadio,
        Say::NotInNotes,
        Say::NoneHeard,
        Say::Heard,
        Say::HelpTell,
        Say::MailOff,
        Say::TellUsage,
        Say::TellNoSuchNode,
        Say::TellSelf,
        Say::TellNotKnown,
        Say::TellKept,
        Say::TellSenderFull,
        Say::TellRecipientFull,
        Say::MailFrom,
        Say::MailDelivered,
        Say::MailSentNoReceipt,
        Say::MailExpired,
        Say::MailFailed,
        Say::MailNone,
        Say::MailWaiting,
        Say::MailCancelled,
        Say::MailNoSuch,
        Say::HelpCommands,
        Say::HelpWord,
        Say::HelpMail,
        Say::HelpWatch,
        Say::HelpUnwatch,
        Say::WatchUsage,
        Say::WatchSet,
        Say::WatchHoldsNow,
        Say::WatchAlready,
        Say::WatchFull,
        Say::WatchNone,
        Say::WatchList,
        Say::WatchRemoved,
        Say::WatchNoSuch,
        Say::WatchReading,
        Say::WatchQuiet,
        Say::WatchBack,
        Say::HelpSubscribe,
        Say::BulletinsOff,
        Say::Topics,
        Say::Subscribed,
        Say::SubscribedAlready,
        Say::SubscribeFull,
        Say::NoTopic,
        Say::Unsubscribed,
        Say::NotSubscribed,
        Say::MoreMark,
    ];
}

/// `say` in `lang`.
pub fn say(lang: Lang, say: Say) -> &'static str {
    match lang {
        Lang::En => en(say),
        Lang::De => de(say),
        Lang::Es => es(say),
        Lang::Pt => pt(say),
        Lang::Fr => fr(say),
        Lang::It => it(say),
        Lang::Nl => nl(say),
        Lang::Pl => pl(say),
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

fn en(say: Say) -> &'static str {
    match say {
        Say::StoreFailed => "Sorry, my memory store failed. Try again later.",
        Say::StoreDamaged => {
            "Sorry, my memory store is damaged: I can't do that now. I still answer, without memory, until the operator repairs it."
        }
        Say::LlmTimeout => "Sorry, the AI took too long to answer. Please try again later.",
        Say::LlmUnavailable => "Sorry, the AI is unavailable right now. Please try again later.",
        Say::LlmUnusable => "Sorry, the AI gave an unusable answer. Please try again.",
        Say::TooBusy => "Sorry, I was too busy to answer that in time. Please ask again.",
        Say::NoRoom => {
            "Too many people are asking right now: I kept your message but cannot answer it. Please ask again in a few minutes."
        }
        Say::RateLimited => {
            "You're sending faster than I can answer. I'll reply again in about {mins} min."
        }
        Say::DmOnly => "Commands work only in a direct message to me.",
        Say::CutOff => "… (answer cut off: the AI stopped)",
        Say::NothingMore => "Nothing more to send: my last answer was complete.",
        Say::ResetDone => "Done: I forgot our conversation and everything I remembered about you.",
        Say::ResetFailed => "Sorry, I could not reset your history. Try again later.",
        Say::NoSummaryYet => "No summary yet: I only have our recent messages.",
        Say::NothingRemembered => "I don't remember anything about you yet.",
        Say::IRemember => "I remember: ",
        Say::YouToldMe => "You told me: ",
        Say::HelpIntro => "Ask me anything.",
        Say::HelpMore => "rest of a cut answer",
        Say::HelpSummary => "what I remember of you",
        Say::HelpReset => "forget our chat",
        Say::HelpNodes => "the mesh",
        Say::HelpStatus => "bot health",
        Say::UnknownCommand => "Unknown command !{word}.",
        Say::Unproven => {
            "I only answer this node over encrypted DMs. If this was you, check your app's keys."
        }
        Say::KeyChanged => {
            "Your node's key changed, so our earlier chat stays locked until my operator accepts the new key."
        }
        Say::Unchecked => "I can't check your node's key right now. Try again later.",
        Say::KeysUnreadable => {
            "I can't check who sent this right now, so no commands. Try again later, over an encrypted DM."
        }
        Say::Licensed => {
            "My node is in licensed (ham) mode, so DMs can't be encrypted: I answer without our chat and run no commands."
        }
        Say::PkiRequired => {
            "Commands need an encrypted DM: use firmware 2.5 or newer, and make sure your node knows my key."
        }
        Say::Mqtt => "Commands need an encrypted DM when they come through MQTT.",
        Say::Renumbered => {
            "Your node has a new number I can't move our earlier chat to, so it stays locked until my operator sorts it out."
        }
        Say::Unsigned => {
            "This message came without your node's signature, so I answer it without our earlier chat."
        }
        Say::MeshOff => "Mesh answers are off on this bot.",
        Say::NoRadio => "No radio here (meshai chat): I know nothing of the mesh.",
        Say::UnknownNode => "I don't know that node: it is not in my node list.",
        Say::NotInNotes => "Not in my notes.",
        Say::NoneHeard => "No node heard in the last hour ({n} in my list).",
        Say::Heard => "Heard in 1h ({n}): ",
        Say::HelpTell => "leave a message",
        Say::MailOff => "Messages for other nodes are off on this bot.",
        Say::TellUsage => {
            "!tell NAME TEXT: I keep your message and pass it on when NAME is next heard. !mail: yours waiting."
        }
        Say::TellNoSuchNode => {
            "No node named \"{word}\" in my list: write its name as !nodes shows it, or its !id."
        }
        Say::TellSelf => "That is your own node.",
        Say::TellNotKnown => {
            "I pass on messages only for people I know: !tell works once we have talked twice, half a day apart."
        }
        Say::TellKept => {
            "Kept for {name}: I pass it on when that node is next heard, within {n} days. !mail: yours waiting."
        }
        Say::TellSenderFull => {
            "You have {n} messages waiting already. !mail shows them; !mail cancel N deletes one."
        }
        Say::TellRecipientFull => {
            "{n} messages wait for {name} already. Try again once it has been heard."
        }
        Say::MailFrom => "From {name}: ",
        Say::MailDelivered => "Delivered to {name} at {time}.",
        Say::MailSentNoReceipt => "Sent to {name} at {time}; no receipt came back.",
        Say::MailExpired => {
            "Not delivered: {name} was not heard within {n} days. Your message is deleted."
        }
        Say::MailFailed => "Could not deliver to {name} after {n} tries. Your message is deleted.",
        Say::MailNone => {
            "Nothing of yours is waiting. !tell NAME TEXT leaves a message for a node."
        }
        Say::MailWaiting => "{n} waiting (!mail cancel N):",
        Say::MailCancelled => "Cancelled: your message to {name} is deleted.",
        Say::MailNoSuch => "No message {word} of yours is waiting. !mail lists them.",
        Say::HelpCommands => "Commands:",
        Say::HelpWord => "!help WORD: what one does.",
        Say::HelpMail => "your messages still waiting",
        Say::HelpWatch => "tell me once when a node goes quiet, comes back or reads past a value",
        Say::HelpUnwatch => "stop the N-th of your watches",
        Say::WatchUsage => {
            "!watch NAME quiet 2h | back | battery 20 | temperature < 0: I tell you once when it happens."
        }
        Say::WatchSet => {
            "Watching {name}: {word}. I tell you once when it happens. !watch lists them."
        }
        Say::WatchHoldsNow => {
            "Watching {name}: {word}. That holds now; I tell you when it happens again."
        }
        Say::WatchAlready => "You watch {name} for that already. !watch lists them.",
        Say::WatchFull => "You have {n} watches already. !unwatch N stops one.",
        Say::WatchNone => {
            "You watch nothing. !watch NAME battery 20: I tell you when its battery runs low."
        }
        Say::WatchList => "{n} watches (!unwatch N):",
        Say::WatchRemoved => "Stopped watching {name}.",
        Say::WatchNoSuch => "No watch {word} of yours. !watch lists them.",
        Say::WatchReading => "Watch: {name} reports {word}.",
        Say::WatchQuiet => "Watch: {name} has not been heard for {word}.",
        Say::WatchBack => "Watch: {name} is heard again.",
        Say::HelpSubscribe => "the operator's bulletins on a topic, as DMs",
        Say::BulletinsOff => "There are no bulletins on this bot.",
        Say::Topics => "Topics: {word}. Yours: {name}. !subscribe TOPIC, !unsubscribe TOPIC.",
        Say::Subscribed => {
            "Subscribed to {word}: its bulletins come as DMs, at most {n} a day. !unsubscribe {word} stops them."
        }
        Say::SubscribedAlready => "You are subscribed to {word} already.",
        Say::SubscribeFull => "No more subscriptions: {n} already.",
        Say::NoTopic => "No topic \"{word}\" here. !subscribe lists them.",
        Say::Unsubscribed => "Unsubscribed from {word}.",
        Say::NotSubscribed => "You are not subscribed to {word}.",
        Say::MoreMark => "… !more",
    }
}

fn de(say: Say) -> &'static str {
    match say {
        Say::StoreFailed => {
            "Entschuldige, mein Speicher ist ausgefallen. Versuch es später noch mal."
        }
        Say::StoreDamaged => {
            "Entschuldige, mein Speicher ist beschädigt: Das geht gerade nicht. Ich antworte weiter, ohne Gedächtnis, bis der Betreiber ihn repariert."
        }
        Say::LlmTimeout => {
            "Entschuldige, die KI hat zu lange gebraucht. Bitte versuch es später noch mal."
        }
        Say::LlmUnavailable => {
            "Entschuldige, die KI ist gerade nicht erreichbar. Bitte versuch es später noch mal."
        }
        Say::LlmUnusable => {
            "Entschuldige, die KI hat keine brauchbare Antwort geliefert. Bitte versuch es noch mal."
        }
        Say::TooBusy => {
            "Entschuldige, ich war zu beschäftigt, um rechtzeitig zu antworten. Bitte frag noch mal."
        }
        Say::NoRoom => {
            "Gerade fragen zu viele Leute: Ich habe deine Nachricht behalten, kann sie aber nicht beantworten. Bitte frag in ein paar Minuten noch mal."
        }
        Say::RateLimited => {
            "Du schreibst schneller, als ich antworten kann. Ich antworte in etwa {mins} Min. wieder."
        }
        Say::DmOnly => "Befehle gehen nur per Direktnachricht an mich.",
        Say::CutOff => "… (Antwort abgebrochen: die KI hat aufgehört)",
        Say::NothingMore => "Nichts mehr zu senden: Meine letzte Antwort war vollständig.",
        Say::ResetDone => {
            "Erledigt: Ich habe unser Gespräch vergessen und alles, was ich über dich wusste."
        }
        Say::ResetFailed => {
            "Entschuldige, ich konnte deinen Verlauf nicht zurücksetzen. Versuch es später noch mal."
        }
        Say::NoSummaryYet => "Noch keine Zusammenfassung: Ich habe nur unsere letzten Nachrichten.",
        Say::NothingRemembered => "Ich weiß noch nichts über dich.",
        Say::IRemember => "Ich erinnere mich: ",
        Say::YouToldMe => "Du hast mir gesagt: ",
        Say::HelpIntro => "Frag mich, was du willst.",
        Say::HelpMore => "Rest einer gekürzten Antwort",
        Say::HelpSummary => "was ich über dich weiß",
        Say::HelpReset => "unseren Chat vergessen",
        Say::HelpNodes => "das Mesh",
        Say::HelpStatus => "Zustand des Bots",
        Say::UnknownCommand => "Unbekannter Befehl !{word}.",
        Say::Unproven => {
            "Diesem Knoten antworte ich nur per verschlüsselter DM. Warst du das, prüf die Schlüssel in deiner App."
        }
        Say::KeyChanged => {
            "Der Schlüssel deines Knotens hat sich geändert: Unser früherer Chat bleibt gesperrt, bis mein Betreiber den neuen Schlüssel annimmt."
        }
        Say::Unchecked => {
            "Ich kann den Schlüssel deines Knotens gerade nicht prüfen. Versuch es später noch mal."
        }
        Say::KeysUnreadable => {
            "Ich kann gerade nicht prüfen, wer das geschickt hat, also keine Befehle. Versuch es später noch mal, per verschlüsselter DM."
        }
        Say::Licensed => {
            "Mein Knoten ist im lizenzierten Modus (Amateurfunk), DMs sind also unverschlüsselt: Ich antworte ohne unseren Chat und führe keine Befehle aus."
        }
        Say::PkiRequired => {
            "Befehle brauchen eine verschlüsselte DM: Nutze Firmware 2.5 oder neuer und sorg dafür, dass dein Knoten meinen Schlüssel kennt."
        }
        Say::Mqtt => "Über MQTT brauchen Befehle eine verschlüsselte DM.",
        Say::Renumbered => {
            "Dein Knoten hat eine neue Nummer, zu der ich unseren früheren Chat nicht verschieben kann: Er bleibt gesperrt, bis mein Betreiber das klärt."
        }
        Say::Unsigned => {
            "Diese Nachricht kam ohne die Signatur deines Knotens, also antworte ich ohne unseren früheren Chat."
        }
        Say::MeshOff => "Mesh-Antworten sind bei diesem Bot abgeschaltet.",
        Say::NoRadio => "Hier gibt es kein Funkgerät (meshai chat): Über das Mesh weiß ich nichts.",
        Say::UnknownNode => "Diesen Knoten kenne ich nicht: Er ist nicht in meiner Knotenliste.",
        Say::NotInNotes => "Nicht in meinen Notizen.",
        Say::NoneHeard => "In der letzten Stunde kein Knoten gehört ({n} in meiner Liste).",
        Say::Heard => "Gehört in 1 h ({n}): ",
        Say::HelpTell => "Nachricht hinterlassen",
        Say::MailOff => "Nachrichten an andere Nodes sind bei diesem Bot abgeschaltet.",
        Say::TellUsage => {
            "!tell NAME TEXT: Ich bewahre deine Nachricht auf und gebe sie weiter, sobald NAME wieder zu hören ist. !mail: deine wartenden."
        }
        Say::TellNoSuchNode => {
            "Kein Node namens \"{word}\" in meiner Liste: schreib den Namen wie in !nodes oder seine !id."
        }
        Say::TellSelf => "Das ist dein eigener Node.",
        Say::TellNotKnown => {
            "Ich gebe Nachrichten nur für Leute weiter, die ich kenne: !tell geht, sobald wir zweimal im Abstand eines halben Tages geschrieben haben."
        }
        Say::TellKept => {
            "Aufbewahrt für {name}: Ich gebe sie weiter, sobald der Node wieder zu hören ist, höchstens {n} Tage. !mail: deine wartenden."
        }
        Say::TellSenderFull => {
            "Du hast schon {n} wartende Nachrichten. !mail zeigt sie; !mail cancel N löscht eine."
        }
        Say::TellRecipientFull => {
            "Für {name} warten schon {n} Nachrichten. Versuch es wieder, wenn der Node zu hören war."
        }
        Say::MailFrom => "Von {name}: ",
        Say::MailDelivered => "Zugestellt an {name} um {time}.",
        Say::MailSentNoReceipt => {
            "Gesendet an {name} um {time}; keine Empfangsbestätigung kam zurück."
        }
        Say::MailExpired => {
            "Nicht zugestellt: {name} war {n} Tage nicht zu hören. Deine Nachricht ist gelöscht."
        }
        Say::MailFailed => {
            "Zustellung an {name} nach {n} Versuchen gescheitert. Deine Nachricht ist gelöscht."
        }
        Say::MailNone => {
            "Von dir wartet nichts. !tell NAME TEXT hinterlässt eine Nachricht für einen Node."
        }
        Say::MailWaiting => "{n} wartend (!mail cancel N):",
        Say::MailCancelled => "Storniert: deine Nachricht an {name} ist gelöscht.",
        Say::MailNoSuch => "Keine wartende Nachricht {word} von dir. !mail listet sie.",
        Say::HelpCommands => "Befehle:",
        Say::HelpWord => "!help WORT: was einer tut.",
        Say::HelpMail => "deine noch wartenden Nachrichten",
        Say::HelpWatch => {
            "sag mir einmal, wenn ein Node verstummt, zurückkommt oder einen Wert überschreitet"
        }
        Say::HelpUnwatch => "beende die N-te deiner Wachen",
        Say::WatchUsage => {
            "!watch NAME quiet 2h | back | battery 20 | temperature < 0: Ich sage es dir einmal, wenn es eintritt."
        }
        Say::WatchSet => {
            "Ich beobachte {name}: {word}. Ich sage es dir einmal, wenn es eintritt. !watch listet sie."
        }
        Say::WatchHoldsNow => {
            "Ich beobachte {name}: {word}. Das gilt schon jetzt; ich sage es dir, wenn es wieder eintritt."
        }
        Say::WatchAlready => "Du beobachtest {name} darauf schon. !watch listet sie.",
        Say::WatchFull => "Du hast schon {n} Wachen. !unwatch N beendet eine.",
        Say::WatchNone => {
            "Du beobachtest nichts. !watch NAME battery 20: Ich sage dir, wenn der Akku knapp wird."
        }
        Say::WatchList => "{n} Wachen (!unwatch N):",
        Say::WatchRemoved => "Ich beobachte {name} nicht mehr.",
        Say::WatchNoSuch => "Keine Wache {word} von dir. !watch listet sie.",
        Say::WatchReading => "Wache: {name} meldet {word}.",
        Say::WatchQuiet => "Wache: {name} ist seit {word} nicht zu hören.",
        Say::WatchBack => "Wache: {name} ist wieder zu hören.",
        Say::HelpSubscribe => "die Bulletins des Betreibers zu einem Thema, als DM",
        Say::BulletinsOff => "Dieser Bot hat keine Bulletins.",
        Say::Topics => "Themen: {word}. Deine: {name}. !subscribe THEMA, !unsubscribe THEMA.",
        Say::Subscribed => {
            "Abonniert: {word}. Seine Bulletins kommen als DM, höchstens {n} am Tag. !unsubscribe {word} beendet es."
        }
        Say::SubscribedAlready => "Du hast {word} schon abonniert.",
        Say::SubscribeFull => "Keine weiteren Abos: schon {n}.",
        Say::NoTopic => "Kein Thema \"{word}\" hier. !subscribe listet sie.",
        Say::Unsubscribed => "{word} abbestellt.",
        Say::NotSubscribed => "Du hast {word} nicht abonniert.",
        Say::MoreMark => "… mehr: !more",
    }
}

fn es(say: Say) -> &'static str {
    match say {
        Say::StoreFailed => "Lo siento, falló mi memoria. Inténtalo más tarde.",
        Say::StoreDamaged => {
            "Lo siento, mi memoria está dañada: ahora no puedo hacer eso. Sigo respondiendo, sin memoria, hasta que el operador la repare."
        }
        Say::LlmTimeout => {
            "Lo siento, la IA tardó demasiado en responder. Inténtalo de nuevo más tarde."
        }
        Say::LlmUnavailable => {
            "Lo siento, la IA no está disponible ahora. Inténtalo de nuevo más tarde."
        }
        Say::LlmUnusable => "Lo siento, la IA dio una respuesta inservible. Inténtalo de nuevo.",
        Say::TooBusy => {
            "Lo siento, estaba demasiado ocupado para responder a tiempo. Vuelve a preguntar."
        }
        Say::NoRoom => {
            "Hay demasiada gente preguntando ahora: guardé tu mensaje, pero no puedo responderlo. Vuelve a preguntar en unos minutos."
        }
        Say::RateLimited => {
            "Escribes más rápido de lo que puedo responder. Volveré a responderte en unos {mins} min."
        }
        Say::DmOnly => "Los comandos solo funcionan en un mensaje directo a mí.",
        Say::CutOff => "… (respuesta cortada: la IA se detuvo)",
        Say::NothingMore => "No hay nada más que enviar: mi última respuesta estaba completa.",
        Say::ResetDone => "Hecho: olvidé nuestra conversación y todo lo que recordaba de ti.",
        Say::ResetFailed => "Lo siento, no pude borrar tu historial. Inténtalo más tarde.",
        Say::NoSummaryYet => "Aún no hay resumen: solo tengo nuestros mensajes recientes.",
        Say::NothingRemembered => "Todavía no recuerdo nada de ti.",
        Say::IRemember => "Recuerdo: ",
        Say::YouToldMe => "Me dijiste: ",
        Say::HelpIntro => "Pregúntame lo que quieras.",
        Say::HelpMore => "resto de una respuesta cortada",
        Say::HelpSummary => "lo que recuerdo de ti",
        Say::HelpReset => "olvidar nuestro chat",
        Say::HelpNodes => "la red mesh",
        Say::HelpStatus => "estado del bot",
        Say::UnknownCommand => "Comando desconocido !{word}.",
        Say::Unproven => {
            "A este nodo solo le respondo por DM cifrado. Si fuiste tú, revisa las claves de tu app."
        }
        Say::KeyChanged => {
            "La clave de tu nodo cambió, así que nuestro chat anterior sigue bloqueado hasta que mi operador acepte la nueva clave."
        }
        Say::Unchecked => "Ahora no puedo verificar la clave de tu nodo. Inténtalo más tarde.",
        Say::KeysUnreadable => {
            "Ahora no puedo verificar quién envió esto, así que no hay comandos. Inténtalo más tarde, por DM cifrado."
        }
        Say::Licensed => {
            "Mi nodo está en modo con licencia (radioaficionado), así que los DM no se pueden cifrar: respondo sin nuestro chat y no ejecuto comandos."
        }
        Say::PkiRequired => {
            "Los comandos necesitan un DM cifrado: usa firmware 2.5 o más reciente y asegúrate de que tu nodo conozca mi clave."
        }
        Say::Mqtt => "Los comandos necesitan un DM cifrado cuando llegan por MQTT.",
        Say::Renumbered => {
            "Tu nodo tiene un número nuevo al que no puedo mover nuestro chat anterior, así que sigue bloqueado hasta que mi operador lo resuelva."
        }
        Say::Unsigned => {
            "Este mensaje llegó sin la firma de tu nodo, así que respondo sin nuestro chat anterior."
        }
        Say::MeshOff => "Las respuestas sobre la red mesh están desactivadas en este bot.",
        Say::NoRadio => "Aquí no hay radio (meshai chat): no sé nada de la red mesh.",
        Say::UnknownNode => "No conozco ese nodo: no está en mi lista de nodos.",
        Say::NotInNotes => "No está en mis notas.",
        Say::NoneHeard => "Ningún nodo oído en la última hora ({n} en mi lista).",
        Say::Heard => "Oídos en 1 h ({n}): ",
        Say::HelpTell => "dejar un mensaje",
        Say::MailOff => "Los mensajes para otros nodos están desactivados en este bot.",
        Say::TellUsage => {
            "!tell NAME TEXT: guardo tu mensaje y lo entrego cuando NAME se vuelva a oír. !mail: los tuyos en espera."
        }
        Say::TellNoSuchNode => {
            "No hay ningún nodo llamado \"{word}\" en mi lista: escribe su nombre como lo muestra !nodes, o su !id."
        }
        Say::TellSelf => "Ese es tu propio nodo.",
        Say::TellNotKnown => {
            "Solo paso mensajes de personas que conozco: !tell funciona cuando hayamos hablado dos veces con medio día de diferencia."
        }
        Say::TellKept => {
            "Guardado para {name}: lo entrego cuando ese nodo se vuelva a oír, en {n} días como máximo. !mail: los tuyos en espera."
        }
        Say::TellSenderFull => {
            "Ya tienes {n} mensajes en espera. !mail los muestra; !mail cancel N borra uno."
        }
        Say::TellRecipientFull => {
            "Ya esperan {n} mensajes para {name}. Inténtalo de nuevo cuando se haya oído."
        }
        Say::MailFrom => "De {name}: ",
        Say::MailDelivered => "Entregado a {name} a las {time}.",
        Say::MailSentNoReceipt => {
            "Enviado a {name} a las {time}; no llegó confirmación de recepción."
        }
        Say::MailExpired => "No entregado: {name} no se oyó en {n} días. Tu mensaje se ha borrado.",
        Say::MailFailed => {
            "No pude entregarlo a {name} tras {n} intentos. Tu mensaje se ha borrado."
        }
        Say::MailNone => "No tienes nada en espera. !tell NAME TEXT deja un mensaje para un nodo.",
        Say::MailWaiting => "{n} en espera (!mail cancel N):",
        Say::MailCancelled => "Cancelado: tu mensaje para {name} se ha borrado.",
        Say::MailNoSuch => "No tienes ningún mensaje {word} en espera. !mail los lista.",
        Say::HelpCommands => "Comandos:",
        Say::HelpWord => "!help PALABRA: qué hace uno.",
        Say::HelpMail => "tus mensajes aún en espera",
        Say::HelpWatch => "avísame una vez cuando un nodo calle, vuelva o pase un valor",
        Say::HelpUnwatch => "para la N-ésima de tus alertas",
        Say::WatchUsage => {
            "!watch NAME quiet 2h | back | battery 20 | temperature < 0: te aviso una vez cuando ocurra."
        }
        Say::WatchSet => "Vigilo {name}: {word}. Te aviso una vez cuando ocurra. !watch las lista.",
        Say::WatchHoldsNow => {
            "Vigilo {name}: {word}. Eso ya ocurre; te aviso cuando vuelva a ocurrir."
        }
        Say::WatchAlready => "Ya vigilas {name} para eso. !watch las lista.",
        Say::WatchFull => "Ya tienes {n} alertas. !unwatch N para una.",
        Say::WatchNone => {
            "No vigilas nada. !watch NAME battery 20: te aviso cuando se le acabe la batería."
        }
        Say::WatchList => "{n} alertas (!unwatch N):",
        Say::WatchRemoved => "Dejé de vigilar {name}.",
        Say::WatchNoSuch => "No tienes ninguna alerta {word}. !watch las lista.",
        Say::WatchReading => "Alerta: {name} informa {word}.",
        Say::WatchQuiet => "Alerta: {name} no se oye desde hace {word}.",
        Say::WatchBack => "Alerta: {name} se vuelve a oír.",
        Say::HelpSubscribe => "los boletines del operador sobre un tema, por DM",
        Say::BulletinsOff => "Este bot no tiene boletines.",
        Say::Topics => "Temas: {word}. Los tuyos: {name}. !subscribe TEMA, !unsubscribe TEMA.",
        Say::Subscribed => {
            "Suscrito a {word}: sus boletines llegan por DM, como máximo {n} al día. !unsubscribe {word} los detiene."
        }
        Say::SubscribedAlready => "Ya estás suscrito a {word}.",
        Say::SubscribeFull => "No caben más suscripciones: ya hay {n}.",
        Say::NoTopic => "No hay tema \"{word}\" aquí. !subscribe los lista.",
        Say::Unsubscribed => "Suscripción a {word} cancelada.",
        Say::NotSubscribed => "No estás suscrito a {word}.",
        Say::MoreMark => "… más: !more",
    }
}

fn pt(say: Say) -> &'static str {
    match say {
        Say::StoreFailed => "Desculpe, minha memória falhou. Tente de novo mais tarde.",
        Say::StoreDamaged => {
            "Desculpe, minha memória está danificada: não consigo fazer isso agora. Continuo respondendo, sem memória, até o operador consertá-la."
        }
        Say::LlmTimeout => {
            "Desculpe, a IA demorou demais para responder. Tente de novo mais tarde."
        }
        Say::LlmUnavailable => "Desculpe, a IA está indisponível agora. Tente de novo mais tarde.",
        Say::LlmUnusable => "Desculpe, a IA deu uma resposta inutilizável. Tente de novo.",
        Say::TooBusy => {
            "Desculpe, eu estava ocupado demais para responder a tempo. Pergunte de novo."
        }
        Say::NoRoom => {
            "Tem muita gente perguntando agora: guardei sua mensagem, mas não posso respondê-la. Pergunte de novo em alguns minutos."
        }
        Say::RateLimited => {
            "Você está enviando mais rápido do que consigo responder. Volto a responder em cerca de {mins} min."
        }
        Say::DmOnly => "Comandos só funcionam em mensagem direta para mim.",
        Say::CutOff => "… (resposta cortada: a IA parou)",
        Say::NothingMore => "Nada mais a enviar: minha última resposta estava completa.",
        Say::ResetDone => "Pronto: esqueci nossa conversa e tudo o que eu lembrava sobre você.",
        Say::ResetFailed => {
            "Desculpe, não consegui apagar seu histórico. Tente de novo mais tarde."
        }
        Say::NoSummaryYet => "Ainda não há resumo: só tenho nossas mensagens recentes.",
        Say::NothingRemembered => "Ainda não me lembro de nada sobre você.",
        Say::IRemember => "Eu lembro: ",
        Say::YouToldMe => "Você me disse: ",
        Say::HelpIntro => "Pergunte o que quiser.",
        Say::HelpMore => "resto de uma resposta cortada",
        Say::HelpSummary => "o que lembro de você",
        Say::HelpReset => "esquecer nossa conversa",
        Say::HelpNodes => "a rede mesh",
        Say::HelpStatus => "estado do bot",
        Say::UnknownCommand => "Comando desconhecido !{word}.",
        Say::Unproven => {
            "Só respondo a este nó por DM criptografada. Se foi você, verifique as chaves do seu app."
        }
        Say::KeyChanged => {
            "A chave do seu nó mudou, então nossa conversa anterior fica bloqueada até meu operador aceitar a nova chave."
        }
        Say::Unchecked => {
            "Não consigo verificar a chave do seu nó agora. Tente de novo mais tarde."
        }
        Say::KeysUnreadable => {
            "Não consigo verificar agora quem enviou isto, então nada de comandos. Tente de novo mais tarde, por DM criptografada."
        }
        Say::Licensed => {
            "Meu nó está no modo licenciado (radioamador), então as DMs não podem ser criptografadas: respondo sem nossa conversa e não executo comandos."
        }
        Say::PkiRequired => {
            "Comandos exigem DM criptografada: use firmware 2.5 ou mais recente e garanta que seu nó conheça minha chave."
        }
        Say::Mqtt => "Comandos exigem DM criptografada quando chegam via MQTT.",
        Say::Renumbered => {
            "Seu nó tem um número novo para o qual não posso mover nossa conversa anterior; ela fica bloqueada até meu operador resolver."
        }
        Say::Unsigned => {
            "Esta mensagem chegou sem a assinatura do seu nó, então respondo sem nossa conversa anterior."
        }
        Say::MeshOff => "As respostas sobre a rede mesh estão desativadas neste bot.",
        Say::NoRadio => "Aqui não há rádio (meshai chat): não sei nada da rede mesh.",
        Say::UnknownNode => "Não conheço esse nó: ele não está na minha lista de nós.",
        Say::NotInNotes => "Não está nas minhas notas.",
        Say::NoneHeard => "Nenhum nó ouvido na última hora ({n} na minha lista).",
        Say::Heard => "Ouvidos em 1 h ({n}): ",
        Say::HelpTell => "deixar uma mensagem",
        Say::MailOff => "As mensagens para outros nós estão desativadas neste bot.",
        Say::TellUsage => {
            "!tell NAME TEXT: guardo sua mensagem e a entrego quando NAME for ouvido de novo. !mail: as suas em espera."
        }
        Say::TellNoSuchNode => {
            "Nenhum nó chamado \"{word}\" na minha lista: escreva o nome como o !nodes mostra, ou o !id."
        }
        Say::TellSelf => "Esse é o seu próprio nó.",
        Say::TellNotKnown => {
            "Só passo mensagens de quem eu conheço: o !tell funciona depois que conversarmos duas vezes com meio dia de intervalo."
        }
        Say::TellKept => {
            "Guardada para {name}: entrego quando esse nó for ouvido de novo, em até {n} dias. !mail: as suas em espera."
        }
        Say::TellSenderFull => {
            "Você já tem {n} mensagens em espera. !mail mostra; !mail cancel N apaga uma."
        }
        Say::TellRecipientFull => {
            "Já há {n} mensagens esperando por {name}. Tente de novo quando o nó for ouvido."
        }
        Say::MailFrom => "De {name}: ",
        Say::MailDelivered => "Entregue a {name} às {time}.",
        Say::MailSentNoReceipt => {
            "Enviada a {name} às {time}; não voltou confirmação de recebimento."
        }
        Say::MailExpired => {
            "Não entregue: {name} não foi ouvido em {n} dias. Sua mensagem foi apagada."
        }
        Say::MailFailed => {
            "Não consegui entregar a {name} após {n} tentativas. Sua mensagem foi apagada."
        }
        Say::MailNone => "Nada seu está em espera. !tell NAME TEXT deixa uma mensagem para um nó.",
        Say::MailWaiting => "{n} em espera (!mail cancel N):",
        Say::MailCancelled => "Cancelada: sua mensagem para {name} foi apagada.",
        Say::MailNoSuch => "Nenhuma mensagem {word} sua em espera. !mail lista as suas.",
        Say::HelpCommands => "Comandos:",
        Say::HelpWord => "!help PALAVRA: o que um faz.",
        Say::HelpMail => "suas mensagens ainda em espera",
        Say::HelpWatch => "me avise uma vez quando um nó calar, voltar ou passar de um valor",
        Say::HelpUnwatch => "pare o N-ésimo dos seus alertas",
        Say::WatchUsage => {
            "!watch NAME quiet 2h | back | battery 20 | temperature < 0: aviso você uma vez quando acontecer."
        }
        Say::WatchSet => {
            "Vigiando {name}: {word}. Aviso você uma vez quando acontecer. !watch lista."
        }
        Say::WatchHoldsNow => {
            "Vigiando {name}: {word}. Isso já acontece; aviso você quando acontecer de novo."
        }
        Say::WatchAlready => "Você já vigia {name} para isso. !watch lista.",
        Say::WatchFull => "Você já tem {n} alertas. !unwatch N para um.",
        Say::WatchNone => {
            "Você não vigia nada. !watch NAME battery 20: aviso quando a bateria estiver acabando."
        }
        Say::WatchList => "{n} alertas (!unwatch N):",
        Say::WatchRemoved => "Parei de vigiar {name}.",
        Say::WatchNoSuch => "Nenhum alerta {word} seu. !watch lista.",
        Say::WatchReading => "Alerta: {name} informa {word}.",
        Say::WatchQuiet => "Alerta: {name} não é ouvido há {word}.",
        Say::WatchBack => "Alerta: {name} voltou a ser ouvido.",
        Say::HelpSubscribe => "os boletins do operador sobre um tema, por DM",
        Say::BulletinsOff => "Este bot não tem boletins.",
        Say::Topics => "Temas: {word}. Os seus: {name}. !subscribe TEMA, !unsubscribe TEMA.",
        Say::Subscribed => {
            "Inscrito em {word}: os boletins chegam por DM, no máximo {n} por dia. !unsubscribe {word} para."
        }
        Say::SubscribedAlready => "Você já está inscrito em {word}.",
        Say::SubscribeFull => "Não cabem mais inscrições: já são {n}.",
        Say::NoTopic => "Não há tema \"{word}\" aqui. !subscribe lista.",
        Say::Unsubscribed => "Inscrição em {word} cancelada.",
        Say::NotSubscribed => "Você não está inscrito em {word}.",
        Say::MoreMark => "… mais: !more",
    }
}

fn fr(say: Say) -> &'static str {
    match say {
        Say::StoreFailed => "Désolé, ma mémoire a rencontré une erreur. Réessayez plus tard.",
        Say::StoreDamaged => {
            "Désolé, ma mémoire est endommagée : impossible pour l'instant. Je réponds encore, sans mémoire, jusqu'à ce que l'opérateur la répare."
        }
        Say::LlmTimeout => "Désolé, l'IA a mis trop de temps à répondre. Réessayez plus tard.",
        Say::LlmUnavailable => "Désolé, l'IA est indisponible pour le moment. Réessayez plus tard.",
        Say::LlmUnusable => "Désolé, l'IA a donné une réponse inutilisable. Réessayez.",
        Say::TooBusy => {
            "Désolé, j'étais trop occupé pour répondre à temps. Reposez votre question."
        }
        Say::NoRoom => {
            "Trop de monde pose des questions en ce moment : j'ai gardé votre message mais ne peux pas y répondre. Réessayez dans quelques minutes."
        }
        Say::RateLimited => {
            "Vous écrivez plus vite que je ne peux répondre. Je vous répondrai à nouveau dans environ {mins} min."
        }
        Say::DmOnly => "Les commandes ne fonctionnent qu'en message direct avec moi.",
        Say::CutOff => "… (réponse coupée : l'IA s'est arrêtée)",
        Say::NothingMore => "Plus rien à envoyer : ma dernière réponse était complète.",
        Say::ResetDone => {
            "C'est fait : j'ai oublié notre conversation et tout ce que je savais de vous."
        }
        Say::ResetFailed => "Désolé, je n'ai pas pu effacer votre historique. Réessayez plus tard.",
        Say::NoSummaryYet => "Pas encore de résumé : je n'ai que nos messages récents.",
        Say::NothingRemembered => "Je ne sais encore rien de vous.",
        Say::IRemember => "Je me souviens : ",
        Say::YouToldMe => "Vous m'avez dit : ",
        Say::HelpIntro => "Demandez-moi ce que vous voulez.",
        Say::HelpMore => "suite d'une réponse coupée",
        Say::HelpSummary => "ce que je sais de vous",
        Say::HelpReset => "oublier notre discussion",
        Say::HelpNodes => "le réseau mesh",
        Say::HelpStatus => "état du bot",
        Say::UnknownCommand => "Commande inconnue !{word}.",
        Say::Unproven => {
            "Je ne réponds à ce nœud qu'en DM chiffré. Si c'était vous, vérifiez les clés de votre appli."
        }
        Say::KeyChanged => {
            "La clé de votre nœud a changé : notre discussion reste verrouillée jusqu'à ce que mon opérateur accepte la nouvelle clé."
        }
        Say::Unchecked => {
            "Je ne peux pas vérifier la clé de votre nœud pour le moment. Réessayez plus tard."
        }
        Say::KeysUnreadable => {
            "Je ne peux pas vérifier l'expéditeur pour le moment, donc pas de commandes. Réessayez plus tard, en DM chiffré."
        }
        Say::Licensed => {
            "Mon nœud est en mode licencié (radioamateur), les DM ne peuvent pas être chiffrés : je réponds sans notre discussion et n'exécute aucune commande."
        }
        Say::PkiRequired => {
            "Les commandes exigent un DM chiffré : utilisez le firmware 2.5 ou plus récent et vérifiez que votre nœud connaît ma clé."
        }
        Say::Mqtt => "Via MQTT, les commandes exigent un DM chiffré.",
        Say::Renumbered => {
            "Votre nœud a un nouveau numéro où je ne peux pas déplacer notre discussion : elle reste verrouillée jusqu'à ce que mon opérateur règle cela."
        }
        Say::Unsigned => {
            "Ce message est arrivé sans la signature de votre nœud : je réponds sans notre discussion passée."
        }
        Say::MeshOff => "Les réponses sur le réseau mesh sont désactivées sur ce bot.",
        Say::NoRadio => "Pas de radio ici (meshai chat) : je ne sais rien du réseau mesh.",
        Say::UnknownNode => "Je ne connais pas ce nœud : il n'est pas dans ma liste.",
        Say::NotInNotes => "Pas dans mes notes.",
        Say::NoneHeard => "Aucun nœud entendu dans la dernière heure ({n} dans ma liste).",
        Say::Heard => "Entendus en 1 h ({n}): ",
        Say::HelpTell => "laisser un message",
        Say::MailOff => "Les messages pour d'autres nœuds sont désactivés sur ce bot.",
        Say::TellUsage => {
            "!tell NAME TEXT : je garde votre message et le transmets quand NAME sera de nouveau entendu. !mail : les vôtres en attente."
        }
        Say::TellNoSuchNode => {
            "Aucun nœud nommé « {word} » dans ma liste : écrivez son nom comme !nodes le montre, ou son !id."
        }
        Say::TellSelf => "C'est votre propre nœud.",
        Say::TellNotKnown => {
            "Je ne transmets de messages que pour les personnes que je connais : !tell marche après deux échanges à une demi-journée d'écart."
        }
        Say::TellKept => {
            "Gardé pour {name} : je le transmets quand ce nœud sera de nouveau entendu, sous {n} jours au plus. !mail : les vôtres en attente."
        }
        Say::TellSenderFull => {
            "Vous avez déjà {n} messages en attente. !mail les montre ; !mail cancel N en supprime un."
        }
        Say::TellRecipientFull => {
            "{n} messages attendent déjà {name}. Réessayez quand il aura été entendu."
        }
        Say::MailFrom => "De {name} : ",
        Say::MailDelivered => "Remis à {name} à {time}.",
        Say::MailSentNoReceipt => "Envoyé à {name} à {time} ; aucun accusé de réception.",
        Say::MailExpired => {
            "Non remis : {name} n'a pas été entendu en {n} jours. Votre message est supprimé."
        }
        Say::MailFailed => {
            "Impossible de remettre à {name} après {n} essais. Votre message est supprimé."
        }
        Say::MailNone => {
            "Rien de vous n'est en attente. !tell NAME TEXT laisse un message pour un nœud."
        }
        Say::MailWaiting => "{n} en attente (!mail cancel N) :",
        Say::MailCancelled => "Annulé : votre message pour {name} est supprimé.",
        Say::MailNoSuch => "Aucun message {word} de vous en attente. !mail les liste.",
        Say::HelpCommands => "Commandes :",
        Say::HelpWord => "!help MOT : son rôle.",
        Say::HelpMail => "vos messages encore en attente",
        Say::HelpWatch => {
            "prévenez-moi une fois quand un nœud se tait, revient ou dépasse une valeur"
        }
        Say::HelpUnwatch => "arrête la N-ième de vos alertes",
        Say::WatchUsage => {
            "!watch NAME quiet 2h | back | battery 20 | temperature < 0 : je vous préviens une fois quand cela arrive."
        }
        Say::WatchSet => {
            "Je surveille {name} : {word}. Je vous préviens une fois quand cela arrive. !watch les liste."
        }
        Say::WatchHoldsNow => {
            "Je surveille {name} : {word}. C'est déjà le cas ; je vous préviens quand cela recommence."
        }
        Say::WatchAlready => "Vous surveillez déjà {name} pour cela. !watch les liste.",
        Say::WatchFull => "Vous avez déjà {n} alertes. !unwatch N en arrête une.",
        Say::WatchNone => {
            "Vous ne surveillez rien. !watch NAME battery 20 : je vous préviens quand sa batterie faiblit."
        }
        Say::WatchList => "{n} alertes (!unwatch N) :",
        Say::WatchRemoved => "Je ne surveille plus {name}.",
        Say::WatchNoSuch => "Aucune alerte {word} de vous. !watch les liste.",
        Say::WatchReading => "Alerte : {name} indique {word}.",
        Say::WatchQuiet => "Alerte : {name} n'est plus entendu depuis {word}.",
        Say::WatchBack => "Alerte : {name} est de nouveau entendu.",
        Say::HelpSubscribe => "les bulletins de l'opérateur sur un sujet, en DM",
        Say::BulletinsOff => "Ce bot n'a pas de bulletins.",
        Say::Topics => {
            "Sujets : {word}. Les vôtres : {name}. !subscribe SUJET, !unsubscribe SUJET."
        }
        Say::Subscribed => {
            "Abonné à {word} : ses bulletins arrivent en DM, {n} par jour au plus. !unsubscribe {word} les arrête."
        }
        Say::SubscribedAlready => "Vous êtes déjà abonné à {word}.",
        Say::SubscribeFull => "Plus d'abonnement possible : déjà {n}.",
        Say::NoTopic => "Pas de sujet « {word} » ici. !subscribe les liste.",
        Say::Unsubscribed => "Désabonné de {word}.",
        Say::NotSubscribed => "Vous n'êtes pas abonné à {word}.",
        Say::MoreMark => "… suite : !more",
    }
}

fn it(say: Say) -> &'static str {
    match say {
        Say::StoreFailed => "Scusa, la mia memoria ha avuto un errore. Riprova più tardi.",
        Say::StoreDamaged => {
            "Scusa, la mia memoria è danneggiata: ora non posso farlo. Continuo a rispondere, senza memoria, finché l'operatore non la ripara."
        }
        Say::LlmTimeout => "Scusa, l'IA ci ha messo troppo a rispondere. Riprova più tardi.",
        Say::LlmUnavailable => "Scusa, l'IA non è disponibile al momento. Riprova più tardi.",
        Say::LlmUnusable => "Scusa, l'IA ha dato una risposta inutilizzabile. Riprova.",
        Say::TooBusy => "Scusa, ero troppo occupato per rispondere in tempo. Chiedimelo di nuovo.",
        Say::NoRoom => {
            "Troppe persone stanno chiedendo ora: ho tenuto il tuo messaggio ma non posso rispondere. Riprova tra qualche minuto."
        }
        Say::RateLimited => {
            "Scrivi più in fretta di quanto io riesca a rispondere. Ti risponderò di nuovo tra circa {mins} min."
        }
        Say::DmOnly => "I comandi funzionano solo in un messaggio diretto a me.",
        Say::CutOff => "… (risposta interrotta: l'IA si è fermata)",
        Say::NothingMore => "Nient'altro da inviare: la mia ultima risposta era completa.",
        Say::ResetDone => {
            "Fatto: ho dimenticato la nostra conversazione e tutto ciò che ricordavo di te."
        }
        Say::ResetFailed => {
            "Scusa, non sono riuscito a cancellare la tua cronologia. Riprova più tardi."
        }
        Say::NoSummaryYet => "Ancora nessun riassunto: ho solo i nostri messaggi recenti.",
        Say::NothingRemembered => "Non ricordo ancora niente di te.",
        Say::IRemember => "Ricordo: ",
        Say::YouToldMe => "Mi hai detto: ",
        Say::HelpIntro => "Chiedimi qualsiasi cosa.",
        Say::HelpMore => "resto di una risposta tagliata",
        Say::HelpSummary => "cosa ricordo di te",
        Say::HelpReset => "dimentica la nostra chat",
        Say::HelpNodes => "la rete mesh",
        Say::HelpStatus => "stato del bot",
        Say::UnknownCommand => "Comando sconosciuto !{word}.",
        Say::Unproven => {
            "Rispondo a questo nodo solo tramite DM cifrati. Se eri tu, controlla le chiavi della tua app."
        }
        Say::KeyChanged => {
            "La chiave del tuo nodo è cambiata, quindi la nostra chat precedente resta bloccata finché il mio operatore non accetta la nuova chiave."
        }
        Say::Unchecked => "Ora non riesco a verificare la chiave del tuo nodo. Riprova più tardi.",
        Say::KeysUnreadable => {
            "Ora non riesco a verificare chi l'ha inviato, quindi niente comandi. Riprova più tardi, con un DM cifrato."
        }
        Say::Licensed => {
            "Il mio nodo è in modalità con licenza (radioamatore), quindi i DM non possono essere cifrati: rispondo senza la nostra chat e non eseguo comandi."
        }
        Say::PkiRequired => {
            "I comandi richiedono un DM cifrato: usa il firmware 2.5 o successivo e assicurati che il tuo nodo conosca la mia chiave."
        }
        Say::Mqtt => "I comandi richiedono un DM cifrato quando arrivano tramite MQTT.",
        Say::Renumbered => {
            "Il tuo nodo ha un nuovo numero su cui non posso spostare la chat precedente: resta bloccata finché il mio operatore non risolve."
        }
        Say::Unsigned => {
            "Questo messaggio è arrivato senza la firma del tuo nodo, quindi rispondo senza la chat precedente."
        }
        Say::MeshOff => "Le risposte sulla rete mesh sono disattivate su questo bot.",
        Say::NoRadio => "Qui non c'è una radio (meshai chat): non so nulla della rete mesh.",
        Say::UnknownNode => "Non conosco quel nodo: non è nella mia lista dei nodi.",
        Say::NotInNotes => "Non è nei miei appunti.",
        Say::NoneHeard => "Nessun nodo sentito nell'ultima ora ({n} nella mia lista).",
        Say::Heard => "Sentiti in 1 h ({n}): ",
        Say::HelpTell => "lascia un messaggio",
        Say::MailOff => "I messaggi per altri nodi sono disattivati su questo bot.",
        Say::TellUsage => {
            "!tell NAME TEXT: conservo il tuo messaggio e lo consegno quando NAME si sentirà di nuovo. !mail: i tuoi in attesa."
        }
        Say::TellNoSuchNode => {
            "Nessun nodo chiamato \"{word}\" nella mia lista: scrivi il nome come lo mostra !nodes, o il suo !id."
        }
        Say::TellSelf => "Quello è il tuo nodo.",
        Say::TellNotKnown => {
            "Passo messaggi solo per chi conosco: !tell funziona dopo che ci siamo scritti due volte a mezza giornata di distanza."
        }
        Say::TellKept => {
            "Conservato per {name}: lo consegno quando quel nodo si sentirà di nuovo, entro {n} giorni. !mail: i tuoi in attesa."
        }
        Say::TellSenderFull => {
            "Hai già {n} messaggi in attesa. !mail li mostra; !mail cancel N ne cancella uno."
        }
        Say::TellRecipientFull => {
            "Per {name} aspettano già {n} messaggi. Riprova quando si sarà sentito."
        }
        Say::MailFrom => "Da {name}: ",
        Say::MailDelivered => "Consegnato a {name} alle {time}.",
        Say::MailSentNoReceipt => "Inviato a {name} alle {time}; nessuna conferma di ricezione.",
        Say::MailExpired => {
            "Non consegnato: {name} non si è sentito per {n} giorni. Il tuo messaggio è cancellato."
        }
        Say::MailFailed => {
            "Impossibile consegnare a {name} dopo {n} tentativi. Il tuo messaggio è cancellato."
        }
        Say::MailNone => {
            "Non hai niente in attesa. !tell NAME TEXT lascia un messaggio per un nodo."
        }
        Say::MailWaiting => "{n} in attesa (!mail cancel N):",
        Say::MailCancelled => "Annullato: il tuo messaggio per {name} è cancellato.",
        Say::MailNoSuch => "Nessun tuo messaggio {word} in attesa. !mail li elenca.",
        Say::HelpCommands => "Comandi:",
        Say::HelpWord => "!help PAROLA: cosa fa un comando.",
        Say::HelpMail => "i tuoi messaggi ancora in attesa",
        Say::HelpWatch => "avvisami una volta quando un nodo tace, torna o supera un valore",
        Say::HelpUnwatch => "ferma il N-esimo dei tuoi avvisi",
        Say::WatchUsage => {
            "!watch NAME quiet 2h | back | battery 20 | temperature < 0: ti avviso una volta quando succede."
        }
        Say::WatchSet => {
            "Sorveglio {name}: {word}. Ti avviso una volta quando succede. !watch li elenca."
        }
        Say::WatchHoldsNow => {
            "Sorveglio {name}: {word}. Succede già ora; ti avviso quando risuccede."
        }
        Say::WatchAlready => "Sorvegli già {name} per questo. !watch li elenca.",
        Say::WatchFull => "Hai già {n} avvisi. !unwatch N ne ferma uno.",
        Say::WatchNone => {
            "Non sorvegli niente. !watch NAME battery 20: ti avviso quando la batteria si scarica."
        }
        Say::WatchList => "{n} avvisi (!unwatch N):",
        Say::WatchRemoved => "Non sorveglio più {name}.",
        Say::WatchNoSuch => "Nessun tuo avviso {word}. !watch li elenca.",
        Say::WatchReading => "Avviso: {name} segnala {word}.",
        Say::WatchQuiet => "Avviso: {name} non si sente da {word}.",
        Say::WatchBack => "Avviso: {name} si sente di nuovo.",
        Say::HelpSubscribe => "i bollettini del gestore su un tema, in DM",
        Say::BulletinsOff => "Questo bot non ha bollettini.",
        Say::Topics => "Temi: {word}. I tuoi: {name}. !subscribe TEMA, !unsubscribe TEMA.",
        Say::Subscribed => {
            "Iscritto a {word}: i bollettini arrivano in DM, al massimo {n} al giorno. !unsubscribe {word} li ferma."
        }
        Say::SubscribedAlready => "Sei già iscritto a {word}.",
        Say::SubscribeFull => "Niente più iscrizioni: già {n}.",
        Say::NoTopic => "Nessun tema \"{word}\" qui. !subscribe li elenca.",
        Say::Unsubscribed => "Iscrizione a {word} annullata.",
        Say::NotSubscribed => "Non sei iscritto a {word}.",
        Say::MoreMark => "… altro: !more",
    }
}

fn nl(say: Say) -> &'static str {
    match say {
        Say::StoreFailed => "Sorry, er ging iets mis met mijn geheugen. Probeer het later opnieuw.",
        Say::StoreDamaged => {
            "Sorry, mijn geheugen is beschadigd: dat kan ik nu niet. Ik antwoord nog wel, zonder geheugen, tot de beheerder het herstelt."
        }
        Say::LlmTimeout => "Sorry, de AI deed er te lang over. Probeer het later opnieuw.",
        Say::LlmUnavailable => "Sorry, de AI is nu niet bereikbaar. Probeer het later opnieuw.",
        Say::LlmUnusable => "Sorry, de AI gaf een onbruikbaar antwoord. Probeer het opnieuw.",
        Say::TooBusy => "Sorry, ik had het te druk om op tijd te antwoorden. Vraag het nog eens.",
        Say::NoRoom => {
            "Er vragen nu te veel mensen tegelijk: ik heb je bericht bewaard, maar kan het niet beantwoorden. Vraag het over een paar minuten opnieuw."
        }
        Say::RateLimited => {
            "Je stuurt sneller dan ik kan antwoorden. Over ongeveer {mins} min antwoord ik weer."
        }
        Say::DmOnly => "Commando's werken alleen in een privébericht aan mij.",
        Say::CutOff => "… (antwoord afgebroken: de AI stopte)",
        Say::NothingMore => "Niets meer te sturen: mijn laatste antwoord was compleet.",
        Say::ResetDone => "Klaar: ik ben ons gesprek vergeten, en alles wat ik over je wist.",
        Say::ResetFailed => "Sorry, ik kon je geschiedenis niet wissen. Probeer het later opnieuw.",
        Say::NoSummaryYet => "Nog geen samenvatting: ik heb alleen onze recente berichten.",
        Say::NothingRemembered => "Ik weet nog niets over je.",
        Say::IRemember => "Ik weet nog: ",
        Say::YouToldMe => "Je vertelde me: ",
        Say::HelpIntro => "Vraag me wat je wilt.",
        Say::HelpMore => "rest van een afgebroken antwoord",
        Say::HelpSummary => "wat ik over je weet",
        Say::HelpReset => "ons gesprek vergeten",
        Say::HelpNodes => "het mesh",
        Say::HelpStatus => "status van de bot",
        Say::UnknownCommand => "Onbekend commando !{word}.",
        Say::Unproven => {
            "Ik antwoord deze node alleen via versleutelde DM's. Was jij dit? Controleer dan de sleutels in je app."
        }
        Say::KeyChanged => {
            "De sleutel van je node is veranderd, dus ons eerdere gesprek blijft vergrendeld tot mijn beheerder de nieuwe sleutel accepteert."
        }
        Say::Unchecked => {
            "Ik kan de sleutel van je node nu niet controleren. Probeer het later opnieuw."
        }
        Say::KeysUnreadable => {
            "Ik kan nu niet controleren wie dit stuurde, dus geen commando's. Probeer het later opnieuw, via een versleutelde DM."
        }
        Say::Licensed => {
            "Mijn node staat in gelicentieerde modus (zendamateur), dus DM's zijn niet versleuteld: ik antwoord zonder ons gesprek en voer geen commando's uit."
        }
        Say::PkiRequired => {
            "Commando's vereisen een versleutelde DM: gebruik firmware 2.5 of nieuwer en zorg dat je node mijn sleutel kent."
        }
        Say::Mqtt => "Commando's vereisen een versleutelde DM als ze via MQTT binnenkomen.",
        Say::Renumbered => {
            "Je node heeft een nieuw nummer waar ik ons eerdere gesprek niet heen kan verplaatsen: het blijft vergrendeld tot mijn beheerder het oplost."
        }
        Say::Unsigned => {
            "Dit bericht kwam zonder de handtekening van je node, dus ik antwoord zonder ons eerdere gesprek."
        }
        Say::MeshOff => "Antwoorden over het mesh staan uit op deze bot.",
        Say::NoRadio => "Hier is geen radio (meshai chat): ik weet niets van het mesh.",
        Say::UnknownNode => "Die node ken ik niet: hij staat niet in mijn nodelijst.",
        Say::NotInNotes => "Niet in mijn notities.",
        Say::NoneHeard => "Geen node gehoord in het afgelopen uur ({n} in mijn lijst).",
        Say::Heard => "Gehoord in 1 u ({n}): ",
        Say::HelpTell => "een bericht achterlaten",
        Say::MailOff => "Berichten voor andere nodes staan uit op deze bot.",
        Say::TellUsage => {
            "!tell NAME TEXT: ik bewaar je bericht en geef het door zodra NAME weer te horen is. !mail: jouw wachtende."
        }
        Say::TellNoSuchNode => {
            "Geen node met de naam \"{word}\" in mijn lijst: schrijf de naam zoals !nodes hem toont, of zijn !id."
        }
        Say::TellSelf => "Dat is je eigen node.",
        Say::TellNotKnown => {
            "Ik geef alleen berichten door voor mensen die ik ken: !tell werkt als we twee keer, een halve dag uit elkaar, hebben gepraat."
        }
        Say::TellKept => {
            "Bewaard voor {name}: ik geef het door zodra die node weer te horen is, binnen {n} dagen. !mail: jouw wachtende."
        }
        Say::TellSenderFull => {
            "Je hebt al {n} wachtende berichten. !mail toont ze; !mail cancel N wist er een."
        }
        Say::TellRecipientFull => {
            "Er wachten al {n} berichten voor {name}. Probeer het opnieuw als die node te horen was."
        }
        Say::MailFrom => "Van {name}: ",
        Say::MailDelivered => "Afgeleverd bij {name} om {time}.",
        Say::MailSentNoReceipt => {
            "Verzonden naar {name} om {time}; er kwam geen ontvangstbevestiging."
        }
        Say::MailExpired => {
            "Niet afgeleverd: {name} was {n} dagen niet te horen. Je bericht is gewist."
        }
        Say::MailFailed => "Afleveren bij {name} lukte niet na {n} pogingen. Je bericht is gewist.",
        Say::MailNone => {
            "Er wacht niets van je. !tell NAME TEXT laat een bericht achter voor een node."
        }
        Say::MailWaiting => "{n} wachtend (!mail cancel N):",
        Say::MailCancelled => "Geannuleerd: je bericht voor {name} is gewist.",
        Say::MailNoSuch => "Geen wachtend bericht {word} van je. !mail toont ze.",
        Say::HelpCommands => "Commando's:",
        Say::HelpWord => "!help WOORD: wat er een doet.",
        Say::HelpMail => "je berichten die nog wachten",
        Say::HelpWatch => {
            "meld één keer wanneer een node stil wordt, terugkomt of een waarde passeert"
        }
        Say::HelpUnwatch => "stop de N-de van je wachten",
        Say::WatchUsage => {
            "!watch NAME quiet 2h | back | battery 20 | temperature < 0: ik meld het één keer als het gebeurt."
        }
        Say::WatchSet => {
            "Ik let op {name}: {word}. Ik meld het één keer als het gebeurt. !watch toont ze."
        }
        Say::WatchHoldsNow => {
            "Ik let op {name}: {word}. Dat is nu al zo; ik meld het als het opnieuw gebeurt."
        }
        Say::WatchAlready => "Je let daar al op bij {name}. !watch toont ze.",
        Say::WatchFull => "Je hebt al {n} wachten. !unwatch N stopt er een.",
        Say::WatchNone => {
            "Je let nergens op. !watch NAME battery 20: ik meld het als de accu bijna leeg is."
        }
        Say::WatchList => "{n} wachten (!unwatch N):",
        Say::WatchRemoved => "Ik let niet meer op {name}.",
        Say::WatchNoSuch => "Geen wacht {word} van je. !watch toont ze.",
        Say::WatchReading => "Wacht: {name} meldt {word}.",
        Say::WatchQuiet => "Wacht: {name} is al {word} niet te horen.",
        Say::WatchBack => "Wacht: {name} is weer te horen.",
        Say::HelpSubscribe => "de bulletins van de beheerder over een onderwerp, als DM",
        Say::BulletinsOff => "Deze bot heeft geen bulletins.",
        Say::Topics => {
            "Onderwerpen: {word}. Jouw: {name}. !subscribe ONDERWERP, !unsubscribe ONDERWERP."
        }
        Say::Subscribed => {
            "Geabonneerd op {word}: de bulletins komen als DM, hooguit {n} per dag. !unsubscribe {word} stopt ze."
        }
        Say::SubscribedAlready => "Je bent al geabonneerd op {word}.",
        Say::SubscribeFull => "Geen abonnementen meer: al {n}.",
        Say::NoTopic => "Geen onderwerp \"{word}\" hier. !subscribe toont ze.",
        Say::Unsubscribed => "Afgemeld voor {word}.",
        Say::NotSubscribed => "Je bent niet geabonneerd op {word}.",
        Say::MoreMark => "… meer: !more",
    }
}

fn pl(say: Say) -> &'static str {
    match say {
        Say::StoreFailed => "Przepraszam, moja pamięć zawiodła. Spróbuj później.",
        Say::StoreDamaged => {
            "Przepraszam, moja pamięć jest uszkodzona: teraz tego nie zrobię. Nadal odpowiadam, bez pamięci, dopóki operator jej nie naprawi."
        }
        Say::LlmTimeout => "Przepraszam, AI zbyt długo odpowiadała. Spróbuj ponownie później.",
        Say::LlmUnavailable => "Przepraszam, AI jest teraz niedostępna. Spróbuj ponownie później.",
        Say::LlmUnusable => "Przepraszam, AI dała bezużyteczną odpowiedź. Spróbuj ponownie.",
        Say::TooBusy => {
            "Przepraszam, byłem zbyt zajęty, by odpowiedzieć na czas. Zapytaj ponownie."
        }
        Say::NoRoom => {
            "Za dużo osób pyta teraz: zachowałem twoją wiadomość, ale nie mogę na nią odpowiedzieć. Zapytaj ponownie za kilka minut."
        }
        Say::RateLimited => {
            "Piszesz szybciej, niż mogę odpowiadać. Znów odpowiem za około {mins} min."
        }
        Say::DmOnly => "Polecenia działają tylko w wiadomości prywatnej do mnie.",
        Say::CutOff => "… (odpowiedź ucięta: AI przerwała)",
        Say::NothingMore => "Nie ma nic więcej do wysłania: moja ostatnia odpowiedź była pełna.",
        Say::ResetDone => {
            "Gotowe: zapomniałem o naszej rozmowie i o wszystkim, co o tobie pamiętałem."
        }
        Say::ResetFailed => {
            "Przepraszam, nie udało mi się wyczyścić twojej historii. Spróbuj później."
        }
        Say::NoSummaryYet => "Nie ma jeszcze podsumowania: mam tylko nasze ostatnie wiadomości.",
        Say::NothingRemembered => "Nic jeszcze o tobie nie pamiętam.",
        Say::IRemember => "Pamiętam: ",
        Say::YouToldMe => "Wiem od ciebie: ",
        Say::HelpIntro => "Zapytaj mnie o cokolwiek.",
        Say::HelpMore => "reszta uciętej odpowiedzi",
        Say::HelpSummary => "co o tobie pamiętam",
        Say::HelpReset => "zapomnij o naszej rozmowie",
        Say::HelpNodes => "sieć mesh",
        Say::HelpStatus => "stan bota",
        Say::UnknownCommand => "Nieznane polecenie !{word}.",
        Say::Unproven => {
            "Temu węzłowi odpowiadam tylko przez szyfrowane DM. Jeśli to ty, sprawdź klucze w aplikacji."
        }
        Say::KeyChanged => {
            "Klucz twojego węzła się zmienił, więc nasza wcześniejsza rozmowa jest zablokowana, dopóki mój operator nie zaakceptuje nowego klucza."
        }
        Say::Unchecked => "Nie mogę teraz sprawdzić klucza twojego węzła. Spróbuj później.",
        Say::KeysUnreadable => {
            "Nie mogę teraz sprawdzić, kto to wysłał, więc bez poleceń. Spróbuj później, przez szyfrowane DM."
        }
        Say::Licensed => {
            "Mój węzeł działa w trybie licencjonowanym (krótkofalarskim), więc DM nie mogą być szyfrowane: odpowiadam bez naszej rozmowy i nie wykonuję poleceń."
        }
        Say::PkiRequired => {
            "Polecenia wymagają szyfrowanego DM: użyj firmware'u 2.5 lub nowszego i upewnij się, że twój węzeł zna mój klucz."
        }
        Say::Mqtt => "Polecenia przez MQTT wymagają szyfrowanego DM.",
        Say::Renumbered => {
            "Twój węzeł ma nowy numer, na który nie mogę przenieść naszej rozmowy: pozostaje zablokowana, dopóki mój operator tego nie rozwiąże."
        }
        Say::Unsigned => {
            "Ta wiadomość przyszła bez podpisu twojego węzła, więc odpowiadam bez naszej wcześniejszej rozmowy."
        }
        Say::MeshOff => "Odpowiedzi o sieci mesh są wyłączone w tym bocie.",
        Say::NoRadio => "Tu nie ma radia (meshai chat): nic nie wiem o sieci mesh.",
        Say::UnknownNode => "Nie znam tego węzła: nie ma go na mojej liście węzłów.",
        Say::NotInNotes => "Nie ma tego w moich notatkach.",
        Say::NoneHeard => "Brak węzłów słyszanych w ostatniej godzinie ({n} na mojej liście).",
        Say::Heard => "Słyszane w 1 h ({n}): ",
        Say::HelpTell => "zostaw wiadomość",
        Say::MailOff => "Wiadomości dla innych węzłów są wyłączone w tym bocie.",
        Say::TellUsage => {
            "!tell NAME TEXT: przechowam twoją wiadomość i przekażę ją, gdy NAME znów będzie słyszalny. !mail: twoje oczekujące."
        }
        Say::TellNoSuchNode => {
            "Nie mam na liście węzła o nazwie \"{word}\": napisz nazwę tak, jak pokazuje !nodes, albo jego !id."
        }
        Say::TellSelf => "To twój własny węzeł.",
        Say::TellNotKnown => {
            "Przekazuję wiadomości tylko od osób, które znam: !tell działa, gdy porozmawiamy dwa razy w odstępie pół dnia."
        }
        Say::TellKept => {
            "Przechowana dla {name}: przekażę ją, gdy ten węzeł znów będzie słyszalny, najdłużej przez {n} d. !mail: twoje oczekujące."
        }
        Say::TellSenderFull => {
            "Masz już oczekujące wiadomości: {n}. !mail je pokazuje; !mail cancel N usuwa jedną."
        }
        Say::TellRecipientFull => {
            "Na {name} czeka już wiadomości: {n}. Spróbuj ponownie, gdy węzeł będzie słyszalny."
        }
        Say::MailFrom => "Od {name}: ",
        Say::MailDelivered => "Doręczono do {name} o {time}.",
        Say::MailSentNoReceipt => "Wysłano do {name} o {time}; nie przyszło potwierdzenie odbioru.",
        Say::MailExpired => {
            "Nie doręczono: {name} nie był słyszalny przez {n} d. Twoja wiadomość została usunięta."
        }
        Say::MailFailed => {
            "Nie udało się doręczyć do {name}, prób: {n}. Twoja wiadomość została usunięta."
        }
        Say::MailNone => "Nic od ciebie nie czeka. !tell NAME TEXT zostawia wiadomość dla węzła.",
        Say::MailWaiting => "Oczekujące: {n} (!mail cancel N):",
        Say::MailCancelled => "Anulowano: twoja wiadomość do {name} została usunięta.",
        Say::MailNoSuch => "Nie czeka żadna twoja wiadomość {word}. !mail je wypisuje.",
        Say::HelpCommands => "Polecenia:",
        Say::HelpWord => "!help SŁOWO: co robi polecenie.",
        Say::HelpMail => "twoje wciąż oczekujące wiadomości",
        Say::HelpWatch => "powiadom raz, gdy węzeł ucichnie, wróci albo przekroczy wartość",
        Say::HelpUnwatch => "zatrzymaj N-ty z twoich alarmów",
        Say::WatchUsage => {
            "!watch NAME quiet 2h | back | battery 20 | temperature < 0: powiadomię raz, gdy to nastąpi."
        }
        Say::WatchSet => {
            "Obserwuję {name}: {word}. Powiadomię raz, gdy to nastąpi. !watch je wypisuje."
        }
        Say::WatchHoldsNow => {
            "Obserwuję {name}: {word}. To już trwa; powiadomię, gdy nastąpi ponownie."
        }
        Say::WatchAlready => "Już obserwujesz {name} pod tym kątem. !watch je wypisuje.",
        Say::WatchFull => "Masz już alarmów: {n}. !unwatch N zatrzymuje jeden.",
        Say::WatchNone => {
            "Niczego nie obserwujesz. !watch NAME battery 20: powiadomię, gdy bateria się wyczerpuje."
        }
        Say::WatchList => "Alarmy: {n} (!unwatch N):",
        Say::WatchRemoved => "Przestałem obserwować {name}.",
        Say::WatchNoSuch => "Nie masz alarmu {word}. !watch je wypisuje.",
        Say::WatchReading => "Alarm: {name} zgłasza {word}.",
        Say::WatchQuiet => "Alarm: {name} nie jest słyszalny od {word}.",
        Say::WatchBack => "Alarm: {name} znów jest słyszalny.",
        Say::HelpSubscribe => "biuletyny operatora na dany temat, jako DM",
        Say::BulletinsOff => "Ten bot nie ma biuletynów.",
        Say::Topics => "Tematy: {word}. Twoje: {name}. !subscribe TEMAT, !unsubscribe TEMAT.",
        Say::Subscribed => {
            "Zasubskrybowano {word}: biuletyny przyjdą jako DM, najwyżej {n} dziennie. !unsubscribe {word} je wyłącza."
        }
        Say::SubscribedAlready => "Już subskrybujesz {word}.",
        Say::SubscribeFull => "Nie można więcej subskrypcji: już {n}.",
        Say::NoTopic => "Nie ma tu tematu \"{word}\". !subscribe je wypisuje.",
        Say::Unsubscribed => "Anulowano subskrypcję {word}.",
        Say::NotSubscribed => "Nie subskrybujesz {word}.",
        Say::MoreMark => "… dalej: !more",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
