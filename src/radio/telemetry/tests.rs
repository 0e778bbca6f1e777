use super::*;
use meshtastic::Message;
use meshtastic::protobufs::{Data, EnvironmentMetrics, mesh_packet};

const ME: NodeId = NodeId(0x1234_5678);

fn metrics(cu: Option<f32>, tx: Option<f32>, uptime: Option<u32>) -> DeviceMetrics {
    DeviceMetrics {
        battery_level: Some(101),
        voltage: Some(4.2),
        channel_utilization: cu,
        air_util_tx: tx,
        uptime_seconds: uptime,
    }
}

fn cm(cu: f32, tx: Option<f32>) -> Option<ChannelMetrics> {
    Some(ChannelMetrics {
        channel_utilization: cu,
        air_util_tx: tx,
    })
}

#[test]
fn device_metrics() {
    let cases = [
        (
            metrics(Some(31.5), Some(4.25), Some(600)),
            cm(31.5, Some(4.25)),
        ),
        // A quiet channel is a measurement when the module has ticked (uptime set).
        (metrics(Some(0.0), Some(0.0), Some(600)), cm(0.0, Some(0.0))),
        (metrics(Some(0.0), Some(0.5), None), cm(0.0, Some(0.5))),
        (metrics(Some(12.0), None, Some(60)), cm(12.0, None)),
        (
            metrics(Some(12.0), Some(f32::NAN), Some(60)),
            cm(12.0, None),
        ),
        (metrics(Some(12.0), Some(140.0), Some(60)), cm(12.0, None)),
        // Not measured yet: absent, or the all-zero default.
        (metrics(None, Some(3.0), Some(60)), None),
        (metrics(Some(0.0), Some(0.0), None), None),
        (metrics(Some(0.0), None, Some(0)), None),
        (DeviceMetrics::default(), None),
        // Impossible numbers.
        (metrics(Some(-1.0), Some(3.0), Some(60)), None),
        (metrics(Some(100.5), Some(3.0), Some(60)), None),
        (metrics(Some(f32::INFINITY), None, Some(60)), None),
    ];
    for (m, want) in cases {
        assert_eq!(from_device_metrics(&m), want, "{m:?}");
    }
}

#[test]
fn local_stats() {
    let stats = |uptime, cu, tx| LocalStats {
        uptime_seconds: uptime,
        channel_utilization: cu,
        air_util_tx: tx,
        num_packets_tx: 12,
        ..LocalStats::default()
    };
    let cases = [
        (stats(900, 27.0, 3.5), cm(27.0, Some(3.5))),
        (stats(900, 0.0, 0.0), cm(0.0, Some(0.0))),
        (stats(900, 27.0, -2.0), cm(27.0, None)),
        (stats(0, 27.0, 3.5), None),
        (stats(900, f32::NAN, 3.5), None),
        (LocalStats::default(), None),
    ];
    for (s, want) in cases {
        assert_eq!(from_local_stats(&s), want, "{s:?}");
    }
}

fn telemetry_packet(from: u32, port: PortNum, payload: Vec<u8>) -> MeshPacket {
    MeshPacket {
        from,
        to: 0xFFFF_FFFF,
        payload_variant: Some(mesh_packet::PayloadVariant::Decoded(Data {
            portnum: port as i32,
            payload,
            ..Data::default()
        })),
        ..MeshPacket::default()
    }
}

fn encoded(variant: telemetry::Variant) -> Vec<u8> {
    Telemetry {
        time: 1_750_000_000,
        variant: Some(variant),
    }
    .encode_to_vec()
}

