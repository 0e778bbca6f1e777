//! How fast the chosen model writes on this machine, measured by `init` with one short answer,
//! and what that means for the radio: a packet is 150 characters, about [`PACKET_TOKENS`]
//! tokens, and the reply's first packet can go on air once the model has written it. The
//! advice is a pure function of the rate, table-tested; the figures it rests on are in
//! `docs/raspberry-pi.md` ("Choosing a model").

use std::time::{Duration, Instant};

use crate::llm::{ChatMessage, ChatRole, LlmClient, LlmSettings};

/// Tokens in one 150-character packet of English, about.
pub(crate) const PACKET_TOKENS: f64 = 40.0;

/// Tokens the timed answer may take.
const TIMED_TOKENS: u32 = 48;

/// How long the measurement may take in all (a cold model loads first).
const MEASURE_TIMEOUT: Duration = Duration::from_secs(90);

/// One timed answer.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Measured {
    /// Tokens written (as the server counted them, else estimated from the characters).
    pub(crate) tokens: u64,
    pub(crate) took: Duration,
}

impl Measured {
    /// Tokens per second.
    pub(crate) fn rate(&self) -> f64 {
        self.tokens as f64 / self.took.as_secs_f64().max(0.001)
    }
}

/// Asks the model at `base_url` one short question after a one-token warm-up (a model the
/// server had not loaded pays its loading there) and times the answer.
pub(crate) async fn measure(base_url: &str, model: &str) -> Result<Measured, String> {
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

/// A rate at which a packet's words are written in about the time the mesh takes to carry
/// it (tokens per second): the slowest that still suits a conversation over the radio.
pub(crate) const GOOD_RATE: f64 = 8.0;

/// The model sizes people run on a Pi, in billions of parameters (qwen2.5:0.5b, qwen2.5:1.5b,
/// llama3.2:3b / qwen2.5:3b, 7–8B), smallest first.
const SIZES: [f64; 4] = [0.5, 1.5, 3.0, 7.0];

/// The model's size in billions of parameters, read off its name as Ollama, llama.cpp and
/// Hugging Face write it: a word of digits ending in `b` or `m` ("qwen2.5:1.5b",
/// "qwen2.5-coder-0.5b-instruct", "smollm2-135m", "gemma3:270m", Gemma's "e2b"); `None` when
/// the name says no size ("gpt-4o-mini", "llama3.2:latest").
pub(crate) fn params_of(model: &str) -> Option<f64> {
    model
        .to_ascii_lowercase()
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '.'))
        .find_map(|word| {
            let word = word.strip_prefix('e').unwrap_or(word);
            let (number, scale) = match word.as_bytes().last()? {
                b'b' => (&word[..word.len() - 1], 1.0),
                b'm' => (&word[..word.len() - 1], 0.001),
                _ => return None,
            };
            let starts_with_digit = number.chars().next().is_some_and(|c| c.is_ascii_digit());
            let n: f64 = number.parse().ok().filter(|_| starts_with_digit)?;
            (n > 0.0).then_some(n * scale)
        })
}

/// The largest of the usual sizes ([`SIZES`]) that would still write [`GOOD_RATE`] here,
/// estimated from `rate` measured with a model of `params` billions: on a CPU, writing is
/// bound by reading the weights once a token, so the rate scales about inversely with the
/// size (Qwen2.5 0.5B → 1.5B writes about a third as fast at the same quantisation;
/// docs/raspberry-pi.md has the figures). `None` when even the smallest would be slower.
pub(crate) fn fitting_size(rate: f64, params: f64) -> Option<f64> {
    SIZES
        .iter()
        .rev()
        .copied()
        .find(|size| rate * params / size >= GOOD_RATE)
}

/// What `rate` (tokens per second) of a model of `params` billions (if its name says) means
/// for answers over the radio, and which model size suits this machine.
pub(crate) fn advice(rate: f64, params: Option<f64>) -> String {
    let verdict = if rate >= 25.0 {
        "fast"
    } else if rate >= GOOD_RATE {
        "good for the radio: a packet takes a few seconds, about what the mesh takes to carry it"
    } else if rate >= 3.0 {
        "slow: each packet waits several seconds for the model"
    } else {
        "too slow for a conversation"
    };
    let Some(params) = params else {
        let hint = if rate >= 25.0 {
            ": a larger model (3B) would answer better and still keep up, if it fits in memory"
        } else if rate >= GOOD_RATE {
            ""
        } else {
            "; a smaller model (qwen2.5:0.5b) answers sooner, a weaker answer"
        };
        return format!("{verdict}{hint}");
    };
    let size = |b: f64| format!("{b}B");
    let suggestion = match fitting_size(rate, params) {
        None => "no model size keeps up here: use a faster machine for the model".to_string(),
        Some(fit) if fit > params => format!(
            "a {} model would still write about {:.0} tokens/s here and answer better, if it fits in memory",
            size(fit),
            rate * params / fit
        ),
        Some(_) if rate >= GOOD_RATE => {
            format!("{} is the right size for this machine", size(params))
        }
        Some(fit) => format!(
            "a {} model would write about {:.0} tokens/s here: answers sooner, a weaker answer",
            size(fit),
            rate * params / fit
        ),
    };
    format!("{verdict}; {suggestion}")
}

