//! Real multi-TU HIP libraries (clang-19, `--offload-arch=gfx90a,gfx1030`, some translation
//! units with `--offload-compress`, linked by GNU ld and by lld): `offkit inspect` must find
//! every bundle of `.hip_fatbin` and every image, agreeing with the `__hip_fatbin_wrapper`
//! records; each image `offkit extract` writes must equal what LLVM 19's
//! `clang-offload-bundler -unbundle` gives when handed that one bundle; an image's address must
//! extract it again. Also: a hand-laid section of plain and compressed (v1–v3, zlib and zstd)
//! bundles with 4096-byte padding, wrapper records that disagree with the bundles, and
//! decompression bombs under a 1 GiB address-space limit.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use offkit_format::bundle::{binary, compressed};
use offkit_testutil::hip::{self, Linker};
use offkit_testutil::{run, run_ok};
use serde_json::Value;

const OFFKIT: &str = env!("CARGO_BIN_EXE_offkit");

/// Which translation units are compressed.
const COMPRESS: [bool; 4] = [false, true, false, true];

struct Fx {
    dir: PathBuf,
    bfd: PathBuf,
    lld: PathBuf,
    objs: Vec<PathBuf>,
}

fn fx() -> &'static Fx {
    static FX: OnceLock<Fx> = OnceLock::new();
    FX.get_or_init(|| {
        let dir = offkit_testutil::fixtures::shared_dir(env!("CARGO_TARGET_TMPDIR"), "hip");
        let (bfd, objs) = hip::library(&dir, "libk_bfd.so", &COMPRESS, Linker::Bfd);
        let (lld, _) = hip::library(&dir, "libk_lld.so", &COMPRESS, Linker::Lld);
        Fx {
            dir,
            bfd,
            lld,
            objs,
        }
    })
}

fn inspect_json(dir: &Path, file: &Path) -> Value {
    let out = run_ok(
        OFFKIT,
        ["inspect", "--json", &file.display().to_string()],
        dir,
    );
    serde_json::from_slice(&out.stdout).expect("inspect --json is JSON")
}

fn images(doc: &Value) -> Vec<Value> {
    doc["files"][0]["images"]
        .as_array()
        .expect("images")
        .clone()
}

