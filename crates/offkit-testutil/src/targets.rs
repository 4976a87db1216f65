//! Test support for the target-ID and triple conformance tests: crafting offload bundles with
//! arbitrary entry IDs (the real bundler standardises what it writes, so IDs it would never
//! write have to be made by hand), listing archive members, running many tool invocations
//! two at a time, and a deterministic generator for the test matrices.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;

use crate::run::Output;

/// A binary offload bundle (`__CLANG_OFFLOAD_BUNDLE__`, as clang-offload-bundler 19 writes it
/// with `-bundle-align=1`) holding `entries` (`(id, payload)`, in this order). IDs are written
/// as given, so old or malformed IDs can be tested.
pub fn write_bundle(entries: &[(&[u8], &[u8])]) -> Vec<u8> {
    let magic = b"__CLANG_OFFLOAD_BUNDLE__";
    let header: usize =
        magic.len() + 8 + entries.iter().map(|(id, _)| 24 + id.len()).sum::<usize>();
    let mut out = Vec::new();
    out.extend_from_slice(magic);
    out.extend_from_slice(&(entries.len() as u64).to_le_bytes());
    let mut offset = header;
    for (id, payload) in entries {
        out.extend_from_slice(&(offset as u64).to_le_bytes());
        out.extend_from_slice(&(payload.len() as u64).to_le_bytes());
        out.extend_from_slice(&(id.len() as u64).to_le_bytes());
        out.extend_from_slice(id);
        offset += payload.len();
    }
    for (_, payload) in entries {
        out.extend_from_slice(payload);
    }
    out
}

/// The member names of a GNU or BSD `ar` archive (long names resolved through `//`).
/// Panics on a malformed archive: the archives come from LLVM's own writer.
pub fn archive_member_names(data: &[u8]) -> Vec<Vec<u8>> {
    assert!(data.starts_with(b"!<arch>\n"), "not an archive");
    let mut pos = 8;
    let mut long_names: &[u8] = &[];
    let mut names = Vec::new();
    while pos + 60 <= data.len() {
        let h = &data[pos..pos + 60];
        let raw_name = &h[..16];
        let size: usize = std::str::from_utf8(&h[48..58])
            .unwrap()
            .trim()
            .parse()
            .unwrap();
        let body = &data[pos + 60..pos + 60 + size];
        let trimmed = trim_spaces(raw_name);
        if trimmed == b"/" || trimmed == b"/SYM64/" {
            // symbol table
        } else if trimmed == b"//" {
            long_names = body;
        } else if let Some(off) = trimmed.strip_prefix(b"/") {
            let off: usize = std::str::from_utf8(off).unwrap().parse().unwrap();
            let rest = &long_names[off..];
            let end = rest.iter().position(|&b| b == b'\n').unwrap();
            names.push(
                rest[..end]
                    .strip_suffix(b"/")
                    .unwrap_or(&rest[..end])
                    .to_vec(),
            );
        } else {
            names.push(trimmed.strip_suffix(b"/").unwrap_or(trimmed).to_vec());
        }
        pos += 60 + size + (size & 1);
    }
    names
}

fn trim_spaces(s: &[u8]) -> &[u8] {
    let end = s.iter().rposition(|&b| b != b' ').map_or(0, |i| i + 1);
    &s[..end]
}

/// One command to run.
#[derive(Debug, Clone)]
pub struct Job {
    /// The program.
    pub program: PathBuf,
    /// Its arguments.
    pub args: Vec<OsString>,
    /// Its working directory.
    pub cwd: PathBuf,
}

impl Job {
    /// `program args…` in `cwd`.
    pub fn new<I, S>(program: impl Into<PathBuf>, args: I, cwd: &Path) -> Job
    where
        I: IntoIterator<Item = S>,
        S: Into<OsString>,
    {
        Job {
            program: program.into(),
            args: args.into_iter().map(Into::into).collect(),
            cwd: cwd.to_path_buf(),
        }
    }
}

/// Runs `jobs` two at a time (the machines running the tests have two cores) and returns
/// their outputs in the order given. Panics if a program cannot be started.
pub fn run_all(jobs: &[Job]) -> Vec<Output> {
    let results: Mutex<Vec<Option<Output>>> = Mutex::new(vec![None; jobs.len()]);
    let next = Mutex::new(0usize);
    std::thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(|| loop {
                let i = {
                    let mut n = next.lock().unwrap();
                    let i = *n;
                    *n += 1;
                    i
                };
                let Some(job) = jobs.get(i) else { break };
                let out = Command::new(&job.program)
                    .args(&job.args)
                    .current_dir(&job.cwd)
                    .output()
                    .unwrap_or_else(|e| panic!("cannot run {}: {e}", job.program.display()));
                results.lock().unwrap()[i] = Some(Output {
                    code: out.status.code(),
                    stdout: out.stdout,
                    stderr: out.stderr,
                });
            });
        }
    });
    results
        .into_inner()
        .unwrap()
        .into_iter()
        .map(|o| o.expect("every job ran"))
        .collect()
}

/// A small deterministic pseudo-random generator (xorshift64*), so the generated matrices are
/// the same on every run.
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    /// A generator seeded with `seed` (0 is replaced by a fixed constant).
    pub fn new(seed: u64) -> Rng {
        Rng(if seed == 0 {
            0x9E37_79B9_7F4A_7C15
        } else {
            seed
        })
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// A number below `n` (`n` > 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }

    /// One element of `items`.
    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}
