//! Hostile inputs: every command offkit offers a reader — `inspect`,
//! `inspect --json`, `extract -o DIR`, `list`, `unbundle --output-dir DIR`, and under LLVM's names
//! `clang-offload-bundler -list`/`-unbundle` and `clang-offload-packager`'s extraction — runs on
//! inputs made hostile from valid ones (`offkit_testutil::hostile`), under a 128 MiB address-space
//! limit (`ulimit -v`, [`hostile::MEMORY_LIMIT`]) and a timeout (special files among them: a FIFO, a socket, a
//! directory, `/dev/zero` as a file and as standard input, thin archives naming those), and must end with no signal, no panic, no
//! timeout, no file written outside its output directory, and no partial output (a failed run
//! leaves its output directory empty; no run leaves a temporary file).
//!
//! **Sampling.** Field mutations and truncations are many (several hundred) and cheap to
//! vary: each runs three of the eight commands, chosen round-robin by the case's index, so that
//! every command sees three eighths of them and every mutation is run. Valid seeds, bombs,
//! hostile paths, special files and thin archives run every command. That keeps the test to
//! a few thousand runs (two at a time), well under a minute in CI.
//!
//! **Memory.** The limit is small so that what must run out of memory (a real bomb inflates 64
//! MiB past it, `/dev/zero` as standard input is read until it is full; named, it is refused at
//! once) does so after little work: at 1 GiB the bombs took three quarters of the test's time,
//! with the same outcome for every run. The valid seeds are shown under the same limit, so it
//! leaves room for every honest input.

use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use offkit_testutil::hostile::{self, Case, Group, DEVICE_ID};

/// The limit every run is under, in KiB: [`hostile::MEMORY_LIMIT`] of address space.
const ULIMIT_V_KIB: u64 = hostile::MEMORY_LIMIT >> 10;
/// Longer than any honest run takes on a slow CI machine.
const TIMEOUT: Duration = Duration::from_secs(30);

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Cmd {
    Inspect,
    InspectJson,
    Extract,
    List,
    Unbundle,
    BundlerList,
    BundlerUnbundle,
    Packager,
}

const CMDS: [Cmd; 8] = [
    Cmd::Inspect,
    Cmd::InspectJson,
    Cmd::Extract,
    Cmd::List,
    Cmd::Unbundle,
    Cmd::BundlerList,
    Cmd::BundlerUnbundle,
    Cmd::Packager,
];

/// One input to run commands on.
struct Input {
    name: String,
    /// The path given to the command (`-` for standard input).
    path: PathBuf,
    /// What standard input is (`/dev/null` unless the input is `-`).
    stdin: PathBuf,
    group: Group,
    bundler_type: &'static str,
}

/// The program and arguments of `cmd` on `input`, writing into `out`.
fn command(cmd: Cmd, bins: &Path, input: &Input, out: &Path) -> (PathBuf, Vec<String>) {
    let offkit = bins.join("offkit");
    let f = input.path.display().to_string();
    let o = out.display().to_string();
    let ty = format!("-type={}", input.bundler_type);
    let s = |v: &[&str]| v.iter().map(|a| a.to_string()).collect::<Vec<_>>();
    match cmd {
        Cmd::Inspect => (offkit, s(&["inspect", &f])),
        Cmd::InspectJson => (offkit, s(&["inspect", "--json", &f])),
        Cmd::Extract => (offkit, s(&["extract", "-o", &o, &f])),
        Cmd::List => (offkit, s(&["list", &f])),
        Cmd::Unbundle => (offkit, s(&["unbundle", "--output-dir", &o, &f])),
        Cmd::BundlerList => (
            bins.join("clang-offload-bundler"),
            s(&["-list", &ty, &format!("-input={f}")]),
        ),
        Cmd::BundlerUnbundle => (
            bins.join("clang-offload-bundler"),
            s(&[
                "-unbundle",
                &ty,
                &format!("-input={f}"),
                &format!("-targets={DEVICE_ID}"),
                &format!("-output={o}/dev.o"),
            ]),
        ),
        Cmd::Packager => (
            bins.join("clang-offload-packager"),
            s(&[
                &f,
                &format!("--image=file={o}/img.o,triple=amdgcn-amd-amdhsa,arch=gfx90a"),
            ]),
        ),
    }
}

/// What one run did.
struct Ran {
    what: String,
    code: Option<i32>,
    signal: Option<i32>,
    timed_out: bool,
    stderr: String,
    out: PathBuf,
}

/// `program` to be run under `ulimit -v` [`ULIMIT_V_KIB`].
fn limited(program: &Path) -> Command {
    let mut sh = Command::new("sh");
    sh.arg("-c")
        .arg(format!("ulimit -v {ULIMIT_V_KIB}; exec \"$0\" \"$@\""))
        .arg(program);
    sh
}

