//! Sans-IO server-sent events: bytes in, the `data` of each complete event out.
//!
//! Follows the WHATWG event-stream rules that OpenAI-compatible servers use: lines end with
//! `\n`, `\r\n` or `\r`; `data:` lines (one optional space after the colon) are joined with
//! `\n`; a blank line ends the event; `:` starts a comment (keep-alives); `event`, `id` and
//! `retry` are read but not needed, except an `error` event name. A line longer than
//! [`MAX_LINE`] is refused, so a server cannot make us buffer without bound.

/// Longest line kept while waiting for its end; a chat-completion chunk is a few hundred bytes.
pub(super) const MAX_LINE: usize = 256 * 1024;

/// One complete event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Event {
    /// The `event:` field, when the server named the event.
    pub(crate) name: Option<String>,
    pub(crate) data: String,
}

/// The stream broke the format.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(super) enum SseError {
    #[error("event-stream line over {MAX_LINE} bytes")]
    LineTooLong,
}

/// The parser's state between two reads.
#[derive(Debug, Default)]
pub(super) struct SseParser {
    /// The start of a line whose end has not arrived yet.
    line: Vec<u8>,
    /// The previous read ended with `\r`: a `\n` at the start of the next one belongs to it.
    after_cr: bool,
    /// Nothing read yet: a byte-order mark is skipped.
    started: bool,
    name: Option<String>,
    data: String,
    has_data: bool,
}

impl SseParser {
    /// Takes the next bytes; returns the events they complete, in order.
    pub(crate) fn feed(&mut self, mut bytes: &[u8]) -> Result<Vec<Event>, SseError> {
        if !self.started && !bytes.is_empty() {
            self.started = true;
            bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
        }
        if self.after_cr {
            self.after_cr = false;
            bytes = bytes.strip_prefix(b"\n").unwrap_or(bytes);
        }
        let mut events = Vec::new();
        while let Some(end) = bytes.iter().position(|&b| b == b'\n' || b == b'\r') {
            let (head, rest) = bytes.split_at(end);
            self.line.extend_from_slice(head);
            let line = std::mem::take(&mut self.line);
            if let Some(event) = self.line_done(&line) {
                events.push(event);
            }
            bytes = match rest {
                [b'\r', b'\n', rest @ ..] => rest,
                [b'\r'] => {
                    self.after_cr = true;
                    &[]
                }
                [_, rest @ ..] => rest,
                [] => &[],
            };
        }
        if self.line.len() + bytes.len() > MAX_LINE {
            return Err(SseError::LineTooLong);
        }
        self.line.extend_from_slice(bytes);
        Ok(events)
    }

    /// The stream ended: an event whose blank line never came is still delivered.
    pub(crate) fn finish(&mut self) -> Option<Event> {
        let line = std::mem::take(&mut self.line);
        if !line.is_empty() {
            if let Some(event) = self.line_done(&line) {
                return Some(event);
            }
        }
        self.dispatch()
    }

    fn line_done(&mut self, line: &[u8]) -> Option<Event> {
        if line.is_empty() {
            return self.dispatch();
        }
        let line = String::from_utf8_lossy(line);
        if line.starts_with(':') {
            return None;
        }
        let (field, value) = match line.split_once(':') {
            Some((field, value)) => (field, value.strip_prefix(' ').unwrap_or(value)),
            None => (line.as_ref(), ""),
        };
        match field {
            "data" => {
                self.data.push_str(value);
                self.data.push('\n');
                self.has_data = true;
            }
            "event" => self.name = Some(value.to_owned()),
            _ => {}
        }
        None
    }

    fn dispatch(&mut self) -> Option<Event> {
        let name = self.name.take();
        if !std::mem::take(&mut self.has_data) {
            return None;
        }
        let mut data = std::mem::take(&mut self.data);
        data.pop();
        Some(Event { name, data })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Feeds `chunks` one after the other, then ends the stream; returns `name|data` per event.
    fn run(chunks: &[&[u8]]) -> Result<Vec<String>, SseError> {
        let mut parser = SseParser::default();
        let mut out = Vec::new();
        for chunk in chunks {
            out.extend(parser.feed(chunk)?);
        }
        out.extend(parser.finish());
        Ok(out
            .into_iter()
            .map(|e| format!("{}|{}", e.name.unwrap_or_default(), e.data))
            .collect())
    }

    #[test]
    fn table() {
        let cases: &[(&[&[u8]], &[&str])] = &[
            (&[b"data: {\"a\":1}\n\n"], &["|{\"a\":1}"]),
            (&[b"data: one\n\ndata: [DONE]\n\n"], &["|one", "|[DONE]"]),
            // Any split, even inside `\r\n` and inside a UTF-8 sequence.
            (&[b"da", b"ta: h\xC3", b"\xA9\r", b"\n\r\n"], &["|h\u{e9}"]),
            (&[b"data: x\r\rdata: y\r\n\r\n"], &["|x", "|y"]),
            // No space after the colon; only one space is removed.
            (&[b"data:x\n\ndata:  y\n\n"], &["|x", "| y"]),
            // Several data lines are one event.
            (&[b"data: a\ndata: b\n\n"], &["|a\nb"]),
            // Comments (keep-alives), unknown fields, id and retry are skipped.
            (
                &[b": ping\n\nid: 3\nretry: 10\nfoo: bar\ndata: z\n\n"],
                &["|z"],
            ),
            (
                &[b"event: error\ndata: {\"error\":1}\n\n"],
                &["error|{\"error\":1}"],
            ),
            // A blank line without data dispatches nothing; the name does not leak on.
            (&[b"event: error\n\ndata: a\n\n"], &["|a"]),
            // The stream ends without the blank line, or in the middle of the line.
            (&[b"data: last\n"], &["|last"]),
            (&[b"data: last"], &["|last"]),
            (&[b"\xEF\xBB\xBFdata: bom\n\n"], &["|bom"]),
            (&[b"data\n\n"], &["|"]),
            (&[b""], &[]),
            (&[b"\n\n\n"], &[]),
        ];
        for (chunks, want) in cases {
            assert_eq!(run(chunks).unwrap(), *want, "{chunks:?}");
        }
    }

    #[test]
    fn every_split_gives_the_same_events() {
        let stream =
            b"data: {\"x\":\"a\"}\r\n\r\n: keep-alive\n\ndata: b\rdata: c\n\ndata: [DONE]\n\n";
        let whole = run(&[stream]).unwrap();
        assert_eq!(whole, ["|{\"x\":\"a\"}", "|b\nc", "|[DONE]"]);
        for i in 0..stream.len() {
            for j in i..stream.len() {
                let parts = [&stream[..i], &stream[i..j], &stream[j..]];
                assert_eq!(run(&parts).unwrap(), whole, "split at {i}, {j}");
            }
        }
    }

    #[test]
    fn a_line_without_end_is_bounded() {
        let mut parser = SseParser::default();
        let big = vec![b'a'; MAX_LINE];
        assert_eq!(parser.feed(b"data: "), Ok(vec![]));
        assert_eq!(parser.feed(&big), Err(SseError::LineTooLong));
        // Long lines that do end are fine.
        let mut parser = SseParser::default();
        let mut line = b"data: ".to_vec();
        line.extend(vec![b'b'; MAX_LINE - 10]);
        line.extend(b"\n\n");
        assert_eq!(parser.feed(&line).map(|e| e.len()), Ok(1));
    }
}
