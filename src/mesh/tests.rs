//! The whole note for a question, against a small view.

use super::*;
use crate::radio::ChannelMetrics;

use meshtastic::protobufs::{DeviceMetrics, EnvironmentMetrics, NodeInfo, Position, User};

const NOW: i64 = 1_800_000_000;
const ME: u32 = 0x100;
const ASKER: u32 = 0x200;
const RELAY: u32 = 0x300;
const WX: u32 = 0x400;
const CABIN: u32 = 0x500;

fn info(num: u32, long: &str, short: &str, at: Option<(i32, i32)>, ago: i64) -> NodeInfo {
    NodeInfo {
        num,
        user: Some(User {
            long_name: long.into(),
            short_name: short.into(),
            ..Default::default()
        }),
        position: at.map(|(lat, lon)| Position {
            latitude_i: Some(lat),
            longitude_i: Some(lon),
            ..Default::default()
        }),
        last_heard: u32::try_from(NOW - ago).unwrap(),
        hops_away: Some(2),
        ..Default::default()
    }
}

pub(crate) fn view() -> MeshView {
    let mut v = MeshView::new();
    v.set_me(NodeId(ME));
    v.update_from_node_info(&info(
        ME,
        "Club Bot",
        "BOT",
        Some((473_700_000, 85_400_000)),
        0,
    ));
    v.update_from_node_info(&info(
        ASKER,
        "Ann",
        "ANN",
        Some((473_700_000, 85_500_000)),
        60,
    ));
    v.update_from_node_info(&NodeInfo {
        device_metrics: Some(DeviceMetrics {
            battery_level: Some(87),
            voltage: Some(3.92),
            ..Default::default()
        }),
        ..info(
            RELAY,
            "Hilltop Relay",
            "HILL",
            Some((474_000_000, 85_400_000)),
            240,
        )
    });
    v.update_from_node_info(&info(WX, "Ridge Weather", "RWX", None, 600));
    v.update_from_node_info(&info(
        CABIN,
        "Secret Cabin",
        "SC",
        Some((473_800_000, 85_400_000)),
        30,
    ));
    let t = meshtastic::protobufs::Telemetry {
        time: 0,
        variant: Some(
            meshtastic::protobufs::telemetry::Variant::EnvironmentMetrics(EnvironmentMetrics {
                temperature: Some(3.5),
                relative_humidity: Some(81.0),
                barometric_pressure: Some(1012.0),
                ..Default::default()
            }),
        ),
    };
    use meshtastic::Message;
    let p = meshtastic::protobufs::MeshPacket {
        from: WX,
        to: u32::MAX,
        hop_start: 3,
        hop_limit: 2,
        payload_variant: Some(meshtastic::protobufs::mesh_packet::PayloadVariant::Decoded(
            meshtastic::protobufs::Data {
                portnum: meshtastic::protobufs::PortNum::TelemetryApp as i32,
                payload: t.encode_to_vec(),
                ..Default::default()
            },
        )),
        ..Default::default()
    };
    v.on_packet(&p, NOW - 300);
    v.set_channel(
        ChannelMetrics {
            channel_utilization: 31.0,
            air_util_tx: Some(2.5),
        },
        NOW - 60,
    );
    v
}

fn ask(cfg: &MeshConfig, message: &str) -> Option<String> {
    note(
        &view(),
        cfg,
        message,
        NodeId(ASKER),
        NOW,
        crate::lang::Lang::En,
    )
}

#[test]
fn the_note_for_each_kind_of_question() {
    let cfg = MeshConfig {
        hidden: vec![Hidden::parse("Secret Cabin")],
        ..MeshConfig::default()
    };
    let cases: &[(&str, &[&str])] = &[
        (
            "what's the battery of the hilltop relay?",
            &[
                "Hilltop Relay (HILL): last heard 4 min ago.",
                "Hilltop Relay (HILL) battery: 87 % (good) (reported 4 min ago).",
            ],
        ),
        (
            "temperature at the ridge weather node?",
            &["Ridge Weather (RWX) temperature: 3.5 °C (reported 5 min ago)."],
        ),
        (
            "what's the temperature at the hilltop relay",
            &["Hilltop Relay (HILL) temperature: unknown (it has sent no temperature reading)."],
        ),
        (
            "how far is the hilltop relay?",
            &[
                "Hilltop Relay (HILL) is 3.4 km N of you and 3.3 km N of my node (position from 4 min ago).",
            ],
        ),
        (
            "how far is ridge weather",
            &[
                "Ridge Weather (RWX): position unknown (it shares none), so its distance is unknown.",
            ],
        ),
        (
            "battery of the summit relay?",
            &["No node by that name is in my node list (3 nodes): I know nothing of it"],
        ),
        (
            "who is around?",
            &[
                "My node list holds 3 nodes; 3 heard in the last hour, 3 in the last 24 h.",
                "Heard in the last hour, newest first: Ann (ANN) 1 min ago, 2 hops; Hilltop Relay (HILL) 4 min ago, 2 hops; Ridge Weather (RWX) 5 min ago, 1 hop.",
            ],
        ),
        (
            "which node is nearest to me?",
            &["The nearest node to you is Hilltop Relay (HILL) (3.4 km N)."],
        ),
        (
            "how busy is the channel?",
            &["The channel is busy: 31.0 % of the last minute was busy"],
        ),
    ];
    for (message, want) in cases {
        let note = ask(&cfg, message).unwrap_or_default();
        for line in *want {
            assert!(note.contains(line), "{message:?}: {line:?} not in\n{note}");
        }
        assert!(!note.contains("Secret") && !note.contains("SC)"), "{note}");
        assert!(
            note.ends_with(crate::lang::part(
                crate::lang::Lang::En,
                crate::lang::Part::MeshClosing
            )),
            "{note}"
        );
    }
    assert_eq!(ask(&cfg, "what is the capital of France?"), None);
}

