//! `meshai init`'s decisions, without I/O: which node, which server and model, which default
//! paths for the invoking user. Each takes what the probes found and returns the choice or the
//! problem, worded with its fix. Table-tested below.

use std::path::{Path, PathBuf};

use super::node::{Candidate, Probe};
use crate::config::locate::{Env, user_config, xdg_dir};
use crate::llm::models::{self, ModelInfo, Why};

/// The database path of the service (and of root, who sets the service up).
pub const SERVICE_DATABASE: &str = "/var/lib/meshai/meshai.db";
/// The service user the package creates.
pub const SERVICE_USER: &str = "meshai";

/// Who runs `meshai init`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Who {
    Root,
    /// The `meshai` user the service runs as.
    Service,
    User,
}

impl Who {
    /// From the effective uid and the `meshai` user's uid, if that user exists.
    pub fn of(euid: u32, service_uid: Option<u32>) -> Who {
        match euid {
            0 => Who::Root,
            uid if Some(uid) == service_uid => Who::Service,
            _ => Who::User,
        }
    }
}

/// The effective uid from the text of `/proc/self/status` (`Uid: real effective saved fs`).
pub fn euid_from_status(status: &str) -> Option<u32> {
    status
        .lines()
        .find_map(|l| l.strip_prefix("Uid:"))?
        .split_whitespace()
        .nth(1)?
        .parse()
        .ok()
}

/// The uid and gid of `user` from the text of `/etc/passwd`.
pub fn ids_from_passwd(passwd: &str, user: &str) -> Option<(u32, u32)> {
    passwd.lines().find_map(|l| {
        let mut f = l.split(':');
        (f.next()? == user).then_some(())?;
        let (_, uid, gid) = (f.next()?, f.next()?, f.next()?);
        Some((uid.parse().ok()?, gid.parse().ok()?))
    })
}

/// Where the database goes unless `--database` says: the service's folder for root and the
/// service user, the XDG state folder (`~/.local/state/meshai/`) for anyone else.
pub fn default_database(who: Who, env: Env<'_>) -> Option<PathBuf> {
    match who {
        Who::Root | Who::Service => Some(PathBuf::from(SERVICE_DATABASE)),
        Who::User => xdg_dir(env, "XDG_STATE_HOME", ".local/state")
            .map(|d| d.join("meshai").join("meshai.db")),
    }
}

/// The knowledge folder unless `--knowledge` says: `knowledge` beside the database
/// (`/var/lib/meshai/knowledge` for the service, which may read it under systemd's
/// `ProtectSystem=strict`).
pub fn default_knowledge(database: &Path) -> PathBuf {
    match database.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.join("knowledge"),
        _ => PathBuf::from("knowledge"),
    }
}

/// Where the config goes unless `--output` says: `/etc/meshai/config.toml` for root (what
/// the service reads), the user's config folder for anyone else. Both are found by `run`.
pub fn default_output(who: Who, env: Env<'_>) -> Option<PathBuf> {
    match who {
        Who::Root => Some(PathBuf::from(crate::config::locate::SYSTEM)),
        Who::Service | Who::User => user_config(env),
    }
}

/// The node chosen, by index into the probes, and why when there was a choice to make.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NodeChoice {
    pub index: usize,
    pub why: Option<String>,
}

/// The node to use; or the problem, with its fix. A named node (`--serial`, `--tcp`) is used
/// even when it could not be confirmed. When one node answered in two places and one of them
/// is a virtual node (a multi-client proxy), that one is chosen: it shares the node.
pub fn choose_node(probes: &[(Candidate, Probe)], named: bool) -> Result<NodeChoice, String> {
    let chosen = |index| NodeChoice { index, why: None };
    if named && !probes.is_empty() {
        return Ok(chosen(0));
    }
    let nodes: Vec<usize> = (0..probes.len())
        .filter(|&i| matches!(probes[i].1, Probe::Node(_)))
        .collect();
    if let Some(choice) = shared(probes, &nodes) {
        return Ok(choice);
    }
    match nodes.as_slice() {
        [one] => Ok(chosen(*one)),
        [] => {
            let mut problem = "no Meshtastic node found: plug the node in over USB (it appears in \
                               /dev/serial/by-id/), or name it with --serial PATH or --tcp \
                               HOST:PORT"
                .to_string();
            if probes.iter().any(|(_, p)| matches!(p, Probe::Busy(_))) {
                problem.push_str(
                    "; a port in use is never touched: stop the program that holds it (for \
                     meshai itself: `sudo systemctl stop meshai`) and run init again",
                );
            }
            Err(problem)
        }
        many => Err(format!(
            "{} Meshtastic nodes answered: choose one with --serial PATH or --tcp HOST:PORT",
            many.len()
        )),
    }
}

