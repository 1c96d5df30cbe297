//! The little HTTP/1.1 the server speaks: one request per connection (`Connection: close`), a body only with
//! `Content-Length`, every read bounded in size and time. Enough for the page and for curl; nothing here
//! trusts the client (sizes are checked before anything is allocated for them).

use std::{
    io::{Read, Write},
    net::{Shutdown, TcpStream},
    time::{Duration, Instant},
};

/// The most a request line plus headers may take.
pub const MAX_HEAD: usize = 16 * 1024;

/// A request as the router sees it.
pub struct Request {
    pub method: String,
    /// The path, without the query string.
    pub path: String,
    pub body: Vec<u8>,
}

/// A response; the body is sent with its length, then the connection is closed.
pub struct Response {
    pub status: u16,
    pub content_type: &'static str,
    pub body: Vec<u8>,
}

impl Response {
    pub fn new(status: u16, content_type: &'static str, body: impl Into<Vec<u8>>) -> Self {
        Response { status, content_type, body: body.into() }
    }

    pub fn json(status: u16, value: &serde_json::Value) -> Self {
        Response::new(status, "application/json", value.to_string())
    }

    /// `{"error": message, "diagnostics": []}`: the API's shape for every failure.
    pub fn error(status: u16, message: impl Into<String>) -> Self {
        Response::json(status, &serde_json::json!({ "error": message.into(), "diagnostics": [] }))
    }
}

/// Why no request could be read.
pub enum ReadError {
    /// The client went away or sent nothing in time: nobody to answer.
    Gone,
    /// Answer this (400 for a malformed or oversize request, 408 for one too slow to arrive).
    Answer(Response),
}

/// Reads one request, giving up at `deadline`; a body longer than `max_body` is refused before it is read.
pub fn read_request(stream: &mut TcpStream, max_body: usize, deadline: Instant) -> Result<Request, ReadError> {
    let mut buffer = Vec::with_capacity(1024);
    let mut chunk = [0u8; 4096];
    let head_end = loop {
        if let Some(end) = find(&buffer, b"\r\n\r\n") {
            break end;
        }
        if buffer.len() > MAX_HEAD {
            return Err(ReadError::Answer(Response::error(400, format!("request head larger than {MAX_HEAD} bytes"))));
        }
        match read_some(stream, &mut chunk, deadline) {
            Ok(0) if buffer.is_empty() => return Err(ReadError::Gone),
            Ok(0) => return Err(ReadError::Answer(Response::error(400, "the request ended inside its head"))),
            Ok(n) => buffer.extend_from_slice(&chunk[..n]),
            Err(Timeout) if buffer.is_empty() => return Err(ReadError::Gone),
            Err(Timeout) => return Err(ReadError::Answer(Response::error(408, "the request did not arrive in time"))),
        }
    };
    let head = String::from_utf8_lossy(&buffer[..head_end]).to_string();
    let mut lines = head.split("\r\n");
    let request_line = lines.next().unwrap_or_default();
    let mut parts = request_line.split(' ');
    let (Some(method), Some(target), Some(version)) = (parts.next(), parts.next(), parts.next()) else {
        return Err(ReadError::Answer(Response::error(400, format!("malformed request line '{}'", clip(request_line)))));
    };
    if !version.starts_with("HTTP/1.") || method.is_empty() || !target.starts_with('/') {
        return Err(ReadError::Answer(Response::error(400, format!("malformed request line '{}'", clip(request_line)))));
    }
    let mut content_length = 0usize;
    for line in lines {
        let Some((name, value)) = line.split_once(':') else {
            return Err(ReadError::Answer(Response::error(400, format!("malformed header line '{}'", clip(line)))));
        };
        let (name, value) = (name.trim().to_ascii_lowercase(), value.trim());
        if name == "content-length" {
            content_length = value.parse().map_err(|_| {
                ReadError::Answer(Response::error(400, format!("Content-Length '{}' is not a number", clip(value))))
            })?;
        } else if name == "transfer-encoding" && !value.eq_ignore_ascii_case("identity") {
            return Err(ReadError::Answer(Response::error(400, "chunked request bodies are not supported: send Content-Length")));
        }
    }
    if content_length > max_body {
        return Err(ReadError::Answer(Response::error(
            400,
            format!("request body of {content_length} bytes is larger than the limit of {max_body} bytes"),
        )));
    }
    let mut body = buffer[head_end + 4..].to_vec();
    while body.len() < content_length {
        match read_some(stream, &mut chunk, deadline) {
            Ok(0) => return Err(ReadError::Answer(Response::error(400, "the request body is shorter than its Content-Length"))),
            Ok(n) => body.extend_from_slice(&chunk[..n]),
            Err(Timeout) => return Err(ReadError::Answer(Response::error(408, "the request body did not arrive in time"))),
        }
    }
    body.truncate(content_length);
    let path = target.split(['?', '#']).next().unwrap_or(target).to_string();
    Ok(Request { method: method.to_string(), path, body })
}

