//! Per language: a question, what the daemon decides, and the sentence it writes.

use super::*;

use meshtastic::Message as _;
use meshtastic::protobufs::{DeviceMetrics, EnvironmentMetrics, NodeInfo, Position, User};

const NOW: i64 = 1_800_000_000;
const ME: u32 = 0x100;
const ASKER: u32 = 0x200;
const HARBOR: u32 = 0x300;
const LIGHT: u32 = 0x400;
const FOREST: u32 = 0x500;
const GATEWAY: u32 = 0x600;
const WX: u32 = 0x700;

struct Peer {
    num: u32,
    long: &'static str,
    short: &'static str,
    at: Option<(i32, i32)>,
    ago: i64,
    hops: u32,
    battery: Option<u32>,
}

fn info(p: &Peer) -> NodeInfo {
    NodeInfo {
        num: p.num,
        user: Some(User {
            long_name: p.long.into(),
            short_name: p.short.into(),
            ..Default::default()
        }),
        position: p.at.map(|(lat, lon)| Position {
            latitude_i: Some(lat),
            longitude_i: Some(lon),
            ..Default::default()
        }),
        last_heard: u32::try_from(NOW - p.ago).unwrap(),
        hops_away: Some(p.hops),
        snr: 9.5,
        device_metrics: p.battery.map(|b| DeviceMetrics {
            battery_level: Some(b),
            voltage: Some(3.4),
            ..Default::default()
        }),
        ..Default::default()
    }
}

