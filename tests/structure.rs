//! The library's module structure: modules import only downward, in the order of [`LAYERS`], and
//! no files import each other in a cycle. Cargo keeps the library from importing the crates above
//! it (the command line, the charts); this test keeps the order of the modules within it, which
//! Cargo cannot see. It reads every `.rs` file under `crates/tablebase/src/`, collects the
//! paths it names through `crate::` and `super::` in `use` declarations and in code, and
//! resolves each to the file that defines it.
//!
//! What counts and what does not:
//! - A path counts where it starts with `crate::` or `super::`. A parent's `mod.rs` naming its
//!   children by relative paths (`pub use chain::Chain;`) does not: that is how a module shows
//!   its parts.
//! - A path resolves to the longest prefix of it that is a file of the crate, seen through the
//!   `use` declarations on the way: `crate::Value` (re-exported at the crate root from `value`)
//!   is `src/value.rs`, and `super::open_to_read` in `table/header.rs` is the file of `table/`
//!   that defines it, not `table/mod.rs` which only re-exports it.
//! - `#[cfg(test)]` items (the `mod tests` of a file) are left out, comments and string literals
//!   too.
//! - `src/lib.rs` only re-exports and has no layer.

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::path::Path;

/// The layers, lowest first: a module imports only from its own rank or below, and modules of
/// the same rank only without a cycle. Every top-level module of the library must be here.
const LAYERS: &[(&str, u32)] = &[
    // Leaves: the value type, reporting, the machine, randomness, published figures.
    ("value", 0),
    ("progress", 0),
    ("resources", 0),
    ("rng", 0),
    ("prefetch", 0),
    ("combinations", 0),
    ("reference", 0),
    ("text", 0),
    ("signals", 0),
    // The file format.
    ("table", 1),
    // The solvers: retrograde, and by search (the line games' engine).
    ("solve", 2),
    ("search", 2),
    // The catalogue trait and the drivers (generate, verify, info).
    ("catalogue", 3),
    // The layered pipeline.
    ("layered", 4),
    // The engines every game shares.
    ("probe", 5),
    ("play", 5),
    ("picture", 5),
    // What a game gives the registry (it names the engines' traits).
    ("game", 5),
    // The games: `games/<game>/`.
    ("games", GAME_RANK),
    // `games/mod.rs`: every game by name.
    ("registry", 7),
    // What the tests and `bench` reach beyond the API: re-exports from every layer.
    ("testing", 7),
];

/// The library's package, whose `src/` the test reads: the command line and the charts are
/// crates of their own, which Cargo keeps from being imported by it.
const LIBRARY: &str = "crates/tablebase";

/// The rank of the games, which must not import each other.
const GAME_RANK: u32 = 6;

/// The folder whose children are the games, each its own unit.
const GAMES_FOLDER: &str = "games";

#[test]
fn every_top_level_module_has_a_rank() {
    assert_none("modules missing from LAYERS in tests/structure.rs", Crate::read().unranked());
}

/// docs/ARCHITECTURE.md's list of layers (the first block under "Module map") is [`LAYERS`]:
/// the same modules, ranked alike. `games/<game>/` stands for the games and `games/mod.rs` for
/// the registry.
#[test]
fn architecture_lists_the_layers_of_the_code() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/ARCHITECTURE.md");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let section = &text[text.find("## Module map").expect("a Module map section")..];
    let block = section.split("```").nth(1).expect("a block of layers");
    let documented: Vec<Vec<String>> = block
        .lines()
        .filter(|line| !line.trim().is_empty())
        .map(|line| {
            let names = line.trim().trim_start_matches('<').trim();
            let names = names.split("  ").next().unwrap_or_default();
            let mut layer: Vec<String> = names
                .split(", ")
                .map(|name| match name.trim() {
                    "games/<game>/" => GAMES_FOLDER.to_string(),
                    "games/mod.rs" => "registry".to_string(),
                    name => name.to_string(),
                })
                .collect();
            layer.sort();
            layer
        })
        .collect();
    let mut ranks: BTreeMap<u32, Vec<String>> = BTreeMap::new();
    for &(name, rank) in LAYERS {
        ranks.entry(rank).or_default().push(name.to_string());
    }
    let code: Vec<Vec<String>> = ranks
        .into_values()
        .map(|mut layer| {
            layer.sort();
            layer
        })
        .collect();
    assert_eq!(documented, code, "docs/ARCHITECTURE.md's layers, lowest first, against LAYERS");
}

/// The library's public modules, the API with the crate root's re-exports. The others are
/// private, or (`internal_mod!`) public only with the unstable feature `internals`, for the
/// command line, the benchmarks and the tests.
const PUBLIC_MODULES: &[&str] =
    &["catalogue", "game", "games", "layered", "picture", "play", "probe", "signals"];

