use super::*;

fn names(long: &str, short: &str) -> NodeNames {
    NodeNames {
        long_name: long.into(),
        short_name: short.into(),
    }
}

fn mesh() -> Vec<(NodeId, NodeNames)> {
    vec![
        (NodeId(1), names("Hilltop Relay", "HILL")),
        (NodeId(2), names("Ridge Weather", "RWX")),
        (NodeId(3), names("Bob's Base", "BOB")),
        (NodeId(4), names("Chalet Müller", "CHM")),
        (NodeId(5), names("Lake Node", "LAKE")),
        (NodeId(6), names("Base Station", "BS")),
        (NodeId(7), names("Valley Repeater", "VAL")),
    ]
}

const ASKER: NodeId = NodeId(99);

/// What a message asks, as the table says it.
type Want = Option<(Topic, Vec<Reading>)>;

fn check(message: &str) -> Want {
    let m = mesh();
    question(message, m.iter().map(|(id, n)| (*id, n)), ASKER).map(|a| (a.topic, a.readings))
}

#[test]
fn what_a_message_asks_of_the_mesh() {
    use Reading::*;
    let nodes = |ids: &[u32]| Topic::Nodes(ids.iter().map(|&i| NodeId(i)).collect());
    let cases: Vec<(&str, Want)> = vec![
        ("is the hilltop relay up?", Some((nodes(&[1]), vec![]))),
        ("Is the Hilltop Relay up?", Some((nodes(&[1]), vec![]))),
        (
            "whats the batt on hiltop",
            Some((nodes(&[1]), vec![Battery])),
        ),
        ("how's HILL doing", Some((nodes(&[1]), vec![]))),
        (
            "What does the weather node on the ridge read?",
            Some((nodes(&[2]), vec![Temperature, Humidity, Pressure])),
        ),
        (
            "how far is bob's place from me",
            Some((nodes(&[3]), vec![Distance])),
        ),
        (
            "temperature at chalet muller?",
            Some((nodes(&[4]), vec![Temperature])),
        ),
        ("CHÂLET MÜLLER battery", Some((nodes(&[4]), vec![Battery]))),
        (
            "when did you last hear the lake node",
            Some((nodes(&[5]), vec![LastHeard])),
        ),
        (
            "is the base station online",
            Some((nodes(&[6]), vec![LastHeard])),
        ),
        (
            "snr and hops of the valley repeater?",
            Some((nodes(&[7]), vec![Hops, Signal])),
        ),
        (
            "compare hilltop and the valley repeater",
            Some((nodes(&[7, 1]), vec![])),
        ),
        ("who is around?", Some((Topic::Around, vec![]))),
        (
            "Which nodes did you hear lately?",
            Some((Topic::Around, vec![LastHeard])),
        ),
        (
            "which node is closest to me",
            Some((Topic::Nearest, vec![])),
        ),
        ("how busy is the channel?", Some((Topic::Channel, vec![]))),
        (
            "Wie ist die Kanalauslastung?",
            Some((Topic::Channel, vec![])),
        ),
        (
            "Ist der Kanal stark belegt?",
            Some((Topic::Channel, vec![])),
        ),
        (
            "Wie hoch ist die Auslastung des Kanals heute Abend?",
            Some((Topic::Channel, vec![])),
        ),
        ("¿Está ocupado el canal?", Some((Topic::Channel, vec![]))),
        (
            "O canal está muito ocupado?",
            Some((Topic::Channel, vec![])),
        ),
        ("Le canal est-il occupé ?", Some((Topic::Channel, vec![]))),
        (
            "Il canale è molto occupato?",
            Some((Topic::Channel, vec![])),
        ),
        ("Is het kanaal druk?", Some((Topic::Channel, vec![]))),
        ("Czy kanał jest zajęty?", Some((Topic::Channel, vec![]))),
        ("Was kostet ein Kanalarbeiter?", None),
        ("¿Cómo uso la red de mi casa?", None),
        ("How do I charge my network node?", None),
        (
            "what's the channel utilization",
            Some((Topic::Channel, vec![])),
        ),
        (
            "what's the battery of the foobar relay",
            Some((Topic::Unknown, vec![Battery])),
        ),
        ("is the summit router up?", Some((Topic::Unknown, vec![]))),
        (
            "how is my node's battery",
            Some((nodes(&[99]), vec![Battery])),
        ),
        (
            "When did you last hear the Golden Valley repeater?",
            Some((Topic::Unknown, vec![LastHeard])),
        ),
        ("what is the capital of France?", None),
        ("How is my signal?", None),
        ("can you hear me?", None),
        ("what's my SNR to you", None),
        ("walk up the hill with Tom", None),
        ("tell me a joke about lakes", None),
    ];
    for (message, want) in cases {
        let got = check(message);
        // `Around` asked with a reading word keeps it; only the topic matters there.
        let got = match (got, &want) {
            (Some((Topic::Around, _)), Some((Topic::Around, r))) => {
                Some((Topic::Around, r.clone()))
            }
            (got, _) => got,
        };
        assert_eq!(got, want, "{message:?}");
    }
}

