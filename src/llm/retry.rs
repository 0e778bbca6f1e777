//! Sans-IO retry policy for one completion call: which failures are worth another attempt,
//! and how long to wait first, within what is left of the call budget.

use std::time::Duration;

use super::LlmError;

/// Attempts per call, the first one included.
pub(super) const MAX_ATTEMPTS: u32 = 3;

/// Waits before the second and the third attempt.
pub(super) const BACKOFF: [Duration; 2] = [Duration::from_millis(500), Duration::from_millis(1500)];

/// A `Retry-After` above this is treated as this: no call budget is that long anyway.
const MAX_RETRY_AFTER: Duration = Duration::from_secs(3600);

/// The seconds form of a `Retry-After` header value. The HTTP-date form is not used by the
/// LLM servers we talk to and gives `None` (the usual backoff applies).
pub(super) fn parse_retry_after(value: &str) -> Option<Duration> {
    let secs: u64 = value.trim().parse().ok()?;
    Some(Duration::from_secs(secs).min(MAX_RETRY_AFTER))
}

/// How long to wait before attempt `attempt + 1` after `attempt` failed with `error`, or
/// `None` to give up and return `error`.
///
/// Only failures that may go away are retried: connection errors, 408, 429 and 5xx but 501
/// (Not Implemented: the server lacks the feature, e.g. embeddings without `--embeddings`,
/// and asking again changes nothing). The wait
/// is the backoff, or the server's `Retry-After` when that is longer. A wait that would use
/// up the rest of the budget is not started: the real error is more useful to the caller than
/// a timeout.
pub(super) fn delay(
    attempt: u32,
    error: &LlmError,
    remaining: Duration,
    backoff: &[Duration],
) -> Option<Duration> {
    let transient = match error {
        LlmError::Connect(_) => true,
        LlmError::Status { status, .. } => {
            matches!(status, 408 | 429 | 500..=599) && *status != 501
        }
        LlmError::Timeout | LlmError::BadResponse(_) | LlmError::Empty | LlmError::Setup(_) => {
            false
        }
    };
    if !transient || attempt >= MAX_ATTEMPTS {
        return None;
    }
    let index = usize::try_from(attempt.saturating_sub(1)).unwrap_or(usize::MAX);
    let backoff = backoff.get(index).or(backoff.last()).copied()?;
    let asked = match error {
        LlmError::Status { retry_after, .. } => *retry_after,
        _ => None,
    };
    let wait = asked.map_or(backoff, |asked| asked.max(backoff));
    (wait < remaining).then_some(wait)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn status(status: u16) -> LlmError {
        LlmError::Status {
            status,
            body: String::new(),
            retry_after: None,
        }
    }

    fn retry_after(status: u16, secs: u64) -> LlmError {
        LlmError::Status {
            status,
            body: String::new(),
            retry_after: Some(Duration::from_secs(secs)),
        }
    }

    #[test]
    fn table() {
        let connect = LlmError::Connect("refused".into());
        let plenty = Duration::from_secs(60);
        let ms = Duration::from_millis;
        let table = [
            (1, connect.clone(), plenty, Some(ms(500))),
            (2, connect.clone(), plenty, Some(ms(1500))),
            (3, connect.clone(), plenty, None),
            (1, status(429), plenty, Some(ms(500))),
            (1, status(500), plenty, Some(ms(500))),
            (1, status(503), plenty, Some(ms(500))),
            (1, status(501), plenty, None),
            (1, status(408), plenty, Some(ms(500))),
            (1, status(400), plenty, None),
            (1, status(401), plenty, None),
            (1, status(404), plenty, None),
            (1, status(302), plenty, None),
            (1, LlmError::BadResponse("x".into()), plenty, None),
            (1, LlmError::Empty, plenty, None),
            (1, LlmError::Timeout, plenty, None),
            (1, LlmError::Setup("x".into()), plenty, None),
            // The wait must leave time for the attempt itself.
            (1, connect.clone(), ms(501), Some(ms(500))),
            (1, connect.clone(), ms(500), None),
            (2, status(502), ms(1000), None),
            // Retry-After is honoured when longer than the backoff, and only if it fits.
            (1, retry_after(429, 2), plenty, Some(ms(2000))),
            (2, retry_after(503, 0), plenty, Some(ms(1500))),
            (1, retry_after(429, 120), plenty, None),
            (1, retry_after(400, 1), plenty, None),
        ];
        for (attempt, error, remaining, expect) in table {
            assert_eq!(
                delay(attempt, &error, remaining, &BACKOFF),
                expect,
                "attempt {attempt} {error:?} {remaining:?}"
            );
        }
    }

    #[test]
    fn retry_after_values() {
        let table = [
            ("2", Some(Duration::from_secs(2))),
            (" 30 ", Some(Duration::from_secs(30))),
            ("0", Some(Duration::ZERO)),
            ("99999999", Some(MAX_RETRY_AFTER)),
            ("Wed, 21 Oct 2015 07:28:00 GMT", None),
            ("-1", None),
            ("1.5", None),
            ("", None),
        ];
        for (value, expect) in table {
            assert_eq!(parse_retry_after(value), expect, "{value:?}");
        }
    }
}
