//! The documents say what the program does: every command of docs/CLI.md's synopsis exists with
//! exactly the flags its `--help` lists, every command of the program is in the synopsis,
//! every flag README shows is one the program takes, docs/BENCHMARKS.md opens with the
//! current figures, each with a command the program takes, docs/ARCHITECTURE.md lists the
//! workspace's crates as Cargo reads them, and the Sogo prover's knowledge is
//! named alike by the program, its help and docs/CLI.md.

use std::collections::BTreeSet;
use std::process::{Command, Output};

const BINARY: &str = env!("CARGO_BIN_EXE_tablebase");

fn tablebase(args: &[&str]) -> Output {
    Command::new(BINARY).args(args).output().expect("the binary runs")
}

fn document(name: &str) -> String {
    std::fs::read_to_string(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(name)).unwrap()
}

/// The lines of the first fenced block after `heading`.
fn first_block_after(text: &str, heading: &str) -> Vec<String> {
    let after = &text[text.find(heading).unwrap_or_else(|| panic!("no heading {heading:?}"))..];
    let lines = after.lines().skip_while(|l| !l.starts_with("```")).skip(1);
    lines.take_while(|l| !l.starts_with("```")).map(str::to_string).collect()
}

/// A synopsis line's command words (`probe connect4`) and its flags, comment left out.
fn command_and_flags(line: &str) -> (Vec<String>, BTreeSet<String>) {
    let line = line.split(" # ").next().unwrap();
    let words: Vec<&str> = line.split_whitespace().skip(1).collect();
    let command = words
        .iter()
        .take_while(|w| w.chars().next().is_some_and(|c| c.is_ascii_lowercase()))
        .map(|w| w.to_string())
        .collect();
    (command, flags_in(line))
}

fn flags_in(text: &str) -> BTreeSet<String> {
    let mut flags = BTreeSet::new();
    for (at, _) in text.match_indices("--") {
        let name: String =
            text[at + 2..].chars().take_while(|c| c.is_ascii_lowercase() || *c == '-').collect();
        if !name.is_empty() {
            flags.insert(format!("--{name}"));
        }
    }
    flags
}

/// The flags a command's `--help` lists as its options (not those its descriptions mention).
fn help_flags(command: &[String]) -> BTreeSet<String> {
    let mut args: Vec<&str> = command.iter().map(String::as_str).collect();
    args.push("--help");
    let out = tablebase(&args);
    assert!(out.status.success(), "{args:?}");
    let help = String::from_utf8(out.stdout).unwrap();
    let mut flags = BTreeSet::new();
    for line in help.lines() {
        let line = line.trim_start();
        let line = line.strip_prefix("-h, ").or_else(|| line.strip_prefix("-V, ")).unwrap_or(line);
        if line.starts_with("--") {
            flags.extend(flags_in(line.split_whitespace().next().unwrap()));
        }
    }
    flags.remove("--help");
    flags.remove("--version");
    flags
}

/// The subcommands a command's `--help` lists.
fn subcommands(command: &[String]) -> Vec<String> {
    let mut args: Vec<&str> = command.iter().map(String::as_str).collect();
    args.push("--help");
    let help = String::from_utf8(tablebase(&args).stdout).unwrap();
    let Some(list) = help.split("Commands:\n").nth(1) else { return Vec::new() };
    list.lines()
        .take_while(|l| l.starts_with("  "))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|name| *name != "help")
        .map(str::to_string)
        .collect()
}

#[test]
fn the_synopsis_of_docs_cli_is_the_program() {
    let synopsis = first_block_after(&document("docs/CLI.md"), "## Commands");
    let mut documented = Vec::new();
    for line in synopsis.iter().filter(|l| l.starts_with("tablebase ")) {
        let (command, flags) = command_and_flags(line);
        assert_eq!(help_flags(&command), flags, "docs/CLI.md: {line}");
        documented.push(command);
    }
    let mut programmed = Vec::new();
    for command in subcommands(&[]) {
        let games = subcommands(std::slice::from_ref(&command));
        // A command runs on its own when it has no games, or flags of its own (`info` over
        // every game in a directory).
        if games.is_empty() || !help_flags(std::slice::from_ref(&command)).is_empty() {
            programmed.push(vec![command.clone()]);
        }
        for game in games {
            programmed.push(vec![command.clone(), game]);
        }
    }
    documented.sort();
    programmed.sort();
    assert_eq!(documented, programmed, "the commands of docs/CLI.md's synopsis");
}