/// French and Italian elide an article before a vowel: "l'Hilltop Relay" is the Hilltop
/// Relay (as one word it named no node, and the daemon said it did not know it); a French
/// channel "chargé" is busy, a battery's "charge" is not.
#[test]
fn elided_articles_and_french_channel_words() {
    use Reading::*;
    let nodes = |ids: &[u32]| Topic::Nodes(ids.iter().map(|&i| NodeId(i)).collect());
    assert_eq!(
        check("Quanta batteria ha l'Hilltop Relay?"),
        Some((nodes(&[1]), vec![Battery]))
    );
    assert_eq!(
        check("Quelle est l'humidité à l'Hilltop Relay ?"),
        Some((nodes(&[1]), vec![Humidity]))
    );
    assert_eq!(
        check("Le canal est-il chargé en ce moment ?"),
        Some((Topic::Channel, vec![]))
    );
    assert_eq!(
        check("Wer ist gerade in der Nähe?"),
        Some((Topic::Around, vec![]))
    );
    assert_eq!(
        check("Welcher Knoten ist mir am nächsten?"),
        Some((Topic::Nearest, vec![]))
    );
}

#[test]
fn folding_and_words() {
    assert_eq!(
        fold("Chalet Müller ŁÓDŹ Straße"),
        "chalet muller lodz strasse"
    );
    assert_eq!(
        words("bob's  base, (hill)top!"),
        ["bob", "base", "hill", "top"]
    );
    assert!(near("hilltop", "hiltop") && near("hilltop", "hillotp") && !near("hilltop", "hiltp"));
    assert!(near("ridge", "ridges") && !near("ridge", "bridges"));
}

#[test]
fn only_a_question_surely_about_a_node_the_view_lacks_is_declined_by_the_daemon() {
    let m = mesh();
    let surely = |message: &str| {
        question(message, m.iter().map(|(id, n)| (*id, n)), ASKER)
            .is_some_and(|a| a.topic == Topic::Unknown && a.surely_a_node)
    };
    assert!(surely("What's the battery of the Foobar relay?"));
    assert!(surely("What does the Crystal Peak node read?"));
    assert!(surely("When did you last hear the Golden Tower repeater?"));
    // The mesh bench's questions in the other languages (2026-12-06): a name right after the
    // node word, and each language's word for what a node reads.
    for message in [
        "Was misst der Knoten Crystal Peak?",
        "¿Qué marca el nodo Crystal Peak?",
        "¿Cuándo oíste por última vez el repetidor Golden Tower?",
        "Cosa misura il nodo Crystal Peak?",
        "Wat meet de node Crystal Peak?",
        "Co pokazuje węzeł Crystal Peak?",
    ] {
        assert!(surely(message), "{message}");
    }
    assert!(!surely("Wie viele Knoten gibt es in Zürich?"));
    assert!(!surely("What is a LoRa node?"));
    assert!(!surely("is the hilltop relay up?"));
    assert!(!surely("have you heard the news?"));
    // Everyday questions about nodes in general are the model's (issue 29's newcomer).
    assert!(!surely(
        "Where is a good place to put a repeater for our group?"
    ));
    assert!(!surely("How can I make my node's battery last longer?"));
    assert!(!surely("How far can a LoRa node reach?"));
    assert!(!surely(
        "Which antenna works best for a handheld LoRa node?"
    ));
}

/// German writes every noun with a capital: an everyday question there names no node (issue
/// 37: it got a "no node by that name" note, and the turn after paid for it). A real node's
/// name still counts.
#[test]
fn a_german_noun_is_not_a_node_name() {
    for everyday in [
        "Was ist der Unterschied zwischen einem Router und einem Client-Knoten?",
        "Wie oft sollte ein Router seine Position senden?",
    ] {
        assert_eq!(check(everyday), None, "{everyday}");
    }
    assert!(matches!(
        check("Wie ist der Akku vom Hilltop Relay?"),
        Some((Topic::Nodes(_), _))
    ));
    // The same question in English, with a capital, still names one.
    assert!(matches!(
        check("What is the battery of the Foobar Router?"),
        Some((Topic::Unknown, _))
    ));
}

