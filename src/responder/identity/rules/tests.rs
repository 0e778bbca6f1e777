//! Table tests of the identity decision: what each way of hearing a DM may do, under each
//! setting, and the once-an-hour refusal report.

use super::*;

const K1: PublicKey = PublicKey([1; 32]);
const K2: PublicKey = PublicKey([2; 32]);

fn access(require_pki: RequirePki, mqtt: MqttPolicy) -> AccessConfig {
    AccessConfig {
        require_pki,
        mqtt,
        ..AccessConfig::default()
    }
}

fn plain(uses_pki: bool, via_mqtt: bool) -> Heard {
    Heard::Plain {
        uses_pki,
        via_mqtt,
        signed: false,
        signer: false,
    }
}

/// A DM without PKI from a node that never used PKI: `signed` by the key our node holds for
/// it (firmware 2.8, licensed), from a node that `signer` signed before.
fn licensed(signed: bool, signer: bool, via_mqtt: bool) -> Heard {
    Heard::Plain {
        uses_pki: false,
        via_mqtt,
        signed,
        signer,
    }
}

#[test]
fn what_each_dm_may_do() {
    use MqttPolicy::{Answer, Ignore, NoMemory as MqttNoMemory};
    use Verdict::{Ignored, NoMemory, Own, Unproven};
    let default = RequirePki::default();
    let all = RequirePki::All;
    let first = Heard::Pki {
        key: K1,
        pinned: None,
        elsewhere: None,
        keys_number: true,
    };
    let same = Heard::Pki {
        key: K1,
        pinned: Some(K1),
        elsewhere: None,
        keys_number: true,
    };
    let other = Heard::Pki {
        key: K2,
        pinned: Some(K1),
        elsewhere: None,
        keys_number: true,
    };
    let renumbered = Heard::Pki {
        key: K1,
        pinned: None,
        elsewhere: Some(NodeId(7)),
        keys_number: true,
    };
    // Issue 39: one key walked through 20 numbers of its choosing, each a move.
    let elsewhere = Heard::Pki {
        key: K1,
        pinned: None,
        elsewhere: Some(NodeId(7)),
        keys_number: false,
    };
    // (heard, require_pki, mqtt, verdict, key update)
    let cases: &[(Heard, RequirePki, MqttPolicy, Verdict, Option<KeyUpdate>)] = &[
        // PKI proves the sender: the first key is pinned, the same key is the node's own.
        (first, default, MqttNoMemory, Own, Some(KeyUpdate::Pin(K1))),
        (same, default, MqttNoMemory, Own, None),
        (same, all, Ignore, Own, None),
        // The key pinned for another number, none for this one: the same person, moved.
        (
            renumbered,
            default,
            MqttNoMemory,
            Own,
            Some(KeyUpdate::Move { from: NodeId(7) }),
        ),
        (
            renumbered,
            all,
            Ignore,
            Own,
            Some(KeyUpdate::Move { from: NodeId(7) }),
        ),
        // Onto any other number than the key's: the key's holder, without memory, no move.
        (elsewhere, default, Answer, NoMemory(Why::Renumbered), None),
        (elsewhere, all, Ignore, NoMemory(Why::Renumbered), None),
        // Another key is a new identity, whatever the settings.
        (
            other,
            default,
            Answer,
            NoMemory(Why::KeyChanged),
            Some(KeyUpdate::Pending(K2)),
        ),
        (
            other,
            all,
            MqttNoMemory,
            NoMemory(Why::KeyChanged),
            Some(KeyUpdate::Pending(K2)),
        ),
        // Without PKI, the id of a node known to use PKI proves nothing.
        (plain(true, false), default, MqttNoMemory, Unproven, None),
        (plain(true, false), all, Answer, Unproven, None),
        (plain(true, true), default, Answer, Unproven, None),
        (plain(true, true), default, Ignore, Ignored, None),
        // A node that never used PKI: as before, unless "all" or MQTT says otherwise.
        (plain(false, false), default, MqttNoMemory, Own, None),
        (
            plain(false, false),
            all,
            MqttNoMemory,
            NoMemory(Why::PkiRequired),
            None,
        ),
        (
            plain(false, true),
            default,
            MqttNoMemory,
            NoMemory(Why::Mqtt),
            None,
        ),
        (plain(false, true), default, Answer, Own, None),
        // Signed by the key our node holds for it: proven, whatever `require_pki` and MQTT's
        // "no_memory" say; "ignore" still ignores. Without a signature from a node that signs:
        // no memory. A PKI node's signature proves nothing of its key.
        (licensed(true, false, false), default, Answer, Own, None),
        (licensed(true, true, false), all, MqttNoMemory, Own, None),
        (
            licensed(true, false, true),
            default,
            MqttNoMemory,
            Own,
            None,
        ),
        (licensed(true, false, true), default, Ignore, Ignored, None),
        (
            licensed(false, true, false),
            default,
            Answer,
            NoMemory(Why::Unsigned),
            None,
        ),
        (
            Heard::Plain {
                uses_pki: true,
                via_mqtt: false,
                signed: true,
                signer: true,
            },
            default,
            Answer,
            Unproven,
            None,
        ),
        (plain(false, true), default, Ignore, Ignored, None),
        // The key table cannot be read: any DM without PKI may be a forgery, whatever the
        // settings would allow; only "ignore" still keeps MQTT out.
        (
            Heard::PlainUnknown { via_mqtt: false },
            default,
            Answer,
            NoMemory(Why::KeysUnreadable),
            None,
        ),
        (
            Heard::PlainUnknown { via_mqtt: true },
            all,
            Answer,
            NoMemory(Why::KeysUnreadable),
            None,
        ),
        (
            Heard::PlainUnknown { via_mqtt: true },
            default,
            Ignore,
            Ignored,
            None,
        ),
        // Our node is licensed: a node that used PKI cannot prove itself.
        (
            Heard::PlainLicensed { via_mqtt: false },
            default,
            Answer,
            NoMemory(Why::Licensed),
            None,
        ),
        (
            Heard::PlainLicensed { via_mqtt: true },
            all,
            Ignore,
            Ignored,
            None,
        ),
        (
            plain(false, true),
            all,
            Answer,
            NoMemory(Why::PkiRequired),
            None,
        ),
    ];
    for (i, (heard, require, mqtt, verdict, update)) in cases.iter().enumerate() {
        let got = decide(*heard, &access(*require, *mqtt));
        assert_eq!(
            (got.verdict, got.update),
            (*verdict, *update),
            "case {i}: {heard:?} {require:?} {mqtt:?}"
        );
    }
}

