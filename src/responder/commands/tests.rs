//! The parsing of a message into a command, and the help's texts.

use super::*;

#[test]
fn recognises_commands() {
    let known = |c: &'static Command| Parsed::Command(Call::Known(c));
    let cases: &[(&str, Parsed)] = &[
        ("!help", known(&help::HELP)),
        ("  !HELP ", known(&help::HELP)),
        ("!h", known(&help::HELP)),
        ("!?", known(&help::HELP)),
        ("!reset", known(&reset::RESET)),
        ("!forget", known(&reset::RESET)),
        ("!status", known(&status::STATUS)),
        ("!Summary", known(&summary::SUMMARY)),
        ("!memory", known(&summary::SUMMARY)),
        ("!more", Parsed::More),
        ("!MORE", Parsed::More),
        ("!rest", Parsed::Command(Call::Unknown("rest".into()))),
        ("!", Parsed::Text),
        ("! help", Parsed::Text),
        ("!help me please", Parsed::Text),
        ("!help me", Parsed::Text),
        (
            "!help tell",
            Parsed::Command(Call::With(&help::HELP, "tell".into())),
        ),
        (
            "!tell Carol: back at 6\nok",
            Parsed::Command(Call::With(&tell::TELL, "Carol: back at 6 ok".into())),
        ),
        ("!tell", known(&tell::TELL)),
        ("!mail", known(&mail::MAIL)),
        ("!watch", known(&watch::WATCH)),
        (
            "!watch Hilltop battery 20",
            Parsed::Command(Call::With(&watch::WATCH, "Hilltop battery 20".into())),
        ),
        (
            "!unwatch 2",
            Parsed::Command(Call::With(&watch::UNWATCH, "2".into())),
        ),
        ("!subscribe", known(&subscribe::SUBSCRIBE)),
        (
            "!unsub weather",
            Parsed::Command(Call::With(&subscribe::UNSUBSCRIBE, "weather".into())),
        ),
        (
            "!mail cancel 2",
            Parsed::Command(Call::With(&mail::MAIL, "cancel 2".into())),
        ),
        ("!nodes", known(&nodes::NODES)),
        ("!node", known(&nodes::NODES)),
        (
            "!node  Hilltop\nRelay ",
            Parsed::Command(Call::With(&nodes::NODES, "Hilltop Relay".into())),
        ),
        ("!nodex hilltop", Parsed::Text),
        ("what is !help", Parsed::Text),
        ("hello", Parsed::Text),
    ];
    for (input, want) in cases {
        assert_eq!(&parse(input), want, "{input:?}");
    }
}

#[test]
fn each_command_asks_identity_for_what_it_touches() {
    let cases = [
        ("!help", Scope::Help),
        ("!rest", Scope::Help),
        ("!status", Scope::Status),
        ("!reset", Scope::Memory),
        ("!summary", Scope::Memory),
        ("!tell Carol hi", Scope::Memory),
        ("!mail", Scope::Memory),
        ("!watch Hilltop back", Scope::Memory),
        ("!unwatch 1", Scope::Memory),
        ("!subscribe weather", Scope::Memory),
        ("!more", Scope::Text),
        ("hello", Scope::Text),
    ];
    for (input, want) in cases {
        assert_eq!(parse(input).scope(), want, "{input:?}");
    }
}

#[test]
fn the_help_lists_more_and_every_command_in_one_packet_in_every_language() {
    let help = help_text(Lang::En);
    assert_eq!(
        help,
        "Ask me anything. Commands: !more !summary !reset !status !nodes !tell !mail !watch \
         !unwatch !subscribe. !help WORD: what one does."
    );
    for lang in Lang::ALL {
        let help = help_text(lang);
        assert!(
            help.chars().count() <= crate::lang::say::PACKET_CHARS
                && help.len() <= crate::lang::say::PACKET_BYTES,
            "{lang}: {} chars: {help}",
            help.chars().count()
        );
    }
    assert_eq!(
        unknown(Lang::En, "rest"),
        format!("Unknown command !rest. {help}")
    );
}

#[test]
fn help_with_a_word_says_what_that_command_does() {
    let cases = [
        (
            "tell",
            Some(
                "!tell NAME TEXT: I keep your message and pass it on when NAME is next \
                 heard. !mail: yours waiting.",
            ),
        ),
        ("!TELL", Some(say(Lang::En, Say::TellUsage))),
        ("watch", Some(say(Lang::En, Say::WatchUsage))),
        ("nodes", Some("!nodes [NAME]: the mesh.")),
        ("node", Some("!nodes [NAME]: the mesh.")),
        (
            "mail",
            Some("!mail [cancel N]: your messages still waiting."),
        ),
        ("more", Some("!more: rest of a cut answer.")),
        ("me", None),
        ("help", None),
    ];
    for (word, want) in cases {
        assert_eq!(help_for(word, Lang::En).as_deref(), want, "{word}");
    }
    assert_eq!(
        help_for("nodes", Lang::De).as_deref(),
        Some("!nodes [NAME]: das Mesh.")
    );
}
