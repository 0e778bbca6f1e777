//! Every example config parses (or fails) the way it says.

use super::*;
use crate::radio::Transport;

fn no_env(_: &str) -> Option<String> {
    None
}

fn manifest(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(rel)
}

#[test]
fn example_config_parses_with_defaults() {
    let text = std::fs::read_to_string(manifest("config.example.toml")).unwrap();
    let (c, warnings) = parse(&text, "config.example.toml", &no_env).unwrap();
    assert!(warnings.is_empty(), "{warnings:?}");
    assert_eq!(
        c.radio.transport,
        Transport::serial("/dev/ttyUSB0", 115_200)
    );
    assert_eq!(c.radio.send_gap, Duration::from_millis(2000));
    assert!(c.radio.yield_to_other_clients);
    assert_eq!(c.llm.base_url, "http://127.0.0.1:11434/v1");
    assert_eq!(c.llm.model, "qwen2.5:1.5b");
    assert_eq!(c.llm.system_prompt, DEFAULT_SYSTEM_PROMPT);
    assert_eq!(c.database, PathBuf::from("/var/lib/meshai/meshai.db"));
    assert_eq!(c.retention, Retention::days(30));
    assert_eq!(c.memory.window_messages, 2);
    assert_eq!(c.memory.summarize_threshold, 10);
    assert_eq!(c.memory.fold_tokens, 480);
    assert_eq!(c.memory.summary_max_chars, 240);
    assert_eq!(
        c.reply,
        ReplyConfig {
            max_chars: 150,
            max_chunks: 4
        }
    );
    assert!(!c.channels.answer_mentions);
}

#[test]
fn defaults_equal_the_example() {
    let (min, _) = parse("[radio]\nserial = \"/dev/ttyUSB0\"\n", "min", &no_env).unwrap();
    let text = std::fs::read_to_string(manifest("config.example.toml")).unwrap();
    let (ex, _) = parse(&text, "ex", &no_env).unwrap();
    assert_eq!(format!("{:?}", min.radio), format!("{:?}", ex.radio));
    assert_eq!(format!("{:?}", min.llm), format!("{:?}", ex.llm));
    assert_eq!(min.memory, ex.memory);
    assert_eq!(min.limits, ex.limits);
    assert_eq!(min.access, ex.access);
    assert_eq!(min.channels, ex.channels);
    assert_eq!(min.context, ex.context);
    assert_eq!(min.context, ContextConfig::default());
    assert_eq!(min.airtime, ex.airtime);
    assert_eq!(min.airtime, crate::airtime::AirtimeConfig::default());
    assert_eq!(min.knowledge, ex.knowledge);
    assert_eq!(min.knowledge, crate::knowledge::KnowledgeConfig::default());
    assert_eq!(min.database, ex.database);
    assert_eq!(min.retention, ex.retention);
    assert_eq!(min.mail, ex.mail);
    assert_eq!(min.mail, crate::config::MailConfig::default());
    assert_eq!(min.bulletins, ex.bulletins);
    assert_eq!(min.bulletins, crate::config::BulletinsConfig::default());
}

#[test]
fn a_node_that_is_ours_alone_is_never_yielded() {
    let text =
        std::fs::read_to_string(manifest("tests/configs/valid/tcp-node-alone.toml")).unwrap();
    let (c, _) = parse(&text, "alone.toml", &no_env).unwrap();
    assert!(!c.radio.yield_to_other_clients);
}

