//! `serve` keeps serving whatever its clients send: while hostile and broken clients do their
//! worst (a 30 GB body announced, 64 connections held silent or half-sent, a 1 MB header, random
//! bytes), ordinary requests get their exact answers, and the server is alive at the end. Error
//! answers name tables relative to the tables' directory.

use crate::common;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

fn start(dir: &std::path::Path) -> common::Served {
    common::Served::start(env!("CARGO_BIN_EXE_tablebase"), dir)
}

fn connect(port: u16) -> TcpStream {
    let stream = TcpStream::connect(("127.0.0.1", port)).unwrap();
    stream.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    stream
}

/// Sends `request` and reads the whole answer (the server closes after it).
fn exchange(port: u16, request: &[u8]) -> String {
    let mut stream = connect(port);
    let _ = stream.write_all(request);
    let mut answer = Vec::new();
    let _ = stream.read_to_end(&mut answer);
    String::from_utf8_lossy(&answer).into_owned()
}

fn status(answer: &str) -> Option<u16> {
    answer.strip_prefix("HTTP/1.1 ")?.get(..3)?.parse().ok()
}

fn body(answer: &str) -> &str {
    answer.split_once("\r\n\r\n").map_or("", |(_, body)| body)
}

/// An ordinary probe, whose answer is known: after 1 and 2 on the 4x4 board, a draw.
fn ordinary(port: u16) -> Result<(), String> {
    let started = Instant::now();
    let answer = exchange(
        port,
        b"GET /api/probe?game=connect4&size=4x4&position=12 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
    );
    let json: serde_json::Value =
        serde_json::from_str(body(&answer)).map_err(|e| format!("{e}: {answer:.300}"))?;
    if status(&answer) != Some(200)
        || json["value"] != "draw"
        || json["moves"].as_array().map(Vec::len) != Some(4)
    {
        return Err(format!("wrong answer: {answer:.300}"));
    }
    // Far below the 5 s a stalled server would take to drop its silent clients.
    if started.elapsed() > Duration::from_secs(4) {
        return Err(format!("answered only after {:?}", started.elapsed()));
    }
    Ok(())
}

#[test]
fn serve_keeps_answering_while_clients_misbehave() {
    let dir = common::scratch("serve-hostile");
    let d = dir.to_str().unwrap();
    let out = common::tablebase_with_input(
        env!("CARGO_BIN_EXE_tablebase"),
        &["generate", "connect4", "--size", "4x4", "--dir", d],
        "",
    );
    assert!(out.status.success());
    let server = start(&dir);
    let port = server.port;
    ordinary(port).unwrap();

    // 64 connections held: silent, a request line cut short, headers cut short, and a body
    // promised with Expect: 100-continue and withheld.
    let partial: [&[u8]; 4] = [
        b"",
        b"GET /api/probe?game=conn",
        b"GET / HTTP/1.1\r\nHost: x\r\nX-Slow: ",
        b"POST /api/probe HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 100\r\n\r\n",
    ];
    let held: Vec<TcpStream> = (0..64)
        .map(|k| {
            let mut s = connect(port);
            s.write_all(partial[k % 4]).unwrap();
            s
        })
        .collect();

    // Ordinary clients throughout, from threads of their own, while the others misbehave.
    let ordinary_clients: Vec<_> = (0..4)
        .map(|_| {
            std::thread::spawn(move || -> Result<usize, String> {
                let mut answered = 0;
                let until = Instant::now() + Duration::from_secs(2);
                while Instant::now() < until {
                    ordinary(port)?;
                    answered += 1;
                }
                Ok(answered)
            })
        })
        .collect();

    // A body of 30 GB announced: 413, and the server lives.
    let answer =
        exchange(port, b"POST /api/probe HTTP/1.1\r\nHost: x\r\nContent-Length: 30000000000\r\n\r\n");
    assert_eq!(status(&answer), Some(413), "{answer:.300}");
    let answer = exchange(port, b"GET / HTTP/1.1\r\nHost: x\r\nContent-Length: 30000000000\r\n\r\n");
    assert_eq!(status(&answer), Some(413), "{answer:.300}");
    // An absolute-form request line, as proxies send it: served as its path.
    let request = format!(
        "GET http://127.0.0.1:{port}/api/probe?game=connect4&size=4x4&position=12 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
    );
    let answer = exchange(port, request.as_bytes());
    assert_eq!(status(&answer), Some(200), "{answer:.300}");
    assert!(body(&answer).starts_with("{\"position\": \"12\", \"value\": \"draw\""), "{answer:.300}");
    // A 1 MB header: 431, never a crash.
    let mut huge = b"GET / HTTP/1.1\r\nHost: x\r\nX-Huge: ".to_vec();
    huge.extend(std::iter::repeat_n(b'a', 1 << 20));
    huge.extend_from_slice(b"\r\n\r\n");
    let answer = exchange(port, &huge);
    assert_eq!(status(&answer), Some(431), "{answer:.300}");
    // Random bytes: an error status or a closed connection, nothing else.
    let mut seed = 0x9E37_79B9_7F4A_7C15u64;
    for _ in 0..32 {
        let garbage: Vec<u8> = (0..600)
            .map(|_| {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                seed as u8
            })
            .chain(*b"\r\n\r\n")
            .collect();
        let answer = exchange(port, &garbage);
        assert!(answer.is_empty() || matches!(status(&answer), Some(400..=505)), "{answer:.300}");
    }
    // Another method: 405.
    let answer = exchange(port, b"DELETE /api/probe HTTP/1.1\r\nHost: x\r\n\r\n");
    assert_eq!(status(&answer), Some(405), "{answer:.300}");

    for client in ordinary_clients {
        let answered = client.join().unwrap().unwrap();
        assert!(answered > 0);
    }
    // The withheld body was never waited for: that client got its answer (405) at once.
    let mut waiting = held.into_iter().nth(3).unwrap();
    let mut answer = String::new();
    let _ = waiting.read_to_string(&mut answer);
    assert_eq!(status(&answer), Some(405), "{answer:.300}");
    ordinary(port).unwrap();
    drop(server);
}

