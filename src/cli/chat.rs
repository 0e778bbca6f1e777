//! `meshai chat`: the bot without a radio. Each input line is a DM from one node, answered by
//! the same responder, memory, commands and chunker as the daemon; the reply packets are
//! printed as they would go on air instead of being sent (a streamed answer part by part, as
//! each part completes).
//!
//! Differences from the daemon, on purpose: the link state is a fixed `Ready` "chat mode" node
//! (so `!status` says the radio is ok), the per-node rate limit is lifted (a person testing
//! at a keyboard is not flooding a channel), every part counts as delivered at once, and a
//! question about the mesh gets the daemon's own "no radio here" (`mesh::Answer::NoRadio`).

use std::io::Write;
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use anyhow::{Context as _, anyhow, bail};
use tokio::io::{AsyncBufRead, AsyncBufReadExt};
use tokio::sync::{mpsc, watch};

use super::{format, open_store};
use crate::chunk::Numbering;
use crate::config::Config;
use crate::node::NodeId;
use crate::radio::{
    ChannelState, Inbound, LinkState, LocalNode, MeshView, NodeNames, PartOutcome, ReplyReport,
    StreamMsg, TextMessage,
};
use crate::responder::{ConsoleReply, RadioWatch, Responder, ResponderSettings, Sink};
use crate::store::Store;

/// The node the lines come from unless `--as` says otherwise.
pub const DEFAULT_FROM: NodeId = NodeId(0x00c0_ffee);

/// The node number the fake local node has ("mesh" in ASCII).
const LOCAL_NODE: NodeId = NodeId(0x6d65_7368);

/// Replies waiting to be printed; the responder waits when this is full.
const CONSOLE_QUEUE: usize = 4;

/// Lines waiting for the responder's intake.
const INBOUND_QUEUE: usize = 4;

/// How long stopping the responder may take at the end.
const STOP_GRACE: Duration = Duration::from_secs(1);

/// How `meshai chat` runs.
#[derive(Debug, Clone)]
pub struct ChatOptions {
    /// The node every line is a DM from.
    pub from: NodeId,
    /// How much longer than the LLM timeout to wait for the reply to a line: the reply also
    /// waits for the database and for a summary call that is yielding.
    pub margin: Duration,
    /// Input comes from a person at a terminal: greet them and do not echo their lines. Piped
    /// input is echoed as `> line` so the output reads as a transcript.
    pub interactive: bool,
}

impl Default for ChatOptions {
    fn default() -> Self {
        ChatOptions {
            from: DEFAULT_FROM,
            margin: Duration::from_secs(10),
            interactive: false,
        }
    }
}

/// Answers each line of `input` until it ends, printing the reply packets to `out`.
pub async fn run<R>(
    config: Config,
    opts: ChatOptions,
    input: R,
    out: &mut (dyn Write + Send),
) -> anyhow::Result<()>
where
    R: AsyncBufRead + Unpin,
{
    if !config.access.permits(opts.from) {
        bail!(
            "{} is not answered under [access] in {}; pick another node with --as",
            opts.from,
            config.origin
        );
    }
    let store = open_store(&config.database)
        .await
        .with_context(|| format!("cannot open the database {}", config.database.display()))?;
    let llm = crate::llm_pool(&config)?;
    index_folder(&config, &store, out).await?;
    let settings = console_settings(&config, &store).await;
    let (radio, _senders) = console_watch();
    let (console_tx, mut console_rx) = mpsc::channel(CONSOLE_QUEUE);
    let (inbound_tx, inbound_rx) = mpsc::channel(INBOUND_QUEUE);
    let sink = Sink::Console(console_tx);
    let responder = Responder::spawn(settings, store.clone(), llm, sink, radio, inbound_rx);

    let wait = config.llm.timeout + opts.margin;
    let gap = config.radio.send_gap;
    if opts.interactive {
        writeln!(
            out,
            "meshai chat as {}: type a message (or !help), Ctrl-D to quit",
            opts.from
        )?;
    }
    let mut lines = input.lines();
    let mut next_id = rand::random_range(1..=u32::MAX / 2);
    let outcome = loop {
        let line = match lines.next_line().await {
            Ok(Some(line)) => line,
            Ok(None) => break Ok(()),
            Err(e) => break Err(anyhow!(e).context("cannot read the input")),
        };
        let text = line.trim();
        if text.is_empty() {
            continue;
        }
        if !opts.interactive {
            writeln!(out, "> {}", format::printable(text))?;
        }
        let id = next_id;
        next_id = next_id.wrapping_add(1).max(1);
        let dm = console_dm(opts.from, id, text);
        if inbound_tx.send(dm).await.is_err() {
            break Err(anyhow!("the responder stopped"));
        }
        match tokio::time::timeout(wait, answer(&mut console_rx, id, gap, out)).await {
            Ok(Ok(())) => {}
            Ok(Err(e)) => break Err(e),
            Err(_) => writeln!(
                out,
                "(no reply within {} s; it will be shown if it comes later)",
                wait.as_secs()
            )?,
        }
    };
    drop(inbound_tx);
    responder.stop(STOP_GRACE).await;
    let closed = store
        .close()
        .await
        .context("the database did not close cleanly");
    outcome.and(closed)
}

