//! Checking the file as written, one function per section: every key within its range, with
//! the file, line and key in each error (`checker::Checker`), then the validated [`Config`]. A
//! child of `raw`, so it reads the raw structs' private fields.

mod checker;

use std::time::Duration;

use super::super::{
    AccessConfig, BulletinsConfig, ChannelsConfig, Config, ConfigError, ContextConfig,
    FallbackConfig, Language, LimitsConfig, LlmConfig, MailConfig, MemoryConfig, MqttPolicy,
    ReplyConfig, RequirePki, SlotsSetting, TimeZoneSetting, Warning,
};
use super::{
    RawAccess, RawAirtime, RawBulletins, RawChannels, RawConfig, RawContext, RawEmbeddings,
    RawFallback, RawKnowledge, RawLimits, RawLlm, RawMail, RawMemory, RawMesh, RawRadio, RawReply,
    RawRequirePki, RawSlots,
};
use crate::airtime::AirtimeConfig;
use crate::knowledge::{Bounds, EmbeddingsConfig, KnowledgeConfig};
use crate::lang::Lang;
use crate::mesh::{Hidden, MeshConfig, Units};
use crate::radio::hops::HOP_MAX;
use crate::radio::transport::Tcp;
use crate::radio::{RadioConfig, Transport};
use crate::store::retention::Retention;
use checker::Checker;

/// Minutes east of UTC from `+HH:MM`/`-HH:MM` (or `Z`/`UTC` for 0), within -12:00..=+14:00.
fn utc_offset_minutes(s: &str) -> Option<i32> {
    let s = s.trim();
    if s.eq_ignore_ascii_case("z") || s.eq_ignore_ascii_case("utc") {
        return Some(0);
    }
    let (sign, rest) = match s.as_bytes().first()? {
        b'+' => (1, &s[1..]),
        b'-' => (-1, &s[1..]),
        _ => return None,
    };
    let (h, m) = rest.split_once(':')?;
    let two_digits = |x: &str| x.len() == 2 && x.bytes().all(|b| b.is_ascii_digit());
    if !two_digits(h) || !two_digits(m) {
        return None;
    }
    let (h, m): (i32, i32) = (h.parse().ok()?, m.parse().ok()?);
    let minutes = sign * (h * 60 + m);
    (m < 60 && (-12 * 60..=14 * 60).contains(&minutes)).then_some(minutes)
}

