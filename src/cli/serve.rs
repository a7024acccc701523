//! `tablebase serve`: a local page to play and study positions of every game, and the JSON API
//! behind it (SPEC section 1). The page is embedded in the binary; tables open on first use.

use super::error::Error;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use tablebase::connect4::{Connect4Tablebase, Geometry};
use tablebase::morris::MorrisTablebase;
use tablebase::picture::Draw;
use tablebase::probe::{Format, ProbeError, answer, json_string, quote};
use tiny_http::{Header, Method, Request, Response, Server};

const PAGE: &str = include_str!("page.html");

/// The tablebases asked for so far, kept open between requests.
struct Tables {
    dir: PathBuf,
    morris: Mutex<HashMap<u8, Arc<MorrisTablebase>>>,
    connect4: Mutex<HashMap<Geometry, Arc<Connect4Tablebase>>>,
}

/// An answer: the status, the content type and the body.
struct Reply {
    status: u16,
    kind: &'static str,
    body: String,
}

impl Reply {
    fn json(status: u16, body: String) -> Reply {
        Reply { status, kind: "application/json", body }
    }

    fn error(status: u16, why: &str) -> Reply {
        Reply::json(status, format!("{{\"error\": {}}}", json_string(why)))
    }

    fn probe_error(error: &ProbeError) -> Reply {
        let status = match error {
            ProbeError::Illegal(_) => 400,
            ProbeError::NotGenerated { .. } => 404,
            ProbeError::Damaged(_) | ProbeError::Unavailable(_) => 500,
        };
        Reply::error(status, &error.to_string())
    }
}

/// Seconds a search may take for one request (a Connect Four position beyond an opening book):
/// a page waits no longer, and the answer is an error (status 500) that says so.
const SEARCH_SECONDS: f64 = 30.0;

/// Serves until the process is stopped.
pub fn serve(dir: &Path, bind: &str, port: u16) -> Result<(), Error> {
    let server = Server::http((bind, port))
        .map_err(|e| Error::Runtime(format!("cannot listen on {bind}:{port}: {e}")))?;
    let address = match server.server_addr().to_ip() {
        Some(address) => address.to_string(),
        None => format!("{bind}:{port}"),
    };
    eprintln!("tablebase: serving the tables in {} at http://{address}/ (Ctrl-C stops)", dir.display());
    let tables = Tables {
        dir: dir.to_path_buf(),
        morris: Mutex::new(HashMap::new()),
        connect4: Mutex::new(HashMap::new()),
    };
    let workers = std::thread::available_parallelism().map_or(2, |n| n.get()).clamp(2, 8);
    std::thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| {
                while let Ok(request) = server.recv() {
                    respond(&tables, request);
                }
            });
        }
    });
    Ok(())
}

fn respond(tables: &Tables, request: Request) {
    let url = request.url().to_string();
    let reply = match request.method() {
        Method::Get | Method::Head => {
            // A request must never take the server down: a bug answers 500 and is logged.
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| route(tables, &url)))
                .unwrap_or_else(|_| Reply::error(500, "internal error (logged by the server)"))
        }
        _ => Reply::error(405, "only GET is served"),
    };
    let mut response = Response::from_string(reply.body).with_status_code(reply.status);
    for (name, value) in [
        ("Content-Type", format!("{}; charset=utf-8", reply.kind)),
        ("Cache-Control", "no-store".to_string()),
    ] {
        if let Ok(header) = Header::from_bytes(name.as_bytes(), value.as_bytes()) {
            response.add_header(header);
        }
    }
    // A client that went away is no error of ours.
    let _ = request.respond(response);
}

fn route(tables: &Tables, url: &str) -> Reply {
    let (path, query) = url.split_once('?').unwrap_or((url, ""));
    let params = match parse_query(query) {
        Ok(params) => params,
        Err(why) => return Reply::error(400, &why),
    };
    match path {
        "/" | "/index.html" => Reply { status: 200, kind: "text/html", body: PAGE.to_string() },
        "/api/probe" | "/api/svg" | "/api/move" => with_game(tables, path, &params),
        _ => Reply::error(404, &format!("no such page: {}", quote(path))),
    }
}

