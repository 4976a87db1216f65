//! Outputs are never partial: stopped by a file-size limit (`ulimit -f`: `EFBIG`,
//! with `SIGXFSZ` ignored so that the error path runs), by a full disk (`ENOSPC` on a 1 MiB
//! tmpfs in a private mount namespace, and `/dev/full`), or killed with `kill -9` in the middle
//! of writing, every writer leaves the previous output intact or none — never a truncated one —
//! and, on the error paths it controls, no temporary file.

use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use offkit_testutil::hostile::{DEVICE_ID, HOST_ID};
use offkit_testutil::targets::write_bundle;

const PREVIOUS: &[u8] = b"the previous output";

struct Fx {
    _tmp: tempfile::TempDir,
    bins: PathBuf,
    bundle: PathBuf,
    image: PathBuf,
    payload_len: usize,
}

/// offkit and its LLVM-named links, a bundle whose device entry is `mib` MiB, and that entry
/// alone as an image file.
fn fixture(mib: usize) -> Fx {
    let tmp = tempfile::tempdir().expect("tempdir");
    let bins = tmp.path().join("bin");
    std::fs::create_dir(&bins).expect("mkdir");
    offkit_testutil::run::copy_executable(
        std::path::Path::new(env!("CARGO_BIN_EXE_offkit")),
        &bins.join("offkit"),
    );
    offkit_testutil::link::shims(&bins.join("offkit"), &bins);
    let payload: Vec<u8> = (0..mib << 20).map(|i| (i % 251) as u8).collect();
    let bundle = tmp.path().join("big.bundle");
    std::fs::write(
        &bundle,
        write_bundle(&[(HOST_ID.as_bytes(), b""), (DEVICE_ID.as_bytes(), &payload)]),
    )
    .expect("write");
    let image = tmp.path().join("big.o");
    std::fs::write(&image, &payload).expect("write");
    Fx {
        bins,
        bundle,
        image,
        payload_len: payload.len(),
        _tmp: tmp,
    }
}

/// The writers under test, each writing `out/dev.o` (extract: an image into `out/`).
fn writers(fx: &Fx, out: &Path) -> Vec<(String, PathBuf, Vec<String>)> {
    let b = fx.bundle.display().to_string();
    let dest = out.join("dev.o").display().to_string();
    vec![
        (
            "offkit unbundle".into(),
            fx.bins.join("offkit"),
            vec![
                "unbundle".into(),
                "--target".into(),
                format!("{DEVICE_ID}={dest}"),
                b.clone(),
            ],
        ),
        (
            "offkit extract".into(),
            fx.bins.join("offkit"),
            vec![
                "extract".into(),
                "-o".into(),
                out.display().to_string(),
                b.clone(),
            ],
        ),
        (
            "clang-offload-bundler -unbundle".into(),
            fx.bins.join("clang-offload-bundler"),
            vec![
                "-unbundle".into(),
                "-type=o".into(),
                format!("-input={b}"),
                format!("-targets={DEVICE_ID}"),
                format!("-output={dest}"),
            ],
        ),
        (
            "clang-offload-packager".into(),
            fx.bins.join("clang-offload-packager"),
            vec![
                "-o".into(),
                dest.clone(),
                format!(
                    "--image=file={},triple=amdgcn-amd-amdhsa,arch=gfx90a",
                    fx.image.display()
                ),
            ],
        ),
    ]
}

/// The names in `dir` other than `dev.o`.
fn others(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .expect("read dir")
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n != "dev.o")
        .collect();
    v.sort();
    v
}

#[track_caller]
fn assert_failed_cleanly(what: &str, st: std::process::ExitStatus, stderr: &str, out: &Path) {
    assert_eq!(st.signal(), None, "{what}: killed by a signal; {stderr}");
    assert_eq!(st.code(), Some(1), "{what}: {stderr}");
    assert!(!stderr.contains("panicked"), "{what}: {stderr}");
    assert_eq!(
        std::fs::read(out.join("dev.o")).expect("the previous output is there"),
        PREVIOUS,
        "{what}: the previous output changed"
    );
    assert_eq!(
        others(out),
        Vec::<String>::new(),
        "{what}: files left behind"
    );
}

#[test]
fn a_file_size_limit_leaves_the_previous_output_and_no_temporary_file() {
    let fx = fixture(2);
    let out = fx._tmp.path().join("out");
    for (what, prog, args) in writers(&fx, &out) {
        let _ = std::fs::remove_dir_all(&out);
        std::fs::create_dir(&out).expect("mkdir");
        std::fs::write(out.join("dev.o"), PREVIOUS).expect("write");
        // 100 blocks of 512 bytes: the 2 MiB payload cannot be written.
        let o = Command::new("sh")
            .arg("-c")
            .arg("ulimit -f 100; exec \"$0\" \"$@\"")
            .arg(&prog)
            .args(&args)
            .output()
            .expect("sh runs");
        let stderr = String::from_utf8_lossy(&o.stderr);
        assert_failed_cleanly(&what, o.status, &stderr, &out);
        assert!(stderr.contains("File too large"), "{what}: {stderr}");
    }
}