#[test]
fn what_each_verdict_lets_a_message_do() {
    use Scope::{Help, Memory, Status};
    let run = |memory, admin| Rule::Run(Grant { memory, admin });
    let unproven = Rule::Refuse(Line::Unproven);
    // (verdict, ask, rule): `require_pki` has had its say in the verdict.
    let cases: &[(Verdict, Scope, Rule)] = &[
        (Verdict::Own, Scope::Text, run(true, true)),
        (Verdict::Own, Memory, run(true, true)),
        (Verdict::Ignored, Help, Rule::Drop),
        // Unproven: no model, no memory, no command at all; only the warning line.
        (Verdict::Unproven, Scope::Text, unproven),
        (Verdict::Unproven, Scope::Text, unproven),
        (Verdict::Unproven, Help, unproven),
        (Verdict::Unproven, Help, unproven),
        (Verdict::Unproven, Memory, unproven),
        (Verdict::Unproven, Memory, unproven),
        (Verdict::Unproven, Status, unproven),
        (Verdict::Unproven, Status, unproven),
        // Answered without memory; memory commands say why not.
        (
            Verdict::NoMemory(Why::KeyChanged),
            Scope::Text,
            run(false, false),
        ),
        (
            Verdict::NoMemory(Why::KeyChanged),
            Status,
            run(false, false),
        ),
        (
            Verdict::NoMemory(Why::KeyChanged),
            Memory,
            Rule::Refuse(Line::KeyChanged),
        ),
        (
            Verdict::NoMemory(Why::Unchecked),
            Memory,
            Rule::Refuse(Line::Unchecked),
        ),
        // Licensed: the question and `!help` without memory, no other command.
        (
            Verdict::NoMemory(Why::Licensed),
            Scope::Text,
            run(false, false),
        ),
        (Verdict::NoMemory(Why::Licensed), Help, run(false, false)),
        (
            Verdict::NoMemory(Why::Licensed),
            Status,
            Rule::Refuse(Line::Licensed),
        ),
        (
            Verdict::NoMemory(Why::Licensed),
            Memory,
            Rule::Refuse(Line::Licensed),
        ),
        // Possibly forged (the key table cannot be read): the question from the message
        // alone, no command at all, not even `!help`.
        (
            Verdict::NoMemory(Why::KeysUnreadable),
            Scope::Text,
            run(false, false),
        ),
        (
            Verdict::NoMemory(Why::KeysUnreadable),
            Help,
            Rule::Refuse(Line::KeysUnreadable),
        ),
        (
            Verdict::NoMemory(Why::KeysUnreadable),
            Status,
            Rule::Refuse(Line::KeysUnreadable),
        ),
        (
            Verdict::NoMemory(Why::KeysUnreadable),
            Memory,
            Rule::Refuse(Line::KeysUnreadable),
        ),
        (Verdict::NoMemory(Why::PkiRequired), Help, run(false, false)),
        (
            Verdict::NoMemory(Why::PkiRequired),
            Status,
            Rule::Refuse(Line::PkiRequired),
        ),
        (
            Verdict::NoMemory(Why::Mqtt),
            Memory,
            Rule::Refuse(Line::Mqtt),
        ),
        (Verdict::NoMemory(Why::Mqtt), Scope::Text, run(false, false)),
        // A key on a number its chat cannot move to: like a changed key.
        (
            Verdict::NoMemory(Why::Renumbered),
            Status,
            run(false, false),
        ),
        (
            Verdict::NoMemory(Why::Renumbered),
            Memory,
            Rule::Refuse(Line::Renumbered),
        ),
    ];
    for (i, (verdict, scope, want)) in cases.iter().enumerate() {
        assert_eq!(
            rule(*verdict, *scope),
            *want,
            "case {i}: {verdict:?} {scope:?}"
        );
    }
}

#[test]
fn every_line_fits_one_packet() {
    for line in [
        Line::Unproven,
        Line::KeyChanged,
        Line::Unchecked,
        Line::KeysUnreadable,
        Line::Licensed,
        Line::PkiRequired,
        Line::Mqtt,
        Line::Renumbered,
        Line::Unsigned,
    ] {
        let t = line.text();
        assert!(t.chars().count() <= 120 && t.len() <= 160, "{line:?}: {t}");
    }
}

#[test]
fn a_refused_node_is_reported_once_an_hour_with_the_count() {
    let t0 = Instant::now();
    let s = Duration::from_secs;
    let mut r = Refusals::new(REFUSAL_EVERY);
    let (a, b) = (NodeId(1), NodeId(2));
    // (seconds, node, report due with this count)
    let steps: &[(u64, NodeId, Option<u32>)] = &[
        (0, a, Some(1)),
        (1, a, None),
        (2, a, None),
        (3, b, Some(1)),
        (3599, a, None),
        (3600, a, Some(4)),
        (3601, a, None),
        (3603, b, Some(1)),
        (9000, a, Some(2)),
    ];
    for (at, node, want) in steps {
        assert_eq!(r.refuse(*node, t0 + s(*at)), *want, "t={at} {node}");
    }
}
