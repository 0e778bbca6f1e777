use super::*;

/// (new, old, replaces): English and German, corrections and statements that only look alike.
const CASES: &[(&str, &str, bool)] = &[
    // A new callsign.
    (
        "Update: I got a new callsign last month, it's SP2KWT now.",
        "My callsign is SP9QRZ.",
        true,
    ),
    ("My new callsign is SP2KWT.", "My callsign is SP9QRZ.", true),
    ("My callsign is SP2KWT.", "My callsign is SP9QRZ.", true),
    (
        "My callsign is now SP2KWT.",
        "Hi, my callsign is SP9QRZ.",
        true,
    ),
    (
        "My friend's callsign is DL1ABC.",
        "My callsign is SP9QRZ.",
        false,
    ),
    (
        "My friend’s callsign is DL1ABC.",
        "My callsign is SP9QRZ.",
        false,
    ),
    (
        "The callsign of my friend is DL1ABC now.",
        "My callsign is SP9QRZ.",
        false,
    ),
    (
        "His callsign is now DL1ABC.",
        "My callsign is SP9QRZ.",
        false,
    ),
    ("My callsign is SP9QRZ.", "My callsign is SP9QRZ.", false),
    (
        "Mein neues Rufzeichen ist DL9NEU.",
        "Mein Rufzeichen ist DL2XYZ.",
        true,
    ),
    (
        "Mein Rufzeichen ist jetzt DL9NEU.",
        "Mein Rufzeichen ist DL2XYZ.",
        true,
    ),
    (
        "Das Rufzeichen meines Freundes ist DL1ABC.",
        "Mein Rufzeichen ist DL2XYZ.",
        false,
    ),
    (
        "Mein Freund hat jetzt das Rufzeichen DL1ABC.",
        "Mein Rufzeichen ist DL2XYZ.",
        false,
    ),
    // The club's meeting day.
    (
        "Our radio club now meets every second Tuesday.",
        "Our radio club meets every second Thursday.",
        true,
    ),
    (
        "We meet on Fridays now.",
        "Our radio club meets every second Thursday.",
        true,
    ),
    (
        "The club no longer meets on Thursdays, it is Fridays.",
        "Our club meets on Thursdays.",
        true,
    ),
    (
        "Our radio club has 40 members now.",
        "Our radio club meets every second Thursday.",
        false,
    ),
    (
        "My family meets on Sundays now.",
        "Our radio club meets every second Thursday.",
        false,
    ),
    (
        "Der Funkverein trifft sich jetzt freitags.",
        "Der Funkverein trifft sich jeden zweiten Donnerstag um 19:30.",
        true,
    ),
    (
        "Wir treffen uns jetzt dienstags.",
        "Unser Funkverein trifft sich jeden zweiten Donnerstag.",
        true,
    ),
    (
        "Der Funkverein hat jetzt 40 Mitglieder.",
        "Der Funkverein trifft sich jeden zweiten Donnerstag.",
        false,
    ),
    // Where a node sits.
    (
        "I moved my home node to the water tower.",
        "My home node is on the roof of the library.",
        true,
    ),
    (
        "My node is on the water tower now.",
        "My home node is on the roof of the library.",
        true,
    ),
    (
        "I moved my home node to the water tower.",
        "My solar node has a 3000 mAh battery.",
        false,
    ),
    (
        "My solar node is on the barn now.",
        "My home node is on the roof of the library.",
        false,
    ),
    (
        "Mein Knoten steht jetzt auf dem Wasserturm.",
        "Mein Knoten steht auf dem Dach der Bibliothek.",
        true,
    ),
    (
        "Mein Knoten ist umgezogen, er steht auf dem Wasserturm.",
        "Mein Knoten steht auf dem Dach der Bibliothek.",
        true,
    ),
    (
        "Der Akku am Solarknoten hat jetzt 5200 mAh.",
        "Der Akku am Solarknoten hat 3000 mAh.",
        true,
    ),
    // Which radio.
    (
        "I have a new radio now, a RAK WisBlock.",
        "My radio is a Heltec V3.",
        true,
    ),
    (
        "My radio is now a RAK WisBlock.",
        "My radio is a Heltec V3.",
        true,
    ),
    ("I have a new dog now.", "My radio is a Heltec V3.", false),
    (
        "Ich habe jetzt ein neues Funkgerät, ein RAK.",
        "Mein Funkgerät ist ein Heltec V3.",
        true,
    ),
    (
        "Mein Funkgerät ist jetzt ein RAK.",
        "Mein Funkgerät ist ein Heltec V3.",
        true,
    ),
    // Where I live.
    ("I live in Krakow now.", "I live in Zakopane.", true),
    ("Ich wohne jetzt in Krakau.", "Ich wohne in Garmisch.", true),
    ("I drive a Volvo now.", "I live in Zakopane.", false),
    // Other things about one subject are not corrections.
    ("My dog is a beagle.", "My dog is called Rex.", false),
    (
        "My dog is now five years old.",
        "My dog is called Rex.",
        false,
    ),
    ("My dog is called Max now.", "My dog is called Rex.", true),
    (
        "Mein Hund heißt jetzt Bello.",
        "Mein Hund heißt Pepper.",
        true,
    ),
    ("Meine Tochter heißt Mia.", "Mein Hund heißt Pepper.", false),
    (
        "My favourite frequency is 869.525 MHz.",
        "My callsign is SP9QRZ.",
        false,
    ),
    (
        "Thanks, that helps a lot now.",
        "My callsign is SP9QRZ.",
        false,
    ),
    (
        "A friend of mine has a new radio now.",
        "My radio is a Heltec V3.",
        false,
    ),
];

