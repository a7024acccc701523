//! A small HTTP/1.1 server for `serve`: GET and HEAD only, no request bodies, a thread per
//! connection. Written here rather than taken from a crate because the API needs so little of
//! HTTP and every limit must hold: what a client sends costs it one connection, never the
//! service (docs/BENCHMARKS.md has the measurements behind the choice).
//!
//! Limits, each with its answer:
//! - a request line and headers over [`Limits::header_bytes`]: 431, and the connection closes;
//! - a body announced over [`Limits::body_bytes`]: 413 (a body of any size is never read, and
//!   the connection closes after the answer, so a withheld body stalls no one);
//! - headers not complete within [`Limits::header_time`] of their first byte, or a connection
//!   silent for [`Limits::idle_time`] between requests: 408, or a quiet close if nothing came;
//! - more than [`Limits::connections`] open connections, or more than the process's limit on
//!   open files leaves room for: 503 at once to the next;
//! - a client that does not read its answer: given up after [`Limits::write_time`].
//!
//! Parsing is strict (RFC 9112, RFC 3986): a request target is a path and query of the
//! characters a URI allows, each `%` followed by two hexadecimal digits, no `#fragment`; a
//! header name is a token and its value has no control characters; `Content-Length` is digits.
//!
//! HTTP/1.1 connections stay open unless the client says `Connection: close`; HTTP/1.0 ones
//! only when the client asks with `Connection: keep-alive`, and the answer says so.

use std::collections::VecDeque;
use std::io::{self, BufRead, BufReader, Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

/// What one client may take of the server.
#[derive(Clone, Debug)]
pub struct Limits {
    /// Bytes of a request line and its headers.
    pub header_bytes: usize,
    /// Bytes of a request body announced (none is read; over this, 413).
    pub body_bytes: u64,
    /// Time from a request's first byte to the end of its headers.
    pub header_time: Duration,
    /// Time a kept-alive connection may wait silent for its next request.
    pub idle_time: Duration,
    /// Time a client may take to read an answer.
    pub write_time: Duration,
    /// Connections open at once.
    pub connections: usize,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            header_bytes: 64 << 10,
            body_bytes: 64 << 10,
            header_time: Duration::from_secs(5),
            idle_time: Duration::from_secs(5),
            write_time: Duration::from_secs(10),
            connections: 1024,
        }
    }
}

/// A request as the handler sees it: GET or HEAD of a target in origin form (`/api/probe?...`).
pub struct Request<'a> {
    /// The path and query, `/api/probe?game=...`; an absolute-form target is cut to this.
    pub target: String,
    client: &'a TcpStream,
}

impl Request<'_> {
    /// Whether the client has closed its connection (or its sending side: no client that
    /// waits for an answer does), so that work for it can stop. Costs one system call.
    pub fn client_gone(&self) -> bool {
        use std::os::fd::AsRawFd;
        let mut poll =
            libc::pollfd { fd: self.client.as_raw_fd(), events: libc::POLLIN | libc::POLLRDHUP, revents: 0 };
        // SAFETY: one valid pollfd, no waiting.
        let ready = unsafe { libc::poll(&mut poll, 1, 0) };
        ready > 0 && poll.revents & (libc::POLLRDHUP | libc::POLLHUP | libc::POLLERR) != 0
    }
}

/// An answer.
pub struct Response {
    pub status: u16,
    pub content_type: &'static str,
    pub body: String,
}