/// The line `init` prints for a measurement of `model`.
pub(crate) fn line(m: &Measured, model: &str) -> String {
    let rate = m.rate();
    format!(
        "wrote {} tokens in {:.1} s ({rate:.1} tokens/s, a 150-character packet in about {:.0} s): {}",
        m.tokens,
        m.took.as_secs_f64(),
        (PACKET_TOKENS / rate.max(0.01)).max(1.0),
        advice(rate, params_of(model))
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
            assert!(
                advice(rate, None).starts_with(starts),
                "{rate}: {}",
                advice(rate, None)
            );
        }
    }

    #[test]
    fn a_models_size_is_read_off_its_name() {
        let cases = [
            ("qwen2.5:1.5b", Some(1.5)),
            ("qwen2.5:0.5b-instruct-q4_K_M", Some(0.5)),
            ("qwen2.5-coder-0.5b", Some(0.5)),
            ("Qwen2.5-Coder-0.5B-Instruct", Some(0.5)),
            ("llama3.2:3b", Some(3.0)),
            ("smollm2-135m", Some(0.135)),
            ("gemma3:270m", Some(0.27)),
            ("gemma4:e2b", Some(2.0)),
            ("mistral-7b-instruct", Some(7.0)),
            ("llama3.2:latest", None),
            ("gpt-4o-mini", None),
            ("phi3:mini", None),
            ("model", None),
            ("", None),
        ];
        for (name, want) in cases {
            let got = params_of(name);
            match (got, want) {
                (Some(g), Some(w)) => assert!((g - w).abs() < 1e-9, "{name}: {g}"),
                _ => assert_eq!(got, want, "{name}"),
            }
        }
    }

    #[test]
    fn the_size_that_fits_is_estimated_from_the_measured_one() {
        // (rate, the measured model's size, the largest usual size still at 8 tokens/s)
        let cases = [
            // This machine, one thread: Qwen2.5 0.5B at 19.4 tokens/s → 1.5B at about 6.5.
            (19.4, 0.5, Some(0.5)),
            // Two threads, 0.5B at 34.8 → 1.5B at 11.6, 3B at 5.8.
            (34.8, 0.5, Some(1.5)),
            // A Pi 5 with qwen2.5:1.5b at about 10 → 3B at 5.
            (10.0, 1.5, Some(1.5)),
            // A Pi 4 at half that: 0.5B would write about 15.
            (5.0, 1.5, Some(0.5)),
            // A desktop at 30 with 3B: 7B at about 13.
            (30.0, 3.0, Some(7.0)),
            // Too slow even for 0.5B.
            (2.0, 1.5, None),
        ];
        for (rate, params, want) in cases {
            assert_eq!(
                fitting_size(rate, params),
                want,
                "{rate} tokens/s at {params}B"
            );
        }
        assert!(advice(19.4, Some(0.5)).ends_with("0.5B is the right size for this machine"));
        assert!(
            advice(34.8, Some(0.5)).contains("a 1.5B model would still write about 12 tokens/s"),
            "{}",
            advice(34.8, Some(0.5))
        );
        assert!(advice(5.0, Some(1.5)).contains("a 0.5B model would write about 15 tokens/s"));
        assert!(advice(2.0, Some(1.5)).contains("no model size keeps up here"));
        // A size between the usual ones that keeps up is right as it is.
        assert!(advice(9.0, Some(2.0)).ends_with("2B is the right size for this machine"));
    }

    #[test]
    fn the_line_says_the_rate_and_a_packets_time() {
        let m = Measured {
            tokens: 40,
            took: Duration::from_secs(4),
        };
        assert_eq!(
            line(&m, "llama3.2:latest"),
            "wrote 40 tokens in 4.0 s (10.0 tokens/s, a 150-character packet in about 4 s): \
             good for the radio: a packet takes a few seconds, about what the mesh takes to \
             carry it"
        );
        assert_eq!(
            line(&m, "qwen2.5:1.5b"),
            "wrote 40 tokens in 4.0 s (10.0 tokens/s, a 150-character packet in about 4 s): \
             good for the radio: a packet takes a few seconds, about what the mesh takes to \
             carry it; 1.5B is the right size for this machine"
        );
    }
}
