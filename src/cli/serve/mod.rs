//! `tablebase serve`: a local page to play and study positions of every game, and the JSON API
//! behind it. The page is embedded in the binary; tables open on first use. The HTTP layer is
//! [`http`]; this module answers requests.

mod http;

use super::error::{Error, complain, explain, generate_without_dir};
use super::games::as_probed;
use super::output::{self, Format, answer};
use std::any::Any;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::mpsc::RecvTimeoutError;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tablebase::catalogue::Variant;
use tablebase::game::{Game, Purpose};
use tablebase::games::{ForGame, GAMES, with_game};
use tablebase::picture::Draw;
use tablebase::probe::{Probe, ProbeError, Reads};
use tablebase::search::{SearchError, Work};
use tablebase::text::json_string;
use tablebase::text::quote;

const PAGE: &str = include_str!("page.html");

/// The tablebases asked for so far, kept open between requests.
struct Tables {
    /// The tables' directory as every file name is built from it ([`plain_dir`]).
    dir: PathBuf,
    /// Each variant's tablebase, of its game's type.
    open: Mutex<HashMap<Variant, Arc<dyn Opened>>>,
    /// Searches in flight: each holds a transposition table (64 MB to gigabytes) and a thread
    /// for up to `search_seconds`, so their number is bounded however many clients ask.
    searching: AtomicUsize,
    /// Seconds the searches of one request may take together (a Connect Four position beyond
    /// an opening book and its moves, a Qubic or Sogo position), from the moment the request
    /// arrived (`serve --max-time`, 30 by default): a page waits no longer, and a move not
    /// settled by then is marked unknown.
    search_seconds: f64,
    /// The thread that gives the searches' memory back ([`release_memory`]), started with the
    /// server at normal priority: each message is the tables and where to say it is done.
    releaser: std::sync::mpsc::Sender<(Arc<Tables>, std::sync::mpsc::Sender<()>)>,
    /// [`tablebase::signals::tables_cut_short`] when `open` was last emptied for it: a table file
    /// cut short since has zeros in its map, so every table opened before is opened again.
    /// Read and written under `open`'s lock.
    cut_short_seen: AtomicU64,
}

/// A tablebase of any game, as `serve` keeps it.
trait Opened: Send + Sync {
    fn as_any(self: Arc<Self>) -> Arc<dyn Any + Send + Sync>;
    fn release(&self);
}

impl<T: Probe + Send + Sync + 'static> Opened for T {
    fn as_any(self: Arc<Self>) -> Arc<dyn Any + Send + Sync> {
        self
    }
    fn release(&self) {
        Probe::release(self);
    }
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
}

/// How long past its searches' deadline a request is answered at the latest, whether or not
/// they have seen it: a moment for them to stop.
const STOPPING_AT_MOST: Duration = Duration::from_secs(3);

/// Requests searching at once; one more is answered 503 at once. Eight keep a 2-core machine
/// busy and bound the memory of searches (docs/CLI.md).
const SEARCHES: usize = 8;

/// How often a request that searches looks whether its client is still there.
const CLIENT_CHECK: Duration = Duration::from_millis(50);

/// Serves until the process is stopped.
pub fn serve(dir: &Path, bind: &str, port: u16, search_seconds: f64) -> Result<(), Error> {
    let listener = std::net::TcpListener::bind((bind, port))
        .map_err(|source| Error::Serve { address: format!("{bind}:{port}"), source })?;
    let address = listener.local_addr().map_or(format!("{bind}:{port}"), |a| a.to_string());
    complain!("tablebase: serving the tables in {} at http://{address}/ (Ctrl-C stops)", dir.display());
    let (releaser, to_release) = std::sync::mpsc::channel::<(Arc<Tables>, std::sync::mpsc::Sender<()>)>();
    std::thread::Builder::new()
        .name("release".into())
        .spawn(move || {
            for (tables, done) in to_release {
                release_memory(&tables);
                let _ = done.send(());
            }
        })
        .map_err(|source| Error::Serve { address: address.clone(), source })?;
    let tables = Arc::new(Tables {
        dir: plain_dir(dir),
        open: Mutex::new(HashMap::new()),
        searching: AtomicUsize::new(0),
        search_seconds,
        releaser,
        cut_short_seen: AtomicU64::new(0),
    });
    // Another program cutting a table file short under a request ends that request with an
    // error, not the server: its other tables are sound.
    tablebase::signals::go_on_after_a_table_cut_short();
    http::serve(listener, http::Limits::default(), move |request| {
        let reply = answer_request(&tables, request);
        let body = match reply.status {
            200 => reply.body,
            _ => without_dir(&reply.body, &tables.dir),
        };
        http::Response { status: reply.status, content_type: reply.kind, body }
    })
    .map_err(|source| Error::Serve { address, source })
}