#[test]
fn only_the_modules_of_the_api_are_public() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(LIBRARY).join("src/lib.rs");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    // `testing` is compiled only with `internals`: its `pub mod` follows that `cfg`.
    let lines: Vec<&str> = text.lines().collect();
    let public: Vec<&str> = (0..lines.len())
        .filter(|&i| !lines[i.saturating_sub(2)..i].contains(&"#[cfg(feature = \"internals\")]"))
        .filter_map(|i| lines[i].strip_prefix("pub mod "))
        .map(|rest| rest.trim_end_matches(';'))
        .collect();
    assert_eq!(public, PUBLIC_MODULES, "the `pub mod` lines of {}", path.display());
    let internal: Vec<&str> = text
        .lines()
        .filter_map(|line| line.strip_prefix("internal_mod!("))
        .flat_map(|rest| rest.trim_end_matches(");").split(", "))
        .collect();
    for name in internal {
        assert!(
            LAYERS.iter().any(|&(layer, _)| layer == name) && !PUBLIC_MODULES.contains(&name),
            "internal module {name} is a layer and not public"
        );
    }
}

#[test]
fn modules_import_only_downward() {
    assert_none("upward imports (see LAYERS in tests/structure.rs)", Crate::read().upward_imports());
}

#[test]
fn games_do_not_import_each_other() {
    assert_none("imports between games", Crate::read().imports_between_games());
}

#[test]
fn no_files_import_each_other_in_a_cycle() {
    assert_none("cycles among files", Crate::read().cycles());
}

/// Fails with every problem, one a line (a cycle on several).
fn assert_none(what: &str, problems: Vec<String>) {
    assert!(problems.is_empty(), "{what} ({}):\n{}\n", problems.len(), problems.join("\n"));
}

/// A module of the library: its path from the crate root (`["table", "header"]`).
type ModulePath = Vec<String>;

/// A path one file names, as written and as resolved against the file's module.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Import {
    /// 1-based line of the path's first token.
    line: usize,
    /// The path as written, groups expanded (`crate::table::Header`).
    text: String,
    /// The absolute path it names.
    target: ModulePath,
    /// Whether it counts as an import: `crate::` or `super::`.
    /// A relative `use child::X` does not count but still names an item for resolution.
    counts: bool,
    /// The name it brings into scope, for a `use` that is not a glob.
    binds: Option<String>,
    /// Whether it is a `use` declaration at the top level of the file (a name the module has).
    top_level_use: bool,
}

struct File {
    /// Relative to the package root: `src/table/header.rs`.
    path: String,
    module: Vec<String>,
    imports: Vec<Import>,
}

impl File {
    /// The name of the layer the file belongs to; `None` for the library's root. The games'
    /// folder's own `mod.rs` is the registry, above the games it names.
    fn layer(&self) -> Option<&str> {
        match self.module == [GAMES_FOLDER] {
            true => Some("registry"),
            false => self.module.first().map(String::as_str),
        }
    }

    /// The game a file of the game rank belongs to: its top module, or under `games/` the
    /// game's folder (`games` itself for `games/mod.rs`).
    fn unit(&self) -> Vec<String> {
        let take = if self.module.first().is_some_and(|m| m == GAMES_FOLDER) { 2 } else { 1 };
        self.module.iter().take(take).cloned().collect()
    }
}

struct Edge {
    from: usize,
    to: usize,
    line: usize,
    text: String,
}

struct Crate {
    files: Vec<File>,
    by_module: BTreeMap<ModulePath, usize>,
    /// Per module: the names its top-level `use` declarations bind, and what they name.
    names: BTreeMap<ModulePath, BTreeMap<String, ModulePath>>,
}

impl Crate {
    fn read() -> Crate {
        let root = &Path::new(env!("CARGO_MANIFEST_DIR")).join(LIBRARY);
        let mut sources = Vec::new();
        let mut folders = vec![root.join("src")];
        while let Some(folder) = folders.pop() {
            for entry in std::fs::read_dir(&folder).unwrap_or_else(|e| panic!("{}: {e}", folder.display())) {
                let path = entry.expect("a directory entry").path();
                if path.is_dir() {
                    folders.push(path);
                } else if path.extension().is_some_and(|e| e == "rs") {
                    let text =
                        std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
                    let relative = path.strip_prefix(root).expect("under the package").to_string_lossy();
                    sources.push((relative.replace('\\', "/"), text));
                }
            }
        }
        Crate::from_sources(&sources)
    }

