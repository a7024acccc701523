//! The program against truth from outside the crate: every file that
//! tables/reference/outside-truth.tsv lists, produced by programs that share no code with the
//! crate (Pascal Pons's Connect Four test sets, the negamax and retrograde solvers under
//! scripts/, the independent placement census, published results; tables/reference/SOURCES.md
//! says how each was made), read row by row and asked of the binary (`probe --brief` in one
//! batch per file, `info --json` for counts). Every game of the registry must have such a
//! file; any difference fails, with every differing row listed.

use crate::common;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Output;

const BINARY: &str = env!("CARGO_BIN_EXE_tablebase");

/// The reference folder, and in it the list of checks.
const REFERENCE: &str = "tables/reference";
const MANIFEST: &str = "outside-truth.tsv";

fn tablebase(args: &[&str], stdin: &str) -> Output {
    common::tablebase_with_input(BINARY, args, stdin)
}

/// How a file's rows are written and what they are compared with.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Format {
    /// `position<TAB>value<TAB>plies`, as `probe --brief` answers.
    Value,
    /// Pons's `moves score`: the score from the side to move, `22 - k` for a win on the
    /// winner's own stone `k` (negative for a loss, 0 a draw).
    Pons,
    /// `game stones ply positions`: reachable placement positions per ply, against `info`.
    PlacementCensus,
    /// `ply positions`: reachable positions per ply, against `info`.
    PlyCensus,
}

/// Where the tables the answers come from are.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Tables {
    /// Generated for this test with the check's flags.
    Generate,
    /// None: the program searches.
    None,
    /// Those checked in under tables/.
    CheckedIn,
}

/// One row of the manifest.
#[derive(Debug)]
struct Check {
    file: String,
    format: Format,
    game: String,
    flags: Vec<String>,
    tables: Tables,
    rows: Option<usize>,
}

impl Check {
    fn parse(line: &str) -> Check {
        let fields: Vec<&str> = line.split('\t').collect();
        let [file, format, game, flags, tables, rows] = fields[..] else {
            panic!("{MANIFEST}: six fields expected: {line:?}");
        };
        let format = match format {
            "value" => Format::Value,
            "pons" => Format::Pons,
            "placement-census" => Format::PlacementCensus,
            "ply-census" => Format::PlyCensus,
            other => panic!("{MANIFEST}: unknown format {other:?}"),
        };
        let tables = match tables {
            "generate" => Tables::Generate,
            "none" => Tables::None,
            "checked-in" => Tables::CheckedIn,
            other => panic!("{MANIFEST}: unknown tables {other:?}"),
        };
        Check {
            file: file.to_string(),
            format,
            game: game.to_string(),
            flags: if flags == "-" { Vec::new() } else { flags.split(' ').map(str::to_string).collect() },
            tables,
            rows: if rows == "all" { None } else { Some(rows.parse().expect("a number of rows")) },
        }
    }

    fn describe(&self) -> String {
        let flags: String = self.flags.iter().map(|f| format!(" {f}")).collect();
        format!("{} ({}{flags})", self.file, self.game)
    }

    /// The rows of its file that it checks, comment lines and the header left out.
    fn rows(&self) -> Vec<Vec<String>> {
        let path = Path::new(REFERENCE).join(&self.file);
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let separator = if self.format == Format::Pons { ' ' } else { '\t' };
        let rows: Vec<Vec<String>> = text
            .lines()
            .filter(|l| !l.starts_with('#'))
            .map(|l| l.split(separator).map(str::to_string).collect::<Vec<_>>())
            // A census's header names its columns.
            .filter(|fields| fields.last().is_none_or(|f| f != "positions"))
            .collect();
        let rows = match self.rows {
            Some(n) => {
                assert!(rows.len() >= n, "{}: {} rows, {n} asked for", self.describe(), rows.len());
                rows[..n].to_vec()
            }
            None => rows,
        };
        assert!(!rows.is_empty(), "{}: no rows", self.describe());
        rows
    }

    /// The value of `--stones` among its flags.
    fn stones(&self) -> &str {
        let at = self.flags.iter().position(|f| f == "--stones").expect("--stones among the flags");
        &self.flags[at + 1]
    }
}

/// The directories of tables, generated once per game and flags.
struct Directories {
    generated: HashMap<(String, Vec<String>), PathBuf>,
    empty: common::Scratch,
}

impl Directories {
    fn for_check(&mut self, check: &Check) -> PathBuf {
        match check.tables {
            Tables::None => self.empty.to_path_buf(),
            Tables::CheckedIn => PathBuf::from("tables"),
            Tables::Generate => {
                let key = (check.game.clone(), check.flags.clone());
                self.generated
                    .entry(key)
                    .or_insert_with(|| {
                        let dir = common::shared_scratch(&format!("truth-{}", check.game));
                        let d = dir.to_str().unwrap();
                        let mut args = vec!["generate", check.game.as_str(), "--dir", d];
                        args.extend(check.flags.iter().map(String::as_str));
                        let out = tablebase(&args, "");
                        assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
                        dir
                    })
                    .clone()
            }
        }
    }
}