/// Runs `program args` in `cwd` under `ulimit -v` and [`TIMEOUT`], reading `stdin`.
fn run_limited(
    program: &Path,
    args: &[String],
    cwd: &Path,
    stdin: &Path,
) -> (Option<i32>, Option<i32>, bool, String) {
    let mut child = limited(program)
        .args(args)
        .current_dir(cwd)
        .stdin(std::fs::File::open(stdin).expect("open stdin"))
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("sh runs");
    let stderr = child.stderr.take().expect("piped");
    let reader = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = std::io::Read::read_to_string(&mut { stderr }, &mut s);
        s
    });
    let start = Instant::now();
    let (status, timed_out) = loop {
        if let Some(st) = child.try_wait().expect("wait") {
            break (st, false);
        }
        if start.elapsed() > TIMEOUT {
            let _ = child.kill();
            break (child.wait().expect("wait"), true);
        }
        std::thread::sleep(Duration::from_millis(2));
    };
    let stderr = reader.join().unwrap_or_default();
    (status.code(), status.signal(), timed_out, stderr)
}

/// Every file under `dir` (recursively), as paths.
fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let Ok(rd) = std::fs::read_dir(dir) else {
        return out;
    };
    for e in rd.flatten() {
        let p = e.path();
        match e.file_type() {
            Ok(t) if t.is_dir() => {
                out.push(p.clone());
                out.extend(files_under(&p));
            }
            _ => out.push(p),
        }
    }
    out
}

/// The problems with one run, if any.
fn problems(r: &Ran) -> Vec<String> {
    let mut p = Vec::new();
    if r.timed_out {
        p.push("timed out".to_string());
    } else if let Some(sig) = r.signal {
        p.push(format!("killed by signal {sig}"));
    } else if !matches!(r.code, Some(0..=2)) {
        p.push(format!("exit status {:?}", r.code));
    }
    for bad in [
        "panicked",
        "memory allocation of",
        "RUST_BACKTRACE",
        "stack overflow",
    ] {
        if r.stderr.contains(bad) {
            p.push(format!("stderr has `{bad}`"));
        }
    }
    let written = files_under(&r.out);
    if r.code != Some(0) && !written.is_empty() {
        p.push(format!("failed but left output {written:?}"));
    }
    for w in &written {
        let name = w.file_name().map(|n| n.to_string_lossy().into_owned());
        if name.is_some_and(|n| n.starts_with('.') && n.ends_with(".tmp")) {
            p.push(format!("left a temporary file {}", w.display()));
        }
    }
    p
}

/// The special inputs: a FIFO, a socket, a directory, `/dev/zero`, and thin archives whose
/// members are those, or lie outside the archive's directory, or are missing.
fn special_inputs(dir: &Path) -> Vec<Input> {
    let fifo = dir.join("fifo");
    let made = Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .expect("mkfifo runs");
    assert!(made.success());
    let sock = dir.join("socket");
    let listener = std::os::unix::net::UnixListener::bind(&sock).expect("socket");
    std::mem::forget(listener);
    std::fs::create_dir(dir.join("dir")).expect("mkdir");
    let outside = dir.parent().expect("parent").join("outside.o");
    std::fs::write(&outside, hostile::elf_object(None, None)).expect("write");
    let mut inputs: Vec<Input> = [
        ("fifo", fifo.clone()),
        ("socket", sock),
        ("dir", dir.join("dir")),
        ("dev-zero", PathBuf::from("/dev/zero")),
    ]
    .into_iter()
    .map(|(n, p)| Input {
        name: n.into(),
        path: p,
        stdin: PathBuf::from("/dev/null"),
        group: Group::Thin,
        bundler_type: "o",
    })
    .collect();
    // Standard input that never ends: read with a bound, never until memory runs out.
    inputs.push(Input {
        name: "stdin-dev-zero".into(),
        path: PathBuf::from("-"),
        stdin: PathBuf::from("/dev/zero"),
        group: Group::Thin,
        bundler_type: "o",
    });
    for (name, member) in [
        ("thin-fifo.a", "fifo"),
        ("thin-socket.a", "socket"),
        ("thin-dir.a", "dir"),
        ("thin-zero.a", "/dev/zero"),
        ("thin-outside.a", "../outside.o"),
        ("thin-missing.a", "missing.o"),
    ] {
        let p = dir.join(name);
        std::fs::write(&p, hostile::thin_archive(&[(member, 1000)])).expect("write");
        inputs.push(Input {
            name: name.into(),
            path: p,
            stdin: PathBuf::from("/dev/null"),
            group: Group::Thin,
            bundler_type: "a",
        });
    }
    inputs
}

/// The sampled matrix (see the module's doc): (input index, command).
fn jobs(inputs: &[Input]) -> Vec<(usize, Cmd)> {
    let mut jobs = Vec::new();
    for (i, input) in inputs.iter().enumerate() {
        match input.group {
            Group::Field | Group::Truncated => {
                for k in 0..3 {
                    jobs.push((i, CMDS[(i * 3 + k) % CMDS.len()]));
                }
            }
            _ => jobs.extend(CMDS.iter().map(|&c| (i, c))),
        }
    }
    jobs
}