#[test]
fn keep_alive_is_kept_and_said_and_error_answers_hide_the_directory() {
    let dir = common::scratch("serve-keep-alive");
    let server = start(&dir);
    let port = server.port;
    // HTTP/1.0 asking for keep-alive: two requests on one connection, each answer saying so.
    let mut stream = connect(port);
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    for _ in 0..2 {
        stream.write_all(b"GET /api/games HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n").unwrap();
        let mut head = Vec::new();
        loop {
            let mut line = String::new();
            reader.read_line(&mut line).unwrap();
            if line == "\r\n" {
                break;
            }
            head.push(line);
        }
        assert!(head.iter().any(|l| l.eq_ignore_ascii_case("Connection: keep-alive\r\n")), "{head:?}");
        let length: usize = head
            .iter()
            .find_map(|l| l.strip_prefix("Content-Length: "))
            .map(|n| n.trim().parse().unwrap())
            .unwrap();
        let mut json = vec![0; length];
        reader.read_exact(&mut json).unwrap();
        let games: serde_json::Value = serde_json::from_slice(&json).unwrap();
        assert_eq!(games["games"][0]["game"], "morris");
        assert_eq!(games["games"][0]["present"], serde_json::json!([]), "an empty directory");
    }
    // HTTP/1.0 without it: the answer says close, and the server closes.
    let answer = exchange(port, b"GET /api/games HTTP/1.0\r\n\r\n");
    assert!(answer.contains("Connection: close\r\n"), "{answer:.300}");
    // A table not generated: 404 naming the file, not where the server keeps it.
    let answer = exchange(
        port,
        b"GET /api/probe?game=connect4&size=4x4&position=1 HTTP/1.1\r\nConnection: close\r\n\r\n",
    );
    assert_eq!(status(&answer), Some(404), "{answer:.300}");
    let error: serde_json::Value = serde_json::from_str(body(&answer)).unwrap();
    let message = error["error"].as_str().unwrap();
    assert!(message.starts_with("connect4-4x4-ply01.set: table not generated"), "{message}");
    assert!(!message.contains(dir.to_str().unwrap()) && !message.contains("/tmp"), "{message}");
    // Pipelined requests on one connection are answered in order.
    let answer = exchange(
        port,
        b"GET /api/games HTTP/1.1\r\n\r\nGET /nowhere HTTP/1.1\r\n\r\nGET /api/games HTTP/1.1\r\nConnection: close\r\n\r\n",
    );
    let statuses: Vec<&str> = answer.matches("HTTP/1.1 ").map(|_| "").collect();
    assert_eq!(statuses.len(), 3, "{answer:.600}");
    assert!(answer.contains("404 Not Found"), "{answer:.600}");
    drop(server);
}

