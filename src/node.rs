//! Node identity: the 32-bit Meshtastic node number and how people write it, a node's public
//! key (the one thing that proves who sent a PKI direct message), and how far a node's
//! identity is established ([`Standing`]).

use std::fmt;
use std::str::FromStr;

/// A Meshtastic node number. Displayed the way the apps show it: `!a1b2c3d4`.
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct NodeId(pub u32);

impl NodeId {
    /// The broadcast address: a packet `to` this goes to everyone on the channel.
    pub const BROADCAST: NodeId = NodeId(0xFFFF_FFFF);
}

impl fmt::Display for NodeId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "!{:08x}", self.0)
    }
}

impl fmt::Debug for NodeId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// A node's Curve25519 public key (32 bytes), as the firmware hands it over with a PKI DM
/// (`MeshPacket.public_key`). Shown in base64, as the Meshtastic apps show it, so an operator
/// can compare it with what the app says.
#[derive(Copy, Clone, PartialEq, Eq, Hash)]
pub struct PublicKey(pub [u8; 32]);

impl PublicKey {
    /// The key in `bytes`, when they are exactly 32 (the firmware sends an empty field for a
    /// packet that was not PKI-encrypted).
    pub(crate) fn from_slice(bytes: &[u8]) -> Option<PublicKey> {
        <[u8; 32]>::try_from(bytes).ok().map(PublicKey)
    }

    /// The number firmware 2.8 gives the node holding this key: the key's CRC-32
    /// (`NodeDB::createNewIdentity`, `crc32Buffer` — the IEEE CRC-32; PROTOCOL.md, "2.8
    /// renumbers nodes once"). The one number a renumbered node may move its memory to.
    pub fn node(&self) -> NodeId {
        NodeId(crc32fast::hash(&self.0))
    }

    /// The first 8 characters of the base64 form: enough to tell two keys apart in a log.
    pub(crate) fn short(&self) -> String {
        let mut s = self.to_string();
        s.truncate(8);
        s
    }
}

impl fmt::Display for PublicKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use base64::Engine as _;
        f.write_str(&base64::engine::general_purpose::STANDARD.encode(self.0))
    }
}

impl fmt::Debug for PublicKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "PublicKey({self})")
    }
}

/// Why a text is not a public key.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ParseKeyError {
    #[error("not base64 (the form the Meshtastic apps show a public key in): {0}")]
    Base64(String),
    #[error("a public key is 32 bytes (44 characters of base64), this is {0} bytes")]
    Length(usize),
}

impl FromStr for PublicKey {
    type Err = ParseKeyError;

    /// The base64 the apps show (standard alphabet; the final `=` may be left out, as a
    /// key copied from a chat sometimes loses it).
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        use base64::Engine as _;
        use base64::engine::{DecodePaddingMode, GeneralPurpose, GeneralPurposeConfig};
        const LENIENT: GeneralPurpose = GeneralPurpose::new(
            &base64::alphabet::STANDARD,
            GeneralPurposeConfig::new().with_decode_padding_mode(DecodePaddingMode::Indifferent),
        );
        let bytes = LENIENT
            .decode(s.trim())
            .map_err(|e| ParseKeyError::Base64(e.to_string()))?;
        PublicKey::from_slice(&bytes).ok_or(ParseKeyError::Length(bytes.len()))
    }
}

/// How far the sender of a message is established, earned and never claimed by one packet,
/// lowest first. The responder decides it at intake (`responder::schedule::standing`); the
/// LLM gate and the outbox serve higher standing first. A node id and a key are free to make,
/// so only `Proven` — a key pinned before — cannot be claimed by anyone else.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Standing {
    /// No completed exchange with us (or a PKI DM with another key than the pinned one).
    New,
    /// Completed an exchange with us (its own ACK came back); the id may still be forged.
    Known,
    /// A PKI DM with the key pinned before (vouched by the operator, or seen in an exchange
    /// over PKI hours ago): the mesh proves who sent it.
    Proven,
}

impl Standing {
    /// Every standing, lowest first; `ALL[s.index()] == s`.
    pub(crate) const ALL: [Standing; 3] = [Standing::New, Standing::Known, Standing::Proven];

    /// The position in [`Standing::ALL`], for per-standing counters.
    pub(crate) fn index(self) -> usize {
        self as usize
    }

    /// The word used in logs and `!status`.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Standing::New => "new",
            Standing::Known => "known",
            Standing::Proven => "proven",
        }
    }
}