/// The flags of the command line `line` (`tablebase probe morris --stones 3 ...`) that its
/// command (and game, where it names one) does not take, with those it takes; `None` where its
/// first word is not one of `commands`.
fn flags_not_taken(line: &str, commands: &[String]) -> Option<(Vec<String>, BTreeSet<String>)> {
    let (words, flags) = command_and_flags(line);
    let first = words.first().filter(|w| commands.contains(w))?;
    let mut command = vec![first.clone()];
    if let Some(game) = words.get(1).filter(|g| subcommands(&command).contains(g)) {
        command.push(game.clone());
    }
    let taken = help_flags(&command);
    Some((flags.difference(&taken).cloned().collect(), taken))
}

#[test]
fn every_flag_readme_shows_is_taken_by_its_command() {
    let readme = document("README.md");
    let commands = subcommands(&[]);
    let mut seen = 0;
    let pieces = readme.lines().flat_map(|l| l.split("&&")).flat_map(|l| l.split(" | "));
    for line in pieces {
        let Some(at) = line.find("tablebase ") else { continue };
        let line = &line[at..];
        // Prose that names the program is not a command line.
        let Some((unknown, taken)) = flags_not_taken(line, &commands) else { continue };
        assert!(unknown.is_empty(), "README: {line}: {unknown:?} not among {taken:?}");
        seen += 1;
    }
    assert!(seen >= 10, "README shows commands ({seen} found)");
}

#[test]
fn a_missing_subcommand_is_one_line_and_exit_2() {
    for args in [&[][..], &["probe"], &["generate"], &["bench"]] {
        let out = tablebase(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let stderr = String::from_utf8(out.stderr).unwrap();
        assert_eq!(stderr.lines().count(), 1, "{args:?}: {stderr}");
        assert!(stderr.starts_with("tablebase: "), "{args:?}: {stderr}");
        assert!(out.stdout.is_empty());
    }
}

#[test]
fn the_project_cites_only_its_own_documents() {
    // Spelled in two halves, so that this test does not find itself.
    let outside = concat!("SP", "EC");
    let files = Command::new("git").args(["ls-files"]).current_dir(env!("CARGO_MANIFEST_DIR")).output();
    // Outside a git checkout (a packaged crate) there is no list of files to read.
    let Ok(files) = files else { return };
    let files = String::from_utf8(files.stdout).unwrap();
    let mut read = 0;
    for name in files.lines() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(name);
        let Ok(text) = std::fs::read_to_string(&path) else { continue };
        read += 1;
        for (n, line) in text.lines().enumerate() {
            assert!(
                !line.contains(outside),
                "{name}:{}: cites a document the project does not hold: {line}",
                n + 1
            );
        }
    }
    assert!(read > 50, "the project's files were read ({read})");
}

/// The rows of the games table of a document: name, key and the game's own flags.
fn games_table(text: &str) -> Vec<(String, String, Vec<String>)> {
    let header = "| Game | Key | Its own flags |";
    let at = text.find(header).unwrap_or_else(|| panic!("no table of games ({header})"));
    text[at..]
        .lines()
        .skip(2)
        .take_while(|l| l.starts_with('|'))
        .map(|row| {
            let cells: Vec<&str> = row.trim_matches('|').split('|').map(str::trim).collect();
            let flags = flags_in(cells[2]).into_iter().collect();
            (cells[0].to_string(), cells[1].trim_matches('`').to_string(), flags)
        })
        .collect()
}

#[test]
fn the_tables_of_games_are_the_registry() {
    let registry: Vec<(String, String, Vec<String>)> = tablebase::games::GAMES
        .iter()
        .map(|g| {
            let mut flags: Vec<String> = g.settings.iter().map(|s| format!("--{}", s.name)).collect();
            flags.sort();
            (g.name.to_string(), g.key.to_string(), flags)
        })
        .collect();
    for name in ["README.md", "docs/CLI.md"] {
        assert_eq!(games_table(&document(name)), registry, "{name}");
    }
    // And the command line offers exactly these games.
    let keys: Vec<String> = registry.iter().map(|(_, key, _)| key.clone()).collect();
    for command in ["generate", "probe", "verify", "info", "play"] {
        assert_eq!(subcommands(&[command.to_string()]), keys, "{command}");
    }
}

#[test]
fn each_game_subcommand_is_described_by_its_game() {
    for command in ["generate", "probe", "verify", "info", "play"] {
        let out = tablebase(&[command, "--help"]);
        let help = String::from_utf8(out.stdout).unwrap();
        for game in tablebase::games::GAMES {
            let line = help
                .lines()
                .find(|l| l.split_whitespace().next() == Some(game.key))
                .unwrap_or_else(|| panic!("`{command} --help` lists no {}", game.key));
            assert!(line.ends_with(&format!("{}.", game.name)), "`{command} --help`: {line}");
        }
    }
}

