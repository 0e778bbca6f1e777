//! Commands answered without the LLM: `!help`, `!reset`, `!status`, `!summary`.

/// A recognised command.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Command {
    Help,
    Reset,
    Status,
    Summary,
}

/// What a message is, as far as commands go.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Parsed {
    Command(Command),
    /// Starts with `!` but is not a command we know: answered with the help text rather than
    /// sent to the LLM (a typo like `!rest` must not cost an LLM call).
    Unknown(String),
    Text,
}

/// Recognises a command: the whole message is `!word` (case-insensitive, surrounding spaces ok).
pub fn parse(text: &str) -> Parsed {
    let t = text.trim();
    let Some(word) = t.strip_prefix('!') else {
        return Parsed::Text;
    };
    if word.is_empty() || word.contains(char::is_whitespace) {
        return Parsed::Text;
    }
    match word.to_lowercase().as_str() {
        "help" | "h" | "?" => Parsed::Command(Command::Help),
        "reset" | "forget" => Parsed::Command(Command::Reset),
        "status" => Parsed::Command(Command::Status),
        "summary" | "memory" => Parsed::Command(Command::Summary),
        _ => Parsed::Unknown(word.chars().take(20).collect()),
    }
}

/// The `!help` text: fits one packet.
pub const HELP: &str = "Ask me anything. !summary: what I remember of you. !reset: forget our chat. !status: bot health.";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recognises_commands() {
        let cases: &[(&str, Parsed)] = &[
            ("!help", Parsed::Command(Command::Help)),
            ("  !HELP ", Parsed::Command(Command::Help)),
            ("!reset", Parsed::Command(Command::Reset)),
            ("!status", Parsed::Command(Command::Status)),
            ("!Summary", Parsed::Command(Command::Summary)),
            ("!rest", Parsed::Unknown("rest".into())),
            ("!", Parsed::Text),
            ("! help", Parsed::Text),
            ("!help me please", Parsed::Text),
            ("what is !help", Parsed::Text),
            ("hello", Parsed::Text),
        ];
        for (input, want) in cases {
            assert_eq!(&parse(input), want, "{input:?}");
        }
        assert!(HELP.len() <= 150);
    }
}