/// The answer to one request. It is first answered where it came, with searches forbidden: the
/// page, the game list and whatever the tables answer take no more than that. One that needs a
/// search is answered again on a thread of its own, at the lowest priority, if one of the
/// [`SEARCHES`] turns is free, and stopped when its client leaves.
fn answer_request(tables: &Arc<Tables>, request: &http::Request) -> Reply {
    let arrived = Instant::now();
    let cheap = Work::without_searches();
    let reply = Work::run(Some(&cheap), || guarded(tables, &request.target));
    if !cheap.wanted_search() {
        return reply;
    }
    let taken = tables.searching.fetch_add(1, Ordering::SeqCst);
    let turn = Turn(Arc::clone(tables));
    if taken >= SEARCHES {
        drop(turn);
        return Reply::error(
            503,
            &format!("busy: {SEARCHES} searches are running, the most at once; try again when one ends"),
        );
    }
    let seconds = tables.search_seconds;
    let left = seconds - arrived.elapsed().as_secs_f64();
    let work = Work::new(Some(left));
    let (send, receive) = std::sync::mpsc::channel();
    let (for_thread, target) = (Arc::clone(tables), request.target.clone());
    let search = Arc::clone(&work);
    let started = std::thread::Builder::new().name("search".into()).spawn(move || {
        lowest_priority();
        let reply = Work::run(Some(&search), || guarded(&for_thread, &target));
        // The tables of the searches just ended go back before the answer and the turn, so
        // that at most [`SEARCHES`] searches' memory is ever held, and none once all answered;
        // on the releasing thread, at normal priority: the allocator's locks that giving memory
        // back takes would otherwise be held by a thread of the lowest priority, which a busy
        // machine can leave waiting while the cheap requests wait for those locks.
        let (done, released) = std::sync::mpsc::channel();
        if for_thread.releaser.send((Arc::clone(&for_thread), done)).is_ok() {
            let _ = released.recv();
        }
        drop(turn);
        // Nobody may be listening any more (a client gone).
        let _ = send.send(reply);
    });
    if started.is_err() {
        return Reply::error(503, "busy: no thread for another search; try again later");
    }
    loop {
        match receive.recv_timeout(CLIENT_CHECK) {
            Ok(reply) => return reply,
            Err(RecvTimeoutError::Timeout) if request.client_gone() => {
                work.stop();
                return Reply::error(503, "the client has gone");
            }
            // The search runs at the lowest priority: on a machine busy with other work it
            // gets so little of a processor that it sees its deadline late (seconds; once a
            // minute and a half, when its tables were cleared whole between two looks at the
            // clock). The answer does not wait for it; the search keeps its turn until it has
            // stopped and given its memory back, so the bound on searches at once holds.
            Err(RecvTimeoutError::Timeout)
                if arrived.elapsed() > Duration::from_secs_f64(seconds) + STOPPING_AT_MOST =>
            {
                work.stop();
                let why = format!(
                    "the searches of this request need more than the {seconds} s a request may take; they are being stopped"
                );
                return Reply::error(500, &why);
            }
            Err(RecvTimeoutError::Timeout) => {}
            Err(RecvTimeoutError::Disconnected) => return Reply::error(500, "internal error"),
        }
    }
}

/// A search's turn, given back when dropped.
struct Turn(Arc<Tables>);

impl Drop for Turn {
    fn drop(&mut self) {
        self.0.searching.fetch_sub(1, Ordering::SeqCst);
    }
}

/// A request answered; a request that hits a bug is answered 500, and the server goes on. So is
/// one during which a table file was cut short (by another program) under a read: it may have
/// read the zeros that took the missing bytes' place ([`tablebase::signals`]).
fn guarded(tables: &Tables, target: &str) -> Reply {
    let cut_short = tablebase::signals::tables_cut_short();
    let reply = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| route(tables, target)))
        .unwrap_or_else(|_| Reply::error(500, "internal error"));
    if tablebase::signals::tables_cut_short() != cut_short {
        return Reply::error(
            500,
            "a table file was cut short (by another program) while this request read it; the tables are opened again for the next",
        );
    }
    reply
}

