use std::ffi::OsString;

use super::*;
use crate::cli::daemons::euid_from_status;
use crate::node::NodeId;

#[test]
fn identities_and_default_paths() {
    let status =
        "Name:\tmeshai\nUmask:\t0022\nUid:\t1000\t1001\t1000\t1001\nGid:\t1000\t1000\t1000\t1000\n";
    assert_eq!(euid_from_status(status), Some(1001));
    assert_eq!(euid_from_status("Name: x\n"), None);
    let passwd =
        "root:x:0:0:root:/root:/bin/bash\nmeshai:x:998:997::/var/lib/meshai:/usr/sbin/nologin\n";
    assert_eq!(ids_from_passwd(passwd, "meshai"), Some((998, 997)));
    assert_eq!(ids_from_passwd(passwd, "pi"), None);
    assert_eq!(Who::of(0, Some(998)), Who::Root);
    assert_eq!(Who::of(998, Some(998)), Who::Service);
    assert_eq!(Who::of(1000, Some(998)), Who::User);
    assert_eq!(Who::of(1000, None), Who::User);

    let env = |name: &str| match name {
        "HOME" => Some(OsString::from("/home/pi")),
        _ => None,
    };
    let xdg = |name: &str| match name {
        "HOME" => Some(OsString::from("/home/pi")),
        "XDG_STATE_HOME" => Some(OsString::from("/state")),
        "XDG_CONFIG_HOME" => Some(OsString::from("/cfg")),
        _ => None,
    };
    let p = |s: &str| Some(PathBuf::from(s));
    assert_eq!(default_database(Who::Root, &env), p(SERVICE_DATABASE));
    assert_eq!(default_database(Who::Service, &env), p(SERVICE_DATABASE));
    assert_eq!(
        default_database(Who::User, &env),
        p("/home/pi/.local/state/meshai/meshai.db")
    );
    assert_eq!(
        default_database(Who::User, &xdg),
        p("/state/meshai/meshai.db")
    );
    assert_eq!(default_database(Who::User, &|_| None), None);
    let k = |db: &str| default_knowledge(Path::new(db));
    assert_eq!(
        k(SERVICE_DATABASE),
        PathBuf::from("/var/lib/meshai/knowledge")
    );
    assert_eq!(
        k("/home/pi/.local/state/meshai/meshai.db"),
        PathBuf::from("/home/pi/.local/state/meshai/knowledge")
    );
    assert_eq!(k("meshai.db"), PathBuf::from("knowledge"));
    assert_eq!(
        default_output(Who::Root, &env),
        p("/etc/meshai/config.toml")
    );
    assert_eq!(
        default_output(Who::User, &env),
        p("/home/pi/.config/meshai/config.toml")
    );
    assert_eq!(
        default_output(Who::User, &xdg),
        p("/cfg/meshai/config.toml")
    );
}

fn node(n: u32) -> Probe {
    Probe::Node(super::super::node::NodeFacts {
        num: NodeId(n),
        summary: format!("node {}", NodeId(n)),
    })
}