pub(in crate::config) fn validate(
    raw: RawConfig,
    source: &str,
    origin: &str,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<(Config, Vec<Warning>), ConfigError> {
    let mut c = Checker {
        source,
        origin,
        warnings: Vec::new(),
    };
    // Section by section, in the file's usual order: the first error is the one reported.
    let radio = radio(&mut c, &raw.radio)?;
    let llm = llm(&mut c, &raw.llm, env)?;
    let memory = memory(&mut c, &raw.memory)?;
    let reply = reply(&mut c, &raw.reply)?;
    let limits = limits(&mut c, &raw.limits)?;
    let retain_days = c.range("storage", "retain_days", raw.storage.retain_days, 0, 36_500)?;
    let access = access(&mut c, &raw.access)?;
    let channels = channels(&c, &raw.channels)?;
    let context = context(&c, &raw.context)?;
    let airtime = airtime(&mut c, &raw.airtime, reply.max_chunks)?;
    let knowledge = knowledge(&mut c, &raw.knowledge, &llm, env)?;
    let mesh = mesh(&c, &raw.mesh)?;
    let language = language(&c, &raw.bot.language)?;
    let mail = mail(&mut c, &raw.mail)?;
    let bulletins = bulletins(&mut c, &raw.bulletins)?;
    let config = Config {
        origin: origin.to_string(),
        radio,
        llm,
        database: raw.storage.database,
        retention: Retention::days(retain_days),
        memory,
        reply,
        limits,
        access,
        channels,
        context,
        airtime,
        knowledge,
        mesh,
        language,
        mail,
        bulletins,
    };
    Ok((config, c.warnings))
}

/// `[radio]`: the link, then the timings.
fn radio(c: &mut Checker<'_>, r: &RawRadio) -> Result<RadioConfig, ConfigError> {
    let transport = transport(c, r)?;
    c.range("radio", "baud", r.baud, 1200, 4_000_000)?;
    let send_gap_ms = c.range("radio", "send_gap_ms", r.send_gap_ms, 1, 600_000)?;
    if send_gap_ms < 2000 {
        c.warn(
            "radio",
            "send_gap_ms",
            format!(
                "{send_gap_ms} ms is below the 2000 ms firmware 2.7 enforces; texts will be refused"
            ),
        );
    }
    let ack = c.range("radio", "ack_timeout_secs", r.ack_timeout_secs, 1, 600)?;
    let hs = c.range(
        "radio",
        "handshake_timeout_secs",
        r.handshake_timeout_secs,
        1,
        600,
    )?;
    let hb = c.range("radio", "heartbeat_secs", r.heartbeat_secs, 1, 300)?;
    let silence = c.range(
        "radio",
        "silence_timeout_secs",
        r.silence_timeout_secs,
        10,
        86_400,
    )?;
    let duty = c.range(
        "radio",
        "duty_cycle_pause_secs",
        r.duty_cycle_pause_secs,
        1,
        3600,
    )?;
    let mut radio = RadioConfig::new(transport);
    radio.send_gap = Duration::from_millis(send_gap_ms);
    radio.ack_timeout = Duration::from_secs(ack);
    radio.handshake_timeout = Duration::from_secs(hs);
    radio.heartbeat_interval = Duration::from_secs(hb);
    radio.silence_timeout = Duration::from_secs(silence);
    radio.duty_cycle_pause = Duration::from_secs(duty);
    radio.yield_to_other_clients = r.yield_to_other_clients;
    radio.reply_hops = match r.reply_hops {
        Some(hops) => Some(c.range("radio", "reply_hops", hops, 0, HOP_MAX)?),
        None => None,
    };
    radio.node_status = match &r.node_status {
        Some(s) if s.chars().any(char::is_control) => {
            return Err(c.err(
                "radio",
                "node_status",
                "no control characters or line breaks",
            ));
        }
        Some(s) if s.len() > crate::radio::NODE_STATUS_MAX_BYTES => {
            return Err(c.err(
                "radio",
                "node_status",
                format!(
                    "{} bytes; the node keeps at most {}",
                    s.len(),
                    crate::radio::NODE_STATUS_MAX_BYTES
                ),
            ));
        }
        s => s.clone(),
    };
    if radio.reply_hops == Some(0) {
        c.warn(
            "radio",
            "reply_hops",
            "0: every reply goes zero-hop, without an ACK, and reaches only the nodes our \
             node hears directly",
        );
    }
    Ok(radio)
}

/// `[radio]`'s link: exactly one of `serial` and `tcp` (the one place the config chooses
/// among the transports of `radio::transport`).
fn transport(c: &Checker<'_>, r: &RawRadio) -> Result<Transport, ConfigError> {
    match (&r.serial, &r.tcp) {
        (Some(_), Some(_)) => Err(c.err(
            "radio",
            "serial",
            "set exactly one of `serial` and `tcp`, not both",
        )),
        (None, None) => Err(ConfigError::Invalid {
            origin: c.origin.to_string(),
            line: None,
            message: "[radio]: set exactly one of `serial = \"/dev/ttyUSB0\"` or \
                      `tcp = \"192.168.1.50:4403\"`"
                .into(),
        }),
        (Some(path), None) if path.trim().is_empty() => {
            Err(c.err("radio", "serial", "empty device path"))
        }
        (Some(path), None) => Ok(Transport::serial(path.trim(), r.baud)),
        (None, Some(addr)) => Tcp::parse(addr)
            .map(Transport::Tcp)
            .map_err(|e| c.err("radio", "tcp", e)),
    }
}

/// `[llm]` and each `[[llm.fallback]]`, in order.
fn llm(
    c: &mut Checker<'_>,
    l: &RawLlm,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<LlmConfig, ConfigError> {
    let base_url = c.base_url("llm", &l.base_url)?;
    if l.model.trim().is_empty() {
        return Err(c.err(
            "llm",
            "model",
            "missing: name the model, e.g. \"qwen2.5:1.5b\"",
        ));
    }
    let (api_key_env, api_key) = c.api_key("llm", &l.api_key_env, &base_url, env)?;
    let timeout = c.range("llm", "timeout_secs", l.timeout_secs, 1, 3600)?;
    let max_tokens = c.range("llm", "max_tokens", l.max_tokens, 16, 32_768)?;
    let temperature = c.range("llm", "temperature", l.temperature, 0.0, 2.0)?;
    let concurrency = c.range("llm", "concurrency", l.concurrency, 1, 64)?;
    let slots = match &l.slots {
        RawSlots::Word(w) if w.trim().eq_ignore_ascii_case("auto") => SlotsSetting::Auto,
        RawSlots::Word(w) if w.trim().eq_ignore_ascii_case("off") => SlotsSetting::Off,
        RawSlots::Word(w) => {
            return Err(c.err(
                "llm",
                "slots",
                format!("{w:?} is not \"auto\", \"off\" or a number of slots (1 to 64)"),
            ));
        }
        RawSlots::Count(n) => SlotsSetting::Fixed(c.range("llm", "slots", *n, 1, 64)? as u32),
    };
    if l.system_prompt.trim().is_empty() {
        return Err(c.err("llm", "system_prompt", "must not be empty"));
    }
    let skip = c.range("llm", "skip_secs", l.skip_secs, 1, 3600)?;
    let fallbacks = l
        .fallback
        .iter()
        .map(|f| fallback(c, f, timeout, temperature, env))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(LlmConfig {
        base_url,
        model: l.model.trim().to_string(),
        api_key,
        api_key_env,
        timeout: Duration::from_secs(timeout),
        max_tokens,
        temperature,
        system_prompt: l.system_prompt.trim().to_string(),
        concurrency,
        slots,
        stream: l.stream,
        skip: Duration::from_secs(skip),
        fallbacks,
    })
}

/// One `[[llm.fallback]]`; `timeout_secs` and `temperature` default to `[llm]`'s.
fn fallback(
    c: &mut Checker<'_>,
    f: &RawFallback,
    timeout: u64,
    temperature: f32,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<FallbackConfig, ConfigError> {
    let section = "llm.fallback";
    let base_url = c.base_url(section, &f.base_url)?;
    if f.model.trim().is_empty() {
        return Err(c.err(section, "model", "must not be empty"));
    }
    let (api_key_env, api_key) = c.api_key(section, &f.api_key_env, &base_url, env)?;
    let timeout = match f.timeout_secs {
        Some(t) => c.range(section, "timeout_secs", t, 1, 3600)?,
        None => timeout,
    };
    let temperature = match f.temperature {
        Some(t) => c.range(section, "temperature", t, 0.0, 2.0)?,
        None => temperature,
    };
    Ok(FallbackConfig {
        base_url,
        model: f.model.trim().to_string(),
        api_key,
        api_key_env,
        timeout: Duration::from_secs(timeout),
        temperature,
    })
}

/// `[memory]`: the window, the fold and what a prompt may carry.
fn memory(c: &mut Checker<'_>, m: &RawMemory) -> Result<MemoryConfig, ConfigError> {
    let window_messages = c.range("memory", "window_messages", m.window_messages, 0, 200)?;
    let summarize_threshold = c.range(
        "memory",
        "summarize_threshold",
        m.summarize_threshold,
        1,
        200,
    )?;
    let summary_max_chars =
        c.range("memory", "summary_max_chars", m.summary_max_chars, 50, 4000)?;
    let retrieve_exchanges =
        c.range("memory", "retrieve_exchanges", m.retrieve_exchanges, 0, 10)?;
    let facts_max = c.range("memory", "facts_max", m.facts_max, 0, 50)?;
    let fold_tokens = c.range("memory", "fold_tokens", m.fold_tokens, 128, 200_000)?;
    if window_messages % 2 == 1 {
        c.warn(
            "memory",
            "window_messages",
            "an odd window starts with an assistant message; an even number keeps exchanges whole",
        );
    }
    Ok(MemoryConfig {
        window_messages,
        summarize_threshold,
        summary_max_chars,
        retrieve_exchanges,
        facts_max,
        fold_tokens,
        warm_after_fold: m.warm_after_fold,
    })
}

/// `[reply]`: a part's characters and an answer's parts.
fn reply(c: &mut Checker<'_>, p: &RawReply) -> Result<ReplyConfig, ConfigError> {
    let max_chars = c.range("reply", "max_chars", p.max_chars, 20, 200)?;
    let max_chunks = c.range("reply", "max_chunks", p.max_chunks, 1, 10)?;
    if max_chunks > 5 {
        c.warn(
            "reply",
            "max_chunks",
            "more than 5 packets per answer holds the channel for long; users rarely read them all",
        );
    }
    Ok(ReplyConfig {
        max_chars,
        max_chunks,
    })
}

/// `[limits]`: the per-node rate limit and queue, and the bounds across nodes.
fn limits(c: &mut Checker<'_>, lim: &RawLimits) -> Result<LimitsConfig, ConfigError> {
    let node_messages = c.range("limits", "node_messages", lim.node_messages, 1, 10_000)?;
    let node_window = c.range(
        "limits",
        "node_window_secs",
        lim.node_window_secs,
        1,
        86_400,
    )?;
    let node_queue = c.range("limits", "node_queue", lim.node_queue, 1, 100)?;
    let max_waiting = c.range("limits", "max_waiting", lim.max_waiting, 1, 10_000)?;
    let max_turn_wait = c.range(
        "limits",
        "max_turn_wait_secs",
        lim.max_turn_wait_secs,
        10,
        86_400,
    )?;
    let new_node_parts = c.range("limits", "new_node_parts", lim.new_node_parts, 1, 10)?;
    if lim.new_node_turns.is_some() {
        c.warn(
            "limits",
            "new_node_turns",
            "no longer used: a node's later messages join its waiting turn and are answered \
             with it; remove the line",
        );
    }
    if max_waiting < 4 {
        c.warn(
            "limits",
            "max_waiting",
            "fewer than 4 turns in all: a few new nodes fill it for each other",
        );
    }
    Ok(LimitsConfig {
        node_messages,
        node_window: Duration::from_secs(node_window),
        node_queue,
        max_waiting,
        max_turn_wait: Duration::from_secs(max_turn_wait),
        new_node_parts,
    })
}

/// `[access]`: node ids (one in both `allow` and `deny` is a warning: deny wins), what needs
/// a PKI DM, and what an MQTT DM may do.
fn access(c: &mut Checker<'_>, a: &RawAccess) -> Result<AccessConfig, ConfigError> {
    let mqtt = match a.mqtt.trim().to_lowercase().as_str() {
        "no_memory" => MqttPolicy::NoMemory,
        "answer" => MqttPolicy::Answer,
        "ignore" => MqttPolicy::Ignore,
        other => {
            return Err(c.err(
                "access",
                "mqtt",
                format!("{other:?}: use \"no_memory\", \"answer\" or \"ignore\""),
            ));
        }
    };
    let access = AccessConfig {
        allow: c.nodes("access", "allow", &a.allow)?,
        deny: c.nodes("access", "deny", &a.deny)?,
        admins: c.nodes("access", "admins", &a.admins)?,
        require_pki: require_pki(c, &a.require_pki)?,
        mqtt,
    };
    if let Some(n) = access.allow.intersection(&access.deny).next() {
        c.warn(
            "access",
            "deny",
            format!("{n} is in both allow and deny; deny wins"),
        );
    }
    Ok(access)
}

/// `require_pki`: `"pki_nodes"` or `"all"`. A list of commands (what earlier versions took,
/// and what their example config wrote) is read as `"pki_nodes"` with a warning: a DM without
/// PKI carrying the id of a node that talks PKI now runs no command at all, listed or not.
fn require_pki(c: &mut Checker<'_>, raw: &RawRequirePki) -> Result<RequirePki, ConfigError> {
    match raw {
        RawRequirePki::Word(w) if w.trim().eq_ignore_ascii_case("all") => Ok(RequirePki::All),
        RawRequirePki::Word(w) if w.trim().eq_ignore_ascii_case("pki_nodes") => {
            Ok(RequirePki::PkiNodes)
        }
        RawRequirePki::Word(w) => Err(c.err(
            "access",
            "require_pki",
            format!("{w:?}: use \"pki_nodes\" or \"all\""),
        )),
        RawRequirePki::List(names) => {
            c.warn(
                "access",
                "require_pki",
                format!(
                    "{names:?}: a list of commands no longer changes anything (a DM without PKI \
                     with the id of a node that talks PKI runs no command at all): read as \
                     \"pki_nodes\"; write that, or \"all\""
                ),
            );
            Ok(RequirePki::PkiNodes)
        }
    }
}

/// `[channels]`: a mention word when mentions are answered, channel indexes 0 to 7.
fn channels(c: &Checker<'_>, ch: &RawChannels) -> Result<ChannelsConfig, ConfigError> {
    let mention = ch.mention.trim().to_lowercase();
    if ch.answer_mentions && mention.is_empty() {
        return Err(c.err(
            "channels",
            "mention",
            "must not be empty when answer_mentions = true",
        ));
    }
    for &i in &ch.channels {
        c.range("channels", "channels", i, 0, 7)?;
    }
    Ok(ChannelsConfig {
        answer_mentions: ch.answer_mentions,
        mention,
        channels: ch.channels.clone(),
    })
}

/// `[context]`: the items of the "who is asking" line and where the local time comes from.
fn context(c: &Checker<'_>, cx: &RawContext) -> Result<ContextConfig, ConfigError> {
    Ok(ContextConfig {
        names: cx.names,
        hops: cx.hops,
        snr: cx.snr,
        distance: cx.distance,
        time: cx.time,
        time_zone: if cx.utc_offset.trim().eq_ignore_ascii_case("system") {
            TimeZoneSetting::System
        } else {
            TimeZoneSetting::Fixed(utc_offset_minutes(&cx.utc_offset).ok_or_else(|| {
                c.err(
                    "context",
                    "utc_offset",
                    "must be \"system\" or +HH:MM or -HH:MM between -12:00 and +14:00, e.g. \"+01:00\"",
                )
            })?)
        },
    })
}

/// `[bot] language`: `auto`, or one of the languages meshai has texts in.
fn language(c: &Checker<'_>, raw: &str) -> Result<Language, ConfigError> {
    if raw.trim().eq_ignore_ascii_case("auto") {
        return Ok(Language::Auto);
    }
    Lang::from_code(raw).map(Language::Fixed).ok_or_else(|| {
        let codes: Vec<&str> = Lang::ALL.iter().map(|l| l.code()).collect();
        c.err(
            "bot",
            "language",
            format!("{raw:?}: must be \"auto\" or one of {}", codes.join(", ")),
        )
    })
}

/// `[mail]`: days and quotas within reason (a Pi's SD card, one radio's airtime).
fn mail(c: &mut Checker<'_>, m: &RawMail) -> Result<MailConfig, ConfigError> {
    Ok(MailConfig {
        enabled: m.enabled,
        keep_days: c.range("mail", "keep_days", m.keep_days, 1, 90)?,
        per_sender: c.range("mail", "per_sender", m.per_sender, 1, 50)?,
        per_recipient: c.range("mail", "per_recipient", m.per_recipient, 1, 100)?,
    })
}

/// `[bulletins]`: a folder that is not empty; `broadcast` topics (each a valid topic name)
/// only with a `channel`, 0 to 7.
fn bulletins(c: &mut Checker<'_>, b: &RawBulletins) -> Result<BulletinsConfig, ConfigError> {
    if b.dir.as_ref().is_some_and(|d| d.as_os_str().is_empty()) {
        return Err(c.err("bulletins", "dir", "is empty: a folder, or leave it unset"));
    }
    let mut broadcast = Vec::new();
    for raw in &b.broadcast {
        let Some(topic) = super::super::topic_of(raw) else {
            return Err(c.err(
                "bulletins",
                "broadcast",
                format!("{raw:?} is not a topic: a file's name without .txt, e.g. \"weather\""),
            ));
        };
        if !broadcast.contains(&topic) {
            broadcast.push(topic);
        }
    }
    let channel = match b.channel {
        Some(ch) => Some(c.range("bulletins", "channel", ch, 0, 7)?),
        None if !broadcast.is_empty() => {
            return Err(c.err(
                "bulletins",
                "broadcast",
                "needs `channel`: the channel index (0-7) its topics go out on",
            ));
        }
        None => None,
    };
    if channel.is_some() && broadcast.is_empty() {
        c.warn(
            "bulletins",
            "channel",
            "is set but `broadcast` names no topic: nothing is broadcast",
        );
    }
    if channel == Some(0) && !broadcast.is_empty() {
        c.warn(
            "bulletins",
            "channel",
            "0 is the primary channel, everyone's on this mesh: a channel of your group's is kinder",
        );
    }
    Ok(BulletinsConfig {
        dir: b.dir.clone(),
        per_day: c.range("bulletins", "per_day", b.per_day, 1, 48)?,
        channel,
        broadcast,
    })
}

/// `[mesh]`: the units by name, hidden nodes as ids or names (one plain line each).
fn mesh(c: &Checker<'_>, m: &RawMesh) -> Result<MeshConfig, ConfigError> {
    let units = match m.units.trim().to_ascii_lowercase().as_str() {
        "metric" => Units::Metric,
        "imperial" => Units::Imperial,
        _ => return Err(c.err("mesh", "units", "must be \"metric\" or \"imperial\"")),
    };
    let mut hidden = Vec::new();
    for raw in &m.hidden {
        let t = raw.trim();
        if t.is_empty() || t.chars().count() > 64 || t.chars().any(char::is_control) {
            return Err(c.err(
                "mesh",
                "hidden",
                format!("{raw:?}: a node id (\"!a1b2c3d4\") or its long or short name"),
            ));
        }
        if t.starts_with('!') && t.parse::<crate::node::NodeId>().is_err() {
            return Err(c.err(
                "mesh",
                "hidden",
                format!("{raw:?} is not a node id: 8 hex digits after the !, e.g. \"!a1b2c3d4\""),
            ));
        }
        hidden.push(Hidden::parse(t));
    }
    Ok(MeshConfig {
        enabled: m.enabled,
        units,
        positions: m.positions,
        hidden,
        radio: true,
    })
}

/// `[airtime]`: percentages within 0–100, a non-empty shortened answer, a duty cycle that
/// lets the node send at all.
fn airtime(
    c: &mut Checker<'_>,
    a: &RawAirtime,
    max_chunks: usize,
) -> Result<AirtimeConfig, ConfigError> {
    let s = "airtime";
    let shorten_above = c.range(s, "shorten_above", a.shorten_above, 0.0, 100.0)?;
    let wait_above = c.range(s, "wait_above", a.wait_above, 0.0, 100.0)?;
    let shorten_parts = c.range(s, "shorten_parts", a.shorten_parts, 1, 10)?;
    if shorten_parts >= max_chunks {
        c.warn(
            s,
            "shorten_parts",
            format!(
                "{shorten_parts} is not fewer than [reply] max_chunks ({max_chunks}): a busy \
                 channel only gets the shorter-answer note, not fewer packets"
            ),
        );
    }
    let max_wait = c.range(s, "max_wait_secs", a.max_wait_secs, 0, 3600)?;
    let stale = c.range(s, "stale_secs", a.stale_secs, 1, 86_400)?;
    if stale < 120 {
        c.warn(
            s,
            "stale_secs",
            format!(
                "{stale} s: the node reports the channel about once a minute, so readings will \
                 often count as stale and be ignored"
            ),
        );
    }
    let duty_cycle = match a.duty_cycle_percent {
        Some(p) => Some(c.range(s, "duty_cycle_percent", p, 0.1, 100.0)?),
        None => None,
    };
    let duty_cycle_shorten_at = c.range(
        s,
        "duty_cycle_shorten_at",
        a.duty_cycle_shorten_at,
        1.0,
        100.0,
    )?;
    Ok(AirtimeConfig {
        enabled: a.enabled,
        shorten_above,
        shorten_parts,
        wait_above,
        max_wait: Duration::from_secs(max_wait),
        stale_after: Duration::from_secs(stale),
        duty_cycle,
        duty_cycle_shorten_at,
    })
}

/// `[knowledge]`: a folder path when set, the bounds within their ranges, node ids; private
/// documents without PKI are a warning.
fn knowledge(
    c: &mut Checker<'_>,
    k: &RawKnowledge,
    llm: &LlmConfig,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<KnowledgeConfig, ConfigError> {
    let s = "knowledge";
    let dir = match &k.dir {
        Some(dir) if dir.as_os_str().is_empty() => {
            return Err(c.err(
                s,
                "dir",
                "empty path: leave `dir` out to have no knowledge folder",
            ));
        }
        dir => dir.clone(),
    };
    // One plain line of the system prompt: a newline there would pass for its structure.
    let about = k.about.trim().to_string();
    if about.is_empty() || about.chars().count() > 120 || about.chars().any(char::is_control) {
        return Err(c.err(
            s,
            "about",
            "what the documents are about, one line of 1 to 120 characters (e.g. \"the Ashby Radio Club, its \
             repeaters, events and members\")",
        ));
    }
    let bounds = Bounds {
        max_passages: c.range(s, "max_passages", k.max_passages, 1, 10)?,
        max_chars: c.range(s, "max_chars", k.max_chars, 100, 8000)?,
        min_score: c.range(s, "min_score", k.min_score, 0.0, 100.0)?,
    };
    let private_to = c.nodes(s, "private_to", &k.private_to)?;
    if !k.private_requires_pki {
        c.warn(
            s,
            "private_requires_pki",
            "private documents also go to DMs without PKI: anyone with the channel key can \
             send one with a listed node's id and read the answer",
        );
    }
    let embeddings = k
        .embeddings
        .as_ref()
        .map(|e| embeddings(c, e, llm, env))
        .transpose()?;
    Ok(KnowledgeConfig {
        dir,
        about,
        bounds,
        private_to,
        private_requires_pki: k.private_requires_pki,
        embeddings,
    })
}

/// `[knowledge.embeddings]`: a model; `[llm]`'s server and key unless another server is
/// named (then the key is the one its `api_key_env` names, if any).
fn embeddings(
    c: &mut Checker<'_>,
    e: &RawEmbeddings,
    llm: &LlmConfig,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<EmbeddingsConfig, ConfigError> {
    let s = "knowledge.embeddings";
    let model = e.model.trim().to_string();
    if model.is_empty() {
        return Err(c.err(
            s,
            "model",
            "name the embedding model, e.g. \"nomic-embed-text\" (Ollama) or the alias of a \
             llama.cpp server started with --embeddings",
        ));
    }
    let (base_url, api_key) = match &e.base_url {
        None => (llm.base_url.clone(), llm.api_key.clone()),
        Some(url) => {
            let base_url = c.base_url(s, url)?;
            let name = e.api_key_env.as_deref().unwrap_or_default();
            let (_, api_key) = c.api_key(s, name, &base_url, env)?;
            (base_url, api_key)
        }
    };
    if e.base_url.is_none() && e.api_key_env.is_some() {
        c.warn(
            s,
            "api_key_env",
            "ignored without base_url: [llm]'s server gets [llm]'s key",
        );
    }
    let min_similarity = c.range(s, "min_similarity", e.min_similarity, -1.0, 1.0)?;
    Ok(EmbeddingsConfig {
        base_url,
        model,
        api_key,
        min_similarity,
    })
}