/// Lets every other thread of the machine go first: a search must never slow the cheap
/// answers. The threads it starts inherit it.
fn lowest_priority() {
    #[cfg(target_os = "linux")]
    // SAFETY: setpriority on this thread's own id changes nothing but its niceness.
    unsafe {
        libc::setpriority(libc::PRIO_PROCESS, libc::gettid() as libc::id_t, 19);
    }
}

/// Drops the searches' transposition tables that no search uses now, and gives the freed
/// memory back to the system.
fn release_memory(tables: &Tables) {
    let open: Vec<Arc<dyn Opened>> =
        tables.open.lock().unwrap_or_else(|e| e.into_inner()).values().cloned().collect();
    for tablebase in open {
        tablebase.release();
    }
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim only returns free memory of the allocator to the system.
    unsafe {
        libc::malloc_trim(0);
    }
}

/// `dir` as the file names of its tables start: without `.` components, doubled or trailing
/// slashes, so that [`without_dir`] finds it in any of them.
fn plain_dir(dir: &Path) -> PathBuf {
    let plain: PathBuf = dir.components().collect();
    if plain.as_os_str().is_empty() { PathBuf::from(".") } else { plain }
}

/// An error message as a remote client may read it: table files named relative to the tables'
/// directory, and the directory itself not named, so that the server's file layout stays its own.
fn without_dir(message: &str, dir: &Path) -> String {
    let mut names: Vec<String> = vec![dir.display().to_string()];
    if let Ok(full) = dir.canonicalize() {
        names.push(full.display().to_string());
    }
    // The longest first, so that a name that contains another is replaced whole.
    names.sort_by_key(|n| std::cmp::Reverse(n.len()));
    let mut text = message.to_string();
    for name in names.iter().filter(|n| !n.is_empty() && n.as_str() != "/") {
        text = text.replace(&format!("{name}/"), "").replace(&format!("--dir {name}"), "--dir DIR");
    }
    text
}

fn route(tables: &Tables, url: &str) -> Reply {
    let (path, query) = url.split_once('?').unwrap_or((url, ""));
    let params = match parse_query(query) {
        Ok(params) => params,
        Err(why) => return Reply::error(400, &why),
    };
    match path {
        "/" | "/index.html" => Reply { status: 200, kind: "text/html", body: PAGE.to_string() },
        "/api/games" => Reply::json(200, games_json(&tables.dir)),
        "/api/probe" | "/api/svg" | "/api/move" | "/api/start" => on_game(tables, path, &params),
        _ => Reply::error(404, &format!("no such page: {}", quote(path))),
    }
}

/// Runs the API call `path` on the game the parameters name.
fn on_game(tables: &Tables, path: &str, params: &HashMap<String, String>) -> Reply {
    let keys: Vec<&str> = GAMES.iter().map(|g| g.key).collect();
    let Some(key) = params.get("game") else {
        return Reply::error(400, &format!("game: missing ({})", keys.join(", ")));
    };
    with_game(key, Serving { tables, path, params })
        .unwrap_or_else(|| Reply::error(400, &format!("unknown game '{}' ({})", quote(key), keys.join(", "))))
}

/// An API call on a game: its variant from the parameters, its tablebase opened once.
struct Serving<'a> {
    tables: &'a Tables,
    path: &'a str,
    params: &'a HashMap<String, String>,
}