#[test]
fn a_hidden_node_is_as_unknown_as_one_that_does_not_exist() {
    let cfg = MeshConfig {
        hidden: vec![Hidden::Node(NodeId(CABIN))],
        ..MeshConfig::default()
    };
    let hidden = ask(&cfg, "what's the battery of the secret cabin node?").unwrap();
    let missing = ask(&cfg, "what's the battery of the golden cabin node?").unwrap();
    assert_eq!(hidden, missing);
    let shown = ask(
        &MeshConfig::default(),
        "what's the battery of the secret cabin node?",
    );
    assert!(shown.is_some_and(|n| n.contains("Secret Cabin (SC)")));
}

#[test]
fn positions_off_means_no_distance_anywhere() {
    let cfg = MeshConfig {
        positions: false,
        ..MeshConfig::default()
    };
    for message in [
        "how far is the hilltop relay?",
        "which node is nearest to me?",
        "tell me about the hilltop relay",
    ] {
        let note = ask(&cfg, message).unwrap();
        assert!(
            !note.contains(" km") && !note.contains(" m ") && !note.contains(" N "),
            "{note}"
        );
    }
    let note = ask(&cfg, "how far is the hilltop relay?").unwrap();
    assert!(
        note.contains("distance unknown (this bot does not tell positions)"),
        "{note}"
    );
}

#[test]
fn imperial_units_and_off() {
    let cfg = MeshConfig {
        units: Units::Imperial,
        ..MeshConfig::default()
    };
    let note = ask(&cfg, "weather at the ridge weather station?").unwrap();
    assert!(
        note.contains("38.3 °F") && note.contains("29.88 inHg"),
        "{note}"
    );
    let note = ask(&cfg, "how far is the hilltop relay").unwrap();
    assert!(note.contains("2.1 mi N of my node"), "{note}");
    let off = MeshConfig {
        enabled: false,
        ..MeshConfig::default()
    };
    assert_eq!(ask(&off, "who is around?"), None);
}

/// Issue 39: three fresh nodes named exactly "Hilltop Relay" (lower numbers, battery 17)
/// filled the three name matches; the facts, the lookup and `!node` then spoke of them. The
/// node known by the name longest is the one they speak of, and the clones stay out.
#[test]
fn clones_of_a_long_known_name_do_not_answer_for_it() {
    let mut v = view();
    for clone in [0x10, 0x11, 0x12] {
        v.update_from_node_info(&NodeInfo {
            device_metrics: Some(DeviceMetrics {
                battery_level: Some(17),
                ..Default::default()
            }),
            ..info(clone, "Hilltop Relay", "HILL", None, 5)
        });
    }
    let cfg = MeshConfig::default();
    let asker = NodeId(ASKER);
    let lang = crate::lang::Lang::En;
    match answer(
        &v,
        &cfg,
        "what's the battery of the hilltop relay?",
        asker,
        NOW,
        lang,
    ) {
        Some(Answer::Said(text)) => assert!(text.contains("87") && !text.contains("17"), "{text}"),
        other => panic!("{other:?}"),
    }
    let note = note(
        &v,
        &cfg,
        "how is the hilltop relay doing?",
        asker,
        NOW,
        lang,
    )
    .unwrap();
    assert!(note.contains("87") && !note.contains("17"), "{note}");
    let shown = super::lookup::card(&v, &cfg, "hilltop", asker, NOW, lang);
    assert!(shown.starts_with(&NodeId(RELAY).to_string()), "{shown}");
}

/// A node word naming no node of the view, with no reading and no node surely meant, is only
/// a guess: the turn's documents may take it ("the fire station where we meet"); with a name
/// written, documents that write it ("the 2 m repeater on Beacon Hill").
#[test]
fn a_node_word_naming_nothing_is_only_a_guess() {
    let v = view();
    let lang = crate::lang::Lang::En;
    let asker = NodeId(ASKER);
    let ask = |cfg: &MeshConfig, m: &str| answer(&v, cfg, m, asker, NOW, lang);
    let radio = MeshConfig::default();
    let chat = MeshConfig {
        radio: false,
        ..MeshConfig::default()
    };
    let guess = |m: &str| match ask(&radio, m) {
        Some(Answer::Guess { answer, names }) if matches!(*answer, Answer::Readout(_)) => {
            Some(names)
        }
        _ => None,
    };
    let place = "What is the postcode of the fire station where we meet?";
    assert_eq!(guess(place), Some(vec![]), "{:?}", ask(&radio, place));
    assert_eq!(
        ask(&chat, place),
        Some(Answer::Guess {
            answer: Box::new(Answer::NoRadio),
            names: vec![],
        })
    );
    for (named, names) in [
        ("Is the Foobar relay up?", &["foobar"][..]),
        (
            "What's the output frequency of the 2 m repeater on Cairn Top?",
            &["cairn", "top"],
        ),
    ] {
        let want: Vec<String> = names.iter().map(|n| n.to_string()).collect();
        assert_eq!(guess(named), Some(want), "{named}");
    }
    // A reading asked of a node the view does not hold: sure, whatever the documents say.
    let sure = "What is the battery of the Foobar relay?";
    assert_eq!(ask(&radio, sure), Some(Answer::UnknownNode));
    assert_eq!(ask(&chat, sure), Some(Answer::NoRadio));
}