    /// The crate of these files: (path from the package root, text).
    fn from_sources(sources: &[(String, String)]) -> Crate {
        let mut sources = sources.to_vec();
        sources.sort();
        let mut files = Vec::new();
        let mut by_module = BTreeMap::new();
        for (path, _) in &sources {
            let module = module_of(path);
            by_module.insert(module.clone(), files.len());
            files.push(File { path: path.clone(), module, imports: Vec::new() });
        }
        let is_module = |m: &ModulePath| by_module.contains_key(m);
        let mut names: BTreeMap<ModulePath, BTreeMap<String, ModulePath>> = BTreeMap::new();
        for (file, (_, text)) in files.iter_mut().zip(&sources) {
            file.imports = imports(&tokens(text), &file.module, &is_module);
            let scope = names.entry(file.module.clone()).or_default();
            for import in file.imports.iter().filter(|i| i.top_level_use) {
                if let Some(name) = &import.binds {
                    scope.insert(name.clone(), import.target.clone());
                }
            }
        }
        Crate { files, by_module, names }
    }

    /// The file that defines what `path` names: the longest prefix that is a file, following
    /// the names each module's `use` declarations bind.
    fn resolve(&self, path: &ModulePath) -> usize {
        self.resolve_within(path, 0)
    }

    fn resolve_within(&self, segments: &ModulePath, hops: usize) -> usize {
        let mut module = Vec::new();
        let mut file = self.by_module[&Vec::new()];
        for (at, segment) in segments.iter().enumerate() {
            let mut child = module.clone();
            child.push(segment.clone());
            if let Some(&found) = self.by_module.get(&child) {
                (module, file) = (child, found);
                continue;
            }
            let named = self.names.get(&module).and_then(|names| names.get(segment));
            if let Some(to) = named.filter(|_| hops < 16) {
                let mut through = to.clone();
                through.extend(segments[at + 1..].iter().cloned());
                return self.resolve_within(&through, hops + 1);
            }
            break;
        }
        file
    }

    /// Every counted import as an edge between two different files.
    fn edges(&self) -> Vec<Edge> {
        let mut edges = Vec::new();
        for (from, file) in self.files.iter().enumerate() {
            for import in file.imports.iter().filter(|i| i.counts) {
                let to = self.resolve(&import.target);
                if to != from {
                    edges.push(Edge { from, to, line: import.line, text: import.text.clone() });
                }
            }
        }
        edges
    }

    fn rank(&self, file: usize) -> Option<u32> {
        let layer = self.files[file].layer()?;
        LAYERS.iter().find(|(name, _)| *name == layer).map(|&(_, rank)| rank)
    }

    fn unranked(&self) -> Vec<String> {
        let mut missing = BTreeMap::<&str, &str>::new();
        for (at, file) in self.files.iter().enumerate() {
            if let (Some(layer), None) = (file.layer(), self.rank(at)) {
                missing.entry(layer).or_insert(&file.path);
            }
        }
        missing
            .into_iter()
            .map(|(layer, path)| format!("{path}: top-level module `{layer}` has no rank: add it to LAYERS"))
            .collect()
    }

    fn describe(&self, edge: &Edge) -> String {
        format!("{}:{} `{}`", self.files[edge.from].path, edge.line, edge.text)
    }

    fn upward_imports(&self) -> Vec<String> {
        let mut problems = Vec::new();
        for edge in self.edges() {
            let (Some(from), Some(to)) = (self.rank(edge.from), self.rank(edge.to)) else { continue };
            if to > from {
                problems.push(format!(
                    "{} imports {} (`{}`, rank {to}) from `{}` (rank {from})",
                    self.describe(&edge),
                    self.files[edge.to].path,
                    self.files[edge.to].layer().unwrap_or_default(),
                    self.files[edge.from].layer().unwrap_or_default(),
                ));
            }
        }
        problems
    }

    fn imports_between_games(&self) -> Vec<String> {
        let mut problems = Vec::new();
        for edge in self.edges() {
            if self.rank(edge.from) != Some(GAME_RANK) || self.rank(edge.to) != Some(GAME_RANK) {
                continue;
            }
            let (from, to) = (self.files[edge.from].unit(), self.files[edge.to].unit());
            if from != to && to != [GAMES_FOLDER] {
                problems.push(format!(
                    "{} imports {} of game `{}` from game `{}`",
                    self.describe(&edge),
                    self.files[edge.to].path,
                    to.join("::"),
                    from.join("::"),
                ));
            }
        }
        problems
    }