#[test]
fn node_status_fits_the_node_and_has_one_line() {
    let with = |v: &str| {
        parse(
            &format!("[radio]\nserial = \"/x\"\nnode_status = {v}\n"),
            "x.toml",
            &no_env,
        )
    };
    let none = parse("[radio]\nserial = \"/x\"\n", "x.toml", &no_env).unwrap();
    assert_eq!(
        none.0.radio.node_status, None,
        "the node's own is left alone"
    );
    let long = format!("\"{}\"", "a".repeat(80));
    let cases: [(&str, Result<Option<&str>, &str>); 5] = [
        ("\"AI bot: DM me\"", Ok(Some("AI bot: DM me"))),
        ("\"\"", Ok(Some(""))),
        (&long, Err("80 bytes; the node keeps at most 79")),
        ("\"two\\nlines\"", Err("no control characters")),
        ("7", Err("node_status")),
    ];
    for (value, want) in cases {
        let got = with(value);
        match want {
            Ok(status) => {
                let c = got.unwrap_or_else(|e| panic!("{value}: {e}")).0;
                assert_eq!(c.radio.node_status.as_deref(), status, "{value}");
            }
            Err(part) => {
                let e = got.err().map(|e| e.to_string()).unwrap_or_default();
                assert!(e.contains(part), "{value}: {e}");
            }
        }
    }
}

#[test]
fn reply_hops_caps_how_far_replies_go() {
    let with = |v: &str| {
        parse(
            &format!("[radio]\nserial = \"/x\"\nreply_hops = {v}\n"),
            "x.toml",
            &no_env,
        )
    };
    let none = parse("[radio]\nserial = \"/x\"\n", "x.toml", &no_env).unwrap();
    assert_eq!(none.0.radio.reply_hops, None, "the firmware's rule alone");
    let (c, w) = with("2").unwrap();
    assert_eq!((c.radio.reply_hops, w.len()), (Some(2), 0));
    let (c, w) = with("0").unwrap();
    assert_eq!(c.radio.reply_hops, Some(0));
    assert!(
        w.iter().any(|w| w.0.contains("[radio] reply_hops: 0")),
        "{w:?}"
    );
    let e = with("8").unwrap_err().to_string();
    assert!(e.contains("x.toml line 3: [radio] reply_hops"), "{e}");
    assert!(with("-1").is_err());
}

#[test]
fn retain_days() {
    let with = |v: &str| {
        parse(
            &format!("[radio]\nserial = \"/x\"\n[storage]\nretain_days = {v}\n"),
            "x.toml",
            &no_env,
        )
    };
    assert_eq!(with("0").unwrap().0.retention, Retention::Forever);
    assert_eq!(with("7").unwrap().0.retention, Retention::days(7));
    let err = with("36501").unwrap_err().to_string();
    assert!(
        err.contains("x.toml line 4: [storage] retain_days: 36501 is out of range"),
        "{err}"
    );
    assert!(with("-1").is_err());
}

fn files(dir: &str) -> Vec<PathBuf> {
    let mut v: Vec<_> = std::fs::read_dir(manifest(dir))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    v.sort();
    assert!(!v.is_empty(), "no configs in {dir}");
    v
}

#[test]
fn valid_examples_parse() {
    for path in files("tests/configs/valid") {
        let text = std::fs::read_to_string(&path).unwrap();
        if let Err(e) = parse(&text, "x.toml", &no_env) {
            panic!("{}: {e}", path.display());
        }
    }
}

#[test]
fn invalid_examples_fail_with_their_message() {
    for path in files("tests/configs/invalid") {
        let text = std::fs::read_to_string(&path).unwrap();
        let expect = text
            .lines()
            .next()
            .and_then(|l| l.strip_prefix("# expect: "))
            .unwrap_or_else(|| panic!("{} lacks a `# expect:` first line", path.display()));
        match parse(&text, "x.toml", &no_env) {
            Ok(_) => panic!("{} parsed but should fail with {expect:?}", path.display()),
            Err(e) => {
                let msg = e.to_string();
                assert!(msg.starts_with("x.toml"), "{}: {msg}", path.display());
                assert!(
                    msg.contains(expect),
                    "{}: got {msg:?}, want {expect:?}",
                    path.display()
                );
            }
        }
    }
}

#[test]
fn api_key_comes_from_env_and_is_masked() {
    let text = "[radio]\ntcp = \"127.0.0.1\"\n[llm]\napi_key_env = \"MY_KEY\"\n";
    let env = |name: &str| (name == "MY_KEY").then(|| "sk-secret-123".to_string());
    let (c, _) = parse(text, "x", &env).unwrap();
    assert_eq!(
        c.llm.api_key.as_ref().map(|k| k.expose()),
        Some("sk-secret-123")
    );
    assert!(!format!("{c:?}").contains("sk-secret-123"));
}