/// Serves connections from `listener` until the process stops, answering each request with
/// `handler`.
///
/// Each connection has a thread of its own while it is open, so a slow or silent client holds
/// only its own. Threads are kept for later connections once theirs closes (starting one costs
/// more than answering a probe), and end after a minute with nothing to do.
pub fn serve<H>(listener: TcpListener, mut limits: Limits, handler: H) -> io::Result<()>
where
    H: Fn(&Request) -> Response + Send + Sync + 'static,
{
    // A connection is one descriptor; the rest are kept for tables, refusals and the spare.
    let files = raise_file_limit();
    limits.connections = limits.connections.min(files.saturating_sub(RESERVED_FILES).max(1));
    let shared = Arc::new(Shared {
        handler,
        limits,
        open: AtomicUsize::new(0),
        queue: Mutex::new(Queue { waiting: VecDeque::new(), idle: 0 }),
        arrived: Condvar::new(),
    });
    let refusals = refuser();
    // Out of descriptors, accept fails and the client would wait in the backlog unanswered:
    // this one is given up to accept it and answer 503.
    let mut spare = std::fs::File::open("/dev/null").ok();
    loop {
        let stream = match listener.accept() {
            Ok((stream, _)) => stream,
            Err(e) if matches!(e.raw_os_error(), Some(libc::EMFILE | libc::ENFILE)) && spare.is_some() => {
                drop(spare.take());
                if let Ok((stream, _)) = listener.accept() {
                    let _ = refusals.send(stream);
                }
                spare = std::fs::File::open("/dev/null").ok();
                continue;
            }
            // A connection reset before it was accepted, or out of descriptors with none to
            // spare: the listener itself is fine, and the clients connected are served meanwhile.
            Err(_) => {
                std::thread::sleep(Duration::from_millis(10));
                spare = spare.or_else(|| std::fs::File::open("/dev/null").ok());
                continue;
            }
        };
        let _ = stream.set_nodelay(true);
        let _ = stream.set_write_timeout(Some(shared.limits.write_time));
        if shared.open.fetch_add(1, Ordering::SeqCst) >= shared.limits.connections {
            shared.open.fetch_sub(1, Ordering::SeqCst);
            let _ = refusals.send(stream);
            continue;
        }
        let mut queue = shared.queue.lock().unwrap_or_else(|e| e.into_inner());
        queue.waiting.push_back(stream);
        if queue.idle >= queue.waiting.len() {
            shared.arrived.notify_one();
            continue;
        }
        drop(queue);
        let worker = Arc::clone(&shared);
        if std::thread::Builder::new().name("connection".into()).spawn(move || worker.work()).is_err() {
            // No thread for it now: the connection waits for one to come free.
        }
    }
}

/// What the acceptor and the connection threads share.
struct Shared<H> {
    handler: H,
    limits: Limits,
    /// Connections accepted and not yet closed.
    open: AtomicUsize,
    queue: Mutex<Queue>,
    arrived: Condvar,
}

struct Queue {
    waiting: VecDeque<TcpStream>,
    /// Threads waiting for a connection.
    idle: usize,
}

impl<H: Fn(&Request) -> Response + Send + Sync> Shared<H> {
    /// Serves connections one after the other until none comes for a minute.
    fn work(&self) {
        const KEEP_THREAD: Duration = Duration::from_secs(60);
        loop {
            let mut queue = self.queue.lock().unwrap_or_else(|e| e.into_inner());
            let stream = loop {
                if let Some(stream) = queue.waiting.pop_front() {
                    break stream;
                }
                queue.idle += 1;
                let (back, waited) =
                    self.arrived.wait_timeout(queue, KEEP_THREAD).unwrap_or_else(|e| e.into_inner());
                queue = back;
                queue.idle -= 1;
                if waited.timed_out() && queue.waiting.is_empty() {
                    return;
                }
            };
            drop(queue);
            let _ = connection(stream, &self.limits, &self.handler);
            self.open.fetch_sub(1, Ordering::SeqCst);
        }
    }
}

/// Descriptors kept out of the connections' share: the standard streams, the listener, the
/// spare, tables opened and refusals lingering.
const RESERVED_FILES: usize = 64;

/// Refusals lingering at once; past them a refused client is closed at once.
const REFUSALS: usize = 32;

/// The soft limit on open files raised to the hard one, and what it is now.
fn raise_file_limit() -> usize {
    let mut limit = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
    // SAFETY: getrlimit and setrlimit with a valid struct.
    unsafe {
        if libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) != 0 {
            return usize::MAX;
        }
        if limit.rlim_cur < limit.rlim_max {
            let raised = libc::rlimit { rlim_cur: limit.rlim_max, rlim_max: limit.rlim_max };
            if libc::setrlimit(libc::RLIMIT_NOFILE, &raised) == 0 {
                limit = raised;
            }
        }
    }
    usize::try_from(limit.rlim_cur).unwrap_or(usize::MAX)
}