/// Checks a library or object: `bundles` bundles of three entries each, bundle indices in
/// order, no warnings, and every extracted image equal to LLVM 19's unbundling of its bundle.
#[track_caller]
fn check(name: &str, file: &Path, bundles: usize, compressed_at: &[bool]) {
    let fx = fx();
    let work = fx.dir.join(format!("{name}.work"));
    std::fs::create_dir_all(&work).unwrap();
    let doc = inspect_json(&work, file);
    assert_eq!(doc["files"][0]["warnings"], Value::Array(vec![]), "{name}");
    let imgs = images(&doc);
    assert_eq!(imgs.len(), bundles * 3, "{name}: {imgs:#?}");
    // `offkit list` lists the same entries, bundle by bundle.
    let list = run_ok(
        OFFKIT,
        ["list", "--json", &file.display().to_string()],
        &work,
    );
    let list: Value = serde_json::from_slice(&list.stdout).unwrap();
    let entries = list["entries"].as_array().unwrap();
    assert_eq!(entries.len(), imgs.len(), "{name}: list");
    for (e, i) in entries.iter().zip(&imgs) {
        assert_eq!(e["bundle"], i["bundle"]["index"]);
        assert_eq!(e["id"], i["bundle_id"]);
        assert_eq!((&e["offset"], &e["size"]), (&i["offset"], &i["size"]));
    }
    let bytes = std::fs::read(file).unwrap();
    let out_dir = work.join("out");
    let listing = run_ok(
        OFFKIT,
        [
            "extract",
            &file.display().to_string(),
            "-o",
            &out_dir.display().to_string(),
        ],
        &work,
    )
    .stdout_str();
    let written: Vec<(String, String)> = listing
        .lines()
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            (f[0].to_string(), f[2].to_string())
        })
        .collect();
    assert_eq!(written.len(), imgs.len(), "{listing}");
    assert_eq!(compressed_at.len(), bundles);
    for (b, &is_compressed) in compressed_at.iter().enumerate() {
        let mine: Vec<&Value> = imgs.iter().filter(|i| i["bundle"]["index"] == b).collect();
        assert_eq!(mine.len(), 3, "{name}: bundle {b}");
        let off = mine[0]["bundle"]["offset"].as_u64().unwrap() as usize;
        let size = mine[0]["bundle"]["size"].as_u64().unwrap() as usize;
        assert_eq!(
            mine[0]["compression"].is_object(),
            is_compressed,
            "{name}: bundle {b} compression"
        );
        let oracle = hip::bundler_unbundle(&work, &format!("b{b}"), &bytes[off..off + size]);
        let mut ids: Vec<&str> = oracle.iter().map(|(id, _)| id.as_str()).collect();
        ids.sort();
        let listed: Vec<&str> = mine
            .iter()
            .map(|i| i["bundle_id"].as_str().unwrap())
            .collect();
        let mut sorted = listed.clone();
        sorted.sort();
        assert_eq!(ids, sorted, "{name}: bundle {b} IDs");
        assert_eq!(listed, hip::IDS, "{name}: bundle {b}: file order");
        for img in &mine {
            let id = img["bundle_id"].as_str().unwrap();
            let want = match oracle.iter().find(|(i, _)| i == id) {
                Some((_, Some(w))) => w.clone(),
                // LLVM 19 cannot unbundle the empty host entry; it is empty.
                _ if id.starts_with("host-") => Vec::new(),
                _ => panic!("{name}: LLVM 19 cannot unbundle `{id}`"),
            };
            let want = &want;
            let loc = img["location"].as_str().unwrap();
            assert!(loc.ends_with(&format!(".hip_fatbin[{b}]:{id}")), "{loc}");
            let (path, _) = written
                .iter()
                .find(|(_, l)| l == loc)
                .unwrap_or_else(|| panic!("{loc} not extracted: {listing}"));
            let got = std::fs::read(work.join(path)).unwrap();
            assert!(
                got == *want,
                "{name}: {loc} differs from LLVM 19's unbundling"
            );
            if want.is_empty() {
                continue;
            }
            // The address extracts the same bytes again.
            let addr = img["address"].as_str().unwrap();
            let one = work.join(format!("one-{b}-{}", id.replace(':', "_")));
            run_ok(
                OFFKIT,
                ["extract", addr, "-o", &one.display().to_string()],
                &work,
            );
            let files: Vec<_> = std::fs::read_dir(&one).unwrap().collect();
            assert_eq!(files.len(), 1, "{addr}");
            let again = std::fs::read(files[0].as_ref().unwrap().path()).unwrap();
            assert!(again == *want, "{addr}");
        }
    }
}

#[test]
fn gnu_ld_library_every_bundle_and_image() {
    let fx = fx();
    check("bfd", &fx.bfd, COMPRESS.len(), &COMPRESS);
}

#[test]
fn lld_library_every_bundle_and_image() {
    let fx = fx();
    check("lld", &fx.lld, COMPRESS.len(), &COMPRESS);
}

#[test]
fn objects_hold_one_bundle_each() {
    let fx = fx();
    for (i, o) in fx.objs.iter().enumerate() {
        check(&format!("obj{i}"), o, 1, &COMPRESS[i..=i]);
    }
}

/// The entries of one bundle: ID and payload.
type Entries = Vec<(Vec<u8>, Vec<u8>)>;

/// Plain and compressed bundles of every version and method, 4096-aligned with zero padding.
fn mixed_bundles() -> (Vec<Vec<u8>>, Vec<Entries>) {
    let mut bundles = Vec::new();
    let mut contents = Vec::new();
    let kinds = [
        None,
        Some((1, compressed::Method::Zlib)),
        Some((2, compressed::Method::Zstd)),
        None,
        Some((3, compressed::Method::Zstd)),
        Some((1, compressed::Method::Zstd)),
        Some((3, compressed::Method::Zlib)),
    ];
    for (i, k) in kinds.into_iter().enumerate() {
        let entries: Vec<(Vec<u8>, Vec<u8>)> = hip::IDS
            .iter()
            .enumerate()
            .map(|(j, id)| {
                let payload: Vec<u8> = if j == 0 {
                    Vec::new()
                } else {
                    let mut p = b"\x7fELF".to_vec();
                    p.extend((0..(3000 * j + 17 * i)).map(|x| (x * (i + j)) as u8));
                    p
                };
                (id.as_bytes().to_vec(), payload)
            })
            .collect();
        let refs: Vec<(&[u8], &[u8])> = entries.iter().map(|(a, b)| (&a[..], &b[..])).collect();
        let plain = binary::write(&refs, 4096).unwrap();
        let bytes = match k {
            None => plain,
            Some((version, method)) => {
                let opts = compressed::Options {
                    version,
                    method,
                    level: if method == compressed::Method::Zstd {
                        3
                    } else {
                        6
                    },
                    ..Default::default()
                };
                compressed::compress(&plain, &opts).unwrap().bytes
            }
        };
        bundles.push(bytes);
        contents.push(entries);
    }
    (bundles, contents)
}

