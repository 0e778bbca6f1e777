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