/// The virtual node among `nodes` (indexes of the probes that answered), when every one of
/// them is the same node and exactly one is a virtual node.
fn shared(probes: &[(Candidate, Probe)], nodes: &[usize]) -> Option<NodeChoice> {
    let num = |i: usize| match &probes[i].1 {
        Probe::Node(facts) => Some(facts.num),
        Probe::Busy(_) | Probe::Failed(_) => None,
    };
    let first = num(*nodes.first()?)?;
    if nodes.len() < 2 || nodes.iter().any(|&i| num(i) != Some(first)) {
        return None;
    }
    let virtual_nodes: Vec<usize> = nodes
        .iter()
        .copied()
        .filter(|&i| matches!(probes[i].0, Candidate::VirtualNode { .. }))
        .collect();
    let [index] = virtual_nodes.as_slice() else {
        return None;
    };
    let others: Vec<String> = nodes
        .iter()
        .filter(|&i| i != index)
        .map(|&i| probes[i].0.describe())
        .collect();
    Some(NodeChoice {
        index: *index,
        why: Some(format!(
            "node {first} also answers on {}, which serves one client at a time; the virtual \
             node shares it with the other apps",
            others.join(" and ")
        )),
    })
}

/// A kind of model server.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Ollama,
    LlamaCpp,
    LmStudio,
    /// Named with `--llm-url`.
    Named,
}

impl Kind {
    pub fn name(self) -> &'static str {
        match self {
            Kind::Ollama => "Ollama",
            Kind::LlamaCpp => "llama.cpp server",
            Kind::LmStudio => "LM Studio",
            Kind::Named => "LLM server",
        }
    }

    /// How to make `model` available on this kind of server.
    fn install_hint(self, model: &str) -> String {
        match self {
            Kind::Ollama => format!("`ollama pull {model}`"),
            Kind::LmStudio => format!("download {model} in LM Studio (or `lms get {model}`)"),
            Kind::LlamaCpp | Kind::Named => format!("install {model} on that server"),
        }
    }
}

/// A model server and what listing its models gave.
#[derive(Debug, Clone)]
pub struct ServerProbe {
    pub kind: Kind,
    /// The API root for `[llm] base_url`.
    pub base_url: String,
    pub models: Result<Vec<ModelInfo>, String>,
}

/// The server (index into `servers`) and model to use, with why that model; or the problem
/// with its fix. `wanted` is `--model`; `default` is meshai's default model.
pub fn choose_llm(
    servers: &[ServerProbe],
    wanted: Option<&str>,
    default: &str,
) -> Result<(usize, String, String), String> {
    let reached: Vec<usize> = (0..servers.len())
        .filter(|&i| servers[i].models.is_ok())
        .collect();
    let listed = |i: usize| servers[i].models.as_deref().unwrap_or_default();
    if let Some(model) = wanted {
        if let Some(&i) = reached
            .iter()
            .find(|&&i| listed(i).iter().any(|m| m.name == model))
        {
            return Ok((i, model.to_string(), "as asked".into()));
        }
        // llama.cpp's server answers with the model it loaded, whatever the name; a named
        // server that could not be listed is taken on trust.
        let trusted = (0..servers.len()).find(|&i| {
            servers[i].kind == Kind::LlamaCpp && reached.contains(&i)
                || servers[i].kind == Kind::Named && !reached.contains(&i)
        });
        if let Some(i) = trusted {
            return Ok((i, model.to_string(), "as asked; not checked".into()));
        }
        return Err(problem(servers, &reached, |s| {
            format!(
                "model {model} is not on {} at {}: {}, or choose one it has with --model",
                s.kind.name(),
                s.base_url,
                s.kind.install_hint(model)
            )
        }));
    }
    for &i in &reached {
        if let Some((m, why)) = models::choose(listed(i), default) {
            let why = match why {
                Why::Preferred => "meshai's default model".to_string(),
                Why::Smallest => {
                    format!("the smallest chat model there; {default} is not installed")
                }
            };
            return Ok((i, m.name.clone(), why));
        }
    }
    Err(problem(servers, &reached, |s| {
        format!(
            "{} at {} has no chat model: {}, then run init again",
            s.kind.name(),
            s.base_url,
            s.kind.install_hint(default)
        )
    }))
}

/// The problem with the first server reached (`about`), or that none was.
fn problem(
    servers: &[ServerProbe],
    reached: &[usize],
    about: impl Fn(&ServerProbe) -> String,
) -> String {
    if let Some(s) = reached.first().and_then(|&i| servers.get(i)) {
        return about(s);
    }
    let looked: Vec<&str> = servers.iter().map(|s| s.base_url.as_str()).collect();
    format!(
        "no LLM server found at {}: install Ollama and `ollama pull qwen2.5:1.5b`, then run \
         init again; or name a server with --llm-url URL --model NAME",
        looked.join(", ")
    )
}

#[cfg(test)]
mod tests {
    use std::ffi::OsString;

    use super::*;
    use crate::node::NodeId;

    #[test]
    fn identities_and_default_paths() {
        let status = "Name:\tmeshai\nUmask:\t0022\nUid:\t1000\t1001\t1000\t1001\nGid:\t1000\t1000\t1000\t1000\n";
        assert_eq!(euid_from_status(status), Some(1001));
        assert_eq!(euid_from_status("Name: x\n"), None);
        let passwd = "root:x:0:0:root:/root:/bin/bash\nmeshai:x:998:997::/var/lib/meshai:/usr/sbin/nologin\n";
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
                    let virtual_with_another =
                        probes.iter().filter(|(_, p)| *p == node(2)).count() > 1;
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
}
