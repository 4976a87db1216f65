//! Integration tests: bundle. The writers are compared byte for byte with LLVM 19's
//! `clang-offload-bundler`, and the StringMap model with its `-list` order.

use std::path::Path;

use offkit_format::bundle::{binary, compressed, text};
use offkit_testutil::{llvm_tool, run_ok};

fn bundler() -> std::path::PathBuf {
    llvm_tool("clang-offload-bundler")
}

/// Bundles `payloads` under `targets` with LLVM 19 and returns the bytes.
fn llvm_bundle(
    dir: &Path,
    ty: &str,
    targets: &[&str],
    payloads: &[&[u8]],
    extra: &[&str],
) -> Vec<u8> {
    let mut args = vec![
        format!("-type={ty}"),
        format!("-targets={}", targets.join(",")),
    ];
    for (i, p) in payloads.iter().enumerate() {
        let f = dir.join(format!("in{i}"));
        std::fs::write(&f, p).unwrap();
        args.push(format!("-input={}", f.display()));
    }
    let out = dir.join(format!("out.{ty}"));
    args.push(format!("-output={}", out.display()));
    args.extend(extra.iter().map(|s| s.to_string()));
    run_ok(bundler(), &args, dir);
    std::fs::read(out).unwrap()
}

/// Deterministic pseudo-random bytes.
fn bytes(seed: u64, n: usize) -> Vec<u8> {
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            // Compressible: a small alphabet.
            b"abcdefgh\0\x7f"[(x % 10) as usize]
        })
        .collect()
}

#[test]
fn binary_writer_matches_llvm() {
    let dir = tempfile::tempdir().unwrap();
    // What the user passes, and the standardised IDs LLVM writes.
    let targets = [
        "host-x86_64-unknown-linux-gnu",
        "hip-amdgcn-amd-amdhsa-gfx906",
        "hip-amdgcn-amd-amdhsa--gfx90a:xnack+",
    ];
    let ids = [
        "host-x86_64-unknown-linux-gnu-",
        "hip-amdgcn-amd-amdhsa--gfx906",
        "hip-amdgcn-amd-amdhsa--gfx90a:xnack+",
    ];
    let payloads: Vec<Vec<u8>> = (0..3).map(|i| bytes(i, 100 + 37 * i as usize)).collect();
    let prefs: Vec<&[u8]> = payloads.iter().map(|p| &p[..]).collect();
    for align in [1u64, 3, 16, 4096] {
        let theirs = llvm_bundle(
            dir.path(),
            "bc",
            &targets,
            &prefs,
            &[&format!("-bundle-align={align}")],
        );
        let entries: Vec<(&[u8], &[u8])> = ids
            .iter()
            .map(|i| i.as_bytes())
            .zip(prefs.iter().copied())
            .collect();
        let ours = binary::write(&entries, align).unwrap();
        assert_eq!(ours, theirs, "align {align}");
        let h = binary::parse(&ours, ours.len() as u64, 0).unwrap();
        for (e, p) in h.entries.iter().zip(&payloads) {
            assert_eq!(e.payload(&ours).unwrap(), &p[..]);
        }
    }
}

#[test]
fn text_writer_matches_llvm() {
    let dir = tempfile::tempdir().unwrap();
    let targets = [
        "host-x86_64-unknown-linux-gnu",
        "openmp-x86_64-pc-linux-gnu",
    ];
    let ids = [
        "host-x86_64-unknown-linux-gnu-",
        "openmp-x86_64-pc-linux-gnu-",
    ];
    let payloads: [&[u8]; 2] = [b"int main() {}\n", b"no newline at end"];
    for (ty, c) in [
        ("i", text::Comment::Slash),
        ("ll", text::Comment::Semicolon),
        ("s", text::Comment::Hash),
    ] {
        let theirs = llvm_bundle(dir.path(), ty, &targets, &payloads, &[]);
        let entries: Vec<(&[u8], &[u8])> = ids
            .iter()
            .map(|i| i.as_bytes())
            .zip(payloads.iter().copied())
            .collect();
        assert_eq!(text::write(c, &entries), theirs, "type {ty}");
        let back = text::parse(&theirs, c, 0).unwrap();
        assert_eq!(back[1].payload, payloads[1]);
    }
}

#[test]
fn compressed_writer_matches_llvm() {
    let dir = tempfile::tempdir().unwrap();
    let ids = [
        "host-x86_64-unknown-linux-gnu",
        "hip-amdgcn-amd-amdhsa-gfx906",
    ];
    let payloads: Vec<Vec<u8>> = vec![bytes(7, 300_000), bytes(8, 5000)];
    let prefs: Vec<&[u8]> = payloads.iter().map(|p| &p[..]).collect();
    let plain = llvm_bundle(dir.path(), "bc", &ids, &prefs, &[]);
    for level in [None, Some(1), Some(9), Some(-3), Some(30)] {
        let mut extra = vec!["-compress".to_string()];
        if let Some(l) = level {
            extra.push(format!("-compression-level={l}"));
        }
        let extra_refs: Vec<&str> = extra.iter().map(|s| s.as_str()).collect();
        let theirs = llvm_bundle(dir.path(), "bc", &ids, &prefs, &extra_refs);
        let ours = compressed::compress(
            &plain,
            &compressed::Options {
                level: level.unwrap_or(3),
                ..compressed::Options::default()
            },
        )
        .unwrap();
        assert_eq!(ours.bytes, theirs, "level {level:?}");
        let back = compressed::decompress_all(&theirs, 0, u64::MAX).unwrap();
        assert_eq!(back[0].1, plain);
    }
}

#[test]
fn stringmap_order_matches_llvm_list() {
    let dir = tempfile::tempdir().unwrap();
    // Several sizes, so that growth and collisions are exercised.
    let archs = [
        "gfx900", "gfx906", "gfx908", "gfx90a", "gfx940", "gfx1030", "gfx1100", "gfx803",
        "gfx1010", "gfx1101", "gfx1102", "gfx1031", "gfx942", "gfx941", "gfx909", "gfx90c",
        "gfx1200", "gfx1201", "gfx1150", "gfx1151", "gfx1012", "gfx1011", "gfx1032", "gfx1034",
    ];
    for n in [1usize, 3, 12, 13, 24] {
        let mut ids = vec!["host-x86_64-unknown-linux-gnu-".to_string()];
        ids.extend(
            archs[..n]
                .iter()
                .map(|a| format!("hip-amdgcn-amd-amdhsa--{a}")),
        );
        let entries: Vec<(&[u8], &[u8])> = ids.iter().map(|i| (i.as_bytes(), &b"x"[..])).collect();
        let b = binary::write(&entries, 1).unwrap();
        let f = dir.path().join("b.bc");
        std::fs::write(&f, &b).unwrap();
        let out = run_ok(
            bundler(),
            ["-type=bc", "-list", &format!("-input={}", f.display())],
            dir.path(),
        );
        let h = binary::parse(&b, b.len() as u64, 0).unwrap();
        let ours: String = binary::llvm19_order(&h.entries)
            .iter()
            .map(|e| format!("{}\n", e.id_str()))
            .collect();
        assert_eq!(ours, out.stdout_str(), "{n} entries");
    }
}
