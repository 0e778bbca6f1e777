//! The mention word, and what a mention's prompt may know of its sender (the thread is
//! `turn::thread`'s).

use super::*;

#[test]
fn a_broadcast_is_answered_only_when_it_starts_with_the_mention() {
    let channels = ChannelsConfig {
        answer_mentions: true,
        mention: "@bot".into(),
        channels: vec![0, 2],
    };
    let cases: [(u32, &str, Option<&str>); 8] = [
        (0, "@bot what is lora?", Some("what is lora?")),
        (2, "@BOT: what is lora? ", Some("what is lora?")),
        (0, "@bot, hi", Some("hi")),
        // Only on the listed channels.
        (1, "@bot what is lora?", None),
        // The mention must open the message, and something must follow it.
        (0, "hey @bot what is lora?", None),
        (0, "@bot", None),
        (0, "@bot ,: ", None),
        (0, "what is lora?", None),
    ];
    for (channel, text, want) in cases {
        assert_eq!(
            mention(&channels, channel, text).as_deref(),
            want,
            "{channel} {text:?}"
        );
    }
    let off = ChannelsConfig {
        answer_mentions: false,
        ..channels
    };
    assert_eq!(mention(&off, 0, "@bot what is lora?"), None);
}

#[test]
fn a_mention_knows_only_the_senders_name_and_the_time() {
    let c = public_context(&ContextConfig::default());
    assert!(c.names && c.time && !c.hops && !c.snr && !c.distance);
    let off = ContextConfig {
        names: false,
        time: false,
        ..ContextConfig::default()
    };
    let c = public_context(&off);
    assert!(!c.names && !c.time);
    assert!(DM_ONLY.len() <= 150);
}
