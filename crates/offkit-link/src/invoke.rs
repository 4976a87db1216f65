//! Running the external tools: printed as LLVM 19's wrapper prints them (`--wrapper-verbose`,
//! `--dry-run`), recorded for `--emit-plan`, run with their output passed through, and run in
//! parallel within `--wrapper-jobs` and make's jobserver.

use std::io::Write;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{mpsc, Mutex};
use std::time::Duration;

use offkit_tools::{Jobserver, ToolInvocation};

use crate::error::{Error, Result};
use crate::plan::Step;

/// Runs tools for one link.
pub struct Runner<'a> {
    /// Print every command (`--wrapper-verbose`).
    pub verbose: bool,
    /// Print commands without running them (`--dry-run`).
    pub dry_run: bool,
    plan: Mutex<Vec<Step>>,
    print: Mutex<()>,
    log: Option<&'a (dyn Fn(&str) + Sync)>,
}

impl std::fmt::Debug for Runner<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Runner")
            .field("verbose", &self.verbose)
            .field("dry_run", &self.dry_run)
            .finish()
    }
}

/// How LLVM 19's `printCommands` shows a command: ` "<program>" arg arg…`, unquoted.
pub fn llvm_command_line(program: &str, args: &[String]) -> String {
    let mut s = format!(" \"{program}\"");
    for a in args {
        s.push(' ');
        s.push_str(a);
    }
    s
}

impl<'a> Runner<'a> {
    /// A runner; lines for stderr go to `log` if given.
    pub fn new(verbose: bool, dry_run: bool, log: Option<&'a (dyn Fn(&str) + Sync)>) -> Self {
        Runner {
            verbose,
            dry_run,
            plan: Mutex::new(Vec::new()),
            print: Mutex::new(()),
            log,
        }
    }

    /// Prints a line to stderr as one write (parallel jobs do not interleave within a line).
    pub fn say(&self, line: &str) {
        let _g = self.print.lock();
        match self.log {
            Some(f) => f(line),
            None => {
                let mut e = std::io::stderr().lock();
                let _ = writeln!(e, "{line}");
            }
        }
    }

    /// Records a step of the plan.
    pub fn record(&self, step: Step) {
        if let Ok(mut p) = self.plan.lock() {
            p.push(step);
        }
    }

    /// The recorded steps.
    pub fn steps(&self) -> Vec<Step> {
        self.plan.lock().map(|p| p.clone()).unwrap_or_default()
    }

    /// Prints `program args` as LLVM does under `--wrapper-verbose` / `--dry-run`.
    pub fn announce(&self, program: &str, args: &[String]) {
        if self.verbose || self.dry_run {
            self.say(&llvm_command_line(program, args));
        }
    }

    /// Runs `inv` (printing and recording it); under `--dry-run` only prints.
    pub fn run(&self, inv: &ToolInvocation) -> Result<()> {
        let args: Vec<String> = inv
            .args
            .iter()
            .map(|a| a.to_string_lossy().into_owned())
            .collect();
        self.announce(&inv.program.to_string_lossy(), &args);
        self.run_unannounced(inv)
    }

    /// Runs `inv` and records it without printing it: for what LLVM 19 does in process (and
    /// so never prints), such as compiling a COFF registration module. Under `--dry-run`
    /// nothing runs.
    pub fn run_unannounced(&self, inv: &ToolInvocation) -> Result<()> {
        if self.dry_run {
            self.record(Step::Run(inv.clone()));
            return Ok(());
        }
        self.run_in_process(inv)
    }

    /// Runs `inv` and records it without printing it, also under `--dry-run`: for what LLVM 19
    /// does in process even in a dry run (the LTO of bitcode device code).
    pub fn run_in_process(&self, inv: &ToolInvocation) -> Result<()> {
        self.record(Step::Run(inv.clone()));
        inv.run_inherit().map_err(|source| Error::ToolFailed {
            tool: Path::new(&inv.program)
                .file_name()
                .map(|f| f.to_string_lossy().into_owned())
                .unwrap_or_default(),
            source,
        })
    }
}

