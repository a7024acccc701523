//! `serve` keeps serving whatever its clients send: while hostile and broken clients do their
//! worst (a 30 GB body announced, 64 connections held silent or half-sent, a 1 MB header, random
//! bytes), ordinary requests get their exact answers, and the server is alive at the end. Error
//! answers name tables relative to the tables' directory.

mod common;

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