/// One language's questions and what each asks: a node's battery asked by name, who is
/// around, the channel, the nearest node, a node the view lacks, and an everyday question
/// about nodes that is not about this mesh. Every language's words are looked for at once.
fn check_language(lang: &str, cases: &[(&str, Want)]) {
    let wrong: Vec<String> = cases
        .iter()
        .filter_map(|(message, want)| {
            let got = check(message);
            (got != *want).then(|| format!("{lang}: {message:?}: got {got:?}, want {want:?}"))
        })
        .collect();
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

fn hill(readings: &[Reading]) -> Want {
    Some((Topic::Nodes(vec![NodeId(1)]), readings.to_vec()))
}

fn topic(topic: Topic, readings: &[Reading]) -> Want {
    Some((topic, readings.to_vec()))
}

#[test]
fn english() {
    use Reading::*;
    use Topic::*;
    check_language(
        "en",
        &[
            ("What's the battery of the Hilltop Relay?", hill(&[Battery])),
            ("Who is around?", topic(Around, &[])),
            ("How busy is the channel?", topic(Channel, &[])),
            ("Which node is nearest to me?", topic(Nearest, &[])),
            (
                "What's the battery of the Foobar relay?",
                topic(Unknown, &[Battery]),
            ),
            // Spanish "red" is network: here it is a colour, and "busy" no channel's.
            ("Is the red relay busy?", topic(Unknown, &[])),
            ("How long does a LoRa node's battery last?", None),
        ],
    );
}

#[test]
fn german() {
    use Reading::*;
    use Topic::*;
    check_language(
        "de",
        &[
            ("Wie viel Akku hat Hilltop noch?", hill(&[Battery])),
            ("Wer ist online?", topic(Around, &[])),
            ("Ist der Kanal gerade ausgelastet?", topic(Channel, &[])),
            (
                "Welcher Knoten ist in meiner Nähe?",
                topic(Nearest, &[Distance]),
            ),
            (
                "Wie ist der Akku vom Foobar-Knoten?",
                topic(Unknown, &[Battery]),
            ),
            ("Was ist der beste Knoten für Anfänger?", None),
        ],
    );
}

#[test]
fn spanish() {
    use Reading::*;
    use Topic::*;
    check_language(
        "es",
        &[
            ("¿Cuál es la batería de Hilltop Relay?", hill(&[Battery])),
            ("¿Quién está conectado?", topic(Around, &[])),
            ("¿Está ocupada la red?", topic(Channel, &[])),
            ("¿Cuál es el nodo más cercano?", topic(Nearest, &[])),
            (
                "¿Cuál es la batería del nodo Foobar?",
                topic(Unknown, &[Battery]),
            ),
            ("¿Cuánto dura la batería de un nodo Heltec?", None),
            ("¿Qué sabes acerca de mí?", None),
        ],
    );
}

#[test]
fn portuguese() {
    use Reading::*;
    use Topic::*;
    check_language(
        "pt",
        &[
            ("Qual é a bateria do Hilltop Relay?", hill(&[Battery])),
            ("Quem está online?", topic(Around, &[])),
            ("A rede está congestionada?", topic(Channel, &[])),
            ("Qual é o repetidor mais próximo?", topic(Nearest, &[])),
            (
                "Qual é a bateria do repetidor Foobar?",
                topic(Unknown, &[Battery]),
            ),
            ("Quanto tempo dura a bateria de um repetidor solar?", None),
        ],
    );
}

#[test]
fn french() {
    use Reading::*;
    use Topic::*;
    check_language(
        "fr",
        &[
            (
                "Quelle est la batterie de Hilltop Relay ?",
                hill(&[Battery]),
            ),
            ("Qui est en ligne ?", topic(Around, &[])),
            ("Le réseau est-il encombré ?", topic(Channel, &[])),
            (
                "Quel est le nœud le plus proche ?",
                topic(Nearest, &[Distance]),
            ),
            (
                "Quelle est la batterie du relais Foobar ?",
                topic(Unknown, &[Battery]),
            ),
            ("Combien de temps dure la batterie d'un nœud ?", None),
        ],
    );
}

#[test]
fn italian() {
    use Reading::*;
    use Topic::*;
    check_language(
        "it",
        &[
            ("Com'è la batteria di Hilltop Relay?", hill(&[Battery])),
            ("Chi è online?", topic(Around, &[])),
            ("Quanto è carico il canale?", topic(Channel, &[])),
            ("Qual è il nodo più vicino?", topic(Nearest, &[Distance])),
            (
                "Qual è la batteria del nodo Foobar?",
                topic(Unknown, &[Battery]),
            ),
            ("Quanto dura la batteria di un nodo solare?", None),
        ],
    );
}

#[test]
fn dutch() {
    use Reading::*;
    use Topic::*;
    check_language(
        "nl",
        &[
            (
                "Hoe vol is de batterij van Hilltop Relay?",
                hill(&[Battery]),
            ),
            ("Wie is er online?", topic(Around, &[])),
            ("Is het netwerk druk?", topic(Channel, &[])),
            (
                "Welk knooppunt is het dichtstbijzijnde?",
                topic(Nearest, &[]),
            ),
            // A name in lowercase, after "het".
            (
                "Wat is de batterij van het foobar knooppunt?",
                topic(Unknown, &[Battery]),
            ),
            ("Hoe lang gaat de batterij van een node mee?", None),
        ],
    );
}

#[test]
fn polish() {
    use Reading::*;
    use Topic::*;
    check_language(
        "pl",
        &[
            ("Jaki jest stan baterii Hilltop Relay?", hill(&[Battery])),
            ("Kto jest online?", topic(Around, &[])),
            ("Jakie jest obciążenie sieci?", topic(Channel, &[])),
            ("Który węzeł jest najbliżej mnie?", topic(Nearest, &[])),
            (
                "Jaki jest poziom baterii węzła Foobar?",
                topic(Unknown, &[Battery]),
            ),
            ("Jak długo działa bateria w węźle solarnym?", None),
        ],
    );
}

/// A place the question names with "where" in its middle, or a Dutch reading word in
/// English, is no node: "What is the postcode of the fire station where we meet?" got "I don't
/// know that node" in the knowledge bench (the station a node word, "where" a distance, and
/// Dutch "meet" a reading). "Where is …" still asks for a distance.
#[test]
fn a_place_where_we_meet_is_no_node() {
    let q = question(
        "What is the postcode of the fire station where we meet?",
        std::iter::empty(),
        NodeId(1),
    );
    assert!(q.as_ref().is_none_or(|q| !q.surely_a_node), "{q:?}");
    for m in [
        "Where is the Foobar relay?",
        "Wo steht der Knoten Foobar?",
        "¿Dónde está el repetidor Foobar?",
        "Onde fica o repetidor Foobar?",
        "Dove si trova il nodo Foobar?",
        "Waar staat de node Foobar?",
        "Gdzie jest przekaźnik Foobar?",
        "Wat meet de node Foobar?",
    ] {
        let q = question(m, std::iter::empty(), NodeId(1));
        assert!(q.as_ref().is_some_and(|q| q.surely_a_node), "{m}: {q:?}");
    }
}

/// Portuguese "nó" is a node word though it folds to "no": written out before the tables read
/// it (the Portuguese mesh bench's one miss: the model answered for a node that does not exist).
#[test]
fn portuguese_no_with_its_accent_is_a_node() {
    let m = spelled_out("O que marca o nó Crystal Peak?");
    assert_eq!(m, "O que marca o node Crystal Peak?");
    let q = question(&m, std::iter::empty(), NodeId(1));
    assert!(q.as_ref().is_some_and(|q| q.surely_a_node), "{q:?}");
    assert_eq!(
        spelled_out("Qual NÓ está mais perto?"),
        "Qual node está mais perto?"
    );
    // "no" (in the) and "nós" (we) stay as written.
    for m in [
        "Está frio no Chalet Müller?",
        "Nós temos um repetidor.",
        "What is a node?",
    ] {
        assert_eq!(spelled_out(m), m);
    }
}

/// A short question around an English node name that `lang::detect` cannot place is told by
/// its mesh words (the mesh bench's three English answers to French, Polish and Italian
/// questions); the name's own words ("Weather", "Gateway") are not counted.
#[test]
fn a_question_detection_cannot_place_is_told_by_its_mesh_words() {
    use crate::lang::Lang;
    for (m, lang) in [
        ("Que mesure la station Ridge Weather ?", Some(Lang::Fr)),
        ("Co pokazuje stacja Ridge Weather?", Some(Lang::Pl)),
        ("L'Harbour Gateway va a batteria?", Some(Lang::It)),
        ("What does Ridge Weather read?", Some(Lang::En)),
        ("Ridge Weather?", None),
    ] {
        assert_eq!(language(m), lang, "{m}");
    }
    for m in [
        "Que mesure la station Ridge Weather ?",
        "Co pokazuje stacja Ridge Weather?",
        "L'Harbour Gateway va a batteria?",
    ] {
        assert_eq!(crate::lang::detect(m), None, "{m}: detection places it now");
    }
}