#[test]
fn hand_laid_mixed_section() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let (bundles, contents) = mixed_bundles();
    let (section, starts) = hip::lay_out(&bundles, 4096);
    let raw = dir.join("mixed.bundle");
    std::fs::write(&raw, &section).unwrap();
    // A host object without HIP code gets the hand-laid section (and so no wrapper records).
    let stripped = hip::runtime_stub(dir);
    let with = dir.join("mixed.o");
    hip::with_hip_fatbin(dir, &stripped, &raw, &with);
    for file in [&raw, &with] {
        let doc = inspect_json(dir, file);
        let imgs = images(&doc);
        assert_eq!(imgs.len(), bundles.len() * 3, "{}", file.display());
        let base = if file == &raw {
            0
        } else {
            let sec = doc["files"][0]["containers"]
                .as_array()
                .unwrap()
                .iter()
                .find(|c| c["location"].as_str().unwrap().ends_with(".hip_fatbin[0]"))
                .expect("the first bundle")["offset"]
                .as_u64()
                .unwrap();
            sec
        };
        for (b, entries) in contents.iter().enumerate() {
            let mine: Vec<&Value> = imgs.iter().filter(|i| i["bundle"]["index"] == b).collect();
            assert_eq!(mine[0]["bundle"]["offset"], base + starts[b], "bundle {b}");
            for (img, (id, payload)) in mine.iter().zip(entries) {
                assert_eq!(img["bundle_id"].as_str().unwrap().as_bytes(), &id[..]);
                assert_eq!(img["size"], payload.len());
            }
        }
        let out = dir.join(format!(
            "{}.out",
            file.file_name().unwrap().to_string_lossy()
        ));
        let listing = run_ok(
            OFFKIT,
            [
                "extract",
                &file.display().to_string(),
                "--arch",
                "gfx90a",
                "-o",
                &out.display().to_string(),
            ],
            dir,
        )
        .stdout_str();
        let files: Vec<&str> = listing
            .lines()
            .map(|l| l.split('\t').next().unwrap())
            .collect();
        assert_eq!(files.len(), bundles.len(), "{listing}");
        for (f, entries) in files.iter().zip(&contents) {
            assert!(std::fs::read(dir.join(f)).unwrap() == entries[2].1, "{f}");
        }
    }
    // Garbage in the padding is an error naming its offset.
    let mut bad = section.clone();
    let at = starts[1] as usize - 5;
    bad[at] = 0x5a;
    let badf = dir.join("bad.bundle");
    std::fs::write(&badf, &bad).unwrap();
    let r = run(OFFKIT, ["inspect", &badf.display().to_string()], dir);
    assert_eq!(r.code, Some(1));
    assert!(
        r.stderr_str().contains(&format!("{at:#x}")) && r.stderr_str().contains("zero padding"),
        "{}",
        r.stderr_str()
    );
}

