use std::path::PathBuf;

use super::*;
use crate::radio::Transport;

fn values(radio: RadioLine, database: &str) -> Values {
    Values {
        radio,
        base_url: "http://127.0.0.1:8080/v1".into(),
        model: "qwen2.5:0.5b".into(),
        database: database.into(),
        knowledge: Some("/var/lib/meshai/knowledge".into()),
        header: vec!["Written by `meshai init`.".into()],
    }
}

fn parse(text: &str) -> crate::config::Config {
    let (config, warnings) = crate::config::parse(text, "init.toml", &|_| None)
        .unwrap_or_else(|e| panic!("{e}\n{text}"));
    assert!(warnings.is_empty(), "{warnings:?}");
    config
}

#[test]
fn every_kind_of_value_parses_back() {
    let weird = "/home/pi/My \"meshai\" \\ dir/été.db";
    let by_id =
        "/dev/serial/by-id/usb-Silicon_Labs_CP2102_USB_to_UART_Bridge_Controller_0001-if00-port0";
    let cases = [
        (
            RadioLine::Serial(by_id.into()),
            "/var/lib/meshai/meshai.db",
            Transport::serial(by_id, 115_200),
        ),
        (
            RadioLine::Tcp("127.0.0.1:4403".into()),
            weird,
            Transport::tcp("127.0.0.1", 4403),
        ),
        (
            RadioLine::Tcp("[::1]:4000".into()),
            "meshai.db",
            Transport::tcp("::1", 4000),
        ),
    ];
    let (example, _) = crate::config::parse(EXAMPLE, "example", &|_| None).unwrap();
    for (radio, db, transport) in cases {
        let text = render(EXAMPLE, &values(radio, db)).unwrap();
        let c = parse(&text);
        assert_eq!(c.radio.transport, transport);
        assert_eq!(c.llm.base_url, "http://127.0.0.1:8080/v1");
        assert_eq!(c.llm.model, "qwen2.5:0.5b");
        assert_eq!(c.database, PathBuf::from(db));
        // Everything else is the example's.
        assert_eq!(c.radio.send_gap, example.radio.send_gap);
        assert_eq!(c.llm.system_prompt, example.llm.system_prompt);
        assert_eq!(c.llm.timeout, example.llm.timeout);
        assert_eq!(c.retention, example.retention);
        assert_eq!(c.memory, example.memory);
        assert_eq!(c.reply, example.reply);
        assert_eq!(c.limits, example.limits);
        assert_eq!(c.access, example.access);
        assert_eq!(c.channels, example.channels);
        assert_eq!(
            c.knowledge.dir,
            Some(PathBuf::from("/var/lib/meshai/knowledge"))
        );
        assert_eq!(c.knowledge.bounds, example.knowledge.bounds);
        assert!(text.starts_with("# Written by `meshai init`.\n# meshai configuration."));
    }
}

#[test]
fn only_the_named_lines_change_and_comments_stay() {
    let text = render(
        EXAMPLE,
        &values(RadioLine::Tcp("10.0.0.1:4403".into()), "x.db"),
    )
    .unwrap();
    let out: Vec<&str> = text.lines().skip(1).collect();
    let example: Vec<&str> = EXAMPLE.lines().collect();
    assert_eq!(out.len(), example.len());
    let changed: Vec<(&str, &str)> = example
        .iter()
        .zip(&out)
        .filter(|(a, b)| a != b)
        .map(|(a, b)| (*a, *b))
        .collect();
    assert_eq!(changed.len(), 6, "{changed:#?}");
    let line = |key: &str| {
        out.iter()
            .find(|l| key_of(l) == Some(key) && !l.starts_with('#'))
    };
    assert_eq!(
        line("tcp").copied(),
        Some(
            "tcp = \"10.0.0.1:4403\"            # WiFi/Ethernet node or meshtasticd; the port defaults to 4403"
        )
    );
    assert!(
        out.iter()
            .any(|l| l.starts_with("# serial = \"/dev/ttyUSB0\""))
    );
    assert_eq!(line("model").copied(), Some("model = \"qwen2.5:0.5b\""));
    let base = line("base_url").copied().unwrap_or_default();
    assert!(
        base.ends_with("   # Ollama; llama.cpp server, LiteLLM, OpenAI work too"),
        "{base}"
    );
    assert_eq!(
        line("dir").copied(),
        Some(
            "dir = \"/var/lib/meshai/knowledge\"    # a folder of .md and .txt files; unset: no knowledge (the default)"
        )
    );
    // Without a folder the example's line stays commented out.
    let none = Values {
        knowledge: None,
        ..values(RadioLine::Tcp("10.0.0.1:4403".into()), "x.db")
    };
    let text = render(EXAMPLE, &none).unwrap();
    assert!(parse(&text).knowledge.dir.is_none());
    // A value longer than the comment column pushes the comment out by two spaces.
    let long = "/dev/serial/by-id/usb-1a86_USB_Single_Serial_54FC012345-if00";
    let text = render(EXAMPLE, &values(RadioLine::Serial(long.into()), "x.db")).unwrap();
    let serial = text.lines().find(|l| l.starts_with("serial = ")).unwrap();
    assert_eq!(
        serial,
        format!(
            "serial = \"{long}\"  # USB serial device of the node (user needs the `dialout` group)"
        )
    );
}

#[test]
fn a_missing_line_is_an_error() {
    let err = render(
        "[radio]\nserial = \"x\"\n",
        &values(RadioLine::Serial("y".into()), "z"),
    )
    .unwrap_err();
    assert_eq!(
        err,
        MissingLine {
            section: "llm",
            key: "base_url"
        }
    );
    let err = render(
        EXAMPLE.replace("# tcp", "# tcpx").as_str(),
        &values(RadioLine::Tcp("h".into()), "z"),
    );
    assert_eq!(err.unwrap_err().key, "tcp");
}

#[test]
fn quoting() {
    assert_eq!(quote("plain"), "\"plain\"");
    assert_eq!(quote("a\"b\\c"), "\"a\\\"b\\\\c\"");
    assert_eq!(quote("tab\there"), "\"tab\\u0009here\"");
}
