//! The transports: connect errors explained and typed for the advice, a TCP address parsed, a
//! status file's target told apart, a TCP connect and a missing serial device.

use tokio::io::{AsyncReadExt, AsyncWriteExt};

use super::*;

fn tty(path: &str) -> Transport {
    Transport::serial(path, serial::BAUD)
}

#[test]
fn explains_common_errors() {
    let tty = tty("/dev/ttyUSB0");
    let tcp = Transport::tcp("meshnode", 4403);
    let cases = [
        (&tty, io::ErrorKind::PermissionDenied, "dialout"),
        (&tty, io::ErrorKind::NotFound, "no such device"),
        (&tcp, io::ErrorKind::ConnectionRefused, "meshnode:4403"),
        (&tcp, io::ErrorKind::ConnectionRefused, "refused"),
        (
            &tcp,
            io::ErrorKind::Other,
            "cannot connect to meshnode:4403",
        ),
    ];
    for (t, kind, want) in cases {
        let got = t.explain(&io::Error::from(kind));
        assert!(got.contains(want), "{got:?} lacks {want:?}");
    }
}

#[test]
fn failures_carry_the_kind_the_advice_reads() {
    let tcp = Transport::tcp("meshnode", 4403);
    let locked = io::Error::new(io::ErrorKind::NotFound, "Device or resource busy");
    let cases = [
        // A device that is there but "not found": another program holds it.
        (tty("/dev/null"), &locked, true, io::ErrorKind::ResourceBusy),
        (
            tty("/dev/meshai-test-no-such-tty"),
            &locked,
            true,
            io::ErrorKind::NotFound,
        ),
        (tcp.clone(), &locked, false, io::ErrorKind::NotFound),
    ];
    for (t, e, want_serial, want_kind) in cases {
        let got = t.failure(e);
        let want = DownReason::Connect {
            serial: want_serial,
            kind: want_kind,
            message: t.explain(e),
        };
        assert_eq!(got, want, "{t:?}");
    }
    let refused = io::Error::from(io::ErrorKind::ConnectionRefused);
    assert_eq!(
        tcp.failure(&refused).io_kind(),
        Some(io::ErrorKind::ConnectionRefused)
    );
}

#[test]
fn tcp_addresses() {
    type Want = Result<(&'static str, u16), &'static str>;
    let cases: &[(&str, Want)] = &[
        ("192.168.1.50:4403", Ok(("192.168.1.50", 4403))),
        ("192.168.1.50", Ok(("192.168.1.50", 4403))),
        ("meshtastic.local:4000", Ok(("meshtastic.local", 4000))),
        ("[fd00::1]:4403", Ok(("fd00::1", 4403))),
        ("[fd00::1]", Ok(("fd00::1", 4403))),
        ("fd00::1", Err("brackets")),
        ("host:0", Err("bad port")),
        ("host:abc", Err("bad port")),
        ("", Err("empty")),
        (":4403", Err("bad host")),
    ];
    for (input, want) in cases {
        match (Tcp::parse(input), want) {
            (Ok(Tcp { host, port }), Ok((h, p))) => {
                assert_eq!((host.as_str(), port), (*h, *p), "{input}");
            }
            (Err(e), Err(w)) => assert!(e.contains(w), "{input}: {e}"),
            (got, want) => panic!("{input}: got {got:?}, want {want:?}"),
        }
    }
}

#[test]
fn names_in_messages() {
    assert_eq!(tty("/dev/ttyUSB0").to_string(), "serial /dev/ttyUSB0");
    assert_eq!(
        Transport::tcp("192.168.1.50", 4403).to_string(),
        "tcp 192.168.1.50:4403"
    );
    assert_eq!(
        Transport::tcp("fd00::1", 4403).to_string(),
        "tcp [fd00::1]:4403"
    );
    assert_eq!(tty("/dev/ttyUSB0").address(), "/dev/ttyUSB0");
    assert_eq!(Transport::tcp("meshnode", 4000).address(), "meshnode:4000");
}

#[test]
fn the_same_node_by_path_or_host_and_port() {
    let tcp = |host: &str, port| Transport::tcp(host, port);
    let serial = tty("/dev/ttyUSB0");
    let t = tcp("MeshNode.local", 4403).target();
    assert!(t.is(&tcp("meshnode.local", 4403)));
    assert!(!t.is(&tcp("meshnode.local", 4404)));
    assert!(!t.is(&tcp("192.168.1.50", 4403)));
    assert!(!t.is(&serial));
    let s = serial.target();
    assert!(s.is(&serial));
    assert!(
        s.is(&Transport::serial("/dev/ttyUSB0", 9600)),
        "the baud rate is no part of the node"
    );
    assert!(!s.is(&tcp("/dev/ttyUSB0", 4403)));
}

#[test]
fn only_tcp_is_taken_over_by_a_new_client_and_only_serial_opens_a_device() {
    let serial = tty("/dev/ttyACM0");
    let tcp = Transport::tcp("meshnode", 4403);
    assert!(tcp.new_client_takes_over());
    assert!(!serial.new_client_takes_over());
    assert_eq!(serial.device(), Some("/dev/ttyACM0"));
    assert_eq!(tcp.device(), None);
}

#[tokio::test]
async fn tcp_connects_to_a_local_listener() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let t = Transport::tcp("127.0.0.1", port);
    let (conn, accepted) = tokio::join!(t.connect(), listener.accept());
    let mut conn = conn.unwrap();
    let (mut server, _) = accepted.unwrap();
    assert_eq!(conn.kind, ConnKind::Tcp);
    conn.write_all(b"ping").await.unwrap();
    let mut buf = [0u8; 4];
    server.read_exact(&mut buf).await.unwrap();
    assert_eq!(&buf, b"ping");
}

#[tokio::test]
async fn missing_serial_device_is_not_found() {
    let t = tty("/dev/meshai-test-no-such-tty");
    let err = t.connect().await.unwrap_err();
    assert_eq!(err.kind(), io::ErrorKind::NotFound, "{err}");
}

#[test]
fn a_refused_connection_names_the_port_it_was_refused_on() {
    let refused = std::io::ErrorKind::ConnectionRefused;
    let node = Tcp::parse("192.168.1.50").unwrap();
    assert!(
        node.hint(refused)
            .contains("network API enabled on port 4403")
    );
    let other = Tcp::parse("127.0.0.1:4410").unwrap();
    let hint = other.hint(refused);
    assert!(hint.contains("nothing listens on port 4410"), "{hint}");
    assert!(!hint.contains("enabled on port 4403?"), "{hint}");
}