#[test]
fn own_telemetry_packets_only() {
    let device = encoded(telemetry::Variant::DeviceMetrics(metrics(
        Some(45.0),
        Some(2.0),
        Some(120),
    )));
    let stats = encoded(telemetry::Variant::LocalStats(LocalStats {
        uptime_seconds: 900,
        channel_utilization: 18.0,
        air_util_tx: 1.5,
        ..LocalStats::default()
    }));
    let env = encoded(telemetry::Variant::EnvironmentMetrics(
        EnvironmentMetrics::default(),
    ));
    let no_variant = Telemetry {
        time: 1,
        variant: None,
    }
    .encode_to_vec();
    let cases = [
        (
            telemetry_packet(ME.0, PortNum::TelemetryApp, device.clone()),
            Some((45.0, ReadingSource::DeviceMetrics)),
        ),
        (
            telemetry_packet(ME.0, PortNum::TelemetryApp, stats),
            Some((18.0, ReadingSource::LocalStats)),
        ),
        // Another node's telemetry, another port, other variants, garbage.
        (
            telemetry_packet(7, PortNum::TelemetryApp, device.clone()),
            None,
        ),
        (telemetry_packet(ME.0, PortNum::PositionApp, device), None),
        (telemetry_packet(ME.0, PortNum::TelemetryApp, env), None),
        (
            telemetry_packet(ME.0, PortNum::TelemetryApp, no_variant),
            None,
        ),
        (
            telemetry_packet(ME.0, PortNum::TelemetryApp, vec![0xff; 4]),
            None,
        ),
    ];
    for (p, want) in cases {
        let got = own_telemetry(&p, ME).map(|(m, s)| (m.channel_utilization, s));
        assert_eq!(got, want, "{p:?}");
    }
    let encrypted = MeshPacket {
        from: ME.0,
        payload_variant: Some(mesh_packet::PayloadVariant::Encrypted(vec![1, 2, 3])),
        ..MeshPacket::default()
    };
    assert_eq!(own_telemetry(&encrypted, ME), None);
}

#[test]
fn our_number_from_outside_our_node_is_not_our_reading() {
    let busy = encoded(telemetry::Variant::DeviceMetrics(metrics(
        Some(95.0),
        Some(2.0),
        Some(120),
    )));
    let ours = telemetry_packet(ME.0, PortNum::TelemetryApp, busy);
    let with = |f: &dyn Fn(&mut MeshPacket)| {
        let mut p = ours.clone();
        f(&mut p);
        p
    };
    let lora = mesh_packet::TransportMechanism::TransportLora as i32;
    let api = mesh_packet::TransportMechanism::TransportApi as i32;
    let cases = [
        // As the firmware hands over its own readings: for the client only, or the copy of
        // one it broadcast (hop_start set to the hop limit it starts with).
        (ours.clone(), None),
        (
            with(&|p| {
                p.hop_start = 3;
                p.hop_limit = 3;
            }),
            None,
        ),
        // Heard on air with our number: a signal, hops, MQTT, a transport.
        (
            with(&|p| {
                p.rx_snr = 6.25;
                p.rx_rssi = -87;
                p.hop_start = 3;
                p.hop_limit = 3;
            }),
            Some(Outside::Heard),
        ),
        (with(&|p| p.rx_snr = -12.5), Some(Outside::Heard)),
        (with(&|p| p.rx_rssi = -120), Some(Outside::Heard)),
        (with(&|p| p.via_mqtt = true), Some(Outside::Mqtt)),
        (
            with(&|p| {
                p.hop_start = 3;
                p.hop_limit = 1;
            }),
            Some(Outside::Relayed),
        ),
        (with(&|p| p.hop_limit = 0), None),
        (
            with(&|p| {
                p.hop_start = 2;
                p.hop_limit = 3;
            }),
            Some(Outside::Relayed),
        ),
        (
            with(&|p| p.transport_mechanism = lora),
            Some(Outside::Transport(lora)),
        ),
        (
            with(&|p| p.transport_mechanism = api),
            Some(Outside::Transport(api)),
        ),
    ];
    for (p, want) in cases {
        assert_eq!(outside(&p), want, "{p:?}");
        let reading = own_telemetry(&p, ME).map(|(m, _)| m.channel_utilization);
        assert_eq!(reading, want.is_none().then_some(95.0), "{p:?}");
    }
}

#[test]
fn regions_and_their_duty_cycles() {
    let lora = |region: i32, over: bool| LoRaConfig {
        region,
        override_duty_cycle: over,
        ..LoRaConfig::default()
    };
    let cases = [
        (RegionCode::Eu868 as i32, false, "EU_868", Some(10)),
        (RegionCode::Eu433 as i32, false, "EU_433", Some(10)),
        (RegionCode::Ua433 as i32, false, "UA_433", Some(10)),
        (RegionCode::Ua868 as i32, false, "UA_868", Some(1)),
        (RegionCode::Th as i32, false, "TH", None),
        (RegionCode::Us as i32, false, "US", None),
        (RegionCode::Anz as i32, false, "ANZ", None),
        (RegionCode::Unset as i32, false, "UNSET", None),
        (RegionCode::Eu868 as i32, true, "EU_868", None),
        (999, false, "unknown", None),
    ];
    for (code, over, name, duty) in cases {
        let r = region(&lora(code, over));
        assert_eq!((r.name, r.duty_cycle, r.overridden), (name, duty, over));
    }
}