#[test]
fn a_key_pasted_as_api_key_env_is_an_error_that_does_not_repeat_it() {
    for section in [
        "[llm]",
        "[[llm.fallback]]\nbase_url = \"http://127.0.0.1/v1\"\nmodel = \"m\"",
    ] {
        let text = format!(
            "[radio]\ntcp = \"127.0.0.1\"\n{section}\napi_key_env = \"sk-abc123 secret\"\n"
        );
        let e = parse(&text, "x.toml", &no_env).unwrap_err().to_string();
        assert!(
            e.contains("api_key_env: must be the name of an environment variable"),
            "{e}"
        );
        assert!(!e.contains("sk-abc123"), "{e}");
    }
}

#[test]
fn a_key_over_plain_http_to_another_host_warns() {
    let env = |name: &str| (name == "MESHAI_API_KEY").then(|| "sk-1".to_string());
    let warns = |url: &str, env: &dyn Fn(&str) -> Option<String>| {
        let text = format!("[radio]\ntcp = \"127.0.0.1\"\n[llm]\nbase_url = \"{url}\"\n");
        let (_, w) = parse(&text, "x.toml", env).unwrap();
        w.iter().any(|w| w.0.contains("over plain http://"))
    };
    let cases = [
        ("http://192.168.1.5:11434/v1", true),
        ("http://u:p@ollama.lan/v1", true),
        ("http://127.0.0.1:11434/v1", false),
        ("http://localhost:8080/v1", false),
        ("http://[::1]:8080/v1", false),
        ("https://api.example.com/v1", false),
    ];
    for (url, want) in cases {
        assert_eq!(warns(url, &env), want, "{url}");
        assert!(!warns(url, &no_env), "no key, no warning: {url}");
    }
}

#[test]
fn a_password_in_base_url_is_not_repeated_by_an_error() {
    let text = "[radio]\ntcp = \"127.0.0.1\"\n[llm]\nbase_url = \"ftp://me:hunter2@host/v1\"\n";
    let e = parse(text, "x.toml", &no_env).unwrap_err().to_string();
    assert!(e.contains("ftp://***@host/v1"), "{e}");
    assert!(!e.contains("hunter2"), "{e}");
}

#[test]
fn odd_values_warn() {
    let text = "[radio]\nserial = \"/dev/x\"\nsend_gap_ms = 500\n[memory]\nwindow_messages = 7\n";
    let (_, w) = parse(text, "x.toml", &no_env).unwrap();
    let all = w.iter().map(|w| w.0.clone()).collect::<Vec<_>>().join("\n");
    assert!(
        all.contains("x.toml line 3: [radio] send_gap_ms: 500 ms"),
        "{all}"
    );
    assert!(all.contains("[memory] window_messages"), "{all}");
    let openai = "[radio]\nserial = \"/dev/x\"\n[llm]\nbase_url = \"https://api.openai.com/v1\"\n";
    let (_, w) = parse(openai, "x.toml", &no_env).unwrap();
    assert!(w.iter().any(|w| w.0.contains("no API key")), "{w:?}");
}

#[test]
fn access_rules() {
    let text =
        "[radio]\nserial = \"/dev/x\"\n[access]\nallow = [\"!00000001\", \"2\"]\ndeny = [\"2\"]\n";
    let (c, w) = parse(text, "x", &no_env).unwrap();
    assert!(c.access.permits(NodeId(1)));
    assert!(!c.access.permits(NodeId(2)), "deny wins");
    assert!(!c.access.permits(NodeId(3)), "not on the allow list");
    assert_eq!(w.len(), 1);
}

