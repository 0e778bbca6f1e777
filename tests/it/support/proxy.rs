//! A recording HTTP proxy on 127.0.0.1 for the real-model tier: forwards each request to the
//! real server and keeps the request bodies, so tests and benches see every prompt.

use std::sync::{Arc, Mutex};

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// Forwards each HTTP request to `upstream` (one request per connection) and keeps the bodies.
pub async fn recording_proxy(upstream: String) -> (String, Arc<Mutex<Vec<String>>>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind proxy");
    let addr = listener.local_addr().expect("addr");
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = seen.clone();
    tokio::spawn(async move {
        while let Ok((client, _)) = listener.accept().await {
            let upstream = upstream.clone();
            let log = log.clone();
            tokio::spawn(async move {
                let _ = forward(client, &upstream, &log).await;
            });
        }
    });
    (format!("http://{addr}/v1"), seen)
}

async fn forward(
    mut client: TcpStream,
    upstream: &str,
    log: &Mutex<Vec<String>>,
) -> std::io::Result<()> {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 8192];
    let (head_end, length) = loop {
        let n = client.read(&mut chunk).await?;
        if n == 0 {
            return Ok(());
        }
        buf.extend_from_slice(&chunk[..n]);
        if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            let head = String::from_utf8_lossy(&buf[..i]).to_lowercase();
            let length = head
                .lines()
                .find_map(|l| l.strip_prefix("content-length:"))
                .and_then(|v| v.trim().parse::<usize>().ok())
                .unwrap_or(0);
            break (i + 4, length);
        }
    };
    while buf.len() < head_end + length {
        let n = client.read(&mut chunk).await?;
        if n == 0 {
            break;
        }
        buf.extend_from_slice(&chunk[..n]);
    }
    let head = String::from_utf8_lossy(&buf[..head_end]).to_string();
    let body = buf[head_end..].to_vec();
    if let Ok(mut l) = log.lock() {
        l.push(String::from_utf8_lossy(&body).to_string());
    }
    // One request per upstream connection: ask the server to close when done.
    let head: String = head
        .split("\r\n")
        .filter(|l| !l.to_lowercase().starts_with("connection:"))
        .filter(|l| !l.is_empty())
        .map(|l| format!("{l}\r\n"))
        .collect::<String>()
        + "Connection: close\r\n\r\n";
    let host = upstream
        .trim_start_matches("http://")
        .split('/')
        .next()
        .unwrap_or_default();
    let mut up = TcpStream::connect(host).await?;
    up.write_all(head.as_bytes()).await?;
    up.write_all(&body).await?;
    let mut response = Vec::new();
    up.read_to_end(&mut response).await?;
    client.write_all(&response).await?;
    client.shutdown().await
}
