use super::*;
use crate::radio::NodeNames;
use meshtastic::protobufs::Data;

const ME: u32 = 100;
const ALICE: u32 = 7;

fn text(from: u32, to: u32, id: u32, body: &[u8]) -> MeshPacket {
    MeshPacket {
        from,
        to,
        id,
        channel: 1,
        hop_start: 3,
        hop_limit: 1,
        payload_variant: Some(mesh_packet::PayloadVariant::Decoded(Data {
            portnum: PortNum::TextMessageApp as i32,
            payload: body.to_vec(),
            ..Data::default()
        })),
        ..MeshPacket::default()
    }
}

fn with_data(mut p: MeshPacket, f: impl FnOnce(&mut Data)) -> MeshPacket {
    if let Some(mesh_packet::PayloadVariant::Decoded(d)) = &mut p.payload_variant {
        f(d);
    }
    p
}

fn filter() -> DmFilter {
    let mut f = DmFilter::new();
    f.set_local(NodeId(ME));
    f
}

fn db() -> MeshView {
    let mut db = MeshView::new();
    db.insert(
        NodeId(ALICE),
        NodeNames {
            long_name: "Alice".into(),
            short_name: "AL".into(),
        },
    );
    db
}

/// The short form of a verdict the table compares against.
#[derive(Debug, PartialEq)]
enum Want {
    Dm(String),
    Broadcast(String),
    Skip(SkipReason),
}

fn short(v: &Verdict) -> Want {
    match v {
        Verdict::Dm(m) => Want::Dm(m.text.clone()),
        Verdict::Broadcast(m) => Want::Broadcast(m.text.clone()),
        Verdict::Skip(r) => Want::Skip(*r),
    }
}

#[test]
fn rules_table() {
    use SkipReason::*;
    let bcast = NodeId::BROADCAST.0;
    let encrypted = MeshPacket {
        payload_variant: Some(mesh_packet::PayloadVariant::Encrypted(vec![1, 2, 3])),
        ..text(ALICE, ME, 1, b"x")
    };
    let no_payload = MeshPacket {
        payload_variant: None,
        ..text(ALICE, ME, 1, b"x")
    };
    let cases: Vec<(&str, MeshPacket, Want)> = vec![
        (
            "plain dm",
            text(ALICE, ME, 1, b"hello"),
            Want::Dm("hello".into()),
        ),
        (
            "trimmed",
            text(ALICE, ME, 1, b"  hi \n"),
            Want::Dm("hi".into()),
        ),
        (
            "dash e-acute",
            text(ALICE, ME, 1, "—é".as_bytes()),
            Want::Dm("—é".into()),
        ),
        (
            "invalid utf-8",
            text(ALICE, ME, 1, b"a\xffb"),
            Want::Dm("a\u{fffd}b".into()),
        ),
        (
            "broadcast",
            text(ALICE, bcast, 1, b"all"),
            Want::Broadcast("all".into()),
        ),
        ("encrypted", encrypted, Want::Skip(NotDecoded)),
        ("no payload", no_payload, Want::Skip(NotDecoded)),
        (
            "position port",
            with_data(text(ALICE, ME, 1, b"x"), |d| {
                d.portnum = PortNum::PositionApp as i32
            }),
            Want::Skip(NotText),
        ),
        ("from us", text(ME, ME, 1, b"echo"), Want::Skip(FromUs)),
        (
            "our broadcast echo",
            text(ME, bcast, 1, b"echo"),
            Want::Skip(FromUs),
        ),
        ("from zero", text(0, ME, 1, b"x"), Want::Skip(FromZero)),
        (
            "from the broadcast address",
            text(bcast, ME, 1, b"x"),
            Want::Skip(FromBroadcast),
        ),
        (
            "tapback",
            with_data(text(ALICE, ME, 1, "👍".as_bytes()), |d| d.emoji = 1),
            Want::Skip(Tapback),
        ),
        ("empty", text(ALICE, ME, 1, b""), Want::Skip(Empty)),
        (
            "whitespace only",
            text(ALICE, ME, 1, b" \t\n"),
            Want::Skip(Empty),
        ),
        (
            "dm for another node",
            text(ALICE, 55, 1, b"x"),
            Want::Skip(NotForUs),
        ),
    ];
    let now = Instant::now();
    for (name, p, want) in cases {
        let got = filter().accept(&p, false, now, &db(), SystemTime::UNIX_EPOCH);
        assert_eq!(short(&got), want, "{name}");
    }
}