/// Runs `f` on every item with at most `jobs` at once; beyond the first, each concurrent job
/// holds a token of make's jobserver when there is one. Results come back in item order.
pub fn parallel<T, R, F>(items: &[T], jobs: usize, js: Option<&Jobserver>, f: F) -> Vec<R>
where
    T: Sync,
    R: Send,
    F: Fn(&T) -> R + Sync,
{
    let jobs = jobs.clamp(1, items.len().max(1));
    if jobs == 1 {
        return items.iter().map(&f).collect();
    }
    let results: Vec<Mutex<Option<R>>> = items.iter().map(|_| Mutex::new(None)).collect();
    let next = AtomicUsize::new(0);
    std::thread::scope(|s| {
        let (done_tx, done_rx) = mpsc::channel::<()>();
        let mut running = 0usize;
        // Jobs beyond the implicit one each hold a token (or, without a jobserver, a slot).
        let mut tokens = Vec::new();
        loop {
            let i = next.load(Ordering::SeqCst);
            if i >= items.len() {
                break;
            }
            if running > 0 {
                let have_slot = running < jobs
                    && match js {
                        None => true,
                        Some(js) => match js.try_acquire() {
                            Ok(Some(t)) => {
                                tokens.push(t);
                                true
                            }
                            _ => false,
                        },
                    };
                if !have_slot {
                    // Wait for a job to end (its slot is free again) or poll the jobserver.
                    if done_rx.recv_timeout(Duration::from_millis(10)).is_ok() {
                        running -= 1;
                        if tokens.len() >= running.max(1) {
                            tokens.pop();
                        }
                    }
                    continue;
                }
            }
            next.store(i + 1, Ordering::SeqCst);
            running += 1;
            let tx = done_tx.clone();
            let (f, results, items) = (&f, &results, items);
            s.spawn(move || {
                let r = f(&items[i]);
                if let Ok(mut slot) = results[i].lock() {
                    *slot = Some(r);
                }
                let _ = tx.send(());
            });
        }
        while running > 0 {
            if done_rx.recv().is_err() {
                break;
            }
            running -= 1;
            if tokens.len() >= running.max(1) {
                tokens.pop();
            }
        }
    });
    results
        .into_iter()
        .filter_map(|m| m.into_inner().ok().flatten())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parallel_keeps_order_and_bounds() {
        let live = AtomicUsize::new(0);
        let peak = AtomicUsize::new(0);
        let items: Vec<u32> = (0..12).collect();
        let out = parallel(&items, 3, None, |&x| {
            let n = live.fetch_add(1, Ordering::SeqCst) + 1;
            peak.fetch_max(n, Ordering::SeqCst);
            std::thread::sleep(Duration::from_millis(5));
            live.fetch_sub(1, Ordering::SeqCst);
            x * 2
        });
        assert_eq!(out, items.iter().map(|x| x * 2).collect::<Vec<_>>());
        assert!(peak.load(Ordering::SeqCst) <= 3);
        assert_eq!(parallel(&items, 1, None, |&x| x), items);
    }

    #[test]
    fn parallel_within_the_jobserver() {
        use std::io::Write as _;
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("jobs");
        assert!(std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success());
        let keep = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .open(&fifo)
            .unwrap();
        let js = Jobserver::connect(&offkit_tools::jobserver::Auth::Fifo(fifo.clone())).unwrap();
        let run = |tokens: &[u8]| {
            (&keep).write_all(tokens).unwrap();
            let live = AtomicUsize::new(0);
            let peak = AtomicUsize::new(0);
            let items: Vec<u32> = (0..8).collect();
            let out = parallel(&items, 4, Some(&js), |&x| {
                let n = live.fetch_add(1, Ordering::SeqCst) + 1;
                peak.fetch_max(n, Ordering::SeqCst);
                std::thread::sleep(Duration::from_millis(20));
                live.fetch_sub(1, Ordering::SeqCst);
                x
            });
            assert_eq!(out, items);
            peak.load(Ordering::SeqCst)
        };
        // No token free: only the implicit job runs, one link at a time.
        assert_eq!(run(b""), 1);
        // One token: two at a time, however many jobs were asked for.
        assert_eq!(run(b"+"), 2);
        // The token went back, and only it.
        let t = js.try_acquire().unwrap();
        assert!(t.is_some());
        assert!(js.try_acquire().unwrap().is_none());
    }

    #[test]
    fn printed_like_llvm() {
        assert_eq!(
            llvm_command_line("/usr/bin/ld", &["-o".into(), "a b".into()]),
            " \"/usr/bin/ld\" -o a b"
        );
    }
}
