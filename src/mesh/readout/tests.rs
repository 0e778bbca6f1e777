use super::*;

#[test]
fn ages() {
    let cases = [
        (-30, "just now"),
        (0, "just now"),
        (59, "just now"),
        (60, "1 min ago"),
        (240, "4 min ago"),
        (3599, "59 min ago"),
        (3600, "1 h ago"),
        (47 * 3600, "47 h ago"),
        (3 * 86_400, "3 days ago"),
    ];
    for (secs, want) in cases {
        assert_eq!(age(secs), want, "{secs}");
    }
}

#[test]
fn names_and_busy_words() {
    use crate::node::NodeId;
    let n = |l: &str, s: &str| NodeNames {
        long_name: l.into(),
        short_name: s.into(),
    };
    assert_eq!(
        name(Some(&n("Hill\nTop", "HT")), NodeId(1)),
        "Hill Top (HT)"
    );
    assert_eq!(name(Some(&n("", "HT")), NodeId(1)), "HT");
    assert_eq!(name(Some(&n("HT", "HT")), NodeId(1)), "HT");
    assert_eq!(name(None, NodeId(0xab)), "!000000ab");
    let words: Vec<&str> = [0.0, 9.9, 10.0, 24.9, 25.0, 39.9, 40.0, 100.0]
        .into_iter()
        .map(busy)
        .collect();
    assert_eq!(
        words,
        [
            "quiet",
            "quiet",
            "moderately used",
            "moderately used",
            "busy",
            "busy",
            "very busy",
            "very busy"
        ]
    );
}

#[test]
fn readings_in_each_unit() {
    assert_eq!(temperature(3.5, Units::Metric), "3.5 °C");
    assert_eq!(temperature(-40.0, Units::Imperial), "-40.0 °F");
    assert_eq!(pressure(1012.0, Units::Metric), "1012 hPa");
    assert_eq!(pressure(1012.0, Units::Imperial), "29.88 inHg");
    assert_eq!(wind(5.0, Some(315), Units::Metric), "18 km/h from NW");
    assert_eq!(wind(5.0, None, Units::Imperial), "11 mph");
    assert_eq!(battery(87), "87 % (good)");
    assert_eq!(battery(12), "12 % (low)");
    assert_eq!(battery(101), "on external power, not on battery");
}

#[test]
fn the_channel_line_or_unknown() {
    let f = Frame {
        now: 1000,
        units: Units::Metric,
        ours: None,
        asker: None,
        positions: true,
        about_me: false,
    };
    assert_eq!(
        channel(None, &f),
        ["The channel's load: unknown (my node has not measured it yet)."]
    );
    let r = Heard {
        value: ChannelMetrics {
            channel_utilization: 8.25,
            air_util_tx: None,
        },
        at: 700,
    };
    assert_eq!(
        channel(Some(r), &f),
        [
            "The channel is quiet: 8.2 % of the last minute was busy (over 25 % counts as busy, \
          over 40 % as very busy); measured 5 min ago by my node."
        ]
    );
}