impl fmt::Display for Standing {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("not a node id: {0:?} (use !a1b2c3d4, 0xa1b2c3d4, a1b2c3d4 or a decimal number)")]
pub struct ParseNodeIdError(String);

impl FromStr for NodeId {
    type Err = ParseNodeIdError;

    /// Accepts `!a1b2c3d4` and `0xa1b2c3d4` (hex), a bare string of digits (decimal),
    /// and a bare string with hex letters in it (hex). A bare all-digit string is read
    /// as decimal because that is how the node number appears in logs and the CLI.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let t = s.trim();
        let err = || ParseNodeIdError(s.to_string());
        let hex = |h: &str| {
            if h.is_empty() || h.len() > 8 {
                return Err(err());
            }
            u32::from_str_radix(h, 16).map(NodeId).map_err(|_| err())
        };
        if let Some(h) = t.strip_prefix('!') {
            hex(h)
        } else if let Some(h) = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
            hex(h)
        } else if !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit()) {
            t.parse::<u32>().map(NodeId).map_err(|_| err())
        } else {
            hex(t)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_every_spelling() {
        let cases: &[(&str, Option<u32>)] = &[
            ("!a1b2c3d4", Some(0xa1b2c3d4)),
            ("!A1B2C3D4", Some(0xa1b2c3d4)),
            ("0xa1b2c3d4", Some(0xa1b2c3d4)),
            ("a1b2c3d4", Some(0xa1b2c3d4)),
            ("2712847316", Some(2712847316)),
            (" 42 ", Some(42)),
            ("!", None),
            ("", None),
            ("!a1b2c3d4e", None),
            ("4294967296", None),
            ("xyz", None),
            ("-1", None),
        ];
        for (input, want) in cases {
            let got = input.parse::<NodeId>().ok().map(|n| n.0);
            assert_eq!(got, *want, "input {input:?}");
        }
    }

    #[test]
    fn a_keys_number_is_its_crc32_as_the_firmware_computes_it() {
        // The values zlib's crc32 (the same IEEE CRC-32 as ErriezCRC32) gives these bytes.
        assert_eq!(PublicKey([0x11; 32]).node(), NodeId(0xbc49_20d8));
        assert_eq!(PublicKey([0x22; 32]).node(), NodeId(0x88fd_b906));
        let mut check = [0u8; 32];
        check[..9].copy_from_slice(b"123456789");
        assert_ne!(
            PublicKey(check).node(),
            NodeId(0xcbf4_3926),
            "all 32 bytes count"
        );
    }

    #[test]
    fn standings_order_and_index() {
        assert!(Standing::New < Standing::Known && Standing::Known < Standing::Proven);
        for (i, s) in Standing::ALL.into_iter().enumerate() {
            assert_eq!(s.index(), i);
        }
        assert_eq!(Standing::Proven.to_string(), "proven");
    }

    #[test]
    fn displays_like_the_apps() {
        assert_eq!(NodeId(0xa1b2c3d4).to_string(), "!a1b2c3d4");
        assert_eq!(NodeId(1).to_string(), "!00000001");
    }

    #[test]
    fn a_public_key_is_32_bytes_shown_in_base64() {
        assert_eq!(PublicKey::from_slice(&[]), None);
        assert_eq!(PublicKey::from_slice(&[7; 31]), None);
        assert_eq!(PublicKey::from_slice(&[7; 33]), None);
        let key = PublicKey::from_slice(&[0; 32]).expect("32 bytes");
        assert_eq!(key.to_string(), format!("{}=", "A".repeat(43)));
        assert_eq!(key.short(), "AAAAAAAA");
    }

    #[test]
    fn a_public_key_is_read_from_its_base64() {
        let key = PublicKey([0x5a; 32]);
        let shown = key.to_string();
        let cases: Vec<(String, Result<PublicKey, ParseKeyError>)> = vec![
            (shown.clone(), Ok(key)),
            (format!("  {shown}\n"), Ok(key)),
            (shown.trim_end_matches('=').to_string(), Ok(key)),
            ("AAAA".into(), Err(ParseKeyError::Length(3))),
            (
                base64::Engine::encode(&base64::engine::general_purpose::STANDARD, [7; 33]),
                Err(ParseKeyError::Length(33)),
            ),
            (String::new(), Err(ParseKeyError::Length(0))),
        ];
        for (text, want) in cases {
            assert_eq!(text.parse::<PublicKey>(), want, "{text:?}");
        }
        assert!(matches!(
            "not a key!".parse::<PublicKey>(),
            Err(ParseKeyError::Base64(_))
        ));
    }
}