/// Brings the knowledge folder's index in step before the first line, as the daemon does
/// at its start (words only: the daemon embeds what changed at its next reindex). Without it
/// a folder the daemon never indexed (chat tried before the first run) went unused, and the
/// model answered "What is the password of the club wifi?" with a made-up one. Says what
/// changed; a folder that cannot be read is said too, and the chat goes on with the index as
/// it is.
async fn index_folder(
    config: &Config,
    store: &Store,
    out: &mut (dyn Write + Send),
) -> anyhow::Result<()> {
    let Some(dir) = &config.knowledge.dir else {
        return Ok(());
    };
    match crate::knowledge::sync::sync(store, dir).await {
        Ok(r) if r.added + r.changed + r.touched + r.removed > 0 || !r.skipped.is_empty() => {
            out.write_all(super::knowledge::report(dir, &r).as_bytes())?;
        }
        Ok(_) => {}
        Err(e) => writeln!(
            out,
            "the knowledge folder {} was not indexed: {e} (answering with the index as it is)",
            dir.display()
        )?,
    }
    Ok(())
}

/// The daemon's responder settings as the console uses them.
async fn console_settings(config: &Config, store: &Store) -> ResponderSettings {
    let mut settings = crate::responder_settings(config);
    // No indexer watches the folder here: it is used as `index_folder` left it.
    let indexed = crate::knowledge::Indexed::fixed(crate::knowledge_indexed(store).await);
    settings.system_prompt = settings.system_prompt.follow(indexed);
    // The console is the operator: no rate limit, and none of a new node's budget.
    settings.limits.node_messages = u32::MAX;
    settings.limits.new_node_parts = usize::MAX;
    // No radio feeds the mesh view: a question about the mesh gets the daemon's "no radio
    // here", not the model's guess.
    settings.mesh.radio = false;
    settings
}

/// What the responder watches instead of a radio, and the senders that keep it open: a
/// fixed chat-mode link, no channel readings (so the airtime policy never shortens or
/// holds), and an empty mesh view, whose facts say every node is unknown.
fn console_watch() -> (
    RadioWatch,
    (watch::Sender<LinkState>, watch::Sender<ChannelState>),
) {
    let (link_tx, link) = watch::channel(chat_link());
    let (channel_tx, channel) = watch::channel(ChannelState::default());
    let radio = RadioWatch {
        link,
        channel,
        activity: Default::default(),
        mesh: watch::channel(Arc::new(MeshView::new())).1,
    };
    (radio, (link_tx, channel_tx))
}

/// A line typed on the console as the DM `id` from `from`.
fn console_dm(from: NodeId, id: u32, text: &str) -> Inbound {
    Inbound::Dm(TextMessage {
        from,
        to: LOCAL_NODE,
        channel: 0,
        packet_id: id,
        text: text.to_string(),
        // Typed on the console, not heard over the mesh: no hops, SNR or position for the
        // model's "who is asking" line, only the local time.
        hops: None,
        hop_fields: crate::radio::HopFields::default(),
        snr: None,
        position: None,
        local_position: None,
        received_at: SystemTime::now(),
        names: None,
        pki: false,
        public_key: None,
        via_mqtt: false,
        signed: false,
    })
}

/// The link state chat mode shows the responder: a ready node that is clearly not a radio.
fn chat_link() -> LinkState {
    LinkState::Ready {
        generation: 1,
        local: Arc::new(LocalNode {
            num: LOCAL_NODE,
            names: NodeNames {
                long_name: "meshai chat mode".into(),
                short_name: "chat".into(),
            },
            firmware_version: "none (chat mode)".into(),
            hop_limit: 3,
            channels: vec![(0, String::new())],
            known_nodes: 0,
            reboot_count: 0,
            licensed: false,
        }),
    }
}

/// Prints replies until the one answering packet `id` has been printed. A late reply to an
/// earlier line (one that timed out) is printed too, marked as such.
async fn answer(
    console: &mut mpsc::Receiver<ConsoleReply>,
    id: u32,
    gap: Duration,
    out: &mut (dyn Write + Send),
) -> anyhow::Result<()> {
    loop {
        let reply = console
            .recv()
            .await
            .ok_or_else(|| anyhow!("the responder stopped"))?;
        let mine = reply.request.reply_to == Some(id);
        if !mine {
            writeln!(out, "(late reply to an earlier line)")?;
        }
        let printed = match reply.parts {
            Some(parts) => print_streamed(parts, gap, out).await?,
            None => {
                out.write_all(render(&reply.request.parts, gap).as_bytes())?;
                out.flush()?;
                Some(reply.request.parts.len())
            }
        };
        let Some(printed) = printed else {
            // Taken back before anything showed (the answer is retried): keep waiting.
            let _ = reply.report.send(ReplyReport { parts: Vec::new() });
            continue;
        };
        let report = ReplyReport {
            parts: vec![PartOutcome::Delivered; printed],
        };
        // The responder only logs the report; if it stopped meanwhile nobody needs it.
        let _ = reply.report.send(report);
        if mine {
            return Ok(());
        }
    }
}

