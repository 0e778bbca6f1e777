//! `meshai init`'s decisions, without I/O: which node, which server and model, which default
//! paths for the invoking user. Each takes what the probes found and returns the choice or the
//! problem, worded with its fix. Table-tested below.

use std::path::{Path, PathBuf};

use super::node::{Candidate, Probe};
use crate::cli::daemons::{SERVICE_DATABASE, user_database};
use crate::config::locate::{Env, user_config};
use crate::llm::models::{self, ModelInfo, Why};
/// The service user the package creates.
pub(crate) const SERVICE_USER: &str = "meshai";

/// Who runs `meshai init`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Who {
    Root,
    /// The `meshai` user the service runs as.
    Service,
    User,
}

impl Who {
    /// From the effective uid and the `meshai` user's uid, if that user exists.
    pub(crate) fn of(euid: u32, service_uid: Option<u32>) -> Who {
        match euid {
            0 => Who::Root,
            uid if Some(uid) == service_uid => Who::Service,
            _ => Who::User,
        }
    }
}

/// The uid and gid of `user` from the text of `/etc/passwd`.
pub(crate) fn ids_from_passwd(passwd: &str, user: &str) -> Option<(u32, u32)> {
    passwd.lines().find_map(|l| {
        let mut f = l.split(':');
        (f.next()? == user).then_some(())?;
        let (_, uid, gid) = (f.next()?, f.next()?, f.next()?);
        Some((uid.parse().ok()?, gid.parse().ok()?))
    })
}

/// Where the database goes unless `--database` says: the service's folder for root and the
/// service user, the XDG state folder (`~/.local/state/meshai/`) for anyone else.
pub(crate) fn default_database(who: Who, env: Env<'_>) -> Option<PathBuf> {
    match who {
        Who::Root | Who::Service => Some(PathBuf::from(SERVICE_DATABASE)),
        Who::User => user_database(env),
    }
}

/// The knowledge folder unless `--knowledge` says: `knowledge` beside the database
/// (`/var/lib/meshai/knowledge` for the service, which may read it under systemd's
/// `ProtectSystem=strict`).
pub(crate) fn default_knowledge(database: &Path) -> PathBuf {
    match database.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.join("knowledge"),
        _ => PathBuf::from("knowledge"),
    }
}

/// Where the config goes unless `--output` says: `/etc/meshai/config.toml` for root (what
/// the service reads), the user's config folder for anyone else. Both are found by `run`.
pub(crate) fn default_output(who: Who, env: Env<'_>) -> Option<PathBuf> {
    match who {
        Who::Root => Some(PathBuf::from(crate::config::locate::SYSTEM)),
        Who::Service | Who::User => user_config(env),
    }
}

/// The node chosen, by index into the probes, and why when there was a choice to make.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct NodeChoice {
    pub(crate) index: usize,
    pub(crate) why: Option<String>,
}

/// The node to use; or the problem, with its fix. A named node (`--serial`, `--tcp`) is used
/// even when it could not be confirmed. When one node answered in two places and one of them
/// is a virtual node (a multi-client proxy), that one is chosen: it shares the node.
pub(crate) fn choose_node(
    probes: &[(Candidate, Probe)],
    named: bool,
) -> Result<NodeChoice, String> {
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
pub(crate) enum Kind {
    Ollama,
    LlamaCpp,
    LmStudio,
    /// Another server with the OpenAI API's `/v1/models` (vLLM, LiteLLM, llama-cpp-python, or
    /// llama.cpp's server on Ollama's port).
    OpenAi,
    /// Named with `--llm-url`.
    Named,
}

impl Kind {
    pub(crate) fn name(self) -> &'static str {
        match self {
            Kind::Ollama => "Ollama",
            Kind::LlamaCpp => "llama.cpp server",
            Kind::LmStudio => "LM Studio",
            Kind::OpenAi => "OpenAI-compatible server",
            Kind::Named => "LLM server",
        }
    }

    /// How to make `model` available on this kind of server.
    fn install_hint(self, model: &str) -> String {
        match self {
            Kind::Ollama => format!("`ollama pull {model}`"),
            Kind::LmStudio => format!("download {model} in LM Studio (or `lms get {model}`)"),
            Kind::LlamaCpp | Kind::OpenAi | Kind::Named => {
                format!("install {model} on that server")
            }
        }
    }
}

/// A model server and what listing its models gave.
#[derive(Debug, Clone)]
pub(crate) struct ServerProbe {
    pub(crate) kind: Kind,
    /// The API root for `[llm] base_url`.
    pub(crate) base_url: String,
    pub(crate) models: Result<Vec<ModelInfo>, String>,
}

/// The server (index into `servers`) and model to use, with why that model; or the problem
/// with its fix. `wanted` is `--model`; `default` is meshai's default model.
pub(crate) fn choose_llm(
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
mod tests;
