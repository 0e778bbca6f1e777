//! How long a text packet keeps the channel busy: LoRa time on air by Semtech's formula
//! (SX1276 datasheet §4.1.1.7, AN1200.13), for the benchmark and the docs.
//!
//! A text on air is the 16-byte Meshtastic packet header (to, from, id, flags, channel hash,
//! next hop, relay node) and the encrypted `Data`. The channel key's AES-CTR does not change
//! the length; a PKI-encrypted DM adds 12 bytes (tag and nonce). The `Data` is what
//! [`packet::text_packet`](super::packet::text_packet) builds plus the 2-byte `bitfield` the
//! firmware adds to every packet it originates (`Router::perhapsEncode`).

use std::time::Duration;

use meshtastic::Message;
use meshtastic::protobufs::{Data, PortNum};

/// The Meshtastic packet header in front of the encrypted payload, in bytes.
pub(crate) const HEADER_BYTES: usize = 16;

/// The LoRa modem settings that decide the time on air.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Modem {
    pub(crate) spreading_factor: u32,
    pub(crate) bandwidth_hz: u32,
    /// The `n` of coding rate 4/(4 + n), 1 to 4.
    pub(crate) coding_rate: u32,
    pub(crate) preamble_symbols: u32,
    /// Low data rate optimisation (on for symbols of 16 ms and more).
    pub(crate) low_data_rate: bool,
    pub(crate) explicit_header: bool,
    pub(crate) crc: bool,
}

impl Modem {
    /// The default LongFast preset: SF11, 250 kHz, CR 4/5, the 16-symbol preamble Meshtastic
    /// uses, explicit header, CRC on; 8.2 ms symbols, so no low data rate optimisation.
    pub const LONG_FAST: Modem = Modem {
        spreading_factor: 11,
        bandwidth_hz: 250_000,
        coding_rate: 1,
        preamble_symbols: 16,
        low_data_rate: false,
        explicit_header: true,
        crc: true,
    };

    /// Time on air of a LoRa frame with `payload` bytes.
    pub(crate) fn time_on_air(&self, payload: usize) -> Duration {
        let sf = f64::from(self.spreading_factor);
        let symbol = 2f64.powf(sf) / f64::from(self.bandwidth_hz);
        let preamble = (f64::from(self.preamble_symbols) + 4.25) * symbol;
        let bits = 8.0 * payload as f64 - 4.0 * sf + 28.0 + if self.crc { 16.0 } else { 0.0 }
            - if self.explicit_header { 0.0 } else { 20.0 };
        let per_block = 4.0 * (sf - if self.low_data_rate { 2.0 } else { 0.0 });
        let blocks = (bits / per_block).ceil().max(0.0);
        let symbols = 8.0 + blocks * f64::from(self.coding_rate + 4);
        Duration::from_secs_f64(preamble + symbols * symbol)
    }
}

/// The bytes a text packet puts on air: header plus its `Data` (with `reply_id` when it
/// answers a message, and the firmware's `bitfield`).
pub(crate) fn text_packet_bytes(text: &str, reply_id: Option<u32>) -> usize {
    let data = Data {
        portnum: PortNum::TextMessageApp as i32,
        payload: text.as_bytes().to_vec(),
        reply_id: reply_id.unwrap_or(0),
        bitfield: Some(0),
        ..Data::default()
    };
    HEADER_BYTES + data.encoded_len()
}

/// Time on air of one text packet on `modem`.
pub fn text_time_on_air(text: &str, reply_id: Option<u32>, modem: &Modem) -> Duration {
    modem.time_on_air(text_packet_bytes(text, reply_id))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(d: Duration) -> f64 {
        d.as_secs_f64() * 1000.0
    }

    /// Known values: The Things Network's airtime calculator (LoRaWAN, 8-symbol preamble,
    /// explicit header, CRC on, CR 4/5) gives 46.3 ms for 13 bytes at SF7/125 kHz and
    /// 1155.1 ms at SF12/125 kHz (low data rate optimisation on); LongFast by hand:
    /// 8.192 ms symbols, (16 + 4.25) + 8 + ceil(8·50/44)·5 = 78.25 symbols for 50 bytes.
    #[test]
    fn semtech_formula_matches_known_values() {
        let lorawan = |sf, ldro| Modem {
            spreading_factor: sf,
            bandwidth_hz: 125_000,
            coding_rate: 1,
            preamble_symbols: 8,
            low_data_rate: ldro,
            explicit_header: true,
            crc: true,
        };
        let cases = [
            (lorawan(7, false), 13, 46.336),
            (lorawan(12, true), 13, 1155.072),
            (Modem::LONG_FAST, 50, 641.024),
            (Modem::LONG_FAST, 0, 231.424),
        ];
        for (modem, bytes, want) in cases {
            let got = ms(modem.time_on_air(bytes));
            assert!((got - want).abs() < 0.001, "{modem:?} {bytes} B: {got} ms");
        }
    }

    #[test]
    fn text_packets() {
        // 16 header + portnum (2) + payload (1 + 1 + 5) + bitfield (2).
        assert_eq!(text_packet_bytes("hello", None), 27);
        // reply_id is a fixed32: 5 more bytes; a 150-byte text needs a 2-byte length.
        assert_eq!(text_packet_bytes("hello", Some(7)), 32);
        let full = "x".repeat(150);
        assert_eq!(text_packet_bytes(&full, Some(7)), 16 + 2 + 153 + 5 + 2);
        // PROTOCOL.md: a 150-character DM is ~1.5 s on air at LongFast.
        let t = ms(text_time_on_air(&full, Some(7), &Modem::LONG_FAST));
        assert!((1500.0..1700.0).contains(&t), "{t} ms");
    }
}
