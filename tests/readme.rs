//! README's commands run as written, in the order written, from the root of a fresh clone: every
//! line of its `sh` blocks, on the small sizes README uses, must succeed.
//!
//! Three things stand in for what this test cannot do itself. The clone is a new directory
//! holding a copy of `tables/` (the checked-in 7x6 book) and the binary under test as
//! `target/release/tablebase`. `cargo build --release` is answered by a stand-in `cargo` that
//! accepts only those words (the binary is already built). The block that runs the tests is left
//! out (it is what runs this). `serve`, which runs until stopped, is started on a free port and
//! must answer its page before it is stopped.

use crate::common;

use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;
use std::process::{Command, Stdio};

/// The lines of README's `sh` blocks, in order.
fn readme_commands() -> Vec<String> {
    let readme = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md")).unwrap();
    let mut commands = Vec::new();
    let mut in_sh = false;
    for line in readme.lines() {
        match (in_sh, line.trim_end()) {
            (false, "```sh") => in_sh = true,
            (true, "```") => in_sh = false,
            (true, command) if !command.trim().is_empty() => commands.push(command.to_string()),
            _ => {}
        }
    }
    commands
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        match entry.file_type().unwrap().is_dir() {
            true => copy_dir(&entry.path(), &target),
            false => drop(std::fs::copy(entry.path(), &target).unwrap()),
        }
    }
}

/// A fresh clone as far as README's commands can tell: the tables and the built binary.
fn clone_root() -> common::Scratch {
    let root = common::scratch("readme");
    copy_dir(&Path::new(env!("CARGO_MANIFEST_DIR")).join("tables"), &root.join("tables"));
    std::fs::create_dir_all(root.join("target/release")).unwrap();
    std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_tablebase"), root.join("target/release/tablebase"))
        .unwrap();
    let stand_in = root.join("stand-in");
    std::fs::create_dir_all(&stand_in).unwrap();
    let cargo = stand_in.join("cargo");
    std::fs::write(&cargo, "#!/bin/sh\n[ \"$*\" = \"build --release\" ] || exit 99\n").unwrap();
    let mut permissions = std::fs::metadata(&cargo).unwrap().permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut permissions, 0o755);
    std::fs::set_permissions(&cargo, permissions).unwrap();
    root
}

/// Starts `serve` as README writes it, on a free port, and fetches its page.
fn serve_answers(root: &Path, script: &str, command: &str) {
    let script = format!("{script}\nexec {} --port 0", command.split(" #").next().unwrap().trim());
    let mut child = Command::new("bash")
        .args(["-c", &script])
        .current_dir(root)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stderr = BufReader::new(child.stderr.take().unwrap());
    let mut line = String::new();
    stderr.read_line(&mut line).unwrap();
    let address = line.split("http://").nth(1).and_then(|rest| rest.split('/').next());
    let page = address.map(|address| {
        let mut stream = std::net::TcpStream::connect(address).unwrap();
        write!(stream, "GET / HTTP/1.0\r\nHost: {address}\r\n\r\n").unwrap();
        let mut page = String::new();
        let _ = stream.read_to_string(&mut page);
        page
    });
    let _ = child.kill();
    let _ = child.wait();
    let page = page.unwrap_or_else(|| panic!("README: {command}: no address in {line:?}"));
    assert!(page.starts_with("HTTP/1.") && page.contains(" 200 "), "README: {command}: {page:.200}");
    assert!(page.contains("<html"), "README: {command}: not the page");
}

#[test]
fn every_command_of_readme_runs_as_written() {
    let root = clone_root();
    let path = format!("{}:{}", root.join("stand-in").display(), std::env::var("PATH").unwrap());
    // Each command runs after the ones before it, in one shell's state (`export` carries on).
    let mut script = String::from("set -e");
    let mut ran = 0;
    for command in readme_commands() {
        if command.trim_start().starts_with("bash tests/run.sh") {
            continue;
        }
        if command.trim_start().starts_with("tablebase serve") {
            serve_answers(
                &root,
                &script.replace("set -e", &format!("set -e; export PATH={path:?}")),
                &command,
            );
            ran += 1;
            continue;
        }
        let out = Command::new("bash")
            .args(["-c", &format!("{script}\n{command}")])
            .current_dir(&*root)
            .env("PATH", &path)
            .stdin(Stdio::null())
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "README: {command}: exit {:?}\n{}",
            out.status.code(),
            String::from_utf8_lossy(&out.stderr)
        );
        // Later commands run after this one again only where it set the shell's state.
        if command.trim_start().starts_with("export ") {
            script.push('\n');
            script.push_str(&command);
        }
        ran += 1;
    }
    assert!(ran >= 15, "README's commands ({ran} run)");
    assert!(root.join("board.svg").exists() && root.join("charts").is_dir(), "the pictures README makes");
}