#[test]
fn unknown_local_number_accepts_only_broadcasts() {
    let mut f = DmFilter::new();
    let now = Instant::now();
    let dm = f.accept(
        &text(ALICE, ME, 1, b"x"),
        false,
        now,
        &db(),
        SystemTime::UNIX_EPOCH,
    );
    assert_eq!(dm, Verdict::Skip(SkipReason::NotForUs));
    let b = f.accept(
        &text(ALICE, u32::MAX, 2, b"x"),
        false,
        now,
        &db(),
        SystemTime::UNIX_EPOCH,
    );
    assert!(matches!(b, Verdict::Broadcast(_)));
}

#[test]
fn message_fields() {
    let at = SystemTime::UNIX_EPOCH + Duration::from_secs(5);
    let mut p = text(ALICE, ME, 42, b"hi");
    p.pki_encrypted = true;
    let Verdict::Dm(m) = filter().accept(&p, false, Instant::now(), &db(), at) else {
        panic!("not a dm");
    };
    assert_eq!(m.from, NodeId(ALICE));
    assert_eq!(m.to, NodeId(ME));
    assert_eq!(m.channel, 1);
    assert_eq!(m.packet_id, 42);
    assert_eq!(m.hops, Some(2));
    assert_eq!(m.received_at, at);
    assert_eq!(m.names.map(|n| n.long_name), Some("Alice".to_string()));
    assert!(m.pki);
    assert_eq!(m.public_key, None, "no key given");
    assert!(!m.via_mqtt);

    // The key comes with a PKI DM only, and only when it is 32 bytes.
    let key_cases = [
        (true, vec![9; 32], false, Some(PublicKey([9; 32]))),
        (true, vec![9; 31], false, None),
        (false, vec![9; 32], true, None),
    ];
    for (pki, key, via_mqtt, want) in key_cases {
        let mut p = text(ALICE, ME, 43, b"hi");
        (p.pki_encrypted, p.public_key, p.via_mqtt) = (pki, key, via_mqtt);
        let Verdict::Dm(m) = filter().accept(&p, false, Instant::now(), &db(), at) else {
            panic!("not a dm");
        };
        assert_eq!((m.public_key, m.via_mqtt), (want, via_mqtt), "pki {pki}");
    }

    // Signed (firmware 2.8, licensed) counts for a DM without PKI; a PKI DM's key says more.
    for (pki, signed, want) in [
        (false, true, true),
        (false, false, false),
        (true, true, false),
    ] {
        let mut p = text(ALICE, ME, 44, b"hi");
        p.pki_encrypted = pki;
        let Verdict::Dm(m) = filter().accept(&p, signed, Instant::now(), &db(), at) else {
            panic!("not a dm");
        };
        assert_eq!(m.signed, want, "pki {pki} signed {signed}");
    }

    let hop_cases = [(0, 0, None), (3, 3, Some(0)), (7, 2, Some(5)), (2, 5, None)];
    for (hop_start, hop_limit, want) in hop_cases {
        let mut p = text(9, ME, 1, b"x");
        p.hop_start = hop_start;
        p.hop_limit = hop_limit;
        let Verdict::Dm(m) = filter().accept(&p, false, Instant::now(), &db(), at) else {
            panic!("not a dm");
        };
        assert_eq!(m.hops, want, "hop_start {hop_start} hop_limit {hop_limit}");
        assert_eq!(m.names, None);
    }
}

