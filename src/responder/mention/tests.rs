//! The mention word, and the channel's public thread: bounded, forgotten when idle, and
//! the only thing besides the notes that a mention's prompt carries.

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

fn contents(msgs: &[ChatMessage]) -> Vec<(ChatRole, String)> {
    msgs.iter().map(|m| (m.role, m.content.clone())).collect()
}

#[test]
fn the_thread_keeps_the_last_mentions_and_forgets_when_idle() {
    let t0 = Instant::now();
    let min = |m: u64| t0 + Duration::from_secs(60 * m);
    let mut thread = Thread::default();
    let notes = vec!["A note.".to_string(), " ".to_string()];
    let first = thread.prompt("SYS", &notes, "[Ann] q0", min(0));
    assert_eq!(
        contents(&first),
        [
            (ChatRole::System, "SYS".to_string()),
            (ChatRole::System, "A note.".to_string()),
            (ChatRole::User, "[Ann] q0".to_string()),
        ]
    );
    for i in 0..4 {
        thread.push(&format!("q{i}"), &format!("a{i}"), min(i));
    }
    let p = thread.prompt("SYS", &[], "q4", min(10));
    let kept: Vec<String> = p.iter().map(|m| m.content.clone()).collect();
    assert_eq!(kept, ["SYS", "q1", "a1", "q2", "a2", "q3", "a3", "q4"]);
    // 30 minutes after the last answer, the thread is gone.
    let p = thread.prompt("SYS", &[], "q5", min(3) + THREAD_IDLE);
    assert_eq!(contents(&p).len(), 2, "{p:?}");
    thread.push("q5", "a5", min(40));
    let p = thread.prompt("SYS", &[], "q6", min(41));
    assert_eq!(p.len(), 4);
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