struct Timeout;

/// One read, waiting at most until `deadline` (an I/O error counts as the client being gone: 0 bytes).
fn read_some(stream: &mut TcpStream, chunk: &mut [u8], deadline: Instant) -> Result<usize, Timeout> {
    let left = deadline.saturating_duration_since(Instant::now());
    if left.is_zero() {
        return Err(Timeout);
    }
    let _ = stream.set_read_timeout(Some(left.max(Duration::from_millis(1))));
    match stream.read(chunk) {
        Ok(n) => Ok(n),
        Err(error) if matches!(error.kind(), std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut) => Err(Timeout),
        Err(error) if error.kind() == std::io::ErrorKind::Interrupted => Ok(read_some(stream, chunk, deadline)?),
        Err(_) => Ok(0),
    }
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|window| window == needle)
}

/// At most 100 characters of client text, for error messages.
fn clip(text: &str) -> String {
    text.chars().take(100).collect()
}

fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        400 => "Bad Request",
        404 => "Not Found",
        405 => "Method Not Allowed",
        408 => "Request Timeout",
        500 => "Internal Server Error",
        503 => "Service Unavailable",
        _ => "",
    }
}

/// Writes `response` and closes the connection. When the client may still be sending (a refused body, a
/// rejected connection), what it sends is read and dropped for a moment after our half is closed, so its
/// kernel does not see a reset before it has read our answer.
pub fn respond(stream: &mut TcpStream, response: &Response, write_timeout: Duration, linger: bool) {
    let _ = stream.set_write_timeout(Some(write_timeout));
    let head = format!(
        "HTTP/1.1 {} {}\r\nContent-Type: {}\r\nContent-Length: {}\r\nConnection: close\r\nCache-Control: no-store\r\nX-Content-Type-Options: nosniff\r\n\r\n",
        response.status,
        reason(response.status),
        response.content_type,
        response.body.len()
    );
    if stream.write_all(head.as_bytes()).and_then(|_| stream.write_all(&response.body)).and_then(|_| stream.flush()).is_err() {
        return;
    }
    let _ = stream.shutdown(Shutdown::Write);
    if linger {
        drain(stream, Duration::from_millis(500), 4 << 20);
    }
}

/// Reads and drops up to `limit` bytes for at most `time` (until the client closes).
pub fn drain(stream: &mut TcpStream, time: Duration, limit: usize) {
    let deadline = Instant::now() + time;
    let mut chunk = [0u8; 8192];
    let mut read = 0;
    while read < limit {
        match read_some(stream, &mut chunk, deadline) {
            Ok(0) | Err(Timeout) => break,
            Ok(n) => read += n,
        }
    }
}

/// Reads and drops what has arrived on a non-blocking stream; `false` once the client has closed (or failed).
pub fn read_available(stream: &mut TcpStream) -> bool {
    let mut chunk = [0u8; 8192];
    loop {
        match stream.read(&mut chunk) {
            Ok(0) => return false,
            Ok(_) => continue,
            Err(error) if error.kind() == std::io::ErrorKind::WouldBlock => return true,
            Err(error) if error.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(_) => return false,
        }
    }
}
