//! A minimal blocking HTTP/1.1 client over `std::net::TcpStream`, enough for the server's tests and load test
//! (one request per connection, `Content-Length` or chunked responses, reading an SSE stream incrementally).

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::Duration;

/// A complete response.
#[derive(Debug, Clone)]
pub struct HttpResponse {
    /// Status code.
    pub status: u16,
    /// Headers, names lowercased.
    pub headers: Vec<(String, String)>,
    /// The body (chunked encoding removed).
    pub body: String,
}

impl HttpResponse {
    /// A header's value.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str())
    }

    /// The body as JSON (panics with the body when it is not JSON; for tests).
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.body).unwrap_or_else(|e| panic!("not JSON ({e}): {}", self.body))
    }
}

fn connect(addr: SocketAddr, timeout: Duration) -> std::io::Result<TcpStream> {
    let s = TcpStream::connect_timeout(&addr, timeout)?;
    s.set_read_timeout(Some(timeout))?;
    s.set_write_timeout(Some(timeout))?;
    s.set_nodelay(true)?;
    Ok(s)
}

fn write_request(s: &mut TcpStream, addr: SocketAddr, method: &str, path: &str, body: Option<&[u8]>) -> std::io::Result<()> {
    let mut head = format!("{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n");
    if let Some(b) = body {
        head.push_str(&format!("Content-Type: application/json\r\nContent-Length: {}\r\n", b.len()));
    }
    head.push_str("\r\n");
    s.write_all(head.as_bytes())?;
    if let Some(b) = body {
        s.write_all(b)?;
    }
    s.flush()
}

fn read_head(r: &mut BufReader<TcpStream>) -> std::io::Result<(u16, Vec<(String, String)>)> {
    let mut line = String::new();
    r.read_line(&mut line)?;
    let status = line
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| std::io::Error::new(std::io::ErrorKind::InvalidData, format!("bad status line {line:?}")))?;
    let mut headers = Vec::new();
    loop {
        line.clear();
        if r.read_line(&mut line)? == 0 || line.trim().is_empty() {
            break;
        }
        if let Some((k, v)) = line.split_once(':') {
            headers.push((k.trim().to_ascii_lowercase(), v.trim().to_string()));
        }
    }
    Ok((status, headers))
}

fn is_chunked(headers: &[(String, String)]) -> bool {
    headers.iter().any(|(k, v)| k == "transfer-encoding" && v.to_ascii_lowercase().contains("chunked"))
}

/// Reads one chunk of a chunked body; None at the last chunk.
fn read_chunk(r: &mut BufReader<TcpStream>) -> std::io::Result<Option<Vec<u8>>> {
    let mut line = String::new();
    r.read_line(&mut line)?;
    let size = usize::from_str_radix(line.trim().split(';').next().unwrap_or("0"), 16)
        .map_err(|_| std::io::Error::new(std::io::ErrorKind::InvalidData, format!("bad chunk size {line:?}")))?;
    if size == 0 {
        return Ok(None);
    }
    let mut buf = vec![0u8; size + 2];
    r.read_exact(&mut buf)?;
    buf.truncate(size);
    Ok(Some(buf))
}

/// Sends one request and reads the whole response.
pub fn request(addr: SocketAddr, method: &str, path: &str, body: Option<&[u8]>, timeout: Duration) -> std::io::Result<HttpResponse> {
    let mut s = connect(addr, timeout)?;
    write_request(&mut s, addr, method, path, body)?;
    let mut r = BufReader::new(s);
    let (status, headers) = read_head(&mut r)?;
    let mut body = Vec::new();
    if is_chunked(&headers) {
        while let Some(c) = read_chunk(&mut r)? {
            body.extend(c);
        }
    } else if let Some(len) = headers.iter().find(|(k, _)| k == "content-length").and_then(|(_, v)| v.parse::<usize>().ok()) {
        body.resize(len, 0);
        r.read_exact(&mut body)?;
    } else {
        r.read_to_end(&mut body)?;
    }
    Ok(HttpResponse { status, headers, body: String::from_utf8_lossy(&body).into_owned() })
}

/// `GET path`.
pub fn get(addr: SocketAddr, path: &str) -> std::io::Result<HttpResponse> {
    request(addr, "GET", path, None, Duration::from_secs(30))
}

/// `POST path` with a JSON body.
pub fn post_json(addr: SocketAddr, path: &str, body: &serde_json::Value) -> std::io::Result<HttpResponse> {
    request(addr, "POST", path, Some(body.to_string().as_bytes()), Duration::from_secs(60))
}

/// An open SSE response, read event by event.
pub struct EventStream {
    /// Status code.
    pub status: u16,
    reader: BufReader<TcpStream>,
    pending: String,
    chunked: bool,
    ended: bool,
}

impl EventStream {
    /// Sends the request and reads the head.
    pub fn open(addr: SocketAddr, path: &str, body: &serde_json::Value, timeout: Duration) -> std::io::Result<Self> {
        let mut s = connect(addr, timeout)?;
        write_request(&mut s, addr, "POST", path, Some(body.to_string().as_bytes()))?;
        let mut reader = BufReader::new(s);
        let (status, headers) = read_head(&mut reader)?;
        Ok(EventStream { status, chunked: is_chunked(&headers), reader, pending: String::new(), ended: false })
    }

    /// The next `data:` payload; None at the end of the stream.
    pub fn next_data(&mut self) -> std::io::Result<Option<String>> {
        loop {
            if let Some(i) = self.pending.find("\n\n") {
                let event: String = self.pending.drain(..i + 2).collect();
                if let Some(data) = event.lines().find_map(|l| l.strip_prefix("data: ")) {
                    return Ok(Some(data.to_string()));
                }
                continue;
            }
            if self.ended {
                return Ok(None);
            }
            let more = if self.chunked {
                read_chunk(&mut self.reader)?
            } else {
                let mut buf = vec![0u8; 4096];
                let n = self.reader.read(&mut buf)?;
                buf.truncate(n);
                (n > 0).then_some(buf)
            };
            match more {
                Some(b) => self.pending.push_str(&String::from_utf8_lossy(&b)),
                None => self.ended = true,
            }
        }
    }

    /// Reads every remaining `data:` payload.
    pub fn collect(mut self) -> std::io::Result<Vec<String>> {
        let mut out = Vec::new();
        while let Some(d) = self.next_data()? {
            out.push(d);
        }
        Ok(out)
    }
}