/// Runs the API call `path` on the game the parameters name.
fn with_game(tables: &Tables, path: &str, params: &HashMap<String, String>) -> Reply {
    match params.get("game").map(String::as_str) {
        Some("morris") => {
            let stones = match params.get("stones").map(|s| s.parse::<u8>()) {
                None => 9,
                Some(Ok(k)) if (3..=9).contains(&k) => k,
                Some(_) => return Reply::error(400, "stones: expected a number from 3 to 9"),
            };
            let game = {
                let mut open = tables.morris.lock().unwrap_or_else(|e| e.into_inner());
                let entry = open.entry(stones);
                Arc::clone(entry.or_insert_with(|| Arc::new(MorrisTablebase::open(&tables.dir, stones))))
            };
            call(&*game, path, params)
        }
        Some("connect4") => {
            let size = match params.get("size").map(|s| Geometry::parse(s)) {
                None => return Reply::error(400, "size: missing (for example size=7x6)"),
                Some(Err(e)) => return Reply::error(400, &format!("size: {e}")),
                Some(Ok(size)) => size,
            };
            let game = {
                let mut open = tables.connect4.lock().unwrap_or_else(|e| e.into_inner());
                let entry = open.entry(size);
                Arc::clone(entry.or_insert_with(|| {
                    Arc::new(Connect4Tablebase::open(&tables.dir, size).with_max_time(Some(SEARCH_SECONDS)))
                }))
            };
            call(&*game, path, params)
        }
        Some(other) => Reply::error(400, &format!("unknown game '{}' (morris or connect4)", quote(other))),
        None => Reply::error(400, "game: missing (morris or connect4)"),
    }
}

fn call<G: Draw>(game: &G, path: &str, params: &HashMap<String, String>) -> Reply {
    let Some(text) = params.get("position") else {
        return Reply::error(400, "position: missing");
    };
    match path {
        "/api/probe" => {
            let line = matches!(params.get("line").map(String::as_str), Some("1" | "true"));
            match answer(game, text, Format::Json, line) {
                Ok(json) => Reply::json(200, json),
                Err(e) => Reply::probe_error(&e),
            }
        }
        "/api/svg" => {
            let drawn = game.parse(text).and_then(|p| Ok((tablebase::probe(game, &p)?, p)));
            match drawn {
                Ok((probed, position)) => {
                    Reply { status: 200, kind: "image/svg+xml", body: game.svg(&position, &probed) }
                }
                Err(e) => Reply::probe_error(&e),
            }
        }
        _ => {
            let Some(wanted) = params.get("move") else {
                return Reply::error(400, "move: missing");
            };
            let moves = game.parse(text).and_then(|p| game.moves(&p));
            match moves {
                Err(e) => Reply::probe_error(&e),
                Ok(moves) => match moves.into_iter().find(|o| o.mv.to_string() == wanted.trim()) {
                    Some(o) => Reply::json(
                        200,
                        format!("{{\"position\": {}}}", json_string(&game.notation(&o.next))),
                    ),
                    None => Reply::error(
                        400,
                        &format!("'{}' is not a legal move in this position", quote(wanted)),
                    ),
                },
            }
        }
    }
}

/// The parameters of a query string, percent-decoded (`+` is a space).
fn parse_query(query: &str) -> Result<HashMap<String, String>, String> {
    let mut params = HashMap::new();
    for pair in query.split('&').filter(|p| !p.is_empty()) {
        let (name, value) = pair.split_once('=').unwrap_or((pair, ""));
        params.insert(decode(name)?, decode(value)?);
    }
    Ok(params)
}

fn decode(text: &str) -> Result<String, String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut k = 0;
    while k < bytes.len() {
        match bytes[k] {
            b'+' => out.push(b' '),
            b'%' => {
                let hex = bytes.get(k + 1..k + 3).and_then(|h| std::str::from_utf8(h).ok());
                let byte = hex.and_then(|h| u8::from_str_radix(h, 16).ok());
                let byte = byte.ok_or_else(|| format!("bad percent escape in '{}'", quote(text)))?;
                out.push(byte);
                k += 2;
            }
            b => out.push(b),
        }
        k += 1;
    }
    String::from_utf8(out).map_err(|_| format!("not UTF-8: '{}'", quote(text)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn queries_decode() {
        let params = parse_query("game=morris&position=W%3Aa1%2Cd1+B%3A+w+2+3&line=1").unwrap();
        assert_eq!(params["position"], "W:a1,d1 B: w 2 3");
        assert_eq!(params["line"], "1");
        assert!(parse_query("position=%zz").is_err());
        assert!(parse_query("position=%e2%82").is_err());
        assert_eq!(decode("%41%42c").unwrap(), "ABc");
    }
}