#[test]
fn fallbacks_take_their_own_keys_and_the_rest_from_llm() {
    let text = std::fs::read_to_string(manifest("tests/configs/valid/fallbacks.toml")).unwrap();
    let env = |name: &str| (name == "OPENAI_API_KEY").then(|| "sk-fb".to_string());
    let (c, w) = parse(&text, "x", &env).unwrap();
    assert!(w.is_empty(), "{w:?}");
    assert_eq!(c.llm.skip, Duration::from_secs(30));
    let f = &c.llm.fallbacks;
    assert_eq!(f.len(), 2);
    assert_eq!(f[0].base_url, "http://192.168.1.20:8080/v1");
    assert_eq!(f[0].model, "qwen2.5:0.5b");
    assert!(f[0].api_key.is_none(), "no key unless named");
    assert_eq!(f[0].timeout, c.llm.timeout);
    assert_eq!(f[0].temperature, c.llm.temperature);
    assert_eq!(f[1].api_key.as_ref().map(|k| k.expose()), Some("sk-fb"));
    assert_eq!(f[1].timeout, Duration::from_secs(20));
    assert_eq!(f[1].temperature, 0.3);
    let (min, _) = parse("[radio]\nserial = \"/x\"\n", "min", &no_env).unwrap();
    assert!(min.llm.fallbacks.is_empty());
    assert_eq!(min.llm.skip, Duration::from_secs(60));
}

#[test]
fn context_items_and_utc_offset() {
    let parse_context = |body: &str| {
        let text = format!("[radio]\nserial = \"/dev/ttyUSB0\"\n[context]\n{body}\n");
        parse(&text, "x.toml", &no_env).map(|(c, _)| c.context)
    };
    let c = parse_context("names = false\nsnr = false\ntime = false").unwrap();
    assert_eq!(
        c,
        ContextConfig {
            names: false,
            snr: false,
            time: false,
            ..ContextConfig::default()
        }
    );
    let offsets = [
        ("system", None),
        ("+01:00", Some(60)),
        ("-03:30", Some(-210)),
        ("+14:00", Some(840)),
        ("-12:00", Some(-720)),
        ("+05:45", Some(345)),
        ("UTC", Some(0)),
        ("Z", Some(0)),
        ("-00:00", Some(0)),
        ("+14:01", None),
        ("-12:30", None),
        ("+1:00", None),
        ("01:00", None),
        ("+01:60", None),
        ("+01", None),
        ("+-1:00", None),
        ("", None),
        ("Europe/Zurich", None),
    ];
    for (offset, want) in offsets {
        let got = parse_context(&format!("utc_offset = \"{offset}\"")).ok();
        let minutes = got.and_then(|c| match c.time_zone {
            TimeZoneSetting::Fixed(m) => Some(m),
            TimeZoneSetting::System => None,
        });
        assert_eq!(minutes, want, "{offset:?}");
    }
    let system = parse_context("utc_offset = \" System \"").unwrap();
    assert_eq!(system.time_zone, TimeZoneSetting::System);
    assert!(parse_context("utc_offset = \"Europe/Zurich\"").is_err());
}