#[test]
fn snr_and_positions_come_with_the_message() {
    use crate::radio::GeoPoint;
    let here = GeoPoint {
        lat: 47.0,
        lon: 8.0,
        uncertainty_km: 0.0,
    };
    let there = GeoPoint {
        lat: 47.1,
        lon: 8.1,
        uncertainty_km: 0.0,
    };
    let at = SystemTime::UNIX_EPOCH;
    let mut with_both = db();
    with_both.set_position(NodeId(ME), here, 0);
    with_both.set_position(NodeId(ALICE), there, 0);
    let mut only_ours = db();
    only_ours.set_position(NodeId(ME), here, 0);
    let heard = MeshPacket {
        rx_snr: -7.5,
        rx_rssi: -110,
        ..text(ALICE, ME, 1, b"hi")
    };
    let via_api = text(ALICE, ME, 2, b"hi");
    let cases = [
        (&heard, &with_both, Some(-7.5), Some(there), Some(here)),
        (&via_api, &with_both, None, Some(there), Some(here)),
        (&heard, &only_ours, Some(-7.5), None, Some(here)),
        (&heard, &db(), Some(-7.5), None, None),
    ];
    for (p, db, snr, position, local) in cases {
        let Verdict::Dm(m) = filter().accept(p, false, Instant::now(), db, at) else {
            panic!("not a dm");
        };
        assert_eq!(
            (m.snr, m.position, m.local_position),
            (snr, position, local),
            "{p:?}"
        );
    }
}

#[test]
fn duplicates_are_skipped_until_expiry_and_across_reconnects() {
    let mut f = filter();
    let t0 = Instant::now();
    let db = db();
    let at = SystemTime::UNIX_EPOCH;
    let dm = text(ALICE, ME, 1, b"hi");
    let bc = text(ALICE, u32::MAX, 2, b"all");
    assert!(matches!(f.accept(&dm, false, t0, &db, at), Verdict::Dm(_)));
    assert!(matches!(
        f.accept(&bc, false, t0, &db, at),
        Verdict::Broadcast(_)
    ));
    f.set_local(NodeId(ME));
    let later = t0 + Duration::from_secs(3600);
    assert_eq!(
        f.accept(&dm, false, later, &db, at),
        Verdict::Skip(SkipReason::Duplicate)
    );
    assert_eq!(
        f.accept(&bc, false, later, &db, at),
        Verdict::Skip(SkipReason::Duplicate)
    );
    let other_sender = text(8, ME, 1, b"hi");
    assert!(matches!(
        f.accept(&other_sender, false, later, &db, at),
        Verdict::Dm(_)
    ));
    let expired = t0 + DEDUP_TTL;
    assert!(matches!(
        f.accept(&dm, false, expired, &db, at),
        Verdict::Dm(_)
    ));
    let zero_id = text(ALICE, ME, 0, b"hi");
    assert!(matches!(
        f.accept(&zero_id, false, later, &db, at),
        Verdict::Dm(_)
    ));
    assert!(matches!(
        f.accept(&zero_id, false, later, &db, at),
        Verdict::Dm(_)
    ));
}

#[test]
fn dedup_capacity_is_bounded_and_evicts_oldest() {
    let mut c = DedupCache::new(DEDUP_TTL, 3);
    let now = Instant::now();
    for id in 1..=4 {
        assert!(c.insert((1, id), now));
    }
    assert_eq!(c.len(), 3);
    assert!(c.insert((1, 1), now), "oldest was evicted");
    assert!(!c.insert((1, 4), now));
    assert_eq!(c.len(), 3);

    let mut big = DedupCache::new(DEDUP_TTL, DEDUP_CAPACITY);
    for id in 0..(DEDUP_CAPACITY as u32 + 500) {
        big.insert((2, id), now);
    }
    assert_eq!(big.len(), DEDUP_CAPACITY);
    assert_eq!(big.order.len(), DEDUP_CAPACITY);
}