/// Asks the binary every row of `check` and returns a line for each difference, and the number
/// of rows compared.
fn differences(check: &Check, dir: &Path) -> (Vec<String>, usize) {
    let rows = check.rows();
    let expected: Vec<(String, String)> = match check.format {
        Format::Value => rows
            .iter()
            .map(|r| {
                assert_eq!(r.len(), 3, "{}: {r:?}", check.describe());
                (r[0].clone(), format!("{}\t{}", r[1], r[2]))
            })
            .collect(),
        Format::Pons => rows
            .iter()
            .map(|r| {
                let score: i32 = r[1].parse().expect("a score");
                (r[0].clone(), common::pons_answer(r[0].len(), score))
            })
            .collect(),
        Format::PlacementCensus | Format::PlyCensus => return census_differences(check, &rows, dir),
    };
    let d = dir.to_str().unwrap();
    let mut args = vec!["probe", check.game.as_str(), "--dir", d, "--brief"];
    args.extend(check.flags.iter().map(String::as_str));
    args.push("-");
    let input: String = expected.iter().map(|(position, _)| format!("{position}\n")).collect();
    let out = tablebase(&args, &input);
    let stdout = String::from_utf8(out.stdout).unwrap();
    let answers: Vec<&str> = stdout.lines().collect();
    let mut found = Vec::new();
    if !out.status.success() || answers.len() != expected.len() {
        found.push(format!(
            "{}: {:?} answered {} lines of {} ({}): {}",
            check.describe(),
            args,
            answers.len(),
            expected.len(),
            out.status,
            String::from_utf8_lossy(&out.stderr).lines().next().unwrap_or("")
        ));
    }
    for ((position, truth), answer) in expected.iter().zip(&answers) {
        if answer != truth {
            found.push(format!("{}: {position:?}: {answer:?}, outside truth {truth:?}", check.describe()));
        }
    }
    (found, expected.len())
}

/// A census's counts per ply against `info --json` of the generated tables.
fn census_differences(check: &Check, rows: &[Vec<String>], dir: &Path) -> (Vec<String>, usize) {
    let expected: Vec<(String, u64)> = match check.format {
        Format::PlacementCensus => rows
            .iter()
            .filter(|r| r[0] == check.game && r[1] == check.stones())
            .map(|r| (format!("placement ply {}", r[2]), r[3].parse().unwrap()))
            .collect(),
        _ => rows.iter().map(|r| (format!("ply {}", r[0]), r[1].parse().unwrap())).collect(),
    };
    let mut args = vec!["info", check.game.as_str(), "--dir", dir.to_str().unwrap(), "--json"];
    args.extend(check.flags.iter().map(String::as_str));
    let out = tablebase(&args, "");
    assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    let tables: HashMap<String, serde_json::Value> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .map(|v| (v["table"].as_str().unwrap().to_string(), v))
        .collect();
    let mut found = Vec::new();
    for (table, positions) in &expected {
        let answer = tables.get(table).map(|v| (v["status"].as_str(), v["positions"].as_u64()));
        if answer != Some((Some("complete"), Some(*positions))) {
            found.push(format!("{}: {table}: {answer:?}, outside truth {positions}", check.describe()));
        }
    }
    assert!(!expected.is_empty(), "{}: no counts for these flags", check.describe());
    (found, expected.len())
}

/// Every game of the registry against every file of outside truth listed for it.
#[test]
fn every_game_agrees_with_outside_truth() {
    let manifest = std::fs::read_to_string(Path::new(REFERENCE).join(MANIFEST)).unwrap();
    let mut lines = manifest.lines().filter(|l| !l.starts_with('#'));
    assert_eq!(lines.next(), Some("file\tformat\tgame\tflags\ttables\trows"));
    let checks: Vec<Check> = lines.map(Check::parse).collect();
    for game in tablebase::games::GAMES {
        assert!(
            checks.iter().any(|c| c.game == game.key && matches!(c.format, Format::Value | Format::Pons)),
            "{}: no positions of outside truth in {MANIFEST}",
            game.key
        );
    }
    let mut directories = Directories { generated: HashMap::new(), empty: common::scratch("truth-search") };
    let mut found = Vec::new();
    let mut report = Vec::new();
    for check in &checks {
        let dir = directories.for_check(check);
        let (differences, compared) = differences(check, &dir);
        report.push(format!("{}: {compared} rows, {} differences", check.describe(), differences.len()));
        found.extend(differences);
    }
    println!("{}", report.join("\n"));
    assert!(found.is_empty(), "{} differences from outside truth:\n{}", found.len(), found.join("\n"));
}