#[test]
fn airtime_keys() {
    use crate::airtime::AirtimeConfig;
    let parse_airtime = |body: &str| {
        let text = format!("[radio]\nserial = \"/dev/ttyUSB0\"\n[airtime]\n{body}\n");
        parse(&text, "x.toml", &no_env).map(|(c, w)| (c.airtime, w))
    };
    let (a, w) = parse_airtime(
        "enabled = false\nshorten_above = 20\nshorten_parts = 1\nwait_above = 35.5\n\
         max_wait_secs = 0\nstale_secs = 300\nduty_cycle_percent = 1\nduty_cycle_shorten_at = 50",
    )
    .unwrap();
    assert!(w.is_empty(), "{w:?}");
    assert_eq!(
        a,
        AirtimeConfig {
            enabled: false,
            shorten_above: 20.0,
            shorten_parts: 1,
            wait_above: 35.5,
            max_wait: Duration::ZERO,
            stale_after: Duration::from_secs(300),
            duty_cycle: Some(1.0),
            duty_cycle_shorten_at: 50.0,
        }
    );
    let errors = [
        (
            "shorten_above = 101",
            "line 4: [airtime] shorten_above: 101 is out of range (0 to 100)",
        ),
        (
            "wait_above = nan",
            "line 4: [airtime] wait_above: NaN is out of range (0 to 100)",
        ),
        (
            "shorten_parts = 0",
            "line 4: [airtime] shorten_parts: 0 is out of range (1 to 10)",
        ),
        (
            "max_wait_secs = 3601",
            "[airtime] max_wait_secs: 3601 is out of range",
        ),
        ("stale_secs = 0", "[airtime] stale_secs: 0 is out of range"),
        (
            "duty_cycle_percent = 0",
            "[airtime] duty_cycle_percent: 0 is out of range (0.1 to 100)",
        ),
        (
            "duty_cycle_shorten_at = 0.5",
            "[airtime] duty_cycle_shorten_at: 0.5 is out of range",
        ),
        ("max_wait_secs = -1", "line 4: `max_wait_secs`"),
        ("hold_above = 40", "unknown field `hold_above`"),
    ];
    for (body, want) in errors {
        let err = parse_airtime(body).unwrap_err().to_string();
        assert!(err.contains(want), "{body}: {err}");
    }
    // A header with a comment, as in config.example.toml, still gives the line.
    let commented = "[radio]\nserial = \"/x\"\n[airtime]   # busy channels\nshorten_parts = 11\n";
    let err = parse(commented, "x.toml", &no_env).unwrap_err().to_string();
    assert!(
        err.contains("x.toml line 4: [airtime] shorten_parts"),
        "{err}"
    );
    let (_, w) = parse_airtime("shorten_parts = 4\nstale_secs = 60").unwrap();
    let all = w.iter().map(|w| w.0.clone()).collect::<Vec<_>>().join("\n");
    assert!(
        all.contains(
            "x.toml line 4: [airtime] shorten_parts: 4 is not fewer than [reply] max_chunks (4)"
        ),
        "{all}"
    );
    assert!(
        all.contains("x.toml line 5: [airtime] stale_secs: 60 s"),
        "{all}"
    );
}

#[test]
fn a_nan_is_out_of_every_range() {
    let text = "[radio]\nserial = \"/dev/x\"\n[llm]\ntemperature = nan\n";
    let err = parse(text, "x.toml", &no_env).unwrap_err().to_string();
    assert!(
        err.contains("line 4: [llm] temperature: NaN is out of range (0 to 2)"),
        "{err}"
    );
}

#[test]
fn require_pki_and_mqtt() {
    let with = |lines: &str| {
        parse(
            &format!("[radio]\nserial = \"/x\"\n[access]\n{lines}\n"),
            "x.toml",
            &no_env,
        )
    };
    let access = |lines: &str| with(lines).unwrap().0.access;
    let defaults = access("");
    assert_eq!(defaults.require_pki, RequirePki::PkiNodes);
    assert_eq!(defaults.mqtt, MqttPolicy::NoMemory);
    assert_eq!(access("require_pki = \"all\"").require_pki, RequirePki::All);
    assert_eq!(access("require_pki = \"ALL\"").require_pki, RequirePki::All);
    assert_eq!(
        access("require_pki = \"pki_nodes\"").require_pki,
        RequirePki::PkiNodes
    );
    // The lists earlier versions took (their example config wrote one) still start, with a
    // warning: they change nothing any more.
    for list in ["[\"reset\", \"summary\", \"status\"]", "[]", "[\"chat\"]"] {
        let (config, warnings) = with(&format!("require_pki = {list}")).unwrap();
        assert_eq!(config.access.require_pki, RequirePki::PkiNodes, "{list}");
        let warnings: Vec<String> = warnings.iter().map(|w| w.to_string()).collect();
        assert!(
            warnings
                .iter()
                .any(|w| w.starts_with("x.toml line 4: [access] require_pki: ")
                    && w.contains("no longer changes anything")),
            "{list}: {warnings:?}"
        );
    }
    assert!(with("").unwrap().1.is_empty(), "no warning by default");
    assert_eq!(access("mqtt = \"answer\"").mqtt, MqttPolicy::Answer);
    assert_eq!(access("mqtt = \"ignore\"").mqtt, MqttPolicy::Ignore);
    for (lines, want) in [
        (
            "require_pki = \"some\"",
            "x.toml line 4: [access] require_pki: \"some\": use \"pki_nodes\" or \"all\"",
        ),
        (
            "mqtt = \"drop\"",
            "x.toml line 4: [access] mqtt: \"drop\": use \"no_memory\", \"answer\" or \"ignore\"",
        ),
    ] {
        let err = with(lines).unwrap_err().to_string();
        assert!(err.contains(want), "{lines}: {err}");
    }
}

