//! Compressed bundles and LLVM 22: offkit's own writers (`offkit bundle --compress`, `offkit
//! compress`) give LLVM 22's bytes at `--ccob-version 3` (22's default) and 2
//! (`COMPRESSED_BUNDLE_FORMAT_VERSION=2`), run inside the Debian 13 root so that both link the
//! same libzstd; and payloads that start with a zstd skippable frame, which LLVM 22 reads, are
//! read by offkit's own commands too, as are padded sequences of compressed bundles.

use std::path::Path;

use offkit_format::bundle::compressed::{self, compress_stream, Method, Options};
use offkit_testutil::llvm22::{self, Run, Scratch, Side};

const HOST: &str = "host-x86_64-unknown-linux-gnu";
const DEV: &str = "hipv4-amdgcn-amd-amdhsa--gfx950";

fn shims() {
    llvm22::offkit_shims(Path::new(env!("CARGO_BIN_EXE_offkit")));
}

/// Inputs: an empty-ish host entry and a compressible device image.
fn inputs(s: &Scratch) {
    s.write("h.bin", "host");
    // Half noise (a linear congruential generator), half runs: zstd has work to do.
    let mut x = 1u32;
    let dev: Vec<u8> = (0..300_000u32)
        .map(|i| {
            x = x.wrapping_mul(1_103_515_245).wrapping_add(12_345);
            if i % 1024 < 512 {
                (x >> 16) as u8
            } else {
                (i / 1024) as u8
            }
        })
        .collect();
    s.write("dev.bin", dev);
}

fn llvm(s: &Scratch, args: &[&str], env: Option<(&str, &str)>) {
    let mut r = Run::new(Side::Llvm, "clang-offload-bundler", args, &s.inner());
    if let Some((k, v)) = env {
        r = r.env(k, v);
    }
    r.ok();
}

fn offkit(s: &Scratch, args: &[&str]) -> offkit_testutil::Output {
    Run::new(Side::Offkit, "offkit", args, &s.inner()).ok()
}

#[test]
fn offkit_writes_llvm_22_compressed_bundles() {
    shims();
    let s = Scratch::new();
    inputs(&s);
    let targets = format!("-targets={HOST},{DEV}");
    let common = ["-type=o", &targets, "-input=h.bin", "-input=dev.bin"];
    llvm(&s, &[&common[..], &["-output=plain.bundle"]].concat(), None);
    llvm(
        &s,
        &[&common[..], &["-compress", "-output=llvm3.ccob"]].concat(),
        None,
    );
    llvm(
        &s,
        &[&common[..], &["-compress", "-output=llvm2.ccob"]].concat(),
        Some(("COMPRESSED_BUNDLE_FORMAT_VERSION", "2")),
    );
    assert_eq!(&s.read("llvm3.ccob").unwrap()[4..6], &3u16.to_le_bytes());
    let t = [
        "--target",
        &format!("{HOST}-=h.bin"),
        "--target",
        &format!("{DEV}=dev.bin"),
    ];
    for v in ["3", "2"] {
        let out = format!("ours{v}.ccob");
        offkit(
            &s,
            &[
                &["bundle", "--compress", "--ccob-version", v, "-o", &out][..],
                &t,
            ]
            .concat(),
        );
        let theirs = s.read(format!("llvm{v}.ccob")).expect("LLVM 22's output");
        assert!(theirs.len() > 40 && theirs.starts_with(b"CCOB"));
        assert_eq!(s.read(&out).as_ref(), Some(&theirs), "bundle v{v}");
        let out = format!("compressed{v}.ccob");
        offkit(
            &s,
            &["compress", "plain.bundle", "--ccob-version", v, "-o", &out],
        );
        assert_eq!(
            s.read(&out),
            s.read(format!("llvm{v}.ccob")),
            "compress v{v}"
        );
    }
}

/// A version-3 compressed bundle around `stream`, the zstd stream of `bundle`.
fn ccob3(bundle: &[u8], stream: &[u8]) -> Vec<u8> {
    let mut out = compressed::MAGIC.to_vec();
    out.extend_from_slice(&3u16.to_le_bytes());
    out.extend_from_slice(&Method::Zstd.to_raw().to_le_bytes());
    out.extend_from_slice(&(32 + stream.len() as u64).to_le_bytes());
    out.extend_from_slice(&(bundle.len() as u64).to_le_bytes());
    out.extend_from_slice(&compressed::truncated_md5(bundle).to_le_bytes());
    out.extend_from_slice(stream);
    out
}

#[test]
fn skippable_frames_and_padded_sequences_read_like_llvm_22() {
    shims();
    let s = Scratch::new();
    inputs(&s);
    llvm(
        &s,
        &[
            "-type=o",
            &format!("-targets={HOST},{DEV}"),
            "-input=h.bin",
            "-input=dev.bin",
            "-output=plain.bundle",
        ],
        None,
    );
    let bundle = s.read("plain.bundle").unwrap();
    let frames =
        compress_stream(&bundle, &Options::written_by(offkit_llvm::LlvmVersion::V22)).unwrap();
    let mut skippable = 0x184D_2A50u32.to_le_bytes().to_vec();
    skippable.extend_from_slice(&6u32.to_le_bytes());
    skippable.extend_from_slice(b"offkit");
    s.write("skip.ccob", ccob3(&bundle, &[skippable, frames].concat()));
    // LLVM 22 reads it; so does offkit's own unbundle, and inspect lists it.
    llvm(
        &s,
        &[
            "-type=o",
            "-unbundle",
            &format!("-targets={DEV}"),
            "-input=skip.ccob",
            "-output=llvm.out",
        ],
        None,
    );
    assert!(s.read("llvm.out").is_some());
    assert_eq!(s.read("llvm.out"), s.read("dev.bin"));
    offkit(
        &s,
        &[
            "unbundle",
            "skip.ccob",
            "--target",
            &format!("{DEV}=ours.out"),
        ],
    );
    assert_eq!(s.read("ours.out"), s.read("dev.bin"));
    let listed = offkit(&s, &["inspect", "skip.ccob"]).stdout_str();
    assert!(listed.contains("gfx950"), "{listed}");
    // Two compressed bundles padded to 4096, as in a `.hip_fatbin` section: both are listed,
    // and each image extracts.
    let one = s.read("skip.ccob").unwrap();
    let mut seq = Vec::new();
    for _ in 0..2 {
        seq.extend_from_slice(&one);
        seq.resize(seq.len().div_ceil(4096) * 4096, 0);
    }
    s.write("seq.bin", &seq);
    let listed = offkit(&s, &["inspect", "seq.bin"]).stdout_str();
    assert!(listed.contains("2 bundles (2 compressed)"), "{listed}");
    let out = offkit(&s, &["extract", "seq.bin", "-o", "x", "--arch", "gfx950"]).stdout_str();
    assert_eq!(out.lines().count(), 2, "{out}");
}