/// What README's commands leave in a clone (`probe --svg board.svg`, `info --plot charts/`, the
/// workflow's `.snakemake/` and `venv/`) is ignored by git, so `git status` stays clean.
#[test]
fn what_readme_leaves_in_a_clone_is_ignored() {
    let root = env!("CARGO_MANIFEST_DIR");
    let paths = ["board.svg", "charts/morris-outcomes.svg", ".snakemake/log/x.log", "venv/bin/python"];
    let out = Command::new("git").args(["-C", root, "check-ignore", "--no-index"]).args(paths).output();
    // A copy without git (a tarball) has nothing to keep clean.
    let Ok(out) = out else { return };
    if !std::path::Path::new(root).join(".git").exists() {
        return;
    }
    let ignored = String::from_utf8(out.stdout).unwrap();
    assert_eq!(ignored.lines().collect::<Vec<_>>(), paths, "not ignored: {ignored}");
}

/// docs/BENCHMARKS.md opens with one table of the current figures (measure, figure, command,
/// date), before its history: each row dated as a section of the history is, and each
/// `tablebase` command it shows one the program takes with the flags it gives.
#[test]
fn benchmarks_open_with_the_current_figures() {
    let text = document("docs/BENCHMARKS.md");
    let header = "| measure | figure | command | date |";
    let table = text.find(header).expect("a table of the current figures");
    let history = text.find("\n## History\n").expect("the history, under its heading");
    let first_section = text.find("\n## ").unwrap();
    assert!(first_section < table && table < history, "the table comes first, then the history");
    let rows: Vec<&str> = text[table..].lines().skip(2).take_while(|l| l.starts_with('|')).collect();
    assert!(rows.len() >= 20, "{} rows", rows.len());
    let commands = subcommands(&[]);
    let mut shown = 0;
    for row in rows {
        let cells: Vec<&str> = row.trim_matches('|').split('|').map(str::trim).collect();
        assert_eq!(cells.len(), 4, "{row}");
        assert!(cells.iter().all(|c| !c.is_empty()), "{row}");
        let date = cells[3];
        let well_formed = date.len() == 10
            && date.char_indices().all(|(i, c)| if i == 4 || i == 7 { c == '-' } else { c.is_ascii_digit() });
        assert!(well_formed, "{row}: a date YYYY-MM-DD");
        assert!(text[history..].contains(date), "{row}: no measurement of that date below");
        for line in cells[2].split('`').filter(|piece| piece.starts_with("tablebase ")) {
            let (unknown, taken) = flags_not_taken(line, &commands).unwrap_or_else(|| panic!("{line}"));
            assert!(unknown.is_empty(), "docs/BENCHMARKS.md: {line}: {unknown:?} not among {taken:?}");
            shown += 1;
        }
    }
    assert!(shown >= 20, "the table shows its commands ({shown} found)");
}

/// The prover's knowledge, as the program names it in its error for a wrong name, is what
/// `bench sogo-prove --help` lists, and exactly what docs/CLI.md names for `--knowledge`.
#[test]
fn every_piece_of_the_provers_knowledge_is_documented() {
    let wrong = tablebase(&["bench", "sogo-prove", "--knowledge", "claimodd", ""]);
    assert_eq!(wrong.status.code(), Some(2));
    let message = String::from_utf8(wrong.stderr).unwrap();
    let listed = message.rsplit_once('(').and_then(|(_, rest)| rest.split_once(')')).map(|(names, _)| names);
    let names: Vec<&str> =
        listed.unwrap_or_else(|| panic!("no list of names in {message:?}")).split(", ").collect();
    assert!(names.len() >= 8 && names.contains(&"claimeven"), "{names:?}");
    let help = String::from_utf8(tablebase(&["bench", "sogo-prove", "--help"]).stdout).unwrap();
    let help = help.split_whitespace().collect::<String>();
    assert!(help.contains(&names.join(",")), "`bench sogo-prove --help` lists {names:?}");
    let cli = document("docs/CLI.md");
    let paragraph = &cli[cli.find("`--knowledge` is").expect("docs/CLI.md describes --knowledge")..];
    let paragraph = &paragraph[..paragraph.find("`--table-mb`").unwrap()];
    let documented: Vec<&str> = paragraph.split('`').skip(1).step_by(2).collect();
    for name in &names {
        assert!(documented.contains(name), "docs/CLI.md's --knowledge leaves out {name}");
    }
    let extra: Vec<&&str> = documented
        .iter()
        .filter(|word| !names.contains(word) && !["--knowledge", "all", "none", "no-"].contains(word))
        .collect();
    assert!(extra.is_empty(), "docs/CLI.md's --knowledge names {extra:?}, which the prover does not know");
}

