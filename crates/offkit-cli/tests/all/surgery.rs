//! `offkit replace` round trip: every image of real multi-TU HIP libraries (plain and compressed
//! bundles, GNU ld and lld) extracted and put back in place of itself, selected by its location
//! and by its address URI, gives back the library byte for byte.

use offkit_testutil::hip::{self, Linker};
use offkit_testutil::run_ok;
use serde_json::Value;

const OFFKIT: &str = env!("CARGO_BIN_EXE_offkit");

#[test]
fn replacing_every_image_with_itself_gives_identical_bytes() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    for linker in [Linker::Bfd, Linker::Lld] {
        let name = format!("libk_{linker:?}.so");
        let (lib, _) = hip::library(dir, &name, &[false, true, true, false], linker);
        let original = std::fs::read(&lib).unwrap();
        let out = run_ok(OFFKIT, ["inspect", "--json", &name], dir);
        let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
        let images = doc["files"][0]["images"].as_array().unwrap().clone();
        assert_eq!(images.len(), 12, "{name}");
        for (i, img) in images.iter().enumerate() {
            let location = img["location"].as_str().unwrap();
            let uri = img["address"].as_str().unwrap();
            let co = dir.join(format!("img{i}"));
            std::fs::create_dir_all(&co).unwrap();
            run_ok(
                OFFKIT,
                ["extract", uri, "-o", &co.display().to_string()],
                dir,
            );
            let file = std::fs::read_dir(&co)
                .unwrap()
                .next()
                .unwrap()
                .unwrap()
                .path();
            let selector = if i % 2 == 0 { location } else { uri };
            let back = dir.join(format!("back{i}.so"));
            run_ok(
                OFFKIT,
                [
                    "replace",
                    &name,
                    "--image",
                    &format!("{selector}={}", file.display()),
                    "-o",
                    &back.display().to_string(),
                ],
                dir,
            );
            assert!(
                std::fs::read(&back).unwrap() == original,
                "{name}: {location} replaced by itself changed the file"
            );
        }
    }
}

/// `--in-place` refuses a file another process has mapped shared and writable (its writes would
/// be lost), names the process, and leaves the file as it was; `-o` still works.
#[test]
fn in_place_refuses_a_file_mapped_for_writing() {
    use std::io::{BufRead, BufReader};
    use std::process::{Command, Stdio};
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let (lib, _) = hip::library(dir, "libm.so", &[false], Linker::Lld);
    let src = dir.join("mapper.c");
    std::fs::write(
        &src,
        "#include <fcntl.h>\n#include <stdio.h>\n#include <sys/mman.h>\n#include <unistd.h>\n\
         int main(int c, char **v) { int fd = open(v[1], O_RDWR); \
         void *p = mmap(0, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0); \
         if (p == MAP_FAILED) return 1; puts(\"ready\"); fflush(stdout); \
         char b; while (read(0, &b, 1) > 0) {} return 0; }\n",
    )
    .unwrap();
    let exe = dir.join("mapper");
    run_ok(
        offkit_testutil::clang(),
        [
            src.display().to_string(),
            "-o".into(),
            exe.display().to_string(),
        ],
        dir,
    );
    let mut child = Command::new(&exe)
        .arg(&lib)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    assert_eq!(line.trim(), "ready");
    let before = std::fs::read(&lib).unwrap();
    let out = offkit_testutil::run(OFFKIT, ["compress", "libm.so"], dir);
    let err = out.stderr_str();
    assert_eq!(out.code, Some(1), "{err}");
    assert!(
        err.contains(&format!("is mapped for writing by process {}", child.id())),
        "{err}"
    );
    assert!(std::fs::read(&lib).unwrap() == before);
    run_ok(OFFKIT, ["compress", "libm.so", "-o", "libm-c.so"], dir);
    drop(child.stdin.take());
    child.wait().unwrap();
    run_ok(OFFKIT, ["compress", "libm.so"], dir);
}
