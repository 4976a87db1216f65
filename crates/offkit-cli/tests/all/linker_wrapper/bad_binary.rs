//! A corrupt offload binary in `.llvm.offloading`: the drop-in prints LLVM 19's text
//! (`object_error`'s, no file name or offset) where `offkit link` explains what is wrong.

use object::{Object, ObjectSection};

use super::{fixtures, same};

/// The object clang-19 makes for `p`, with `patch` applied to its offload binary's header:
/// `(offset in the binary, bytes)`.
fn corrupt(dir: &std::path::Path, name: &str, at: usize, bytes: &[u8]) -> String {
    let o = fixtures::compile_openmp(
        dir,
        "p",
        fixtures::OPENMP_SAXPY,
        &["x86_64-pc-linux-gnu"],
        &[],
    );
    let mut data = std::fs::read(&o).unwrap();
    let file = object::File::parse(&*data).unwrap();
    let (start, _) = file
        .section_by_name(".llvm.offloading")
        .and_then(|s| s.file_range())
        .unwrap();
    let start = usize::try_from(start).unwrap() + at;
    data[start..start + bytes.len()].copy_from_slice(bytes);
    let out = dir.join(name);
    std::fs::write(&out, data).unwrap();
    out.display().to_string()
}

#[test]
fn corrupt_offload_binary_as_llvm_19() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // A size beyond the section (`unexpected_eof`), an unknown version (`parse_failed`).
    let too_big = corrupt(d, "size.o", 8, &0xff_ffffu64.to_le_bytes());
    let version = corrupt(d, "version.o", 4, &7u32.to_le_bytes());
    for input in [&too_big, &version] {
        same(
            &[
                "--host-triple=x86_64-pc-linux-gnu",
                "--dry-run",
                "--linker-path=/usr/bin/ld",
                "-o",
                "a.out",
                input,
            ],
            d,
        );
    }
    // `offkit link` keeps its own message: the file, the offset, what is wrong.
    let out = offkit_testutil::run(
        super::offkit(),
        [
            "link",
            "--dry-run",
            "--linker",
            "/usr/bin/ld",
            "--",
            "-o",
            "a.out",
            &too_big,
        ],
        d,
    );
    assert_eq!(out.code, Some(1));
    let err = out.stderr_str();
    assert!(
        err.contains(&format!("invalid offload data in {too_big}"))
            && err.contains("invalid offload binary size at offset 0x"),
        "{err}"
    );
}