/// The library crate builds from its own folder, as `cargo package` ships it: every file it
/// compiles in (`include_str!`, `include_bytes!`) is named from its manifest's folder and is in
/// the package's list (its `reference/` is a link to `tables/reference`, whose files the
/// package carries).
#[test]
fn the_library_crate_compiles_in_only_files_it_packages() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = std::process::Command::new(env!("CARGO"))
        .args(["package", "--list", "-p", "tablebase", "--allow-dirty", "--offline"])
        .current_dir(root)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let packaged: BTreeSet<String> =
        String::from_utf8(out.stdout).unwrap().lines().map(str::to_string).collect();
    let mut sources = vec![root.join("crates/tablebase/src")];
    let mut included = Vec::new();
    while let Some(dir) = sources.pop() {
        for entry in std::fs::read_dir(&dir).unwrap().flatten() {
            let path = entry.path();
            if path.is_dir() {
                sources.push(path);
                continue;
            }
            let text = std::fs::read_to_string(&path).unwrap();
            for (at, _) in text.match_indices("include_str!(").chain(text.match_indices("include_bytes!(")) {
                let call = &text[at..at + text[at..].find(';').unwrap()];
                let named = call
                    .strip_prefix("include_str!(")
                    .or_else(|| call.strip_prefix("include_bytes!("))
                    .unwrap();
                let file = named
                    .strip_prefix(r#"concat!(env!("CARGO_MANIFEST_DIR"), "/"#)
                    .and_then(|rest| rest.split('"').next())
                    .unwrap_or_else(|| {
                        panic!("{}: {call} is not named from CARGO_MANIFEST_DIR", path.display())
                    });
                assert!(
                    packaged.contains(file),
                    "{}: {file} is not in the package: {packaged:?}",
                    path.display()
                );
                included.push(file.to_string());
            }
        }
    }
    assert!(included.len() >= 9, "{included:?}");
}

/// docs/ARCHITECTURE.md's table of crates is the workspace as Cargo reads it: every crate with
/// its folder, each depending only on crates listed below it, every dependency it names a
/// dependency it has, every crate of the workspace it depends on named, and the library's list
/// complete (what a program that builds on it pulls in).
#[test]
fn architecture_lists_the_crates_of_the_workspace() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = Command::new(env!("CARGO"))
        .args(["metadata", "--no-deps", "--format-version", "1", "--offline"])
        .current_dir(root)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let metadata: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    // Cargo's own spelling of the root (links resolved), which its manifest paths start with.
    let root = std::path::Path::new(metadata["workspace_root"].as_str().unwrap());
    // Each crate: its folder from the root ("" for the root's), and its normal dependencies.
    let workspace: Vec<(String, String, BTreeSet<String>)> = metadata["packages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|package| {
            let manifest = std::path::Path::new(package["manifest_path"].as_str().unwrap());
            let folder = manifest.parent().unwrap().strip_prefix(root).unwrap().to_str().unwrap().to_string();
            let dependencies = package["dependencies"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|d| d["kind"].is_null())
                .map(|d| d["name"].as_str().unwrap().to_string())
                .collect();
            (package["name"].as_str().unwrap().to_string(), folder, dependencies)
        })
        .collect();
    let text = document("docs/ARCHITECTURE.md");
    let table = &text[text.find("## Crates").expect("a section on the crates")..];
    let rows: Vec<Vec<String>> = table
        .lines()
        .skip_while(|line| !line.starts_with('|'))
        .skip(2) // the header and its rule
        .take_while(|line| line.starts_with('|'))
        .map(|line| line.trim_matches('|').split(" | ").map(|cell| cell.trim().to_string()).collect())
        .collect();
    let unquoted = |cell: &str| cell.trim().trim_matches('`').to_string();
    let listed: Vec<String> = rows.iter().map(|row| unquoted(&row[0])).collect();
    let names: BTreeSet<String> = workspace.iter().map(|(name, _, _)| name.clone()).collect();
    assert_eq!(listed.iter().cloned().collect::<BTreeSet<_>>(), names, "the crates listed");
    for (at, row) in rows.iter().enumerate() {
        let (name, folder, dependencies) = workspace.iter().find(|(name, _, _)| *name == listed[at]).unwrap();
        let shown = unquoted(row[1].split(',').next().unwrap());
        let shown_folder = if shown == "Cargo.toml" { "" } else { shown.trim_end_matches('/') };
        assert_eq!(shown_folder, folder, "{name}'s folder");
        let named: BTreeSet<String> =
            row[3].split(", ").map(|dependency| unquoted(dependency.split(" (").next().unwrap())).collect();
        assert!(named.is_subset(dependencies), "{name} names {named:?}, depends on {dependencies:?}");
        let internal: BTreeSet<String> = dependencies.intersection(&names).cloned().collect();
        assert!(internal.is_subset(&named), "{name} depends on {internal:?}, names {named:?}");
        for dependency in &internal {
            let below = listed.iter().position(|n| n == dependency).unwrap();
            assert!(below > at, "{name} depends on {dependency}, listed above it");
        }
        if name == "tablebase" {
            assert_eq!(&named, dependencies, "the library's dependencies");
        }
    }
}
