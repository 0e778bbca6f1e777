//! Dutch. A name in lowercase is told after "het" ("het foobar knooppunt"), not after "de",
//! which is Spanish, French, Portuguese and Italian "of" ("de mi nodo"); a capitalised one by
//! its capital. Left out: "ver" (far: Spanish "to see"), "weer" (weather, but also again),
//! "heet" (hot, but also "is called"), "spanning" as a node question (English), "hoor je
//! me" (it starts "hoor je meestal"), "is er iemand" ("is er iemand die …?": anyone who).

use super::Words;
use crate::mesh::matcher::Reading;

pub(super) const WORDS: Words = Words {
    generic: &["de", "het", "van", "en", "op", "knooppunt", "relais"],
    everyday: &[
        "ik", "jij", "je", "hij", "zij", "we", "wij", "is", "en", "of", "de", "het", "een", "wat",
        "hoe", "waar", "wie", "wanneer", "waarom", "ja", "nee", "niet", "nog", "al", "nu", "goed",
        "met", "van", "te", "op", "in", "om", "aan", "bij", "dat", "dit", "er", "hier", "daar",
    ],
    node: &["knooppunt"],
    about_a_node: &["batterij", "accu", "gehoord", "signaal", "bereikbaar"],
    readings: &[
        (
            Reading::LastHeard,
            &["gehoord", "gezien", "bereikbaar", "actief"],
        ),
        (
            Reading::Battery,
            &["batterij", "accu", "opgeladen", "lading", "procent"],
        ),
        (Reading::Voltage, &["spanning"]),
        (
            Reading::Temperature,
            &["temperatuur", "koud", "graden", "vorst"],
        ),
        (
            Reading::Humidity,
            &["vochtigheid", "luchtvochtigheid", "vochtig"],
        ),
        (Reading::Pressure, &["luchtdruk"]),
        (Reading::Wind, &["winderig", "windstoot*"]),
        (Reading::Light, &["licht", "helderheid", "donker"]),
        (
            Reading::Distance,
            &[
                "afstand", "waar", "locatie", "positie", "richting", "dichtbij", "ver weg",
            ],
        ),
        (Reading::Hops, &["sprongen"]),
        (Reading::Signal, &["signaal", "ontvangst", "bereik"]),
    ],
    read: &["meting*", "waarde*", "meet"],
    me: &["ik", "mij"],
    my_message: &[
        "mijn signaal",
        "mijn snr",
        "mijn rssi",
        "mijn hops",
        "mijn ontvangst",
        "hoor je mij",
        "ontvang je mij",
        "mijn bericht",
    ],
    my_node: &[
        "mijn node",
        "mijn knooppunt",
        "mijn radio",
        "mijn apparaat",
        "mijn batterij",
        "mijn accu",
    ],
    channel: &["kanaal", "netwerk"],
    busy: &[
        "druk",
        "bezetting",
        "belasting",
        "bezet",
        "overbelast",
        "verkeer",
    ],
    channel_use: &["zendtijd", "kanaalbezetting", "kanaalgebruik"],
    nearest: &[
        "dichtstbijzijnde",
        "dichtbij",
        "het dichtst",
        "in mijn buurt",
    ],
    around: &[
        "wie is er online",
        "wie is online",
        "wie is er actief",
        "wie is er in de buurt",
        "wie is er nu",
        "wie zijn er nu",
        "iemand online",
        "welke nodes",
        "welke knooppunten",
        "hoeveel nodes",
        "hoeveel knooppunten",
        "wie hoor je",
        "actieve nodes",
    ],
    the: &["het"],
    kinds: &[
        "nieuwe",
        "oude",
        "beste",
        "eerste",
        "tweede",
        "volgende",
        "andere",
        "eigen",
        "lokale",
        "hele",
        "grote",
        "kleine",
        "dichtstbijzijnde",
        "zelfde",
    ],
    not_names: &[],
};