#[test]
fn wrapper_records_disagreeing_with_the_bundles_are_reported() {
    let fx = fx();
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let mut bytes = std::fs::read(&fx.bfd).unwrap();
    // GNU ld writes the pointers in place and as the addends of `R_X86_64_RELATIVE`
    // relocations: move the second record's pointer 16 bytes on, in both.
    let recs: Vec<usize> = bytes
        .windows(8)
        .enumerate()
        .filter(|(_, w)| *w == b"FPIH\x01\0\0\0")
        .map(|(i, _)| i)
        .collect();
    assert_eq!(recs.len(), COMPRESS.len());
    let p = recs[1] + 8;
    let v = u64::from_le_bytes(bytes[p..p + 8].try_into().unwrap());
    bytes[p..p + 8].copy_from_slice(&(v + 16).to_le_bytes());
    let mut rela = 8u64.to_le_bytes().to_vec();
    rela.extend_from_slice(&v.to_le_bytes());
    let at: Vec<usize> = bytes
        .windows(16)
        .enumerate()
        .filter(|(_, w)| *w == &rela[..])
        .map(|(i, _)| i + 8)
        .collect();
    assert_eq!(at.len(), 1, "the relocation of the second record");
    bytes[at[0]..at[0] + 8].copy_from_slice(&(v + 16).to_le_bytes());
    let f = dir.join("libmoved.so");
    std::fs::write(&f, &bytes).unwrap();
    let r = run_ok(OFFKIT, ["inspect", "--json", &f.display().to_string()], dir);
    let doc: Value = serde_json::from_slice(&r.stdout).unwrap();
    let warnings = doc["files"][0]["warnings"].as_array().unwrap();
    let text: Vec<&str> = warnings
        .iter()
        .map(|w| w["message"].as_str().unwrap())
        .collect();
    assert_eq!(text.len(), 2, "{text:#?}");
    assert!(
        text[0].contains("record 1") && text[0].contains("where no bundle starts"),
        "{text:?}"
    );
    assert!(
        text[1].starts_with("bundle 1 at") && text[1].contains("no `__hip_fatbin_wrapper`"),
        "{text:?}"
    );
    // Every image is still listed, and the text form warns on stderr.
    assert_eq!(images(&doc).len(), COMPRESS.len() * 3);
    let r = run_ok(OFFKIT, ["inspect", &f.display().to_string()], dir);
    assert!(r.stderr_str().contains("warning: "), "{}", r.stderr_str());

    // Bytes other than zeros in the padding after bundle 0: the sizes cannot be followed, the
    // (intact) records locate every bundle, and a warning says so.
    let mut bytes = std::fs::read(&fx.bfd).unwrap();
    let good = inspect_json(dir, &fx.bfd);
    let first = &images(&good)[0]["bundle"];
    let end = (first["offset"].as_u64().unwrap() + first["size"].as_u64().unwrap()) as usize;
    assert_eq!(bytes[end], 0);
    bytes[end] = 0x5a;
    let f = dir.join("libfilled.so");
    std::fs::write(&f, &bytes).unwrap();
    let doc = inspect_json(dir, &f);
    let warnings = doc["files"][0]["warnings"].as_array().unwrap();
    assert_eq!(warnings.len(), 1, "{warnings:#?}");
    let w = warnings[0]["message"].as_str().unwrap();
    assert!(
        w.contains("cannot be followed by their sizes") && w.contains(&format!("{end:#x}")),
        "{w}"
    );
    let found = serde_json::to_string(&images(&doc)).unwrap();
    let want = serde_json::to_string(&images(&good))
        .unwrap()
        .replace(&fx.bfd.display().to_string(), &f.display().to_string());
    assert_eq!(found, want);
}

/// A compressed bundle whose header claims `claim` bytes, over `stream` (a real stream).
fn ccob(version: u16, method: compressed::Method, claim: u64, stream: &[u8]) -> Vec<u8> {
    let mut out = b"CCOB".to_vec();
    out.extend_from_slice(&version.to_le_bytes());
    out.extend_from_slice(&method.to_raw().to_le_bytes());
    let hsize = match version {
        1 => 20,
        2 => 24,
        _ => 32,
    };
    let total = hsize + stream.len() as u64;
    match version {
        1 => out.extend_from_slice(&(claim as u32).to_le_bytes()),
        2 => {
            out.extend_from_slice(&(total as u32).to_le_bytes());
            out.extend_from_slice(&(claim as u32).to_le_bytes());
        }
        _ => {
            out.extend_from_slice(&total.to_le_bytes());
            out.extend_from_slice(&claim.to_le_bytes());
        }
    }
    out.extend_from_slice(&0u64.to_le_bytes());
    out.extend_from_slice(stream);
    out
}