/// The packet lines of one reply, `gap` apart as the radio would pace them.
pub fn render(parts: &[String], gap: Duration) -> String {
    let n = parts.len();
    parts
        .iter()
        .enumerate()
        .map(|(i, p)| format::packet_line(i, Some(n), p, paced(i, gap)))
        .map(|line| line + "\n")
        .collect()
}

/// When the radio sends part `i` at the earliest: `gap` after the one before.
fn paced(i: usize, gap: Duration) -> Duration {
    gap.saturating_mul(u32::try_from(i).unwrap_or(u32::MAX))
}

/// Prints a streamed reply's parts as they come, numbered as the radio would number them if
/// it sent each part at once. Returns how many were printed, `None` if the reply was taken
/// back before any was.
async fn print_streamed(
    mut parts: tokio::sync::mpsc::Receiver<StreamMsg>,
    gap: Duration,
    out: &mut (dyn Write + Send),
) -> anyhow::Result<Option<usize>> {
    let started = tokio::time::Instant::now();
    let mut numbering = Numbering::default();
    let mut printed = 0;
    while let Some(msg) = parts.recv().await {
        let (bodies, last) = match msg {
            StreamMsg::Parts { bodies, last } => (bodies, last),
            StreamMsg::Retract(answer) => {
                let nothing = printed == 0;
                // Nobody waiting for the answer means nobody needs it.
                let _ = answer.send(nothing);
                if nothing {
                    return Ok(None);
                }
                continue;
            }
        };
        let known = printed + bodies.len();
        for body in bodies {
            let marker = numbering.marker(printed, last.then_some(known));
            let total = (!marker.ends_with('?')).then_some(known);
            let text = format!("{body}{marker}");
            let offset = started.elapsed().max(paced(printed, gap));
            writeln!(
                out,
                "{}",
                format::packet_line(printed, total, &text, offset)
            )?;
            out.flush()?;
            printed += 1;
        }
        if last {
            break;
        }
    }
    Ok(Some(printed))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replies_render_as_paced_packets() {
        let parts = vec![
            "LoRa is a long-range radio. 1/2".to_string(),
            "Low power. 2/2".into(),
        ];
        let want = "\
[1/2   31 chars  31 B  +0.0 s] LoRa is a long-range radio. 1/2
[2/2   14 chars  14 B  +2.5 s] Low power. 2/2
";
        assert_eq!(render(&parts, Duration::from_millis(2500)), want);
        assert_eq!(render(&[], Duration::from_secs(2)), "");
    }

    /// A streamed reply is printed part by part as its parts arrive, numbered as an idle
    /// radio would send them.
    #[tokio::test(start_paused = true)]
    async fn streamed_replies_print_as_they_complete() {
        let (tx, rx) = tokio::sync::mpsc::channel(4);
        let send = |bodies: &[&str], last| StreamMsg::Parts {
            bodies: bodies.iter().map(|b| b.to_string()).collect(),
            last,
        };
        tx.send(send(&["LoRa is a radio."], false)).await.unwrap();
        tx.send(send(&["It reaches far.", "Low power."], true))
            .await
            .unwrap();
        let mut out = Vec::new();
        let printed = print_streamed(rx, Duration::from_secs(2), &mut out)
            .await
            .unwrap();
        assert_eq!(printed, Some(3));
        let want = "\
[1/?   20 chars  20 B  +0.0 s] LoRa is a radio. 1/?
[2/?   19 chars  19 B  +2.0 s] It reaches far. 2/?
[3/3   14 chars  14 B  +4.0 s] Low power. 3/3
";
        assert_eq!(String::from_utf8(out).unwrap(), want);
        // Taken back before anything was printed: nothing shows, the caller waits on.
        let (tx, rx) = tokio::sync::mpsc::channel(4);
        let (answer, taken) = tokio::sync::oneshot::channel();
        tx.send(StreamMsg::Retract(answer)).await.unwrap();
        let mut out = Vec::new();
        let printed = print_streamed(rx, Duration::from_secs(2), &mut out)
            .await
            .unwrap();
        assert_eq!(printed, None);
        assert_eq!(taken.await, Ok(true));
        assert!(out.is_empty());
    }
}