// Issue 66: searches never lock out the cheap requests, each search keeps its deadline and gives
// its memory back, answers never name the directory, tables are read again when they change, and
// the request line, headers and percent escapes are parsed strictly.

/// A `tablebase serve` process of this test's own: its directory given as a string (a trailing
/// slash kept), and where `files` is given, its descriptors limited to that many (`ulimit -n`).
struct Server {
    child: std::process::Child,
    port: u16,
}

impl Server {
    fn start(dir: &str, files: Option<u32>) -> Server {
        Server::launch(dir, files, None)
    }

    /// A server whose requests' searches stop after `seconds` (`--max-time`): the tests that
    /// wait for that deadline wait less than the default 30 s.
    fn with_max_time(dir: &str, seconds: u32) -> Server {
        Server::launch(dir, None, Some(seconds))
    }

    fn launch(dir: &str, files: Option<u32>, seconds: Option<u32>) -> Server {
        use std::process::{Command, Stdio};
        let limit = files.map_or(String::new(), |n| format!("ulimit -n {n} && "));
        let max_time = seconds.map_or(String::new(), |s| format!(" --max-time {s}"));
        let mut child = Command::new("sh")
            .args(["-c", &format!("{limit}exec \"$0\" serve --port 0 --dir \"$1\"{max_time}")])
            .args([env!("CARGO_BIN_EXE_tablebase"), dir])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("the binary runs");
        let mut line = String::new();
        BufReader::new(child.stderr.take().unwrap()).read_line(&mut line).unwrap();
        let port = line.split("127.0.0.1:").nth(1).and_then(|rest| rest.split('/').next()?.parse().ok());
        let port = port.unwrap_or_else(|| panic!("no address in {line:?}"));
        Server { child, port }
    }