/// A thread that answers refused connections 503 and closes them, so that the acceptor never
/// waits on a client: each lingers up to a second (closing with the client's request unread
/// would reset the connection and could destroy the answer), all of them at once.
fn refuser() -> std::sync::mpsc::SyncSender<TcpStream> {
    let (send, receive) = std::sync::mpsc::sync_channel::<TcpStream>(REFUSALS);
    let refuse = move || {
        let response = Response {
            status: 503,
            content_type: "application/json",
            body: error_body("too many connections"),
        };
        let mut lingering: Vec<(TcpStream, Instant)> = Vec::new();
        loop {
            let next = match lingering.is_empty() {
                true => receive.recv().ok(),
                false => receive.recv_timeout(Duration::from_millis(20)).ok(),
            };
            if let Some(stream) = next {
                // The answer fits in the socket's buffer of a new connection.
                let _ = stream.set_nonblocking(true);
                if write_response(&stream, &response, false, false).is_ok() {
                    let _ = stream.shutdown(Shutdown::Write);
                    lingering.push((stream, Instant::now() + Duration::from_secs(1)));
                }
            }
            let now = Instant::now();
            let mut sink = [0u8; 4096];
            lingering.retain(|(stream, until)| {
                let mut reader = stream;
                loop {
                    match reader.read(&mut sink) {
                        Ok(0) => return false,
                        Ok(_) => continue,
                        Err(e) if e.kind() == io::ErrorKind::WouldBlock => return now < *until,
                        Err(_) => return false,
                    }
                }
            });
        }
    };
    if std::thread::Builder::new().name("refuser".into()).spawn(refuse).is_err() {
        // No thread: a refused client is closed without an answer (the receiver is gone).
    }
    send
}

/// What reading one request gave.
enum Read1 {
    Request {
        method: String,
        target: String,
        keep_alive: bool,
        has_body: bool,
    },
    /// The client closed, or stayed silent, before sending anything: close without a word.
    Gone,
    /// A request that cannot be answered as asked: answer this and close.
    Refuse(u16, &'static str),
}

fn connection(stream: TcpStream, limits: &Limits, handler: &impl Fn(&Request) -> Response) -> io::Result<()> {
    // One descriptor a connection: reads and writes share it.
    let mut reader = BufReader::with_capacity(8 << 10, &stream);
    let writer = &stream;
    loop {
        match read_request(&mut reader, limits)? {
            Read1::Gone => return Ok(()),
            Read1::Refuse(status, why) => {
                let response = Response { status, content_type: "application/json", body: error_body(why) };
                write_response(writer, &response, false, false)?;
                linger_and_close(writer);
                return Ok(());
            }
            Read1::Request { method, target, keep_alive, has_body } => {
                let head = method == "HEAD";
                let response = if method == "GET" || head {
                    handler(&Request { target, client: &stream })
                } else {
                    Response {
                        status: 405,
                        content_type: "application/json",
                        body: error_body("only GET is served"),
                    }
                };
                // A body is never read, so the connection cannot carry another request after it.
                let keep = keep_alive && !has_body;
                write_response(writer, &response, keep, head)?;
                if !keep {
                    // Only a client that may still be sending needs the slow close.
                    if has_body || !reader.buffer().is_empty() {
                        linger_and_close(writer);
                    }
                    return Ok(());
                }
            }
        }
    }
}

/// Reads a request line and headers within the limits.
fn read_request(reader: &mut BufReader<&TcpStream>, limits: &Limits) -> io::Result<Read1> {
    // Waiting for the first byte is the idle time of a kept-alive connection.
    reader.get_ref().set_read_timeout(Some(limits.idle_time))?;
    match reader.fill_buf() {
        Ok([]) => return Ok(Read1::Gone),
        Ok(_) => {}
        Err(e) if is_timeout(&e) => return Ok(Read1::Gone),
        Err(e) if e.kind() == io::ErrorKind::ConnectionReset => return Ok(Read1::Gone),
        Err(e) => return Err(e),
    }
    let deadline = Instant::now() + limits.header_time;
    let mut head: Vec<u8> = Vec::with_capacity(1024);
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Ok(Read1::Refuse(408, "request headers not complete in time"));
        }
        reader.get_ref().set_read_timeout(Some(left))?;
        let available = match reader.fill_buf() {
            Ok([]) => return Ok(Read1::Gone),
            Ok(bytes) => bytes,
            Err(e) if is_timeout(&e) => {
                return Ok(Read1::Refuse(408, "request headers not complete in time"));
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) if e.kind() == io::ErrorKind::ConnectionReset => return Ok(Read1::Gone),
            Err(e) => return Err(e),
        };
        let room = limits.header_bytes.saturating_sub(head.len());
        let take = available.len().min(room);
        // The end of the headers may straddle two reads: look again from a few bytes back.
        let from = head.len().saturating_sub(3);
        head.extend_from_slice(&available[..take]);
        let end = find_end_of_headers(&head[from..]).map(|at| from + at);
        match end {
            Some(end) => {
                // Leave what follows the headers (a pipelined request, or a body) in the reader.
                let used = take - (head.len() - end);
                reader.consume(used);
                head.truncate(end);
                return Ok(parse_head(&head, limits));
            }
            None if take < available.len() || head.len() >= limits.header_bytes => {
                reader.consume(take);
                return Ok(Read1::Refuse(431, "request line and headers too large"));
            }
            None => reader.consume(take),
        }
    }
}