/// Our node at Zürich; Harbor Base 2.8 km north of it; Ann (the asker) shares no position.
fn view() -> MeshView {
    let mut v = MeshView::new();
    v.set_me(NodeId(ME));
    let peers = [
        Peer {
            num: ME,
            long: "Club Bot",
            short: "BOT",
            at: Some((473_700_000, 85_400_000)),
            ago: 0,
            hops: 0,
            battery: None,
        },
        Peer {
            num: ASKER,
            long: "Ann",
            short: "ANN",
            at: None,
            ago: 60,
            hops: 1,
            battery: None,
        },
        Peer {
            num: HARBOR,
            long: "Harbor Base",
            short: "HRB",
            at: Some((473_951_800, 85_400_000)),
            ago: 240,
            hops: 2,
            battery: Some(64),
        },
        Peer {
            num: LIGHT,
            long: "Lighthouse",
            short: "LH",
            at: None,
            ago: 1500,
            hops: 1,
            battery: None,
        },
        Peer {
            num: FOREST,
            long: "Forest Camp",
            short: "FCMP",
            at: None,
            ago: 7200,
            hops: 2,
            battery: Some(12),
        },
        Peer {
            num: GATEWAY,
            long: "Harbour Gateway",
            short: "HRBR",
            at: None,
            ago: 120,
            hops: 0,
            battery: Some(101),
        },
        Peer {
            num: WX,
            long: "Ridge Weather",
            short: "RWX",
            at: None,
            ago: 300,
            hops: 3,
            battery: None,
        },
    ];
    for p in &peers {
        v.update_from_node_info(&info(p));
    }
    let t = meshtastic::protobufs::Telemetry {
        time: 0,
        variant: Some(
            meshtastic::protobufs::telemetry::Variant::EnvironmentMetrics(EnvironmentMetrics {
                temperature: Some(3.5),
                ..Default::default()
            }),
        ),
    };
    let p = meshtastic::protobufs::MeshPacket {
        from: WX,
        to: u32::MAX,
        hop_start: 3,
        hop_limit: 0,
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
    v
}

fn field(num: u32, field: Field) -> Option<Lookup> {
    Some(Lookup::Field {
        node: NodeId(num),
        field,
        low: false,
    })
}

fn low(num: u32) -> Option<Lookup> {
    Some(Lookup::Field {
        node: NodeId(num),
        field: Field::Battery,
        low: true,
    })
}

/// Each question: what is decided, and the daemon's sentence ("" when the model answers).
fn check(lang: Lang, cases: &[(&str, Option<Lookup>, &str)]) {
    let v = view();
    let cfg = MeshConfig::default();
    let lens = Lens::new(&cfg, &v);
    let nodes = lens.nodes();
    for (question, want, sentence) in cases {
        let got = decide(
            question,
            nodes.iter().filter_map(|s| s.names().map(|n| (s.id, n))),
        );
        assert_eq!(got, *want, "{lang:?}: {question}");
        let said = answer(&v, &cfg, question, NodeId(ASKER), NOW, lang);
        match sentence {
            &"" => assert_eq!(said, None, "{lang:?}: {question}"),
            s => assert_eq!(said.as_deref(), Some(*s), "{lang:?}: {question}"),
        }
    }
}

const LIST: &str = "Ann 1m, Harbour Gateway 2m, Harbor Base 4m, Ridge Weather 5m";

#[test]
fn english() {
    use Field::*;
    check(
        Lang::En,
        &[
            // The channel's use named alone asks for an explanation: the model's.
            (
                "What does the channel utilization number tell me?",
                None,
                "",
            ),
            (
                "How busy is the channel?",
                Some(Lookup::Channel),
                "My node has not measured the channel yet.",
            ),
            (
                "Which node is closest to me?",
                Some(Lookup::Nearest),
                "Nearest to my node (yours shares no position): Harbor Base (HRB) 2.8 km N.",
            ),
            (
                "What does Ridge Weather read?",
                Some(Lookup::Card(NodeId(WX))),
                "Ridge Weather (RWX) is 3 hops away (last heard 5 min ago). Temperature 3.5 °C (5 min ago). Ridge Weather (RWX) shares no position, so I don't know how far it is.",
            ),
            (
                "How many hops away is Harbor Base?",
                field(HARBOR, Hops),
                "Harbor Base (HRB) is 2 hops away (last heard 4 min ago).",
            ),
            (
                "Which nodes have you heard in the last 15 minutes?",
                Some(Lookup::Within(15)),
                &format!("Heard in the last 15 min (4): {LIST}"),
            ),
            (
                "Is the Lighthouse node still around?",
                field(LIGHT, Up),
                "Yes: Lighthouse (LH) was last heard 25 min ago.",
            ),
            (
                "Is Forest Camp's battery getting low?",
                low(FOREST),
                "Yes. Forest Camp (FCMP): battery 12 % (low), reported 2 h ago.",
            ),
            (
                "What's the battery of Harbor Base?",
                field(HARBOR, Battery),
                "Harbor Base (HRB): battery 64 % (good), reported 4 min ago.",
            ),
            (
                "Is the Harbour Gateway running on battery?",
                field(GATEWAY, Battery),
                "Harbour Gateway (HRBR) is on external power, not on battery (reported 2 min ago).",
            ),
            (
                "Is Forest Camp still up?",
                field(FOREST, Up),
                "Not in the last hour: Forest Camp (FCMP) was last heard 2 h ago.",
            ),
            (
                "When did you last hear Forest Camp?",
                field(FOREST, Heard),
                "Forest Camp (FCMP) was last heard 2 h ago.",
            ),
            (
                "How far is Harbor Base?",
                field(HARBOR, Distance),
                "Harbor Base (HRB) is 2.8 km N of my node (position from 4 min ago).",
            ),
            (
                "Where is Forest Camp?",
                field(FOREST, Distance),
                "Forest Camp (FCMP) shares no position, so I don't know how far it is.",
            ),
            (
                "What's the temperature at Ridge Weather?",
                field(WX, Temperature),
                "Ridge Weather (RWX): temperature 3.5 °C, reported 5 min ago.",
            ),
            (
                "What's the temperature at Forest Camp?",
                field(FOREST, Temperature),
                "Forest Camp (FCMP) has sent no temperature reading.",
            ),
            (
                "What's the SNR of the Harbour Gateway?",
                field(GATEWAY, Signal),
                "Harbour Gateway (HRBR): SNR 9.5 dB, reported 2 min ago.",
            ),
            (
                "Who is around right now?",
                Some(Lookup::Around),
                "Heard in 1h (5): Ann 1m, Harbour Gateway 2m, Harbor Base 4m, Ridge Weather 5m, \
                 Lighthouse 25m",
            ),
            // Words wanted, or more than one field or node: the model's, with the facts.
            ("Should I replace Forest Camp's battery?", None, ""),
            ("Compare Harbor Base and Forest Camp", None, ""),
            ("Battery and SNR of Harbor Base?", None, ""),
            ("Tell me about Forest Camp", None, ""),
            ("How can I make my node's battery last longer?", None, ""),
            // A node the view lacks: not a lookup (the daemon's unknown-node reply).
            ("What's the battery of the Foobar relay?", None, ""),
        ],
    );
}

#[test]
fn who_is_around_is_the_nodes_list() {
    let v = view();
    let cfg = MeshConfig::default();
    let said = answer(&v, &cfg, "who is around?", NodeId(ASKER), NOW, Lang::En);
    assert_eq!(
        said.as_deref(),
        Some(
            "Heard in 1h (5): Ann 1m, Harbour Gateway 2m, Harbor Base 4m, Ridge Weather 5m, Lighthouse 25m"
        ),
    );
}

#[test]
fn german() {
    use Field::*;
    check(
        Lang::De,
        &[
            ("Was sagt mir die Zahl der Kanalauslastung?", None, ""),
            (
                "Welcher Knoten ist mir am nächsten?",
                Some(Lookup::Nearest),
                "Am nächsten bei meinem Knoten (deiner teilt keine Position): Harbor Base (HRB) 2.8 km N.",
            ),
            (
                "Was misst die Wetterstation Ridge Weather?",
                Some(Lookup::Card(NodeId(WX))),
                "Ridge Weather (RWX) ist 3 Hops entfernt (zuletzt gehört vor 5 min). Temperatur 3.5 °C (vor 5 min). Ridge Weather (RWX) teilt keine Position, daher weiß ich nicht, wie weit er weg ist.",
            ),
            (
                "Läuft das Harbour Gateway auf Akku?",
                field(GATEWAY, Battery),
                "Harbour Gateway (HRBR) hängt am Netz, nicht am Akku (gemeldet vor 2 min).",
            ),
            (
                "Wer ist gerade in der Nähe?",
                Some(Lookup::Around),
                "Gehört in 1 h (5): Ann 1m, Harbour Gateway 2m, Harbor Base 4m, Ridge Weather 5m, Lighthouse 25m",
            ),
            (
                "Wie viele Hops ist Harbor Base entfernt?",
                field(HARBOR, Hops),
                "Harbor Base (HRB) ist 2 Hops entfernt (zuletzt gehört vor 4 min).",
            ),
            (
                "Welche Knoten hast du in den letzten 15 Minuten gehört?",
                Some(Lookup::Within(15)),
                &format!("Gehört in den letzten 15 Min. (4): {LIST}"),
            ),
            (
                "Ist der Lighthouse-Knoten noch da?",
                field(LIGHT, Up),
                "Ja: Lighthouse (LH) wurde zuletzt vor 25 min gehört.",
            ),
            (
                "Wird der Akku von Forest Camp knapp?",
                low(FOREST),
                "Ja. Forest Camp (FCMP): Akku 12 % (niedrig), gemeldet vor 2 h.",
            ),
            ("Warum ist der Akku von Forest Camp so schwach?", None, ""),
        ],
    );
}

#[test]
fn spanish() {
    use Field::*;
    check(
        Lang::Es,
        &[
            (
                "¿Qué nodo está más cerca de mí?",
                Some(Lookup::Nearest),
                "Lo más cerca de mi nodo (el tuyo no comparte posición): Harbor Base (HRB) 2.8 km N.",
            ),
            (
                "¿Quién está por aquí ahora?",
                Some(Lookup::Around),
                "Oídos en 1 h (5): Ann 1m, Harbour Gateway 2m, Harbor Base 4m, Ridge Weather 5m, Lighthouse 25m",
            ),
            (
                "¿A cuántos saltos está Harbor Base?",
                field(HARBOR, Hops),
                "Harbor Base (HRB) está a 2 saltos (oído hace 4 min).",
            ),
            (
                "¿Qué nodos has oído en los últimos 15 minutos?",
                Some(Lookup::Within(15)),
                &format!("Oídos en los últimos 15 min (4): {LIST}"),
            ),
            (
                "¿Sigue activo el nodo Lighthouse?",
                field(LIGHT, Up),
                "Sí: Lighthouse (LH) se oyó por última vez hace 25 min.",
            ),
            (
                "¿La batería de Forest Camp está baja?",
                low(FOREST),
                "Sí. Forest Camp (FCMP): batería 12 % (baja), informado hace 2 h.",
            ),
            ("¿Por qué la batería de Forest Camp está baja?", None, ""),
        ],
    );
}

#[test]
fn portuguese() {
    use Field::*;
    check(
        Lang::Pt,
        &[
            (
                "Quem está por aqui agora?",
                Some(Lookup::Around),
                "Ouvidos em 1 h (5): Ann 1m, Harbour Gateway 2m, Harbor Base 4m, Ridge Weather 5m, Lighthouse 25m",
            ),
            (
                "O Harbour Gateway está funcionando na bateria?",
                field(GATEWAY, Battery),
                "Harbour Gateway (HRBR) está na energia externa, não na bateria (informado há 2 min).",
            ),
            (
                "Quantos saltos até Harbor Base?",
                field(HARBOR, Hops),
                "Harbor Base (HRB) está a 2 saltos (ouvido há 4 min).",
            ),
            (
                "Quais nós você ouviu nos últimos 15 minutos?",
                Some(Lookup::Within(15)),
                &format!("Ouvidos nos últimos 15 min (4): {LIST}"),
            ),
            (
                "O Lighthouse ainda está ativo?",
                field(LIGHT, Up),
                "Sim: Lighthouse (LH) foi ouvido pela última vez há 25 min.",
            ),
            (
                "A bateria do Forest Camp está baixa?",
                low(FOREST),
                "Sim. Forest Camp (FCMP): bateria 12 % (baixa), informado há 2 h.",
            ),
            ("Devo trocar a bateria do Forest Camp?", None, ""),
        ],
    );
}

#[test]
fn french() {
    use Field::*;
    check(
        Lang::Fr,
        &[
            (
                "Il fait combien à Ridge Weather en ce moment ?",
                field(WX, Temperature),
                "Ridge Weather (RWX) : température 3.5 °C, signalé il y a 5 min.",
            ),
            (
                "Le canal est-il chargé en ce moment ?",
                Some(Lookup::Channel),
                "Mon nœud n'a pas encore mesuré le canal.",
            ),
            (
                "Quelle est l'humidité à Ridge Weather ?",
                field(WX, Humidity),
                "Ridge Weather (RWX) n'a envoyé aucune mesure (humidité).",
            ),
            (
                "À combien de sauts est Harbor Base ?",
                field(HARBOR, Hops),
                "Harbor Base (HRB) est à 2 sauts (entendu il y a 4 min).",
            ),
            (
                "Quels nœuds as-tu entendus ces 15 dernières minutes ?",
                Some(Lookup::Within(15)),
                &format!("Entendus ces 15 dernières min (4) : {LIST}"),
            ),
            (
                "Le nœud Lighthouse est-il toujours là ?",
                field(LIGHT, Up),
                "Oui : Lighthouse (LH) a été entendu pour la dernière fois il y a 25 min.",
            ),
            (
                "La batterie de Forest Camp est-elle faible ?",
                low(FOREST),
                "Oui. Forest Camp (FCMP) : batterie 12 % (faible), signalé il y a 2 h.",
            ),
            (
                "Pourquoi la batterie de Forest Camp est-elle faible ?",
                None,
                "",
            ),
        ],
    );
}

#[test]
fn italian() {
    use Field::*;
    check(
        Lang::It,
        &[
            (
                "Quanta batteria ha l'Harbor Base?",
                field(HARBOR, Battery),
                "Harbor Base (HRB): batteria 64 % (buona), riferito 4 min fa.",
            ),
            (
                "Quando hai sentito Harbor Base l'ultima volta?",
                field(HARBOR, Heard),
                "Harbor Base (HRB) è stato sentito l'ultima volta 4 min fa.",
            ),
            (
                "A quanti salti è Harbor Base?",
                field(HARBOR, Hops),
                "Harbor Base (HRB) è a 2 salti (sentito 4 min fa).",
            ),
            (
                "Quali nodi hai sentito negli ultimi 15 minuti?",
                Some(Lookup::Within(15)),
                &format!("Sentiti negli ultimi 15 min ({}): {LIST}", 4),
            ),
            (
                "Il nodo Lighthouse è ancora attivo?",
                field(LIGHT, Up),
                "Sì: Lighthouse (LH) è stato sentito l'ultima volta 25 min fa.",
            ),
            (
                "La batteria di Forest Camp è scarica?",
                low(FOREST),
                "Sì. Forest Camp (FCMP): batteria 12 % (bassa), riferito 2 h fa.",
            ),
            ("Perché la batteria di Forest Camp è scarica?", None, ""),
        ],
    );
}

#[test]
fn dutch() {
    use Field::*;
    check(
        Lang::Nl,
        &[
            (
                "Hoe druk is het kanaal op dit moment?",
                Some(Lookup::Channel),
                "Mijn node heeft het kanaal nog niet gemeten.",
            ),
            (
                "Wie is er nu in de buurt?",
                Some(Lookup::Around),
                "Gehoord in 1 u (5): Ann 1m, Harbour Gateway 2m, Harbor Base 4m, Ridge Weather 5m, Lighthouse 25m",
            ),
            (
                "Hoeveel hops is Harbor Base verwijderd?",
                field(HARBOR, Hops),
                "Harbor Base (HRB) is 2 hops ver (gehoord 4 min geleden).",
            ),
            (
                "Welke nodes heb je de afgelopen 15 minuten gehoord?",
                Some(Lookup::Within(15)),
                &format!("Gehoord in de laatste 15 min (4): {LIST}"),
            ),
            (
                "Is de Lighthouse node nog actief?",
                field(LIGHT, Up),
                "Ja: Lighthouse (LH) is voor het laatst 25 min geleden gehoord.",
            ),
            (
                "Is de batterij van Forest Camp bijna leeg?",
                low(FOREST),
                "Ja. Forest Camp (FCMP): batterij 12 % (laag), gemeld 2 uur geleden.",
            ),
            ("Waarom is de batterij van Forest Camp leeg?", None, ""),
        ],
    );
}

#[test]
fn polish() {
    use Field::*;
    check(
        Lang::Pl,
        &[
            (
                "Co pokazuje stacja Ridge Weather?",
                Some(Lookup::Card(NodeId(WX))),
                "Ridge Weather (RWX): liczba skoków 3 (słyszany 5 min temu). Temperatura 3.5 °C (5 min temu). Ridge Weather (RWX) nie udostępnia pozycji, więc nie wiem, jak daleko jest.",
            ),
            (
                "Kto jest teraz w pobliżu?",
                Some(Lookup::Around),
                "Słyszane w 1 h (5): Ann 1m, Harbour Gateway 2m, Harbor Base 4m, Ridge Weather 5m, Lighthouse 25m",
            ),
            (
                "Ile skoków do Harbor Base?",
                field(HARBOR, Hops),
                "Harbor Base (HRB): liczba skoków 2 (słyszany 4 min temu).",
            ),
            (
                "Które węzły słyszałeś w ostatnich 15 minutach?",
                Some(Lookup::Within(15)),
                &format!("Słyszane w ostatnich 15 min (4): {LIST}"),
            ),
            (
                "Czy węzeł Lighthouse jest nadal aktywny?",
                field(LIGHT, Up),
                "Tak: Lighthouse (LH) ostatnio słyszany 25 min temu.",
            ),
            (
                "Czy bateria Forest Camp jest słaba?",
                low(FOREST),
                "Tak. Forest Camp (FCMP): bateria 12 % (niska), zgłoszone 2 godz. temu.",
            ),
            ("Dlaczego bateria Forest Camp jest słaba?", None, ""),
        ],
    );
}

#[test]
fn through_the_lens_hidden_nodes_and_positions() {
    let v = view();
    let hidden = MeshConfig {
        hidden: vec![super::super::Hidden::parse("Harbor Base")],
        ..MeshConfig::default()
    };
    let q = "How many hops away is Harbor Base?";
    let said = answer(&v, &hidden, q, NodeId(ASKER), NOW, Lang::En);
    assert!(
        said.as_deref().is_none_or(|s| !s.contains("Harbor Base")),
        "{said:?}"
    );
    let list = answer(&v, &hidden, "who is around?", NodeId(ASKER), NOW, Lang::En);
    assert!(!list.unwrap_or_default().contains("Harbor Base"));
    let off = MeshConfig {
        positions: false,
        ..MeshConfig::default()
    };
    let said = answer(
        &v,
        &off,
        "How far is Harbor Base?",
        NodeId(ASKER),
        NOW,
        Lang::En,
    );
    assert_eq!(
        said.as_deref(),
        Some("I don't tell positions or distances.")
    );
    let mesh_off = MeshConfig {
        enabled: false,
        ..MeshConfig::default()
    };
    assert_eq!(answer(&v, &mesh_off, q, NodeId(ASKER), NOW, Lang::En), None);
    // A position heard with its uncertainty is said roughly.
    let mut rough = view();
    rough.set_position(
        NodeId(FOREST),
        GeoPoint {
            lat: 47.42,
            lon: 8.54,
            uncertainty_km: 1.5,
        },
        NOW - 60,
    );
    let said = answer(
        &rough,
        &MeshConfig::default(),
        "How far is Forest Camp?",
        NodeId(ASKER),
        NOW,
        Lang::De,
    );
    assert_eq!(
        said.as_deref(),
        Some("Forest Camp (FCMP) ist ~6 km N von meinem Knoten (Position von vor 1 min).")
    );
}

#[test]
fn a_nodes_card_is_in_the_askers_language() {
    let v = view();
    let cfg = MeshConfig::default();
    let card_of = |name: &str, lang: Lang| card(&v, &cfg, name, NodeId(ASKER), NOW, lang);
    let cases = [
        (
            "harbor",
            Lang::En,
            "!00000300 Harbor Base (HRB) is 2 hops away (last heard 4 min ago). Battery 64 % \
             (4 min ago), voltage 3.40 V (4 min ago). Harbor Base (HRB) is 2.8 km N of my \
             node (position from 4 min ago).",
        ),
        (
            "ridge weather",
            Lang::En,
            "!00000700 Ridge Weather (RWX) is 3 hops away (last heard 5 min ago). \
             Temperature 3.5 °C (5 min ago). Ridge Weather (RWX) shares no position, so I \
             don't know how far it is.",
        ),
        (
            "nowhere",
            Lang::En,
            "No node named \"nowhere\" in my list. !nodes: who I hear.",
        ),
        (
            "nirgends",
            Lang::De,
            "Kein Knoten namens \"nirgends\" in meiner Liste. !nodes: wen ich höre.",
        ),
    ];
    for (name, lang, want) in cases {
        assert_eq!(card_of(name, lang), want, "{lang} {name}");
    }
    // Every language says it in its own words: nothing of the English card but the numbers.
    let english = card_of("harbor", Lang::En);
    for lang in Lang::ALL.into_iter().skip(1) {
        let card = card_of("harbor", lang);
        assert!(
            card.starts_with("!00000300 ") && card.contains("64 %"),
            "{lang}: {card}"
        );
        assert_ne!(card, english, "{lang}");
        assert!(
            !card.contains("hops away") && !card.contains("battery"),
            "{lang}: {card}"
        );
    }
    // Hidden nodes have no card; an external power supply is no battery level.
    let hidden = MeshConfig {
        hidden: vec![super::super::Hidden::parse("Harbor Base")],
        ..MeshConfig::default()
    };
    let other = card(&v, &hidden, "harbor base", NodeId(ASKER), NOW, Lang::En);
    assert!(
        !other.contains("Harbor Base") && !other.contains("00000300"),
        "{other}"
    );
    let gateway = card_of("harbour gateway", Lang::En);
    assert!(!gateway.contains("101"), "{gateway}");
}