    /// One entry per cycle: the chain of files, then a line per import on it. Every import
    /// between two files of a strongly connected set of files is on some cycle reported (the
    /// shortest through it), so the list shows every import that holds a cycle together.
    fn cycles(&self) -> Vec<String> {
        let edges = self.edges();
        // The first import from a file to another, and how many more there are.
        let mut first = BTreeMap::<(usize, usize), (&Edge, usize)>::new();
        for edge in &edges {
            first.entry((edge.from, edge.to)).and_modify(|(_, more)| *more += 1).or_insert((edge, 0));
        }
        let mut next = vec![BTreeSet::new(); self.files.len()];
        for &(from, to) in first.keys() {
            next[from].insert(to);
        }
        let component = strongly_connected(&next);
        let mut seen = BTreeSet::new();
        let mut problems = Vec::new();
        for &(from, to) in first.keys() {
            if component[from] != component[to] {
                continue;
            }
            // The shortest way back from `to` to `from`, within the component.
            let Some(back) = shortest_path(&next, to, from, |n| component[n] == component[from]) else {
                continue;
            };
            let mut cycle = vec![from];
            cycle.extend(back);
            cycle.pop();
            let start = (0..cycle.len()).min_by_key(|&i| cycle[i]).expect("a cycle");
            cycle.rotate_left(start);
            if !seen.insert(cycle.clone()) {
                continue;
            }
            let mut chain: Vec<&str> = cycle.iter().map(|&f| self.files[f].path.as_str()).collect();
            chain.push(&self.files[cycle[0]].path);
            let mut lines = vec![format!("cycle: {}", chain.join(" -> "))];
            for (i, &a) in cycle.iter().enumerate() {
                let b = cycle[(i + 1) % cycle.len()];
                let (edge, more) = first[&(a, b)];
                let more = if more > 0 { format!(" (and {more} more)") } else { String::new() };
                lines.push(format!("    {}{more}", self.describe(edge)));
            }
            problems.push(lines.join("\n"));
        }
        problems
    }
}

/// The crate and module of a file under `src/`.
fn module_of(path: &str) -> Vec<String> {
    let inner = path.strip_prefix("src/").unwrap_or_else(|| panic!("{path}: not under src/"));
    let inner = inner.strip_suffix(".rs").unwrap_or_else(|| panic!("{path}: not a .rs file"));
    let mut segments: Vec<String> = inner.split('/').map(str::to_string).collect();
    if segments.last().is_some_and(|s| s == "mod") {
        segments.pop();
    }
    match segments.first().map(String::as_str) {
        Some("lib") if segments.len() == 1 => Vec::new(),
        Some("bin") => panic!("{path}: a binary under src/bin/ is not known to tests/structure.rs"),
        _ => segments,
    }
}

/// A token of Rust source: an identifier or keyword, `::`, or one punctuation character.
/// Comments, string and character literals give no token.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Token {
    text: String,
    line: usize,
}

fn tokens(source: &str) -> Vec<Token> {
    let chars: Vec<char> = source.chars().collect();
    let at = |i: usize| chars.get(i).copied().unwrap_or('\0');
    let mut out = Vec::new();
    let mut line = 1;
    let mut i = 0;
    // Skips a quoted literal whose opening quote is at `i`, with escapes; returns past its end.
    let skip_quoted = |mut i: usize, quote: char, line: &mut usize| {
        i += 1;
        while i < chars.len() && chars[i] != quote {
            if chars[i] == '\n' {
                *line += 1;
            }
            i += if chars[i] == '\\' { 2 } else { 1 };
        }
        i + 1
    };
    // Skips a raw string whose `r` is at `i` (`r"…"`, `r#"…"#`); returns past its end.
    let skip_raw = |mut i: usize, line: &mut usize| {
        i += 1;
        let mut hashes = 0;
        while at(i) == '#' {
            hashes += 1;
            i += 1;
        }
        i += 1;
        while i < chars.len() {
            if chars[i] == '"' && (1..=hashes).all(|h| at(i + h) == '#') {
                return i + 1 + hashes;
            }
            if chars[i] == '\n' {
                *line += 1;
            }
            i += 1;
        }
        i
    };
    while i < chars.len() {
        let c = chars[i];
        if c == '\n' {
            line += 1;
            i += 1;
        } else if c.is_whitespace() {
            i += 1;
        } else if c == '/' && at(i + 1) == '/' {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && at(i + 1) == '*' {
            let mut depth = 0;
            while i < chars.len() {
                if chars[i] == '/' && at(i + 1) == '*' {
                    depth += 1;
                    i += 2;
                } else if chars[i] == '*' && at(i + 1) == '/' {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    if chars[i] == '\n' {
                        line += 1;
                    }
                    i += 1;
                }
            }
        } else if c == '"' {
            i = skip_quoted(i, '"', &mut line);
        } else if c == '\'' {
            if at(i + 1) == '\\' || at(i + 2) == '\'' {
                i = skip_quoted(i, '\'', &mut line);
            } else {
                i += 1; // A lifetime or label: its name follows as an identifier.
            }
        } else if c.is_alphanumeric() || c == '_' {
            let start = i;
            while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            let word: String = chars[start..i].iter().collect();
            let prefix = matches!(word.as_str(), "b" | "c" | "r" | "br" | "cr");
            if prefix && word.ends_with('r') && matches!(at(i), '"' | '#') && at(i + 1) != '[' {
                if at(i) == '#' && (at(i + 1).is_alphabetic() || at(i + 1) == '_') {
                    // A raw identifier, `r#type`.
                    let start = i + 1;
                    i = start;
                    while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                        i += 1;
                    }
                    out.push(Token { text: chars[start..i].iter().collect(), line });
                } else {
                    i = skip_raw(i - 1, &mut line);
                }
            } else if prefix && at(i) == '"' {
                i = skip_quoted(i, '"', &mut line);
            } else if word == "b" && at(i) == '\'' {
                i = skip_quoted(i, '\'', &mut line);
            } else {
                out.push(Token { text: word, line });
            }
        } else if c == ':' && at(i + 1) == ':' {
            out.push(Token { text: "::".into(), line });
            i += 2;
        } else {
            out.push(Token { text: c.to_string(), line });
            i += 1;
        }
    }
    out
}