/// Where the headers end: just after the blank line (`\r\n\r\n`, or a bare `\n\n`).
fn find_end_of_headers(bytes: &[u8]) -> Option<usize> {
    let crlf = bytes.windows(4).position(|w| w == b"\r\n\r\n").map(|at| at + 4);
    let lf = bytes.windows(2).position(|w| w == b"\n\n").map(|at| at + 2);
    match (crlf, lf) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

/// The request line and headers, checked.
fn parse_head(head: &[u8], limits: &Limits) -> Read1 {
    let Ok(text) = std::str::from_utf8(head) else {
        return Read1::Refuse(400, "request line or headers are not text");
    };
    let mut lines = text.split('\n').map(|l| l.strip_suffix('\r').unwrap_or(l));
    let request_line = lines.next().unwrap_or("");
    let mut parts = request_line.split(' ');
    let (Some(method), Some(target), Some(version), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return Read1::Refuse(400, "malformed request line");
    };
    if method.is_empty() || !method.bytes().all(|b| b.is_ascii_uppercase()) {
        return Read1::Refuse(400, "malformed request line");
    }
    let http_1_1 = match version {
        "HTTP/1.1" => true,
        "HTTP/1.0" => false,
        v if v.starts_with("HTTP/") => return Read1::Refuse(505, "only HTTP/1.0 and HTTP/1.1 are served"),
        _ => return Read1::Refuse(400, "malformed request line"),
    };
    let Some(target) = origin_form(target) else {
        return Read1::Refuse(400, "malformed request target");
    };
    if target.contains('#') {
        return Read1::Refuse(400, "a request target has no #fragment");
    }
    if !is_uri_path_and_query(&target) {
        return Read1::Refuse(400, "malformed request target: a character or % escape a URI does not allow");
    }
    let (mut close, mut keep_alive, mut has_body, mut length_seen) = (false, false, false, false);
    let mut chunked = false;
    for line in lines.take_while(|l| !l.is_empty()) {
        let Some((name, value)) = line.split_once(':') else {
            return Read1::Refuse(400, "malformed header line");
        };
        if name.is_empty() || !name.bytes().all(is_token) {
            return Read1::Refuse(400, "malformed header name");
        }
        let value = value.trim_matches([' ', '\t']);
        if value.bytes().any(|b| b.is_ascii_control() && b != b'\t') {
            return Read1::Refuse(400, "control character in a header value");
        }
        if name.eq_ignore_ascii_case("content-length") {
            // Digits only: `+5`, `-0` or `5 5` are not lengths (RFC 9110 section 8.6).
            let digits = !value.is_empty() && value.bytes().all(|b| b.is_ascii_digit());
            let Some(length) = value.parse::<u64>().ok().filter(|_| digits) else {
                return Read1::Refuse(400, "malformed Content-Length");
            };
            if length_seen {
                return Read1::Refuse(400, "more than one Content-Length");
            }
            length_seen = true;
            if length > limits.body_bytes {
                return Read1::Refuse(413, "request body too large (the API takes none)");
            }
            has_body |= length > 0;
        } else if name.eq_ignore_ascii_case("transfer-encoding") {
            chunked = true;
            has_body = true;
        } else if name.eq_ignore_ascii_case("connection") {
            for token in value.split(',').map(str::trim) {
                close |= token.eq_ignore_ascii_case("close");
                keep_alive |= token.eq_ignore_ascii_case("keep-alive");
            }
        }
    }
    if chunked && length_seen {
        // Two framings that disagree: the way requests are smuggled (RFC 9112 section 6.3).
        return Read1::Refuse(400, "both Transfer-Encoding and Content-Length");
    }
    let keep_alive = !close && (http_1_1 || keep_alive);
    Read1::Request { method: method.to_string(), target, keep_alive, has_body }
}

/// The path and query of a request target: origin form as it is, absolute form
/// (`http://host:port/path?query`, which proxies send) cut to its path and query.
fn origin_form(target: &str) -> Option<String> {
    if target.starts_with('/') {
        return Some(target.to_string());
    }
    let lower = target.get(..8).map(str::to_ascii_lowercase).unwrap_or_default();
    let rest = if lower.starts_with("http://") {
        &target[7..]
    } else if lower.starts_with("https://") {
        &target[8..]
    } else {
        return None;
    };
    let path_at = rest.find(['/', '?']).unwrap_or(rest.len());
    if path_at == 0 {
        return None; // no host
    }
    let path = &rest[path_at..];
    Some(match path.chars().next() {
        Some('/') => path.to_string(),
        _ => format!("/{path}"),
    })
}

/// Whether `target` is an absolute path and query as RFC 3986 writes them: unreserved
/// characters, sub-delimiters, `:@/?`, and `%` followed by two hexadecimal digits.
fn is_uri_path_and_query(target: &str) -> bool {
    let bytes = target.as_bytes();
    let mut k = 0;
    while k < bytes.len() {
        match bytes[k] {
            b'%' => {
                let hex = bytes.get(k + 1..k + 3);
                if !hex.is_some_and(|h| h.iter().all(u8::is_ascii_hexdigit)) {
                    return false;
                }
                k += 3;
                continue;
            }
            b if URI_PATH_AND_QUERY[b as usize] => {}
            _ => return false,
        }
        k += 1;
    }
    true
}

/// The bytes a path and query may hold as they are: a table, since every request's target
/// passes through [`is_uri_path_and_query`].
const URI_PATH_AND_QUERY: [bool; 256] = {
    let mut allowed = [false; 256];
    let mut b = 0;
    while b < 256 {
        allowed[b] = (b as u8).is_ascii_alphanumeric();
        b += 1;
    }
    let others = b"-._~!$&'()*+,;=:@/?";
    let mut k = 0;
    while k < others.len() {
        allowed[others[k] as usize] = true;
        k += 1;
    }
    allowed
};

/// A character of a token (RFC 9110 section 5.6.2): a header's name.
fn is_token(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b)
}