#[test]
fn node_choice() {
    let serial = Candidate::Serial("/dev/serial/by-id/usb-x".into());
    let tcp = Candidate::Tcp {
        host: "127.0.0.1".into(),
        port: 4403,
    };
    let virt = Candidate::VirtualNode {
        host: "127.0.0.1".into(),
        port: 4404,
    };
    let refused = Probe::Failed("connection refused".into());
    let busy = Probe::Busy("in use by pid 7 (python3)".into());
    type Case = (Vec<(Candidate, Probe)>, bool, Result<usize, &'static str>);
    let cases: Vec<Case> = vec![
        (
            vec![(serial.clone(), node(1)), (tcp.clone(), refused.clone())],
            false,
            Ok(0),
        ),
        (
            vec![(serial.clone(), refused.clone()), (tcp.clone(), node(2))],
            false,
            Ok(1),
        ),
        (
            vec![(serial.clone(), node(1)), (tcp.clone(), node(2))],
            false,
            Err("2 Meshtastic nodes answered"),
        ),
        (
            vec![(tcp.clone(), refused.clone())],
            false,
            Err("no Meshtastic node found"),
        ),
        (vec![], false, Err("--serial PATH or --tcp HOST:PORT")),
        (
            vec![
                (serial.clone(), busy.clone()),
                (tcp.clone(), refused.clone()),
            ],
            false,
            Err("a port in use is never touched"),
        ),
        // Named on the command line: used even when it did not answer.
        (vec![(serial.clone(), refused.clone())], true, Ok(0)),
        (vec![(tcp.clone(), busy.clone())], true, Ok(0)),
        // One node in two places, one a virtual node: that one, which shares it.
        (
            vec![
                (serial.clone(), refused.clone()),
                (tcp.clone(), node(2)),
                (virt.clone(), node(2)),
            ],
            false,
            Ok(2),
        ),
        // The node's own port held by the proxy: the virtual node alone answered.
        (
            vec![(tcp.clone(), busy.clone()), (virt.clone(), node(2))],
            false,
            Ok(1),
        ),
        // Two different nodes: no guessing.
        (
            vec![(tcp.clone(), node(1)), (virt.clone(), node(2))],
            false,
            Err("2 Meshtastic nodes answered"),
        ),
        (
            vec![(serial.clone(), node(2)), (tcp.clone(), node(2))],
            false,
            Err("2 Meshtastic nodes answered"),
        ),
    ];
    for (probes, named, want) in cases {
        let got = choose_node(&probes, named);
        match (&got, want) {
            (Ok(c), Ok(w)) => {
                assert_eq!(c.index, w, "{probes:?}");
                let virtual_with_another = probes.iter().filter(|(_, p)| *p == node(2)).count() > 1;
                assert_eq!(c.why.is_some(), virtual_with_another && !named, "{c:?}");
            }
            (Err(e), Err(w)) => assert!(e.contains(w), "{e:?} lacks {w:?}"),
            _ => panic!("{probes:?}: got {got:?}, want {want:?}"),
        }
    }
}

fn model(name: &str, size: u64) -> ModelInfo {
    ModelInfo {
        name: name.into(),
        size: Some(size),
        families: Vec::new(),
    }
}

fn server(kind: Kind, models: Result<Vec<ModelInfo>, &str>) -> ServerProbe {
    ServerProbe {
        kind,
        base_url: format!("http://127.0.0.1/{}/v1", kind.name()),
        models: models.map_err(str::to_string),
    }
}

#[test]
fn llm_choice() {
    let refused = || Err("connection refused");
    let ollama = |m: Vec<ModelInfo>| server(Kind::Ollama, Ok(m));
    let small = model("qwen2.5:0.5b", 400);
    let default = model("qwen2.5:1.5b", 900);
    let embed = model("nomic-embed-text", 200);
    type Case = (
        Vec<ServerProbe>,
        Option<&'static str>,
        Result<(usize, &'static str, &'static str), &'static str>,
    );
    let cases: Vec<Case> = vec![
        (
            vec![ollama(vec![small.clone(), default.clone()])],
            None,
            Ok((0, "qwen2.5:1.5b", "default")),
        ),
        (
            vec![ollama(vec![embed.clone(), small.clone()])],
            None,
            Ok((0, "qwen2.5:0.5b", "smallest")),
        ),
        (
            vec![
                server(Kind::Ollama, refused()),
                server(Kind::LlamaCpp, Ok(vec![model("x.gguf", 1)])),
            ],
            None,
            Ok((1, "x.gguf", "smallest")),
        ),
        (
            vec![ollama(vec![embed.clone()])],
            None,
            Err("has no chat model: `ollama pull qwen2.5:1.5b`"),
        ),
        (
            vec![
                server(Kind::Ollama, refused()),
                server(Kind::LmStudio, refused()),
            ],
            None,
            Err("no LLM server found"),
        ),
        (
            vec![ollama(vec![small.clone()])],
            Some("qwen2.5:0.5b"),
            Ok((0, "qwen2.5:0.5b", "as asked")),
        ),
        (
            vec![ollama(vec![small.clone()])],
            Some("llama3.2:3b"),
            Err("`ollama pull llama3.2:3b`"),
        ),
        (
            vec![server(Kind::LmStudio, Ok(vec![small.clone()]))],
            Some("phi"),
            Err("download phi in LM Studio"),
        ),
        (
            vec![server(Kind::LlamaCpp, Ok(vec![model("x.gguf", 1)]))],
            Some("qwen"),
            Ok((0, "qwen", "not checked")),
        ),
        (
            vec![server(Kind::Named, refused())],
            Some("gpt-4o-mini"),
            Ok((0, "gpt-4o-mini", "not checked")),
        ),
        (
            vec![server(Kind::Named, refused())],
            None,
            Err("no LLM server found at http://127.0.0.1/LLM server/v1"),
        ),
    ];
    for (servers, wanted, want) in cases {
        let got = choose_llm(&servers, wanted, "qwen2.5:1.5b");
        match (&got, want) {
            (Ok((i, m, why)), Ok((wi, wm, wwhy))) => {
                assert_eq!((*i, m.as_str()), (wi, wm), "{servers:?}");
                assert!(why.contains(wwhy), "{why:?} lacks {wwhy:?}");
            }
            (Err(e), Err(w)) => assert!(e.contains(w), "{e:?} lacks {w:?}"),
            _ => panic!("{servers:?} {wanted:?}: got {got:?}, want {want:?}"),
        }
    }
}
