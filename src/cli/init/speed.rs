//! How fast the chosen model writes on this machine, measured by `init` with one short answer,
//! and what that means for the radio: a packet is 150 characters, about [`PACKET_TOKENS`]
//! tokens, and the reply's first packet can go on air once the model has written it. The
//! advice is a pure function of the rate, table-tested; the figures it rests on are in
//! `docs/raspberry-pi.md` ("Choosing a model").

use std::time::{Duration, Instant};

use crate::llm::{ChatMessage, ChatRole, LlmClient, LlmSettings};

/// Tokens in one 150-character packet of English, about.
pub const PACKET_TOKENS: f64 = 40.0;

/// Tokens the timed answer may take.
const TIMED_TOKENS: u32 = 48;

/// How long the measurement may take in all (a cold model loads first).
const MEASURE_TIMEOUT: Duration = Duration::from_secs(90);

/// One timed answer.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Measured {
    /// Tokens written (as the server counted them, else estimated from the characters).
    pub tokens: u64,
    pub took: Duration,
}

impl Measured {
    /// Tokens per second.
    pub fn rate(&self) -> f64 {
        self.tokens as f64 / self.took.as_secs_f64().max(0.001)
    }
}

/// Asks the model at `base_url` one short question after a one-token warm-up (a model the
/// server had not loaded pays its loading there) and times the answer.
pub async fn measure(base_url: &str, model: &str) -> Result<Measured, String> {
    let settings = LlmSettings {
        base_url: base_url.to_string(),
        model: model.to_string(),
        api_key: None,
        timeout: MEASURE_TIMEOUT,
        max_tokens: TIMED_TOKENS,
        temperature: 0.2,
        stream: false,
    };
    let client = LlmClient::new(settings).map_err(|e| e.to_string())?;
    let warm = [ChatMessage::new(ChatRole::User, "ping")];
    // An empty warm-up answer is still an answer: the model is loaded.
    let _ = client.complete(&warm, 1).await;
    let ask = [ChatMessage::new(
        ChatRole::User,
        "In two sentences: why do radio amateurs like LoRa?",
    )];
    let started = Instant::now();
    let done = client
        .complete(&ask, TIMED_TOKENS)
        .await
        .map_err(|e| e.to_string())?;
    let took = started.elapsed();
    let tokens = done
        .usage
        .map(|u| u.completion_tokens)
        .filter(|n| *n > 0)
        .unwrap_or_else(|| (done.raw.chars().count() as u64).div_ceil(4).max(1));
    Ok(Measured { tokens, took })
}

/// What `rate` (tokens per second) means for answers over the radio.
pub fn advice(rate: f64) -> &'static str {
    if rate >= 25.0 {
        "fast: a larger model (3B) would answer better and still keep up, if it fits in memory"
    } else if rate >= 8.0 {
        "good for the radio: a packet takes a few seconds, about what the mesh takes to carry it"
    } else if rate >= 3.0 {
        "slow: each packet waits several seconds for the model; a smaller model (qwen2.5:0.5b) \
         answers sooner, a weaker answer"
    } else {
        "too slow for a conversation: choose a smaller model (qwen2.5:0.5b) or a faster machine"
    }
}

/// The line `init` prints for a measurement.
pub fn line(m: &Measured) -> String {
    let rate = m.rate();
    format!(
        "wrote {} tokens in {:.1} s ({rate:.1} tokens/s, a 150-character packet in about {:.0} s): {}",
        m.tokens,
        m.took.as_secs_f64(),
        (PACKET_TOKENS / rate.max(0.01)).max(1.0),
        advice(rate)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_advice_follows_the_rate() {
        // A Pi 5 writes qwen2.5:1.5b at about 8-12 tokens/s, a Pi 4 half that
        // (docs/raspberry-pi.md); this machine's 1-thread llama-server about 20 with 0.5B.
        let cases = [
            (40.0, "fast"),
            (25.0, "fast"),
            (12.0, "good"),
            (8.0, "good"),
            (5.0, "slow"),
            (3.0, "slow"),
            (1.5, "too slow"),
            (0.0, "too slow"),
        ];
        for (rate, starts) in cases {
            assert!(advice(rate).starts_with(starts), "{rate}: {}", advice(rate));
        }
    }

    #[test]
    fn the_line_says_the_rate_and_a_packets_time() {
        let m = Measured {
            tokens: 40,
            took: Duration::from_secs(4),
        };
        assert_eq!(
            line(&m),
            "wrote 40 tokens in 4.0 s (10.0 tokens/s, a 150-character packet in about 4 s): \
             good for the radio: a packet takes a few seconds, about what the mesh takes to \
             carry it"
        );
    }
}