    /// A field of /proc/PID/status, in kB (`VmRSS`).
    fn status_kb(&self, field: &str) -> u64 {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id())).unwrap();
        let line = status.lines().find(|l| l.starts_with(&format!("{field}:"))).unwrap();
        line.split_whitespace().nth(1).unwrap().parse().unwrap()
    }

    /// Processor time the server has used so far, in seconds.
    fn cpu_seconds(&self) -> f64 {
        let stat = std::fs::read_to_string(format!("/proc/{}/stat", self.child.id())).unwrap();
        let fields: Vec<&str> = stat.rsplit_once(')').unwrap().1.split_whitespace().collect();
        // utime and stime, fields 14 and 15 of the line, in clock ticks.
        let ticks: u64 = fields[11].parse::<u64>().unwrap() + fields[12].parse::<u64>().unwrap();
        // SAFETY: sysconf has no preconditions.
        ticks as f64 / unsafe { libc::sysconf(libc::_SC_CLK_TCK) } as f64
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A GET of `target` on a connection of its own, answered and closed: status and body.
fn get(port: u16, target: &str) -> (u16, String) {
    let answer =
        exchange(port, format!("GET {target} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").as_bytes());
    (status(&answer).unwrap_or(0), body(&answer).to_string())
}

/// The same, which must be answered within `limit`.
fn get_within(port: u16, target: &str, limit: Duration) -> (u16, String) {
    let started = Instant::now();
    let answer = get(port, target);
    assert!(started.elapsed() < limit, "{target}: answered after {:?}: {answer:?}", started.elapsed());
    answer
}

/// Requests that start searches of far more than 30 s (no tables of these games in the
/// directory).
const SEARCHES: [&str; 8] = [
    "/api/probe?game=sogo&position=",
    "/api/probe?game=sogo&position=a1",
    "/api/probe?game=sogo&position=b2",
    "/api/probe?game=sogo&position=a1b2",
    "/api/probe?game=connect4&size=7x6&position=",
    "/api/probe?game=connect4&size=7x6&position=4",
    "/api/probe?game=connect4&size=8x7&position=",
    "/api/probe?game=connect4&size=8x7&position=1",
];

/// A request sent on a connection kept open, its answer not read.
fn send(port: u16, target: &str) -> TcpStream {
    let mut stream = connect(port);
    stream
        .write_all(format!("GET {target} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").as_bytes())
        .unwrap();
    stream
}

fn error_of(body: &str) -> String {
    let json: serde_json::Value = serde_json::from_str(body).unwrap_or_else(|e| panic!("{e}: {body}"));
    json["error"].as_str().unwrap_or_else(|| panic!("no error in {body}")).to_string()
}

fn path_str(dir: &common::Scratch) -> &str {
    AsRef::<std::path::Path>::as_ref(dir).to_str().unwrap()
}

fn generate_4x4(dir: &std::path::Path) {
    let out = common::tablebase_with_input(
        env!("CARGO_BIN_EXE_tablebase"),
        &["generate", "connect4", "--size", "4x4", "--dir", dir.to_str().unwrap()],
        "",
    );
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
}

#[test]
fn cheap_requests_are_answered_while_eight_searches_run_and_a_ninth_is_refused() {
    let dir = common::scratch("serve-searches");
    generate_4x4(dir.as_ref());
    // Longer than the cheap requests below may take (half a second, then nine requests of at
    // most 2 s each), so that all eight still search when the ninth comes.
    let server = Server::with_max_time(path_str(&dir), 20);
    let port = server.port;
    let searching: Vec<TcpStream> = SEARCHES.iter().map(|target| send(port, target)).collect();
    std::thread::sleep(Duration::from_millis(500));
    // Well within the 2 s: the page, the game list and table probes take no search's turn.
    let limit = Duration::from_secs(2);
    for _ in 0..3 {
        let (code, page) = get_within(port, "/", limit);
        assert!(code == 200 && page.contains("<html"), "{code} {page:.200}");
        let (code, games) = get_within(port, "/api/games", limit);
        assert_eq!(code, 200, "{games}");
        let games: serde_json::Value = serde_json::from_str(&games).unwrap();
        let connect4 = games["games"].as_array().unwrap().iter().find(|g| g["game"] == "connect4").unwrap();
        assert_eq!(connect4["present"][0]["settings"]["size"], "4x4", "{connect4}");
        let (code, probe) = get_within(port, "/api/probe?game=connect4&size=4x4&position=12", limit);
        let probe: serde_json::Value = serde_json::from_str(&probe).unwrap();
        assert_eq!((code, probe["value"].as_str()), (200, Some("draw")), "{probe}");
        assert_eq!(probe["moves"].as_array().map(Vec::len), Some(4), "{probe}");
    }
    // A ninth search: refused at once, and said why.
    let (code, refused) = get_within(port, "/api/probe?game=sogo&position=c3", limit);
    assert_eq!(code, 503, "{refused}");
    assert!(error_of(&refused).contains("searches"), "{refused}");
    // The searches end at their 20 s, answering what is settled and marking the rest unknown,
    // without naming probe's option, which a page's user cannot set. One is waited for; the
    // others' clients leave, which stops them, so that the wait does not keep two processors
    // busy.
    let mut first = searching.into_iter().next().unwrap();
    first.set_read_timeout(Some(Duration::from_secs(45))).unwrap();
    let mut answer = String::new();
    let _ = first.read_to_string(&mut answer);
    assert_eq!(status(&answer), Some(200), "{answer:.300}");
    let probe: serde_json::Value = serde_json::from_str(body(&answer)).unwrap();
    assert_eq!(probe["value"].as_str(), Some("unknown"), "{answer:.300}");
    assert!(!answer.contains("--max-time"), "{answer:.300}");
}

#[test]
fn a_closed_connection_stops_its_search() {
    let dir = common::scratch("serve-cancel");
    let server = Server::start(path_str(&dir), None);
    let port = server.port;
    for target in SEARCHES {
        drop(send(port, target));
    }
    // Stopped within a moment of its client closing: the server is then idle.
    std::thread::sleep(Duration::from_millis(1500));
    let before = server.cpu_seconds();
    std::thread::sleep(Duration::from_secs(2));
    let used = server.cpu_seconds() - before;
    assert!(used < 0.25, "{used} s of processor time in 2 s after every client left");
    // Their turns are free again: eight more searches start, none refused. A search keeps its
    // turn until it has stopped, and at the lowest priority on a machine busy with other tests
    // it may get too little of a processor to stop within the seconds above: tried again for
    // a while (a turn never given back fails every try).
    let since = Instant::now();
    loop {
        let mut again: Vec<TcpStream> = SEARCHES.iter().map(|target| send(port, target)).collect();
        std::thread::sleep(Duration::from_millis(500));
        let answers: Vec<String> = again
            .iter_mut()
            .filter_map(|stream| {
                stream.set_read_timeout(Some(Duration::from_millis(300))).unwrap();
                let mut answer = Vec::new();
                let read = stream.read_to_end(&mut answer);
                (read.is_ok() || !answer.is_empty()).then(|| String::from_utf8_lossy(&answer).into_owned())
            })
            .collect();
        if answers.is_empty() {
            break;
        }
        assert!(since.elapsed() < Duration::from_secs(60), "{:.300}", answers[0]);
        assert!(answers.iter().all(|a| status(a) == Some(503)), "{:.300}", answers[0]);
        drop(again);
        std::thread::sleep(Duration::from_secs(1));
    }
}

#[test]
fn qubic_probes_keep_their_deadline_and_give_their_memory_back() {
    let dir = common::scratch("serve-qubic");
    let server = Server::with_max_time(path_str(&dir), 10);
    let port = server.port;
    // Tables opened and the page served once, before the baseline.
    assert_eq!(get(port, "/api/games").0, 200);
    assert_eq!(get(port, "/api/probe?game=qubic&position=a11a22b11b22c11c22d11").0, 200);
    let fresh = server.status_kb("VmRSS");
    let probes: Vec<_> = ["a11b22", "a11c33", "a11b12"]
        .into_iter()
        .map(|position| {
            std::thread::spawn(move || {
                let started = Instant::now();
                let mut stream = send(port, &format!("/api/probe?game=qubic&position={position}"));
                stream.set_read_timeout(Some(Duration::from_secs(120))).unwrap();
                let mut answer = String::new();
                let _ = stream.read_to_string(&mut answer);
                (position, started.elapsed(), answer)
            })
        })
        .collect();
    let mut still_stopping = false;
    for probe in probes {
        let (position, took, answer) = probe.join().unwrap();
        // 10 s and what stopping takes: never a second search's time on top, however busy the
        // machine (the server answers at 13 s whatever its searches are doing).
        assert!(took < Duration::from_secs(19), "{position}: {took:?}");
        match status(&answer) {
            Some(200) => assert!(body(&answer).contains("\"value\""), "{answer:.300}"),
            Some(500) => {
                let why = error_of(body(&answer));
                assert!(why.contains("10 s"), "{answer:.300}");
                still_stopping |= why.contains("being stopped");
            }
            _ => panic!("{position}: {answer:.300}"),
        }
    }
    // docs/CLI.md states the bound: held once every search has ended, which is when they
    // answered unless one was answered while still stopping.
    let wait_for_stopping = if still_stopping { Duration::from_secs(300) } else { Duration::ZERO };
    let since = Instant::now();
    let after = loop {
        let after = server.status_kb("VmRSS");
        if after < fresh + (256 << 10) || since.elapsed() >= wait_for_stopping {
            break after;
        }
        std::thread::sleep(Duration::from_millis(200));
    };
    assert!(after < fresh + (256 << 10), "{fresh} kB before the searches, {after} kB after");
}

#[test]
fn error_answers_never_name_the_directory_however_it_is_written() {
    let real = common::scratch("serve-hidden");
    let real: &std::path::Path = real.as_ref();
    generate_4x4(real);
    // A table damaged before the server opens it.
    let table = real.join("connect4-4x4-ply03.tbl");
    let mut bytes = std::fs::read(&table).unwrap();
    bytes[20] ^= 0x40;
    std::fs::write(&table, bytes).unwrap();
    let link = real.with_extension("link");
    let _ = std::fs::remove_file(&link);
    std::os::unix::fs::symlink(real, &link).unwrap();
    for dir in
        [format!("{}/", link.display()), format!("{}//", real.display()), format!("{}/.", link.display())]
    {
        let server = Server::start(&dir, None);
        for (target, code) in [
            ("/api/probe?game=connect4&size=5x4&position=1", 404),
            ("/api/probe?game=connect4&size=4x4&position=123", 500),
            ("/api/svg?game=connect4&size=4x4&position=12", 500),
        ] {
            let (got, answer) = get(server.port, target);
            assert_eq!(got, code, "{dir} {target}: {answer}");
            let message = error_of(&answer);
            assert!(message.starts_with("connect4-"), "{dir}: {message}");
            for hidden in [real.to_str().unwrap(), link.to_str().unwrap(), "/tmp"] {
                assert!(!message.contains(hidden), "{dir}: {message}");
            }
        }
    }
    std::fs::remove_file(&link).unwrap();
}

#[test]
fn tables_generated_or_repaired_while_serving_are_read() {
    let dir = common::scratch("serve-reread");
    let dir: &std::path::Path = dir.as_ref();
    let server = Server::start(dir.to_str().unwrap(), None);
    let port = server.port;
    let probe = "/api/probe?game=connect4&size=4x4&position=12";
    assert_eq!(get(port, probe).0, 404);
    generate_4x4(dir);
    let (code, answer) = get(port, probe);
    assert_eq!(code, 200, "{answer}");
    assert!(answer.starts_with("{\"position\": \"12\", \"value\": \"draw\""), "{answer}");
    // Damaged before it is first read, then repaired the way generate writes (a new file
    // renamed over it).
    let table = dir.join("connect4-4x4-ply05.tbl");
    let good = std::fs::read(&table).unwrap();
    let mut bad = good.clone();
    bad[20] ^= 0x40;
    std::fs::write(&table, &bad).unwrap();
    let deeper = "/api/probe?game=connect4&size=4x4&position=12341";
    let (code, answer) = get(port, deeper);
    assert_eq!(code, 500, "{answer}");
    assert!(error_of(&answer).contains("damaged"), "{answer}");
    std::fs::write(dir.join("repaired"), &good).unwrap();
    std::fs::rename(dir.join("repaired"), &table).unwrap();
    let (code, answer) = get(port, deeper);
    assert_eq!(code, 200, "{answer}");
    // And damaged again in place, then mended in place.
    let other = dir.join("connect4-4x4-ply07.tbl");
    let good = std::fs::read(&other).unwrap();
    let mut bad = good.clone();
    bad[20] ^= 0x40;
    std::fs::write(&other, &bad).unwrap();
    let deepest = "/api/probe?game=connect4&size=4x4&position=1234123";
    assert_eq!(get(port, deepest).0, 500);
    std::fs::write(&other, &good).unwrap();
    assert_eq!(get(port, deepest).0, 200);
}

#[test]
fn a_move_is_played_without_a_search_and_the_page_asks_once_a_position() {
    let dir = common::scratch("serve-move");
    let server = Server::start(path_str(&dir), None);
    let port = server.port;
    let limit = Duration::from_secs(5);
    for (target, next) in [
        ("/api/move?game=sogo&position=&move=a1", "a1"),
        ("/api/move?game=sogo&position=a1b2&move=a1", "a1b2a1"),
        ("/api/move?game=qubic&position=a11&move=d44", "a11d44"),
        ("/api/move?game=connect4&size=8x7&position=44&move=5", "445"),
    ] {
        let (code, answer) = get_within(port, target, limit);
        assert_eq!((code, answer), (200, format!("{{\"position\": \"{next}\"}}")), "{target}");
    }
    for bad in ["/api/move?game=sogo&position=&move=e5", "/api/move?game=connect4&size=8x7&position=&move=45"]
    {
        let (code, answer) = get_within(port, bad, limit);
        assert_eq!(code, 400, "{bad}: {answer}");
    }
    // The page asks for a position's probe and picture in one request.
    let (_, page) = get(port, "/");
    assert!(!page.contains("\"/api/svg\""), "the page still fetches the picture on its own");
    generate_4x4(dir.as_ref());
    let (code, answer) = get(port, "/api/probe?game=connect4&size=4x4&position=12&svg=1");
    assert_eq!(code, 200);
    let json: serde_json::Value = serde_json::from_str(&answer).unwrap();
    assert_eq!(json["value"], "draw");
    assert!(json["svg"].as_str().is_some_and(|svg| svg.contains("<svg")), "{answer:.300}");
    assert_eq!(
        json["svg"].as_str(),
        Some(get(port, "/api/svg?game=connect4&size=4x4&position=12").1.as_str())
    );
}

#[test]
fn out_of_descriptors_the_next_client_gets_503_at_once() {
    let dir = common::scratch("serve-descriptors");
    generate_4x4(dir.as_ref());
    let server = Server::start(path_str(&dir), Some(64));
    let port = server.port;
    let held: Vec<TcpStream> = (0..100).map(|_| connect(port)).collect();
    std::thread::sleep(Duration::from_millis(300));
    let (code, answer) =
        get_within(port, "/api/probe?game=connect4&size=4x4&position=12", Duration::from_secs(2));
    assert_eq!(code, 503, "{answer}");
    drop(held);
    std::thread::sleep(Duration::from_millis(300));
    let (code, answer) =
        get_within(port, "/api/probe?game=connect4&size=4x4&position=12", Duration::from_secs(2));
    assert_eq!(code, 200, "{answer}");
}

#[test]
fn percent_escapes_content_length_and_fragments_are_parsed_strictly() {
    let dir = common::scratch("serve-strict");
    generate_4x4(dir.as_ref());
    let server = Server::start(path_str(&dir), None);
    let port = server.port;
    assert_eq!(get(port, "/api/probe?game=connect4&size=4x4&position=12").0, 200);
    for target in [
        "/api/probe?game=connect4&size=4x4&position=%+1",
        "/api/probe?game=connect4&size=4x4&position=%-1",
        "/api/probe?game=connect4&size=4x4&position=12&line=1#top",
        "/api/games#x",
        "/api/games?x=%1",
    ] {
        let (code, answer) = get(port, target);
        assert_eq!(code, 400, "{target}: {answer}");
    }
    for length in ["+5", "-0", "5 5", "0x5", ""] {
        let answer = exchange(
            port,
            format!(
                "GET /api/games HTTP/1.1\r\nHost: x\r\nContent-Length: {length}\r\nConnection: close\r\n\r\n"
            )
            .as_bytes(),
        );
        assert_eq!(status(&answer), Some(400), "Content-Length: {length}: {answer:.300}");
    }
}

/// The moving phase of Morris built alone: the page's settings name it as the whole game (it
/// has no setting of its own), so it starts from a position of its largest class, which its
/// tables answer, and the game listed says what it is. A position its tables lack says what
/// the directory holds instead, without naming the directory.
#[test]
fn the_moving_phase_alone_starts_where_its_tables_answer() {
    let dir = common::scratch("serve-moving-phase");
    let out = common::tablebase_with_input(
        env!("CARGO_BIN_EXE_tablebase"),
        &["generate", "morris", "--up-to", "4-3", "--dir", path_str(&dir)],
        "",
    );
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let server = start(dir.as_ref());
    let (status, games) = get(server.port, "/api/games");
    assert_eq!(status, 200);
    let games: serde_json::Value = serde_json::from_str(&games).unwrap();
    let morris = games["games"].as_array().unwrap().iter().find(|g| g["game"] == "morris").unwrap();
    let present = morris["present"].as_array().unwrap();
    assert_eq!(present.len(), 1, "{present:?}");
    assert_eq!(present[0]["title"], "Nine Men's Morris, moving phase up to 4-3");
    let (status, body) = get(server.port, "/api/start?game=morris");
    assert_eq!(status, 200, "{body}");
    let start: serde_json::Value = serde_json::from_str(&body).unwrap();
    let start = start["position"].as_str().unwrap().to_string();
    assert_eq!(present[0]["start"].as_str(), Some(start.as_str()));
    // Four White stones on the board, three Black, White to move, nothing in hand.
    let (white, rest) = start.strip_prefix("W:").unwrap().split_once(" B:").unwrap();
    let (black, to_move) = rest.split_once(' ').unwrap();
    assert_eq!((white.split(',').count(), black.split(',').count(), to_move), (4, 3, "w"), "{start}");
    let query: String = start.bytes().map(|b| format!("%{b:02X}")).collect();
    let (status, body) = get(server.port, &format!("/api/probe?game=morris&position={query}"));
    assert_eq!(status, 200, "{body}");
    let answer: serde_json::Value = serde_json::from_str(&body).unwrap();
    assert!(["win", "draw", "loss"].contains(&answer["value"].as_str().unwrap()), "{body}");
    let (status, body) = get(server.port, "/api/probe?game=morris&position=W%3A+B%3A+w+9+9");
    assert_eq!(status, 404, "{body}");
    let error = error_of(&body);
    assert!(error.ends_with("; the directory holds Nine Men's Morris, moving phase up to 4-3)"), "{error}");
    assert!(!error.contains(path_str(&dir)), "{error}");
}

/// A server of Morris 3 tables generated in `d`: the 3-3 class's file, its bytes, the server.
fn serving_morris_3(d: &str) -> (std::path::PathBuf, Vec<u8>, Server) {
    let out = common::tablebase_with_input(
        env!("CARGO_BIN_EXE_tablebase"),
        &["generate", "morris", "--stones", "3", "--dir", d],
        "",
    );
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let table = std::path::Path::new(d).join("morris-3-3.tbl");
    let whole = std::fs::read(&table).unwrap();
    (table, whole, Server::start(d, None))
}

/// Another program cuts a table short while the server has it mapped: the request that reads
/// past the new end is answered 500 (never from the zeros that took the bytes' place), the next
/// finds the file as it is now, and once the file is whole again its answers are right; the
/// server goes on throughout.
#[test]
fn a_table_cut_short_while_serving_fails_its_request_and_the_server_goes_on() {
    let dir = common::scratch("serve-cut-short");
    let d = path_str(&dir);
    let (table, whole, server) = serving_morris_3(d);
    let port = server.port;
    let probe = |position: &str| get(port, &format!("/api/probe?game=morris&stones=3&position={position}"));
    let first = "W:a1,d1,g1%20B:a7,d7,g7%20w";
    let (code, answer) = probe(first);
    assert_eq!(code, 200, "{answer}");
    assert!(
        answer.starts_with("{\"position\": \"W:a1,d1,g1 B:a7,d7,g7 w\", \"value\": \"win\", \"plies\": 3"),
        "{answer}"
    );
    std::fs::OpenOptions::new().write(true).open(&table).unwrap().set_len(0).unwrap();
    let second = "W:a1,d1,g1%20B:a7,d7,f6%20w";
    let (code, answer) = probe(second);
    assert_eq!(code, 500, "{answer}");
    assert!(error_of(&answer).contains("cut short"), "{answer}");
    let (code, answer) = probe(second);
    assert_eq!(code, 500, "{answer}");
    assert!(error_of(&answer).contains("morris-3-3.tbl"), "{answer}");
    // Whole again, the way generate writes a file (a new one renamed over it).
    std::fs::write(AsRef::<std::path::Path>::as_ref(&dir).join("whole"), &whole).unwrap();
    std::fs::rename(AsRef::<std::path::Path>::as_ref(&dir).join("whole"), &table).unwrap();
    let expected = common::tablebase_with_input(
        env!("CARGO_BIN_EXE_tablebase"),
        &["probe", "morris", "--stones", "3", "--json", "--dir", d, "W:a1,d1,g1 B:a7,d7,f6 w"],
        "",
    );
    let (code, answer) = probe(second);
    assert_eq!(code, 200, "{answer}");
    assert_eq!(answer.trim_end(), String::from_utf8_lossy(&expected.stdout).trim_end());
}

#[test]
fn a_table_cut_within_a_page_or_written_in_place_while_serving_is_read_again() {
    // Neither raises SIGBUS: the request that read it after the change is answered 500, never
    // from the changed bytes, and the next request opens the table again.
    let dir = common::scratch("serve-changed");
    let d = path_str(&dir);
    let (table, whole, server) = serving_morris_3(d);
    let port = server.port;
    let probe = |position: &str| get(port, &format!("/api/probe?game=morris&stones=3&position={position}"));
    let (first, second) = ("W:a1,d1,g1%20B:a7,d7,g7%20w", "W:a1,d1,g1%20B:a7,d7,f6%20w");
    let expected = common::tablebase_with_input(
        env!("CARGO_BIN_EXE_tablebase"),
        &["probe", "morris", "--stones", "3", "--json", "--dir", d, "W:a1,d1,g1 B:a7,d7,f6 w"],
        "",
    );
    let expected = String::from_utf8_lossy(&expected.stdout).trim_end().to_string();
    let (code, answer) = probe(first);
    assert_eq!(code, 200, "{answer}");
    use std::os::unix::fs::FileExt;
    let file = std::fs::OpenOptions::new().write(true).open(&table).unwrap();
    // Past the file system's clock tick, so that each change moves the file's time.
    let tick = || std::thread::sleep(std::time::Duration::from_millis(50));
    tick();
    file.set_len(whole.len() as u64 - 100).unwrap();
    let (code, answer) = probe(second);
    assert_eq!(code, 500, "{answer}");
    assert!(error_of(&answer).contains("morris-3-3.tbl: changed while it was read"), "{answer}");
    // Opened again, as it is now: too short.
    let (code, answer) = probe(second);
    assert_eq!(code, 500, "{answer}");
    assert!(error_of(&answer).contains("the header implies"), "{answer}");
    // Mended in place, then read, then written in place again: the same bytes, which still
    // move the file's time (a change is not told from a rewrite without reading it all).
    tick();
    file.write_all_at(&whole, 0).unwrap();
    let (code, answer) = probe(second);
    assert_eq!((code, answer.trim_end()), (200, expected.as_str()));
    tick();
    file.write_all_at(&whole[..4096], 0).unwrap();
    let (code, answer) = probe(second);
    assert_eq!(code, 500, "{answer}");
    assert!(error_of(&answer).contains("changed while it was read"), "{answer}");
    let (code, answer) = probe(second);
    assert_eq!((code, answer.trim_end()), (200, expected.as_str()));
}