fn is_identifier(text: &str) -> bool {
    text.chars().next().is_some_and(|c| c.is_alphabetic() || c == '_')
}

/// Whether `tokens[i..]` starts with these token texts.
fn starts_with(tokens: &[Token], i: usize, texts: &[&str]) -> bool {
    texts.iter().enumerate().all(|(k, text)| tokens.get(i + k).is_some_and(|t| t.text == *text))
}

/// The index past the group that opens at `i` (`(`, `[` or `{`) and its match.
fn past_group(tokens: &[Token], mut i: usize) -> usize {
    let mut depth = 0usize;
    while i < tokens.len() {
        match tokens[i].text.as_str() {
            "(" | "[" | "{" => depth += 1,
            ")" | "]" | "}" => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return i + 1;
                }
            }
            _ => {}
        }
        i += 1;
    }
    i
}

/// The index past the item that starts at `i`: its `;` or its closing brace, at its own depth.
fn past_item(tokens: &[Token], mut i: usize) -> usize {
    while i < tokens.len() {
        match tokens[i].text.as_str() {
            ";" => return i + 1,
            "{" => return past_group(tokens, i),
            "(" | "[" => i = past_group(tokens, i),
            _ => i += 1,
        }
    }
    i
}

/// A leaf of a `use` tree: its whole path and the name it binds (`None` for a glob).
type Leaf = (Vec<String>, Option<String>);

/// A `use` tree expanded into its leaves.
fn use_tree(tokens: &[Token], i: &mut usize, prefix: Vec<String>, out: &mut Vec<Leaf>) {
    let mut path = prefix;
    while let Some(token) = tokens.get(*i) {
        match token.text.as_str() {
            "::" => *i += 1,
            "{" => {
                *i += 1;
                while tokens.get(*i).is_some_and(|t| t.text != "}") {
                    use_tree(tokens, i, path.clone(), out);
                    if tokens.get(*i).is_some_and(|t| t.text == ",") {
                        *i += 1;
                    }
                }
                *i += 1;
                return;
            }
            "*" => {
                *i += 1;
                out.push((path, None));
                return;
            }
            word if is_identifier(word) => {
                path.push(word.to_string());
                *i += 1;
                if tokens.get(*i).is_some_and(|t| t.text == "::") {
                    continue;
                }
                let mut name = word.to_string();
                if path.len() > 1 && name == "self" {
                    path.pop();
                    name = path.last().expect("a module before self").clone();
                }
                if tokens.get(*i).is_some_and(|t| t.text == "as") {
                    name = tokens.get(*i + 1).map_or(name, |t| t.text.clone());
                    *i += 2;
                }
                out.push((path, Some(name)));
                return;
            }
            _ => return,
        }
    }
}