#[test]
fn a_full_disk_leaves_the_previous_output_and_no_temporary_file() {
    let fx = fixture(4);
    let out = fx._tmp.path().join("full");
    std::fs::create_dir(&out).expect("mkdir");
    // A 1 MiB tmpfs in a private mount namespace (root, or an unprivileged user namespace).
    let probe = Command::new("unshare")
        .args([
            "-rm",
            "sh",
            "-c",
            "mount -t tmpfs -o size=1m none \"$0\"",
            &out.display().to_string(),
        ])
        .output();
    let tmpfs = probe.as_ref().is_ok_and(|o| o.status.success());
    if tmpfs {
        for (what, prog, args) in writers(&fx, &out) {
            let script = "mount -t tmpfs -o size=1m none \"$0\" || exit 99; \
                          printf 'the previous output' > \"$0/dev.o\"; \
                          \"$@\" 2>\"$0.stderr\"; echo \"rc=$?\" >\"$0.rc\"; \
                          ls -A \"$0\" >\"$0.ls\"; cat \"$0/dev.o\" >\"$0.dev\"";
            let st = Command::new("unshare")
                .args(["-rm", "sh", "-c", script])
                .arg(&out)
                .arg(&prog)
                .args(&args)
                .status()
                .expect("unshare runs");
            assert!(st.success(), "{what}: the namespace script failed");
            let read = |ext: &str| {
                std::fs::read_to_string(out.with_extension(ext)).expect("script output")
            };
            let stderr = read("stderr");
            assert_eq!(read("rc").trim(), "rc=1", "{what}: {stderr}");
            assert!(
                stderr.contains("No space left on device"),
                "{what}: {stderr}"
            );
            assert!(!stderr.contains("panicked"), "{what}: {stderr}");
            assert_eq!(read("ls").trim(), "dev.o", "{what}: files left behind");
            assert_eq!(
                read("dev").as_bytes(),
                PREVIOUS,
                "{what}: the previous output changed"
            );
        }
    } else {
        eprintln!("note: no private tmpfs here (unshare -rm failed); /dev/full only");
    }
    // `/dev/full` as a device output (written in place) and as standard output.
    let b = fx.bundle.display().to_string();
    for (target, stdout) in [
        ("/dev/full", Stdio::null()),
        (
            "-",
            Stdio::from(std::fs::File::create("/dev/full").expect("open /dev/full")),
        ),
    ] {
        let o = Command::new(fx.bins.join("offkit"))
            .args(["unbundle", "--target", &format!("{DEVICE_ID}={target}"), &b])
            .stdout(stdout)
            .stderr(Stdio::piped())
            .output()
            .expect("runs");
        let stderr = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(1), "{target}: {stderr}");
        assert!(
            stderr.contains("No space left on device"),
            "{target}: {stderr}"
        );
    }
}

/// Polls `dir` until a temporary output appears or `child` ends.
fn wait_for_temporary(dir: &Path, child: &mut std::process::Child) -> bool {
    let start = Instant::now();
    while start.elapsed() < Duration::from_secs(30) {
        if child.try_wait().expect("wait").is_some() {
            return false;
        }
        if others(dir)
            .iter()
            .any(|n| n.starts_with('.') && n.ends_with(".tmp"))
        {
            return true;
        }
        std::thread::sleep(Duration::from_micros(200));
    }
    false
}

#[test]
fn kill_9_while_writing_leaves_the_previous_output_or_the_whole_new_one() {
    let fx = fixture(96);
    let out = fx._tmp.path().join("killed");
    let mut mid_write = 0;
    for (what, prog, args) in writers(&fx, &out) {
        if what == "offkit extract" {
            continue; // Writes names of its own; the others cover the same output path.
        }
        for _ in 0..5 {
            let _ = std::fs::remove_dir_all(&out);
            std::fs::create_dir(&out).expect("mkdir");
            std::fs::write(out.join("dev.o"), PREVIOUS).expect("write");
            let mut child = Command::new(&prog)
                .args(&args)
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .expect("spawn");
            let caught = wait_for_temporary(&out, &mut child);
            let _ = child.kill();
            let _ = child.wait();
            let now = std::fs::read(out.join("dev.o")).expect("an output is there");
            // The previous output, or the complete new one (the packager's has a header).
            assert!(
                now == PREVIOUS || now.len() >= fx.payload_len,
                "{what}: a truncated output of {} bytes",
                now.len()
            );
            if caught {
                mid_write += 1;
                assert_eq!(
                    now, PREVIOUS,
                    "{what}: killed mid-write, yet the output changed"
                );
                // Killed outright, offkit cannot remove its temporary file; it is the only
                // trace, and it is hidden and named after the output.
                for n in others(&out) {
                    assert!(
                        n.starts_with(".dev.o.") && n.ends_with(".tmp"),
                        "{what}: {n}"
                    );
                }
                break;
            }
        }
    }
    assert!(
        mid_write >= 2,
        "no writer was caught in the middle of writing"
    );
}