#[test]
fn the_flood_limits_are_read_and_checked() {
    let text = |body: &str| format!("[radio]\nserial = \"/dev/x\"\n[limits]\n{body}\n");
    let (c, w) = parse(
        &text("max_waiting = 8\nmax_turn_wait_secs = 60\nnew_node_parts = 1\nnew_node_turns = 3"),
        "x.toml",
        &no_env,
    )
    .unwrap();
    // `new_node_turns` is read (an old config still starts) but no longer used.
    assert_eq!(w.len(), 1, "{w:?}");
    assert!(w[0].to_string().contains("new_node_turns"), "{w:?}");
    assert_eq!(
        (
            c.limits.max_waiting,
            c.limits.max_turn_wait,
            c.limits.new_node_parts,
        ),
        (8, Duration::from_secs(60), 1)
    );
    let errors = [
        (
            "max_waiting = 0",
            "x.toml line 4: [limits] max_waiting: 0 is out of range (1 to 10000)",
        ),
        (
            "max_turn_wait_secs = 9",
            "line 4: [limits] max_turn_wait_secs: 9 is out of range (10 to 86400)",
        ),
        (
            "new_node_parts = 11",
            "line 4: [limits] new_node_parts: 11 is out of range (1 to 10)",
        ),
    ];
    for (body, want) in errors {
        let err = parse(&text(body), "x.toml", &no_env)
            .unwrap_err()
            .to_string();
        assert!(err.contains(want), "{body}: {err}");
    }
    let (_, w) = parse(&text("max_waiting = 3"), "x.toml", &no_env).unwrap();
    assert!(
        w.iter().any(|w| w
            .0
            .contains("x.toml line 4: [limits] max_waiting: fewer than 4")),
        "{w:?}"
    );
}

#[test]
fn knowledge_settings() {
    let text = std::fs::read_to_string(manifest("tests/configs/valid/knowledge.toml")).unwrap();
    let (c, w) = parse(&text, "x", &no_env).unwrap();
    assert!(w.is_empty(), "{w:?}");
    let k = &c.knowledge;
    assert_eq!(k.dir, Some(PathBuf::from("/var/lib/meshai/knowledge")));
    assert_eq!(
        (
            k.bounds.max_passages,
            k.bounds.max_chars,
            k.bounds.min_score
        ),
        (2, 900, 2.5)
    );
    assert_eq!(k.private_to, [NodeId(0xa1b2c3d4), NodeId(0x42)].into());
    assert!(k.private_requires_pki);
    // Off by default; private documents without PKI are a warning on their line.
    let (min, _) = parse("[radio]\nserial = \"/x\"\n", "min", &no_env).unwrap();
    assert_eq!(min.knowledge.dir, None);
    let lax = "[radio]\nserial = \"/x\"\n[knowledge]\nprivate_requires_pki = false\n";
    let (c, w) = parse(lax, "x.toml", &no_env).unwrap();
    assert!(!c.knowledge.private_requires_pki);
    assert!(
        w.iter().any(|w| w
            .0
            .contains("x.toml line 4: [knowledge] private_requires_pki")),
        "{w:?}"
    );
}