/// The paths a file names, with `module` its own, and `is_module` telling which
/// modules are files (for relative paths that name a child).
fn imports(tokens: &[Token], module: &[String], is_module: &dyn Fn(&ModulePath) -> bool) -> Vec<Import> {
    let mut out = Vec::new();
    // Inline modules the scan is in: name, and the brace depth outside them.
    let mut inline: Vec<(String, usize)> = Vec::new();
    let mut depth = 0usize;
    let mut i = 0;
    // What a path names, absolutely, and whether it counts; `None` for another crate's.
    let absolute = |segments: &[String], inline: &[(String, usize)], in_use: bool| {
        let mut here: Vec<String> = module.to_vec();
        here.extend(inline.iter().map(|(name, _)| name.clone()));
        let head = segments.first().map(String::as_str);
        match head {
            Some("crate") => Some((segments[1..].to_vec(), true)),
            Some("super") => {
                let ups = segments.iter().take_while(|s| *s == "super").count();
                let mut target = here[..here.len().saturating_sub(ups)].to_vec();
                target.extend(segments[ups..].iter().cloned());
                Some((target, true))
            }
            Some("self") => {
                here.extend(segments[1..].iter().cloned());
                Some((here, false))
            }
            Some(first) if in_use => {
                let mut child = here.clone();
                child.push(first.to_string());
                is_module(&child).then(|| {
                    here.extend(segments.iter().cloned());
                    (here, false)
                })
            }
            _ => None,
        }
    };
    while i < tokens.len() {
        let text = tokens[i].text.as_str();
        if starts_with(tokens, i, &["#", "!", "[", "cfg", "(", "test", ")", "]"])
            && depth == 0
            && inline.is_empty()
        {
            return Vec::new();
        }
        if starts_with(tokens, i, &["#", "[", "cfg", "(", "test", ")", "]"]) {
            i += 7;
            while starts_with(tokens, i, &["#", "["]) {
                i = past_group(tokens, i + 1);
            }
            i = past_item(tokens, i);
            continue;
        }
        match text {
            "{" | "(" | "[" => depth += 1,
            "}" | ")" | "]" => {
                depth = depth.saturating_sub(1);
                if inline.last().is_some_and(|(_, outside)| *outside == depth) {
                    inline.pop();
                }
            }
            "mod" if tokens.get(i + 2).is_some_and(|t| t.text == "{") => {
                inline.push((tokens[i + 1].text.clone(), depth));
                depth += 1;
                i += 3;
                continue;
            }
            "use" if tokens.get(i + 1).is_some_and(|t| t.text != "<") => {
                let line = tokens[i].line;
                i += 1;
                let mut leaves = Vec::new();
                use_tree(tokens, &mut i, Vec::new(), &mut leaves);
                for (path, binds) in leaves {
                    if let Some((target, counts)) = absolute(&path, &inline, true) {
                        let text = path.join("::") + if binds.is_none() { "::*" } else { "" };
                        let top_level_use = inline.is_empty() && depth == 0;
                        out.push(Import { line, text, target, counts, binds, top_level_use });
                    }
                }
                continue;
            }
            "crate" | "super"
                if tokens.get(i + 1).is_some_and(|t| t.text == "::")
                    && !(i > 0 && matches!(tokens[i - 1].text.as_str(), "::" | "in")) =>
            {
                let line = tokens[i].line;
                let mut path = vec![text.to_string()];
                i += 1;
                while starts_with(tokens, i, &["::"])
                    && tokens.get(i + 1).is_some_and(|t| is_identifier(&t.text))
                {
                    path.push(tokens[i + 1].text.clone());
                    i += 2;
                }
                if let Some((target, counts)) = absolute(&path, &inline, false) {
                    out.push(Import {
                        line,
                        text: path.join("::"),
                        target,
                        counts,
                        binds: None,
                        top_level_use: false,
                    });
                }
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    out
}

/// The strongly connected component of every node (Tarjan's algorithm, iterative).
fn strongly_connected(next: &[BTreeSet<usize>]) -> Vec<usize> {
    const NONE: usize = usize::MAX;
    let n = next.len();
    let (mut index, mut low, mut component) = (vec![NONE; n], vec![0; n], vec![NONE; n]);
    let (mut on_stack, mut stack) = (vec![false; n], Vec::new());
    let (mut counter, mut components) = (0, 0);
    for root in 0..n {
        if index[root] != NONE {
            continue;
        }
        // Each node on the way down with the successors it has still to look at.
        let mut work: Vec<(usize, Vec<usize>)> = vec![(root, next[root].iter().rev().copied().collect())];
        index[root] = counter;
        low[root] = counter;
        counter += 1;
        stack.push(root);
        on_stack[root] = true;
        while let Some((node, pending)) = work.last_mut() {
            let node = *node;
            if let Some(to) = pending.pop() {
                if index[to] == NONE {
                    index[to] = counter;
                    low[to] = counter;
                    counter += 1;
                    stack.push(to);
                    on_stack[to] = true;
                    work.push((to, next[to].iter().rev().copied().collect()));
                } else if on_stack[to] {
                    low[node] = low[node].min(index[to]);
                }
                continue;
            }
            work.pop();
            if let Some((parent, _)) = work.last() {
                low[*parent] = low[*parent].min(low[node]);
            }
            if low[node] == index[node] {
                loop {
                    let member = stack.pop().expect("on the stack");
                    on_stack[member] = false;
                    component[member] = components;
                    if member == node {
                        break;
                    }
                }
                components += 1;
            }
        }
    }
    component
}

/// The nodes of a shortest path from `from` to `to` (both included) through nodes `allowed`.
fn shortest_path(
    next: &[BTreeSet<usize>],
    from: usize,
    to: usize,
    allowed: impl Fn(usize) -> bool,
) -> Option<Vec<usize>> {
    let mut came_from = vec![usize::MAX; next.len()];
    came_from[from] = from;
    let mut queue = VecDeque::from([from]);
    while let Some(node) = queue.pop_front() {
        if node == to {
            let mut path = vec![to];
            while *path.last().expect("a node") != from {
                path.push(came_from[*path.last().expect("a node")]);
            }
            path.reverse();
            return Some(path);
        }
        for &n in &next[node] {
            if came_from[n] == usize::MAX && allowed(n) {
                came_from[n] = node;
                queue.push_back(n);
            }
        }
    }
    None
}

/// The checker itself, on small crates written here.
mod checker {
    use super::*;

    fn texts(source: &str) -> Vec<String> {
        tokens(source).into_iter().map(|t| t.text).collect()
    }

    fn sources(files: &[(&str, &str)]) -> Vec<(String, String)> {
        files.iter().map(|(p, t)| (p.to_string(), t.to_string())).collect()
    }

    /// The counted imports of the file at `path`, each as the file it resolves to.
    fn resolved(krate: &Crate, path: &str) -> Vec<(String, String)> {
        let file = krate.files.iter().find(|f| f.path == path).expect("the file");
        file.imports
            .iter()
            .filter(|i| i.counts)
            .map(|i| (i.text.clone(), krate.files[krate.resolve(&i.target)].path.clone()))
            .collect()
    }

    fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
        list.iter().map(|(a, b)| (a.to_string(), b.to_string())).collect()
    }

    #[test]
    fn comments_strings_and_characters_give_no_tokens() {
        let source = r####"
            // use crate::a;
            /// use crate::b;
            //! use crate::c;
            /* use crate::d; /* nested */ use crate::e; */
            let s = "use crate::f; \" crate::g";
            let r = r#"crate::h "quoted" "#;
            let b = b"crate::i";
            let q = '"';
            let e = '\'';
            fn f<'a>(x: &'a str) -> &'a str { x }
            x
        "####;
        let words = texts(source);
        assert!(!words.contains(&"crate".to_string()), "{words:?}");
        assert_eq!(words.iter().filter(|w| *w == "a").count(), 3, "the lifetime's name: {words:?}");
        assert_eq!(words.last().map(String::as_str), Some("x"));
        assert_eq!(tokens(source).last().map(|t| t.line), Some(12), "lines are counted through it all");
    }

    #[test]
    fn grouped_and_nested_uses_expand_to_their_leaves() {
        let krate = Crate::from_sources(&sources(&[
            ("src/lib.rs", "pub mod a; pub mod d;"),
            ("src/a/mod.rs", "pub mod b; pub mod c;"),
            ("src/a/b.rs", ""),
            ("src/a/c.rs", ""),
            (
                "src/d.rs",
                "pub(crate) use crate::{a::{b::{self, X}, c::Y as Z}, d as _};\n\
                 pub use crate::a::c::*;",
            ),
        ]));
        assert_eq!(
            resolved(&krate, "src/d.rs"),
            pairs(&[
                ("crate::a::b", "src/a/b.rs"),
                ("crate::a::b::X", "src/a/b.rs"),
                ("crate::a::c::Y", "src/a/c.rs"),
                ("crate::d", "src/d.rs"),
                ("crate::a::c::*", "src/a/c.rs"),
            ])
        );
        let file = &krate.files[krate.by_module[&vec!["d".to_string()]]];
        let bound: Vec<_> = file.imports.iter().map(|i| i.binds.clone()).collect();
        let expected = [Some("b"), Some("X"), Some("Z"), Some("_"), None];
        assert_eq!(bound, expected.map(|b| b.map(str::to_string)));
        assert_eq!(file.imports[4].line, 2);
    }

    #[test]
    fn super_is_the_parent_of_the_files_module() {
        let krate = Crate::from_sources(&sources(&[
            ("src/lib.rs", "mod a; mod top;"),
            ("src/top.rs", ""),
            ("src/a/mod.rs", "mod b; use super::top::T;"),
            ("src/a/b/mod.rs", "mod c;"),
            ("src/a/b/c.rs", "use super::super::Thing;\nuse super::{Other, super::super::top};"),
        ]));
        assert_eq!(resolved(&krate, "src/a/mod.rs"), pairs(&[("super::top::T", "src/top.rs")]));
        assert_eq!(
            resolved(&krate, "src/a/b/c.rs"),
            pairs(&[
                ("super::super::Thing", "src/a/mod.rs"),
                ("super::Other", "src/a/b/mod.rs"),
                ("super::super::super::top", "src/top.rs"),
            ])
        );
    }

    #[test]
    fn paths_in_code_count_and_test_modules_do_not() {
        let krate = Crate::from_sources(&sources(&[
            ("src/lib.rs", "mod a; mod b; mod c;"),
            ("src/a.rs", ""),
            ("src/c.rs", ""),
            (
                "src/b.rs",
                "pub(crate) fn f() -> crate::a::Thing { crate::a::make::<u8>() }\n\
                 pub(in crate::a) fn g() {}\n\
                 fn h() -> impl Sized + use<> {}\n\
                 #[cfg(test)]\n\
                 #[allow(unused)]\n\
                 mod tests { use super::*; use crate::c::C; fn t() { crate::c::x(); } }\n\
                 #[cfg(test)]\n\
                 fn helper() -> crate::c::C { todo!() }\n\
                 mod inner { use super::super::c::D; }",
            ),
        ]));
        assert_eq!(
            resolved(&krate, "src/b.rs"),
            pairs(&[
                ("crate::a::Thing", "src/a.rs"),
                ("crate::a::make", "src/a.rs"),
                ("super::super::c::D", "src/c.rs"),
            ])
        );
    }

    #[test]
    fn names_resolve_through_reexports_to_the_defining_file() {
        let krate = Crate::from_sources(&sources(&[
            ("src/lib.rs", "mod t; mod v; pub use v::Value; pub use t::{Open as Opened};"),
            ("src/v.rs", ""),
            ("src/t/mod.rs", "mod open; mod user; pub(crate) use open::open; pub use self::open::Open;"),
            ("src/t/open.rs", ""),
            ("src/t/user.rs", "use super::open;\nuse crate::{Value, Opened};\nuse super::Defined;"),
        ]));
        assert_eq!(
            resolved(&krate, "src/t/user.rs"),
            pairs(&[
                ("super::open", "src/t/open.rs"),
                ("crate::Value", "src/v.rs"),
                ("crate::Opened", "src/t/open.rs"),
                ("super::Defined", "src/t/mod.rs"),
            ])
        );
        // The parent's relative re-exports are no imports of its own.
        assert_eq!(resolved(&krate, "src/t/mod.rs"), pairs(&[]));
        assert_eq!(resolved(&krate, "src/lib.rs"), pairs(&[]));
    }

    #[test]
    fn upward_imports_cycles_games_and_unranked_modules_are_reported() {
        let krate = Crate::from_sources(&sources(&[
            ("src/lib.rs", "mod table; mod solve; mod games; mod nowhere;"),
            ("src/table/mod.rs", "mod a; mod b; mod c;"),
            ("src/table/a.rs", "use super::b::B;"),
            ("src/table/b.rs", "use super::c::C;\nfn f() { super::a::g(); }"),
            ("src/table/c.rs", "use super::a::A;\nuse crate::solve::S;"),
            ("src/solve.rs", ""),
            ("src/games/mod.rs", "mod morris; mod connect4; mod tictactoe;"),
            ("src/games/morris/mod.rs", "use crate::games::connect4::Board;"),
            ("src/games/connect4/mod.rs", ""),
            ("src/games/tictactoe.rs", "use crate::games::morris::Rules;\nuse crate::games::GAMES;"),
            ("src/nowhere.rs", ""),
        ]));
        assert_eq!(
            krate.upward_imports(),
            [
                "src/games/tictactoe.rs:2 `crate::games::GAMES` imports src/games/mod.rs (`registry`, rank 7) \
                 from `games` (rank 6)",
                "src/table/c.rs:2 `crate::solve::S` imports src/solve.rs (`solve`, rank 2) from `table` (rank 1)",
            ]
        );
        assert_eq!(
            krate.cycles(),
            [
                "cycle: src/table/a.rs -> src/table/b.rs -> src/table/a.rs\n    \
                 src/table/a.rs:1 `super::b::B`\n    \
                 src/table/b.rs:2 `super::a::g`",
                "cycle: src/table/a.rs -> src/table/b.rs -> src/table/c.rs -> src/table/a.rs\n    \
                 src/table/a.rs:1 `super::b::B`\n    \
                 src/table/b.rs:1 `super::c::C`\n    \
                 src/table/c.rs:1 `super::a::A`",
            ]
        );
        assert_eq!(
            krate.imports_between_games(),
            [
                "src/games/morris/mod.rs:1 `crate::games::connect4::Board` imports src/games/connect4/mod.rs \
                 of game `games::connect4` from game `games::morris`",
                "src/games/tictactoe.rs:1 `crate::games::morris::Rules` imports src/games/morris/mod.rs \
                 of game `games::morris` from game `games::tictactoe`",
            ]
        );
        assert_eq!(
            krate.unranked(),
            ["src/nowhere.rs: top-level module `nowhere` has no rank: add it to LAYERS"]
        );
    }
}