/// Runs `jobs` two at a time, each in its own directory under `work` with an `out` directory.
fn run_all(jobs: &[(usize, Cmd)], inputs: &[Input], bins: &Path, work: &Path) -> Vec<Ran> {
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<Ran>> = Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(|| loop {
                let j = next.fetch_add(1, Ordering::Relaxed);
                let Some(&(i, cmd)) = jobs.get(j) else { break };
                let input = &inputs[i];
                let cwd = work.join(format!("{j}"));
                let out = cwd.join("out");
                std::fs::create_dir_all(&out).expect("mkdir");
                let (program, args) = command(cmd, bins, input, &out);
                let (code, signal, timed_out, stderr) =
                    run_limited(&program, &args, &cwd, &input.stdin);
                let r = Ran {
                    what: format!("{cmd:?} on {} [{:?}] (run {j})", input.name, input.group),
                    code,
                    signal,
                    timed_out,
                    stderr,
                    out,
                };
                results.lock().expect("lock").push(r);
            });
        }
    });
    results.into_inner().expect("lock")
}

/// The valid seeds that `inspect --json` refuses or finds no image in under the memory limit
/// (else the mutations made from them prove nothing, or the limit is too tight).
fn bad_seeds(inputs: &[Input], bins: &Path) -> Vec<String> {
    let mut failures = Vec::new();
    for input in inputs.iter().filter(|i| i.group == Group::Valid) {
        let o = limited(&bins.join("offkit"))
            .args(["inspect", "--json"])
            .arg(&input.path)
            .output()
            .expect("offkit runs");
        let json: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap_or_default();
        let images = json["files"][0]["images"].as_array().map_or(0, Vec::len);
        if !o.status.success() || images == 0 {
            failures.push(format!(
                "valid seed {} shows no image: {}",
                input.name,
                String::from_utf8_lossy(&o.stderr)
            ));
        }
    }
    failures
}

/// Files written outside the output directories: anything in a run's directory but `out`,
/// anything new at the top of `root`, and the absolute paths the hostile names aim at.
fn escaped(root: &Path, work: &Path) -> Vec<String> {
    let mut found = Vec::new();
    for e in std::fs::read_dir(work).expect("read work").flatten() {
        for f in std::fs::read_dir(e.path()).expect("read run dir").flatten() {
            if f.file_name() != "out" {
                found.push(f.path());
            }
        }
    }
    for e in std::fs::read_dir(root).expect("read root").flatten() {
        let n = e.file_name();
        if !["bin", "in", "work", "outside.o"].iter().any(|k| n == *k) {
            found.push(e.path());
        }
    }
    for p in [
        "/tmp/offkit-hostile-escape",
        "/tmp/offkit-hostile-escape.o",
        "/tmp/offkit-hostile-escape2.o",
    ] {
        if Path::new(p).exists() {
            found.push(PathBuf::from(p));
        }
    }
    found
        .into_iter()
        .map(|p| format!("written outside the output directory: {}", p.display()))
        .collect()
}

#[test]
fn hostile_inputs_never_crash_hang_escape_or_leave_partial_outputs() {
    let root = tempfile::tempdir().expect("tempdir");
    let root = root.path();
    let bins = root.join("bin");
    std::fs::create_dir(&bins).expect("mkdir");
    offkit_testutil::run::copy_executable(
        Path::new(env!("CARGO_BIN_EXE_offkit")),
        &bins.join("offkit"),
    );
    offkit_testutil::link::shims(&bins.join("offkit"), &bins);
    let inputs_dir = root.join("in");
    std::fs::create_dir(&inputs_dir).expect("mkdir");
    let cases: Vec<Case> = hostile::cases();
    let mut inputs: Vec<Input> = cases
        .into_iter()
        .map(|c| {
            let path = inputs_dir.join(&c.name);
            std::fs::write(&path, &c.bytes).expect("write case");
            Input {
                name: c.name,
                path,
                stdin: PathBuf::from("/dev/null"),
                group: c.group,
                bundler_type: c.bundler_type,
            }
        })
        .collect();
    inputs.extend(special_inputs(&inputs_dir));
    let inputs_before = files_under(&inputs_dir).len();

    let work = root.join("work");
    std::fs::create_dir(&work).expect("mkdir");
    let start = Instant::now();
    let results = run_all(&jobs(&inputs), &inputs, &bins, &work);
    let elapsed = start.elapsed();

    let mut failures = Vec::new();
    for r in &results {
        let p = problems(r);
        if !p.is_empty() {
            let tail: String = r.stderr.lines().take(3).collect::<Vec<_>>().join(" | ");
            failures.push(format!("{}: {} — {tail}", r.what, p.join("; ")));
        }
    }
    failures.extend(bad_seeds(&inputs, &bins));
    failures.extend(escaped(root, &work));
    assert_eq!(
        files_under(&inputs_dir).len(),
        inputs_before,
        "files appeared among the inputs"
    );
    eprintln!(
        "hostile: {} inputs, {} runs in {:.1} s, {} failures",
        inputs.len(),
        results.len(),
        elapsed.as_secs_f64(),
        failures.len()
    );
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