fn is_timeout(e: &io::Error) -> bool {
    matches!(e.kind(), io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut)
}

fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        400 => "Bad Request",
        404 => "Not Found",
        405 => "Method Not Allowed",
        408 => "Request Timeout",
        413 => "Content Too Large",
        431 => "Request Header Fields Too Large",
        500 => "Internal Server Error",
        503 => "Service Unavailable",
        505 => "HTTP Version Not Supported",
        _ => "Status",
    }
}

fn write_response(
    mut out: &TcpStream,
    response: &Response,
    keep_alive: bool,
    head_only: bool,
) -> io::Result<()> {
    let mut bytes = format!(
        "HTTP/1.1 {} {}\r\nContent-Type: {}; charset=utf-8\r\nContent-Length: {}\r\nCache-Control: no-store\r\nConnection: {}\r\n",
        response.status,
        reason(response.status),
        response.content_type,
        response.body.len(),
        if keep_alive { "keep-alive" } else { "close" }
    );
    if response.status == 405 {
        bytes.push_str("Allow: GET, HEAD\r\n");
    }
    bytes.push_str("\r\n");
    let mut bytes = bytes.into_bytes();
    if !head_only {
        bytes.extend_from_slice(response.body.as_bytes());
    }
    out.write_all(&bytes)?;
    out.flush()
}

/// Closes after an answer so that the client reads it: stop sending, then read and drop what
/// the client still sends for a moment (closing with unread bytes would reset the connection,
/// and a reset can destroy the answer before the client reads it).
fn linger_and_close(stream: &TcpStream) {
    let _ = stream.shutdown(Shutdown::Write);
    let _ = stream.set_read_timeout(Some(Duration::from_millis(200)));
    let deadline = Instant::now() + Duration::from_secs(1);
    let mut sink = [0u8; 16 << 10];
    let mut drained = 0usize;
    let mut reader = stream;
    while Instant::now() < deadline && drained < (4 << 20) {
        match reader.read(&mut sink) {
            Ok(0) | Err(_) => break,
            Ok(n) => drained += n,
        }
    }
}

