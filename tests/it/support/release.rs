//! The release binary the benchmarks run as a child, and what `/proc` says about its memory.

use std::path::{Path, PathBuf};

/// `target/release/meshai` (or under `CARGO_TARGET_DIR`): built by `cargo build --release`.
pub fn binary() -> PathBuf {
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("target"));
    target.join("release").join("meshai")
}

/// A `/proc/PID/status` value in KiB (`VmRSS:`, `VmHWM:`), 0 when it cannot be read.
pub fn status_kib(pid: u32, key: &str) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with(key))
                .and_then(|l| l.split_whitespace().nth(1)?.parse().ok())
        })
        .unwrap_or(0)
}
