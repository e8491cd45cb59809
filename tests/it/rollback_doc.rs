//! `docs/rollback-testing.md` is kept true by running it: its fenced ```python blocks, in order,
//! as one script with the `.venv` python (boto3, installed by `scripts/test`), and its ```sh
//! blocks, in order, as one bash script with the `.venv` aws CLI first on PATH, each against a
//! fresh emulator reached through `AWS_ENDPOINT_URL`. A failing step (an `assert`, a `test`, a
//! command's exit status) fails the test with the script's output, which names the doc line of
//! the block that was running.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::support::{aws_cli, Emulator};

const DOC: &str = include_str!("../../docs/rollback-testing.md");

/// One fenced block: the line its code starts on (1-based) and its code.
struct Block {
    line: usize,
    code: String,
}

/// The fenced blocks of `doc` whose info string is exactly `language`, in order.
fn blocks(doc: &str, language: &str) -> Vec<Block> {
    let mut out = Vec::new();
    let mut open: Option<(bool, Block)> = None;
    for (i, line) in doc.lines().enumerate() {
        match open.take() {
            None => {
                if let Some(info) = line.strip_prefix("```") {
                    let block = Block {
                        line: i + 2,
                        code: String::new(),
                    };
                    open = Some((info.trim() == language, block));
                }
            }
            Some((wanted, mut block)) => {
                if line.trim_end() == "```" {
                    if wanted {
                        out.push(block);
                    }
                } else {
                    block.code.push_str(line);
                    block.code.push('\n');
                    open = Some((wanted, block));
                }
            }
        }
    }
    assert!(open.is_none(), "an unclosed fenced block in the doc");
    out
}

/// The `.venv/bin` directory the aws CLI (and boto3's python) live in.
fn venv_bin() -> PathBuf {
    aws_cli()
        .parent()
        .expect("the aws CLI lives in a directory")
        .to_path_buf()
}

/// Runs `program script` with the emulator as `AWS_ENDPOINT_URL` and nothing of the caller's
/// AWS configuration; panics with the output unless it exits 0 having printed `done_marker`.
async fn run(emu: &Emulator, program: PathBuf, script: String, done_marker: &str) {
    let endpoint = emu.endpoint.clone();
    let bin = venv_bin();
    let dir = std::env::temp_dir().join(format!(
        "cumulo-doc-{}-{}",
        done_marker.split(' ').next().unwrap_or("walkthrough"),
        std::process::id()
    ));
    std::fs::create_dir_all(&dir).expect("a temporary directory");
    let file = dir.join("walkthrough");
    let tmp = dir.clone();
    std::fs::write(&file, script).expect("write the script");
    let path = std::env::join_paths(std::iter::once(bin).chain(std::env::split_paths(
        &std::env::var_os("PATH").unwrap_or_default(),
    )))
    .expect("PATH");
    let out = tokio::task::spawn_blocking(move || {
        Command::new(&program)
            .arg(&file)
            .env_clear()
            .env("PATH", path)
            .env("HOME", std::env::var_os("HOME").unwrap_or_default())
            .env("TMPDIR", &tmp)
            .env("AWS_ENDPOINT_URL", endpoint)
            .env("AWS_CONFIG_FILE", "/dev/null")
            .env("AWS_SHARED_CREDENTIALS_FILE", "/dev/null")
            .env("AWS_MAX_ATTEMPTS", "1")
            .env("AWS_PAGER", "")
            .env("NO_PROXY", "127.0.0.1,localhost")
            .env("PYTHONWARNINGS", "ignore")
            .env("PYTHONDONTWRITEBYTECODE", "1")
            .output()
            .unwrap_or_else(|e| panic!("run {}: {e}", program.display()))
    })
    .await
    .expect("the walkthrough ran");
    let _ = std::fs::remove_dir_all(&dir);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success() && stdout.contains(done_marker),
        "the walkthrough failed ({}; ./scripts/test installs boto3 and the aws CLI into .venv):\nstdout:\n{stdout}\nstderr:\n{stderr}",
        out.status
    );
}

#[test]
fn the_doc_has_both_walkthroughs_with_every_step() {
    for (language, needles) in [
        (
            "python",
            &[
                "UPDATE_ROLLBACK_COMPLETE",
                "UPDATE_ROLLBACK_FAILED",
                "continue_update_rollback(StackName=\"nightly\")",
                "ResourcesToSkip=[\"Report\"]",
                "/_cumulo/faults",
            ],
        ),
        (
            "sh",
            &[
                "UPDATE_ROLLBACK_COMPLETE",
                "UPDATE_ROLLBACK_FAILED",
                "continue-update-rollback --stack-name nightly\n",
                "--resources-to-skip Report",
                "/_cumulo/faults",
            ],
        ),
    ] {
        let code: String = blocks(DOC, language).into_iter().map(|b| b.code).collect();
        for needle in needles {
            assert!(
                code.contains(needle),
                "no {needle:?} in the {language} blocks"
            );
        }
    }
}

#[test]
fn blocks_are_found_with_their_lines_and_other_languages_skipped() {
    let doc = "intro\n```python\na = 1\n```\n```console\n$ x\n```\n```python\nb = 2\nc = 3\n```\n";
    let found = blocks(doc, "python");
    let got: Vec<(usize, &str)> = found.iter().map(|b| (b.line, b.code.as_str())).collect();
    assert_eq!(got, vec![(3, "a = 1\n"), (9, "b = 2\nc = 3\n")]);
    assert_eq!(blocks(doc, "sh").len(), 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_boto3_walkthrough_runs_as_written() {
    let emu = Emulator::start().await;
    let mut script = String::new();
    for block in blocks(DOC, "python") {
        script.push_str(&format!(
            "print('--- docs/rollback-testing.md line {}', flush=True)\n{}",
            block.line, block.code
        ));
    }
    let python = venv_bin().join("python");
    assert!(
        Path::new(&python).is_file(),
        "no python next to the aws CLI: run ./scripts/test"
    );
    run(&emu, python, script, "boto3 walkthrough done").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_aws_cli_walkthrough_runs_as_written() {
    let emu = Emulator::start().await;
    let mut script = String::from("set -euo pipefail\n");
    for block in blocks(DOC, "sh") {
        script.push_str(&format!(
            "echo '--- docs/rollback-testing.md line {}'\n{}",
            block.line, block.code
        ));
    }
    run(
        &emu,
        PathBuf::from("bash"),
        script,
        "aws CLI walkthrough done",
    )
    .await;
}