/// `{"error": "..."}` for a message of our own (plain ASCII, nothing to escape).
fn error_body(why: &str) -> String {
    format!("{{\"error\": \"{why}\"}}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn parsed(head: &str) -> Read1 {
        parse_head(head.as_bytes(), &Limits::default())
    }

    #[test]
    fn request_lines_and_headers() {
        match parsed("GET http://127.0.0.1:8080/api/probe?game=morris HTTP/1.1\r\nHost: x\r\n") {
            Read1::Request { method, target, keep_alive, has_body } => {
                assert_eq!((method.as_str(), target.as_str()), ("GET", "/api/probe?game=morris"));
                assert!(keep_alive && !has_body);
            }
            _ => panic!("absolute form is served"),
        }
        match parsed("GET / HTTP/1.0\r\nConnection: Keep-Alive\r\n") {
            Read1::Request { keep_alive, .. } => assert!(keep_alive),
            _ => panic!(),
        }
        match parsed("GET / HTTP/1.0\r\n") {
            Read1::Request { keep_alive, .. } => assert!(!keep_alive),
            _ => panic!(),
        }
        match parsed("GET / HTTP/1.1\r\nConnection: close\r\n") {
            Read1::Request { keep_alive, .. } => assert!(!keep_alive),
            _ => panic!(),
        }
        match parsed("POST /api/probe HTTP/1.1\r\nContent-Length: 100\r\nExpect: 100-continue\r\n") {
            Read1::Request { has_body, .. } => assert!(has_body),
            _ => panic!(),
        }
        for (head, status) in [
            ("POST / HTTP/1.1\r\nContent-Length: 30000000000\r\n", 413),
            ("GET / HTTP/1.1\r\nContent-Length: 12, 12\r\n", 400),
            ("GET / HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 1\r\n", 400),
            ("GET / HTTP/2.0\r\n", 505),
            ("GET /\r\n", 400),
            ("GET  / HTTP/1.1\r\n", 400),
            ("get / HTTP/1.1\r\n", 400),
            ("GET x HTTP/1.1\r\n", 400),
            ("GET http:///x HTTP/1.1\r\n", 400),
            ("GET / HTTP/1.1\r\nno colon\r\n", 400),
            ("GET / HTTP/1.1\r\n bad: name\r\n", 400),
            ("GET /a#b HTTP/1.1\r\n", 400),
            ("GET /a?x=%+1 HTTP/1.1\r\n", 400),
            ("GET /a?x=%4 HTTP/1.1\r\n", 400),
            ("GET /a|b HTTP/1.1\r\n", 400),
            ("GET http://h/a#b HTTP/1.1\r\n", 400),
            ("GET / HTTP/1.1\r\nContent-Length: +5\r\n", 400),
            ("GET / HTTP/1.1\r\nContent-Length: \r\n", 400),
            ("GET / HTTP/1.1\r\nX(y): z\r\n", 400),
            ("GET / HTTP/1.1\r\nX: a\x01b\r\n", 400),
            ("POST / HTTP/1.1\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n", 400),
        ] {
            match parsed(head) {
                Read1::Refuse(got, _) => assert_eq!(got, status, "{head:?}"),
                _ => panic!("{head:?} was accepted"),
            }
        }
        assert!(matches!(parse_head(b"GET /\xff HTTP/1.1\r\n", &Limits::default()), Read1::Refuse(400, _)));
        match parsed("GET /api/probe?game=x&position=W%3Aa1+B%3A&k=(a)!*',;:@/?~ HTTP/1.1\r\nX: a\tb\r\n") {
            Read1::Request { target, .. } => assert!(target.ends_with("~")),
            _ => panic!("every character RFC 3986 allows in a path and query is served"),
        }
    }

    #[test]
    fn absolute_targets_become_paths() {
        assert_eq!(origin_form("/a?b").as_deref(), Some("/a?b"));
        assert_eq!(origin_form("http://h:1/a?b").as_deref(), Some("/a?b"));
        assert_eq!(origin_form("HTTPS://h/").as_deref(), Some("/"));
        assert_eq!(origin_form("http://h").as_deref(), Some("/"));
        assert_eq!(origin_form("http://h?q=1").as_deref(), Some("/?q=1"));
        assert_eq!(origin_form("*"), None);
        assert_eq!(origin_form("ftp://h/"), None);
    }

    #[test]
    fn the_end_of_the_headers_is_found() {
        assert_eq!(find_end_of_headers(b"GET / HTTP/1.1\r\nA: b\r\n\r\nrest"), Some(24));
        assert_eq!(find_end_of_headers(b"GET / HTTP/1.0\n\n"), Some(16));
        assert_eq!(find_end_of_headers(b"GET / HTTP/1.1\r\nA: b\r\n"), None);
    }

    /// A server on a free port with small limits, answering every request with its target.
    fn small_server(limits: Limits) -> u16 {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        std::thread::spawn(move || {
            serve(listener, limits, |request| Response {
                status: 200,
                content_type: "text/plain",
                body: request.target.clone(),
            })
        });
        port
    }

    fn answer_to(port: u16, request: &[u8]) -> String {
        let mut stream = TcpStream::connect(("127.0.0.1", port)).unwrap();
        stream.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
        stream.write_all(request).unwrap();
        let mut answer = String::new();
        let _ = stream.read_to_string(&mut answer);
        answer
    }

    #[test]
    fn connections_over_the_limit_get_503_and_silent_ones_are_let_go() {
        let limits = Limits {
            connections: 2,
            header_time: Duration::from_millis(300),
            idle_time: Duration::from_millis(300),
            ..Limits::default()
        };
        let port = small_server(limits);
        let silent: Vec<TcpStream> =
            (0..2).map(|_| TcpStream::connect(("127.0.0.1", port)).unwrap()).collect();
        std::thread::sleep(Duration::from_millis(100));
        let refused = answer_to(port, b"GET /x HTTP/1.1\r\n\r\n");
        assert!(refused.starts_with("HTTP/1.1 503 "), "{refused}");
        // After their idle time the silent ones are closed, and their places are free again.
        for mut s in silent {
            s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
            let mut nothing = Vec::new();
            assert_eq!(s.read_to_end(&mut nothing).unwrap(), 0, "closed without a word");
        }
        std::thread::sleep(Duration::from_millis(50));
        let served = answer_to(port, b"GET /x HTTP/1.1\r\nConnection: close\r\n\r\n");
        assert!(served.starts_with("HTTP/1.1 200 ") && served.ends_with("\r\n\r\n/x"), "{served}");
        // Headers begun and not finished in time: 408.
        let mut slow = TcpStream::connect(("127.0.0.1", port)).unwrap();
        slow.write_all(b"GET /x HTTP/1.1\r\nHost:").unwrap();
        let mut answer = String::new();
        slow.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
        let _ = slow.read_to_string(&mut answer);
        assert!(answer.starts_with("HTTP/1.1 408 "), "{answer}");
        // HEAD: the headers of the answer without its body.
        let head = answer_to(port, b"HEAD /abc HTTP/1.1\r\nConnection: close\r\n\r\n");
        assert!(head.contains("Content-Length: 4\r\n") && head.ends_with("\r\n\r\n"), "{head}");
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 3000, ..ProptestConfig::default() })]

        /// Any bytes as a request head: a request or a refusal with a status, never a panic;
        /// an accepted target is a path.
        #[test]
        fn any_request_head_is_answered(head in prop_oneof![
            proptest::collection::vec(any::<u8>(), 0..300),
            "(GET|HEAD|POST|get|G ET)? ?(/[a-z?=&%]{0,20}|http://[a-z0-9.:]{0,12}/?[a-z]{0,5}|\\*)? ?(HTTP/1\\.[01]|HTTP/2|x)?(\r?\n[A-Za-z-]{0,15}:? ?[0-9a-z, ]{0,12}){0,4}\r?\n"
                .prop_map(String::into_bytes),
        ]) {
            match parse_head(&head, &Limits::default()) {
                Read1::Request { target, .. } => prop_assert!(target.starts_with('/')),
                Read1::Refuse(status, _) => prop_assert!([400, 413, 505].contains(&status)),
                Read1::Gone => prop_assert!(false, "a head is never nothing"),
            }
        }
    }
}