impl ForGame for Serving<'_> {
    type Output = Reply;
    fn run<G: Game>(self) -> Reply {
        let mut variant = Variant::of(G::KEY);
        for setting in G::SETTINGS.iter().filter(|s| s.applies(Purpose::Probe)) {
            if let Some(value) = self.params.get(setting.name) {
                variant = variant.with(setting.name, value);
            }
        }
        let game = match G::from_variant(&variant, Purpose::Probe) {
            Ok(game) => game,
            Err(e) => return Reply::error(400, &e.to_string()),
        };
        if self.path == "/api/start" {
            let start = start_on_disk(&game, &self.tables.dir);
            return Reply::json(200, format!("{{\"position\": {}}}", json_string(&start)));
        }
        let tablebase = {
            let mut open = self.tables.open.lock().unwrap_or_else(|e| e.into_inner());
            let cut_short = tablebase::signals::tables_cut_short();
            if self.tables.cut_short_seen.swap(cut_short, Ordering::SeqCst) != cut_short {
                open.clear();
            }
            let entry = open.entry(game.variant()).or_insert_with(|| {
                // No limit of its own: the request's work bounds all its searches together.
                Arc::new(game.tablebase(&self.tables.dir, None)) as Arc<dyn Opened>
            });
            Arc::clone(entry)
        };
        // The work the request runs in bounds the whole answer: a position and every move of
        // it can each need a search (all 60 moves of an early Qubic position).
        let Ok(tablebase) = tablebase.as_any().downcast::<G::Tablebase>() else {
            return Reply::error(500, "internal error: a variant's tables of another type");
        };
        let reads = Reads::start();
        let reply = call(&*tablebase, self.path, self.params, self.tables.search_seconds);
        // Asked after the reads: a table file cut within a page or written in place (by another
        // program) since its blocks were checked gives its new bytes unchecked. Opened again
        // for the next request.
        if let Err(e) = tablebase.unchanged(reads) {
            self.tables.open.lock().unwrap_or_else(|e| e.into_inner()).remove(&game.variant());
            return probe_error(&e, self.tables.search_seconds);
        }
        reply
    }
}

fn call<G: Draw>(game: &G, path: &str, params: &HashMap<String, String>, search_seconds: f64) -> Reply {
    let Some(text) = params.get("position") else {
        return Reply::error(400, "position: missing");
    };
    match path {
        "/api/probe" => {
            let asked = |name| matches!(params.get(name).map(String::as_str), Some("1" | "true"));
            let answered = match asked("svg") {
                false => answer(game, text, Format::Json, asked("line"), None),
                // The picture in the same answer, from the same probe: the page asks once.
                true => game.parse(text).and_then(|position| {
                    let probed = tablebase::probe(game, &position)?;
                    let line =
                        if asked("line") { Some(tablebase::best_line(game, &position)?) } else { None };
                    let json = output::json(&game.notation(&position), &probed, line.as_deref());
                    let svg = json_string(&game.svg(&position, &probed));
                    Ok(format!("{}, \"svg\": {svg}}}", json.trim_end().trim_end_matches('}')))
                }),
            };
            match answered {
                Ok(json) => Reply::json(200, json),
                Err(e) => probe_error(&e, search_seconds),
            }
        }
        "/api/svg" => {
            let drawn = game.parse(text).and_then(|p| Ok((tablebase::probe(game, &p)?, p)));
            match drawn {
                Ok((probed, position)) => {
                    Reply { status: 200, kind: "image/svg+xml", body: game.svg(&position, &probed) }
                }
                Err(e) => probe_error(&e, search_seconds),
            }
        }
        _ => {
            let Some(wanted) = params.get("move") else {
                return Reply::error(400, "move: missing");
            };
            // The position after the move, without the value of any move.
            let next = game.parse(text).and_then(|p| game.after_move(&p, wanted.trim()));
            match next {
                Err(e) => probe_error(&e, search_seconds),
                Ok(next) => match next {
                    Some(next) => {
                        Reply::json(200, format!("{{\"position\": {}}}", json_string(&game.notation(&next))))
                    }
                    None => Reply::error(
                        400,
                        &format!("'{}' is not a legal move in this position", quote(wanted)),
                    ),
                },
            }
        }
    }
}

fn probe_error(error: &ProbeError, search_seconds: f64) -> Reply {
    let status = match error {
        ProbeError::Illegal(_) => 400,
        ProbeError::NotGenerated { .. } => 404,
        ProbeError::Search(e) => match e.downcast_ref::<SearchError>() {
            // The command line's message names probe's option, which a page's user cannot set.
            Some(SearchError::TimeLimit { nodes, .. }) => {
                let why = format!(
                    "the searches of this request need more than the {search_seconds} s a request may take; they stopped after {nodes} positions"
                );
                return Reply::error(500, &why);
            }
            Some(SearchError::Stopped) => 503,
            None => 500,
        },
        ProbeError::Damaged(_) => 500,
    };
    Reply::error(status, &explain(error))
}