#[test]
fn a_statement_replaces_what_it_corrects_and_nothing_else() {
    let wrong: Vec<String> = CASES
        .iter()
        .filter(|(new, old, want)| replaces(new, old) != *want)
        .map(|(new, old, want)| format!("{new:?} replaces {old:?}: want {want}"))
        .collect();
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn replaced_names_the_kept_ids() {
    let kept: Vec<(i64, String)> = [
        (1, "Hi, my name is Tomasz."),
        (2, "My callsign is SP9QRZ."),
        (3, "My home node is on the roof of the library."),
        (4, "My solar node has a 3000 mAh battery."),
    ]
    .iter()
    .map(|(id, t)| (*id, t.to_string()))
    .collect();
    let cases: &[(&str, &[i64])] = &[
        ("I moved my home node to the water tower.", &[3]),
        ("Update: my callsign is SP2KWT now.", &[2]),
        ("My friend's callsign is DL1ABC.", &[]),
        ("The battery of my solar node is 5200 mAh now.", &[]),
    ];
    for (new, want) in cases {
        assert_eq!(replaced(&kept, new), *want, "{new:?}");
    }
}

#[test]
fn stale_words_are_what_only_the_old_statement_says() {
    let cases: &[(&str, &str, &[&str])] = &[
        (
            "My home node is on the roof of the library.",
            "I moved my home node to the water tower.",
            &["roof", "library"],
        ),
        (
            "Our radio club meets every second Thursday.",
            "Our radio club now meets every second Tuesday.",
            &["thursday"],
        ),
        (
            "My callsign is SP9QRZ.",
            "Update: I got a new callsign last month, it's SP2KWT now.",
            &["sp9qrz"],
        ),
        (
            "My radio is a Heltec V3.",
            "I have a new radio now, a RAK WisBlock.",
            &["heltec", "v3"],
        ),
    ];
    for (old, new, want) in cases {
        assert_eq!(stale_words(old, new), *want, "{old:?}");
    }
    let stale = stale_words(
        "Der Verein trifft sich am Donnerstag.",
        "Wir treffen uns jetzt am Freitag.",
    );
    assert!(mentions("Tomasz' Verein trifft sich donnerstags.", &stale));
    assert!(!mentions("Der Verein trifft sich freitags.", &stale));
}

/// One language's (new, old, replaces) cases: a correction replaces, a friend's statement and
/// one that says something else of the same subject do not.
fn check(lang: &str, cases: &[(&str, &str, bool)]) {
    let wrong: Vec<String> = cases
        .iter()
        .filter(|(new, old, want)| replaces(new, old) != *want)
        .map(|(new, old, want)| format!("{lang}: {new:?} replaces {old:?}: want {want}"))
        .collect();
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn spanish() {
    check(
        "es",
        &[
            (
                "Actualización: mi indicativo ahora es EA3XYZ.",
                "Mi indicativo es EA3ABC.",
                true,
            ),
            ("Mi indicativo es EA3XYZ.", "Mi indicativo es EA3ABC.", true),
            (
                "El indicativo de mi amigo es EA1ABC.",
                "Mi indicativo es EA3ABC.",
                false,
            ),
            ("Mi perro es un beagle.", "Mi perro se llama Rex.", false),
            (
                "Mi perro se llama Max ahora.",
                "Mi perro se llama Rex.",
                true,
            ),
            ("Vivo en Cracovia ahora.", "Vivo en Zakopane.", true),
            (
                "Moví mi nodo a la torre de agua.",
                "Mi nodo está en el tejado de la biblioteca.",
                true,
            ),
            (
                "Un amigo mío tiene una radio nueva.",
                "Mi radio es una Heltec V3.",
                false,
            ),
        ],
    );
}

#[test]
fn portuguese() {
    check(
        "pt",
        &[
            (
                "Atualização: meu indicativo agora é PY2XYZ.",
                "Meu indicativo é PY2ABC.",
                true,
            ),
            (
                "O indicativo do meu amigo é PY1ABC.",
                "Meu indicativo é PY2ABC.",
                false,
            ),
            (
                "Meu cachorro é um beagle.",
                "Meu cachorro se chama Rex.",
                false,
            ),
            (
                "A minha antena agora está no telhado.",
                "A minha antena está na varanda.",
                true,
            ),
            ("Moro em Lisboa agora.", "Moro no Porto.", true),
            (
                "Mudei meu repetidor para a caixa d'água.",
                "Meu repetidor está no telhado da biblioteca.",
                true,
            ),
        ],
    );
}

#[test]
fn french() {
    check(
        "fr",
        &[
            (
                "Mise à jour : mon indicatif est maintenant F4XYZ.",
                "Mon indicatif est F4ABC.",
                true,
            ),
            (
                "L'indicatif de mon ami est F1ABC.",
                "Mon indicatif est F4ABC.",
                false,
            ),
            (
                "Mon chien est un beagle.",
                "Mon chien s'appelle Rex.",
                false,
            ),
            ("J'habite à Lyon maintenant.", "J'habite à Paris.", true),
            (
                "J'ai déplacé mon nœud sur le château d'eau.",
                "Mon nœud est sur le toit de la bibliothèque.",
                true,
            ),
            (
                "Le club ne se réunit plus le jeudi, c'est le vendredi.",
                "Notre club se réunit le jeudi.",
                true,
            ),
        ],
    );
}

#[test]
fn italian() {
    check(
        "it",
        &[
            (
                "Aggiornamento: il mio nominativo ora è IK2XYZ.",
                "Il mio nominativo è IK2ABC.",
                true,
            ),
            (
                "Il nominativo del mio amico è IK1ABC.",
                "Il mio nominativo è IK2ABC.",
                false,
            ),
            (
                "Il mio cane è un beagle.",
                "Il mio cane si chiama Rex.",
                false,
            ),
            ("Abito a Milano adesso.", "Abito a Roma.", true),
            (
                "Ho spostato il mio nodo sulla torre dell'acqua.",
                "Il mio nodo è sul tetto della biblioteca.",
                true,
            ),
        ],
    );
}

#[test]
fn dutch() {
    check(
        "nl",
        &[
            (
                "Update: mijn roepnaam is nu PA3XYZ.",
                "Mijn roepnaam is PA3ABC.",
                true,
            ),
            (
                "De roepnaam van mijn vriend is PA1ABC.",
                "Mijn roepnaam is PA3ABC.",
                false,
            ),
            ("Mijn hond is een beagle.", "Mijn hond heet Rex.", false),
            ("Ik woon nu in Utrecht.", "Ik woon in Zwolle.", true),
            (
                "Ik heb mijn node naar de watertoren verplaatst.",
                "Mijn node staat op het dak van de bibliotheek.",
                true,
            ),
        ],
    );
}

#[test]
fn polish() {
    check(
        "pl",
        &[
            (
                "Aktualizacja: mój znak wywoławczy to teraz SP2KWT.",
                "Mój znak wywoławczy to SP9QRZ.",
                true,
            ),
            (
                "Znak wywoławczy mojego kolegi to SP1ABC.",
                "Mój znak wywoławczy to SP9QRZ.",
                false,
            ),
            ("Mój pies to beagle.", "Mój pies nazywa się Rex.", false),
            ("Mieszkam teraz w Krakowie.", "Mieszkam w Zakopanem.", true),
            (
                "Przeniosłem mój węzeł na wieżę ciśnień.",
                "Mój węzeł stoi na dachu biblioteki.",
                true,
            ),
        ],
    );
}

/// The words each language's statement is read with are its own: "son" is French "his", not
/// the English noun, and Polish "my" (we) is not English "my".
#[test]
fn a_statement_is_read_in_the_language_it_opens_with() {
    check(
        "en",
        &[
            ("My son is called Max now.", "My son is called Tom.", true),
            ("My son is a ham now.", "My son is called Tom.", false),
        ],
    );
}