/// A zstd frame of `size` zero bytes in RLE blocks of 128 KiB (4 bytes each), without a
/// content size: what a real bomb looks like.
fn zstd_rle(size: u64) -> Vec<u8> {
    const BLOCK: u64 = 128 << 10;
    // Magic; frame header descriptor 0 (no content size, not single-segment); window 128 KiB.
    let mut out = vec![0x28, 0xb5, 0x2f, 0xfd, 0x00, 0x38];
    let mut left = size;
    while left > 0 {
        let n = left.min(BLOCK);
        left -= n;
        let last = u32::from(left == 0);
        let header = ((n as u32) << 3) | (1 << 1) | last;
        out.extend_from_slice(&header.to_le_bytes()[..3]);
        out.push(0);
    }
    out
}

#[test]
fn decompression_bombs_under_a_memory_limit() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    // Real streams: 64 MiB of zeros (zstd, and zlib), and a small bundle's stream.
    let zeros = vec![0u8; 64 << 20];
    let zstd_zeros = compressed::compress_stream(&zeros, &compressed::Options::default()).unwrap();
    let zlib_zeros = compressed::compress_stream(
        &zeros,
        &compressed::Options {
            method: compressed::Method::Zlib,
            level: 9,
            ..Default::default()
        },
    )
    .unwrap();
    drop(zeros);
    let mut bombs: Vec<(String, Vec<u8>)> = Vec::new();
    for (version, claim) in [
        (1u16, u32::MAX as u64),
        (2, u32::MAX as u64),
        (3, 16u64 << 30),
        (3, 4u64 << 30),
    ] {
        for (method, stream) in [
            (compressed::Method::Zstd, &zstd_zeros),
            (compressed::Method::Zlib, &zlib_zeros),
        ] {
            // Headers that lie about a 64 MiB stream.
            let stem = format!("lie-v{version}-{}-{claim}", method.name());
            bombs.push((stem, ccob(version, method, claim, stream)));
        }
    }
    // A zlib stream that yields more than its header says.
    bombs.push((
        "more-zlib".into(),
        ccob(2, compressed::Method::Zlib, 32 << 20, &zlib_zeros),
    ));
    // Real zstd streams of 4 GiB and 16 GiB (of zeros, in RLE blocks) whose headers tell the
    // truth: listing needs only a prefix; holding them whole must fail cleanly.
    for (version, size) in [(2u16, u32::MAX as u64), (3, 4u64 << 30), (3, 16u64 << 30)] {
        bombs.push((
            format!("real-v{version}-{size}"),
            ccob(version, compressed::Method::Zstd, size, &zstd_rle(size)),
        ));
    }
    let mut inputs: Vec<PathBuf> = Vec::new();
    let stripped = hip::runtime_stub(dir);
    for (stem, bomb) in &bombs {
        let alone = dir.join(format!("{stem}.ccob"));
        std::fs::write(&alone, bomb).unwrap();
        let (section, _) = hip::lay_out(std::slice::from_ref(bomb), 4096);
        let sec = dir.join(format!("{stem}.sec"));
        std::fs::write(&sec, &section).unwrap();
        let inobj = dir.join(format!("{stem}.o"));
        hip::with_hip_fatbin(dir, &stripped, &sec, &inobj);
        let lib = dir.join(format!("lib{stem}.a"));
        run_ok(
            offkit_testutil::llvm_tool("llvm-ar"),
            [
                "rcs".to_string(),
                lib.display().to_string(),
                inobj.display().to_string(),
            ],
            dir,
        );
        inputs.extend([alone, inobj, lib]);
    }
    for input in &inputs {
        let i = input.display().to_string();
        for cmd in [
            format!("inspect '{i}'"),
            format!("inspect --json '{i}'"),
            format!("extract '{i}' -o '{i}.x'"),
            format!("list '{i}'"),
            format!("unbundle '{i}' --output-dir '{i}.u'"),
        ] {
            let r = run(
                "sh",
                ["-c", &format!("ulimit -v 1048576; exec {OFFKIT} {cmd}")],
                dir,
            );
            let err = r.stderr_str();
            assert!(
                r.code == Some(1) && err.starts_with("error: ") && !err.contains("panicked"),
                "`{cmd}`: {:?}\n{err}",
                r.code
            );
        }
    }
}