#[test]
fn embeddings_settings() {
    // Unset: no search by meaning.
    let (min, _) = parse("[radio]\nserial = \"/x\"\n", "min", &no_env).unwrap();
    assert_eq!(min.knowledge.embeddings, None);
    // Only a model: [llm]'s server and key, the default similarity.
    let env = |name: &str| (name == "MESHAI_API_KEY").then(|| "sk-chat".to_string());
    let text = "[radio]\nserial = \"/x\"\n[llm]\nbase_url = \"http://127.0.0.1:11434/v1\"\n\
                [knowledge.embeddings]\nmodel = \" nomic-embed-text \"\n";
    let (c, w) = parse(text, "x", &env).unwrap();
    assert!(w.is_empty(), "{w:?}");
    let e = c.knowledge.embeddings.expect("embeddings");
    assert_eq!(e.model, "nomic-embed-text");
    assert_eq!(e.base_url, "http://127.0.0.1:11434/v1");
    assert_eq!(e.api_key.as_ref().map(|k| k.expose()), Some("sk-chat"));
    assert_eq!(
        e.min_similarity,
        crate::knowledge::embed::DEFAULT_MIN_SIMILARITY
    );
    // Another server: its own key, or none; [llm]'s never goes there.
    let text = "[radio]\nserial = \"/x\"\n[knowledge.embeddings]\nmodel = \"m\"\n\
                base_url = \"http://127.0.0.1:8081/v1/\"\nmin_similarity = 0.3\n";
    let (c, _) = parse(text, "x", &env).unwrap();
    let e = c.knowledge.embeddings.expect("embeddings");
    assert_eq!(e.base_url, "http://127.0.0.1:8081/v1");
    assert_eq!(e.api_key, None);
    assert_eq!(e.min_similarity, 0.3);
    let keyed = format!("{text}api_key_env = \"EMBED_KEY\"\n");
    let env = |name: &str| (name == "EMBED_KEY").then(|| "sk-embed".to_string());
    let (c, _) = parse(&keyed, "x", &env).unwrap();
    let e = c.knowledge.embeddings.expect("embeddings");
    assert_eq!(e.api_key.as_ref().map(|k| k.expose()), Some("sk-embed"));
    // A key name without a server of its own is ignored, with a warning on its line.
    let text = "[radio]\nserial = \"/x\"\n[knowledge.embeddings]\nmodel = \"m\"\n\
                api_key_env = \"EMBED_KEY\"\n";
    let (_, w) = parse(text, "x.toml", &no_env).unwrap();
    assert!(
        w.iter().any(|w| w
            .0
            .contains("x.toml line 5: [knowledge.embeddings] api_key_env: ignored")),
        "{w:?}"
    );
}

#[test]
fn mesh_settings() {
    use crate::mesh::{Hidden, MeshConfig, Units};
    let (min, _) = parse("[radio]\nserial = \"/x\"\n", "min", &no_env).unwrap();
    assert_eq!(min.mesh, MeshConfig::default());
    assert!(min.mesh.enabled && min.mesh.positions && min.mesh.units == Units::Metric);
    let text = "[radio]\nserial = \"/x\"\n[mesh]\nunits = \"Imperial\"\npositions = false\n\
                hidden = [\"!a1b2c3d4\", \" Home Base \"]\n";
    let (c, w) = parse(text, "x", &no_env).unwrap();
    assert!(w.is_empty(), "{w:?}");
    assert_eq!(c.mesh.units, Units::Imperial);
    assert!(!c.mesh.positions);
    assert_eq!(
        c.mesh.hidden,
        [
            Hidden::Node(NodeId(0xa1b2c3d4)),
            Hidden::Name("home base".into())
        ]
    );
    for (bad, key) in [
        ("units = \"nautical\"", "[mesh] units"),
        ("hidden = [\"!zz\"]", "[mesh] hidden"),
        ("hidden = [\"\"]", "[mesh] hidden"),
        ("colour = 1", "colour"),
    ] {
        let text = format!("[radio]\nserial = \"/x\"\n[mesh]\n{bad}\n");
        let err = parse(&text, "x.toml", &no_env).unwrap_err().to_string();
        assert!(err.contains(key), "{bad}: {err}");
    }
}