/// The games `serve` offers and, for each, its settings and the variants whose tables are in
/// `dir` (the largest first: the page opens on one), with the command that generates a small
/// one: `{"games": [{"game": "morris", "name": ..., "settings": ["stones"], "present":
/// [{"settings": {"stones": "3"}, "title": ..., "start": ...}], "generate": ...}]}`.
fn games_json(dir: &Path) -> String {
    let games: Vec<String> = GAMES.iter().filter_map(|g| with_game(g.key, Offered(dir))).collect();
    format!("{{\"games\": [{}]}}", games.join(", "))
}

/// Where `game` starts, as the tables in `dir` answer it: its own start where its tables are
/// there, else that of a variant on disk which the page's settings cannot tell apart from it
/// (Morris's moving phase alone, which starts from a position of its largest class).
fn start_on_disk<G: Game>(game: &G, dir: &Path) -> String {
    let present = G::present(dir);
    if present.iter().any(|other| other.variant() == game.variant()) {
        return game.start();
    }
    let as_the_page_names = |other: &G| {
        G::from_variant(&as_probed::<G>(&other.variant()), Purpose::Probe).ok().map(|named| named.variant())
    };
    present
        .iter()
        .find(|other| as_the_page_names(other) == Some(game.variant()))
        .map_or_else(|| game.start(), |other| other.start())
}

/// One game of `/api/games`.
struct Offered<'a>(&'a Path);

impl ForGame for Offered<'_> {
    type Output = String;
    fn run<G: Game>(self) -> String {
        let settings: Vec<String> =
            G::SETTINGS.iter().filter(|s| s.applies(Purpose::Probe)).map(|s| json_string(s.name)).collect();
        let present: Vec<String> = G::present(self.0)
            .iter()
            .map(|game| {
                let values: Vec<String> = as_probed::<G>(&game.variant())
                    .settings
                    .iter()
                    .filter_map(|(name, value)| {
                        Some(format!("{}: {}", json_string(name), json_string(value.as_ref()?)))
                    })
                    .collect();
                format!(
                    "{{\"settings\": {{{}}}, \"title\": {}, \"start\": {}}}",
                    values.join(", "),
                    json_string(&game.title()),
                    json_string(&game.start())
                )
            })
            .collect();
        format!(
            "{{\"game\": {}, \"name\": {}, \"settings\": [{}], \"present\": [{}], \"generate\": {}}}",
            json_string(G::KEY),
            json_string(G::NAME),
            settings.join(", "),
            present.join(", "),
            G::small().map_or("null".to_string(), |game| json_string(&generate_without_dir(&game.variant())))
        )
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
                // Two hexadecimal digits exactly: from_str_radix alone takes a sign (`%+1`).
                let hex = bytes.get(k + 1..k + 3).filter(|h| h.iter().all(u8::is_ascii_hexdigit));
                let byte = hex.and_then(|h| u8::from_str_radix(std::str::from_utf8(h).ok()?, 16).ok());
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
    use proptest::prelude::*;

    /// `text` percent-encoded, every byte of it, as a browser may.
    fn encode(text: &str) -> String {
        text.bytes().map(|b| format!("%{b:02X}")).collect()
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

        /// Any query string gives parameters or an error, never a panic.
        #[test]
        fn any_query_string_is_read_or_refused(query in "\\PC{0,80}|[a-z=&%+0-9A-F]{0,40}") {
            let _ = parse_query(&query);
        }

        /// Parameters encoded and read back are themselves.
        #[test]
        fn encoded_parameters_read_back(name in "[a-z]{1,8}", value in "\\PC{0,40}") {
            let params = parse_query(&format!("{}={}", encode(&name), encode(&value))).unwrap();
            prop_assert_eq!(params.get(&name), Some(&value));
        }
    }

    #[test]
    fn queries_decode() {
        let params = parse_query("game=morris&position=W%3Aa1%2Cd1+B%3A+w+2+3&line=1").unwrap();
        assert_eq!(params["position"], "W:a1,d1 B: w 2 3");
        assert_eq!(params["line"], "1");
        assert!(parse_query("position=%zz").is_err());
        assert!(parse_query("position=%+1").is_err());
        assert!(parse_query("position=%-1").is_err());
        assert!(parse_query("position=%1").is_err());
        assert!(parse_query("position=%e2%82").is_err());
        assert_eq!(decode("%41%42c").unwrap(), "ABc");
    }
}