#[test]
fn bot_language_is_auto_or_a_code_meshai_has_texts_in() {
    let base = "[radio]\nserial = \"/dev/ttyUSB0\"\n";
    let (c, _) = parse(base, "t.toml", &no_env).unwrap();
    assert_eq!(c.language, Language::Auto);
    for (value, want) in [
        ("auto", Language::Auto),
        ("DE", Language::Fixed(crate::lang::Lang::De)),
        ("pl", Language::Fixed(crate::lang::Lang::Pl)),
    ] {
        let text = format!("{base}[bot]\nlanguage = \"{value}\"\n");
        let (c, _) = parse(&text, "t.toml", &no_env).unwrap();
        assert_eq!(c.language, want, "{value}");
    }
    let text = format!("{base}[bot]\nlanguage = \"sv\"\n");
    let e = parse(&text, "t.toml", &no_env).unwrap_err().to_string();
    assert!(
        e.contains("language") && e.contains("auto") && e.contains("de, es"),
        "{e}"
    );
}

#[test]
fn a_files_name_is_its_topic() {
    let cases = [
        ("weather.txt", Some("weather")),
        ("Club-News.md", Some("club-news")),
        ("same_alerts", Some("same_alerts")),
        (".weather.txt", None),
        ("weather.txt.tmp", None),
        ("weather.txt~", None),
        ("weather.json", None),
        ("a b.txt", None),
        ("wetter-für-alle.txt", None),
        ("this-name-is-far-too-long-for-a-topic.txt", None),
        (".txt", None),
    ];
    for (name, want) in cases {
        assert_eq!(crate::config::topic_of(name).as_deref(), want, "{name}");
    }
}

#[test]
fn the_bulletins_folder_lists_its_topics() {
    let dir = tempfile::tempdir().unwrap();
    for name in ["weather.txt", "club.md", ".half.tmp", "notes.json"] {
        std::fs::write(dir.path().join(name), "x").unwrap();
    }
    let cfg = crate::config::BulletinsConfig {
        dir: Some(dir.path().to_path_buf()),
        ..Default::default()
    };
    assert_eq!(cfg.topics(), ["club", "weather"]);
    assert!(
        crate::config::BulletinsConfig::default()
            .topics()
            .is_empty()
    );
}

#[test]
fn a_bulletin_is_broadcast_only_for_the_topics_named_with_a_channel() {
    let parse_b = |body: &str| {
        let text = format!("[radio]\ntcp = \"127.0.0.1\"\n[bulletins]\n{body}\n");
        parse(&text, "x.toml", &no_env).map(|(c, w)| (c.bulletins, w))
    };
    let (b, w) =
        parse_b("channel = 2\nbroadcast = [\"Weather\", \"weather\", \"club.txt\"]").unwrap();
    assert!(w.is_empty(), "{w:?}");
    assert_eq!(b.broadcast, ["weather", "club"]);
    assert_eq!(b.channel_for("weather"), Some(2));
    assert_eq!(b.channel_for("pollen"), None);
    assert_eq!(BulletinsConfig::default().channel_for("weather"), None);
    let errors = [
        ("broadcast = [\"weather\"]", "broadcast: needs `channel`"),
        ("channel = 8\nbroadcast = [\"weather\"]", "channel"),
        (
            "channel = 1\nbroadcast = [\"a b\"]",
            "\"a b\" is not a topic",
        ),
        ("dir = \"\"", "dir: is empty"),
        ("per_day = 0", "per_day"),
    ];
    for (body, want) in errors {
        let e = parse_b(body).unwrap_err().to_string();
        assert!(e.contains(want), "{body}: {e}");
    }
    let warned = |body: &str| {
        parse_b(body)
            .unwrap()
            .1
            .iter()
            .map(|w| w.0.clone())
            .collect::<String>()
    };
    assert!(warned("channel = 3").contains("names no topic"));
    assert!(warned("channel = 0\nbroadcast = [\"weather\"]").contains("primary channel"));
}
