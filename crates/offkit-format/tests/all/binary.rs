//! Integration tests: offload binaries.
//!
//! * the `DenseMap` key order and the version-1 writer against LLVM 19's
//!   `clang-offload-packager` on hundreds of random key sets (keys of 1 to 300 bytes, sets large
//!   enough to make the map grow);
//! * proptest round trips for every version: `parse(write(x)) == x`, and
//!   `write(parse(b)) == b` for canonical `b`;
//! * the offload binaries embedded in LTO bitcode host objects: the images in them are the
//!   bytes `clang-offload-packager --image` extracts.

use std::borrow::Cow;
use std::path::Path;

use offkit_format::binary::{self, Compression, Image, ImageSpec, Version};
use offkit_format::kind::{ImageKind, OffloadKind};
use offkit_llvm::adt::densemap;
use offkit_llvm::bitcode;
use offkit_testutil::bitcode as tb;
use offkit_testutil::packager::{llvm_packager, write_response_file, Rng};
use offkit_testutil::run_ok;
use proptest::prelude::*;

/// One random `--image` value: `file=img.bin`, `triple=…`, and `n` random extra keys (some
/// repeated, some longer than 64 bytes), shuffled. Returns the value and its keys in order of
/// first appearance with their joined values.
fn random_image_arg(rng: &mut Rng, n: usize) -> (String, Vec<(String, String)>) {
    let mut parts: Vec<(String, String)> = vec![
        ("file".into(), "img.bin".into()),
        ("triple".into(), {
            let n = rng.range(1, 30);
            rng.word(n)
        }),
    ];
    for _ in 0..n {
        let len = match rng.below(4) {
            0 => rng.range(1, 16),
            1 => rng.range(17, 64),
            2 => rng.range(65, 300),
            _ => rng.range(1, 8),
        };
        let key = rng.word(len);
        if key == "file" || key == "kind" || key == "triple" {
            continue;
        }
        let vlen = rng.range(0, 12);
        parts.push((key.clone(), rng.word(vlen)));
        if rng.chance(1, 10) {
            // A repeated key: its values are joined with `,`.
            let vlen = rng.range(0, 5);
            parts.push((key, rng.word(vlen)));
        }
    }
    rng.shuffle(&mut parts);
    let arg = parts
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect::<Vec<_>>()
        .join(",");
    let mut joined: Vec<(String, String)> = Vec::new();
    for (k, v) in parts {
        match joined.iter_mut().find(|(jk, _)| *jk == k) {
            Some((_, jv)) => {
                jv.push(',');
                jv.push_str(&v);
            }
            None => joined.push((k, v)),
        }
    }
    (arg, joined)
}

/// The packager's output for `--image` values, predicted with offkit's DenseMap model and
/// version-1 writer.
fn predicted(images: &[Vec<(String, String)>], image: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    for keys in images {
        let names: Vec<&str> = keys.iter().map(|(k, _)| k.as_str()).collect();
        let strings: Vec<(&[u8], &[u8])> = densemap::iteration_order(&names)
            .into_iter()
            .map(|(i, _)| (keys[i].0.as_bytes(), keys[i].1.as_bytes()))
            .filter(|(k, _)| *k != b"file" && *k != b"kind")
            .collect();
        let spec = ImageSpec {
            image_kind: ImageKind::None,
            offload_kind: OffloadKind::None,
            flags: 0,
            strings,
        };
        out.extend(binary::write_v1(&spec, image, offkit_llvm::LlvmVersion::V19).unwrap());
    }
    out
}

#[test]
fn densemap_order_and_v1_bytes_match_llvm_19() {
    let dir = tempfile::tempdir().unwrap();
    let image = b"ABCDEFGHIJ";
    std::fs::write(dir.path().join("img.bin"), image).unwrap();
    let mut rng = Rng::new(19);
    let mut cases = 0;
    // Four runs of 100 images each (one `DenseMap` per `--image`), given through a response
    // file because the command lines are long.
    for run in 0..4 {
        let mut args = vec!["-o".to_string(), "out.bin".to_string()];
        let mut expected = Vec::new();
        for i in 0..100 {
            // Mostly small sets, some past 47 keys so that the map grows to 128 or 256 buckets.
            let n = if i % 5 == 0 {
                rng.range(40, 150)
            } else {
                rng.range(0, 20)
            };
            let (arg, keys) = random_image_arg(&mut rng, n);
            args.push(format!("--image={arg}"));
            expected.push(keys);
        }
        write_response_file(&dir.path().join("args.rsp"), &args);
        run_ok(llvm_packager(), ["@args.rsp"], dir.path());
        let got = std::fs::read(dir.path().join("out.bin")).unwrap();
        let want = predicted(&expected, image);
        if got != want {
            // Name the first image whose key order differs.
            let bins: Vec<_> = binary::parse_all(&got, 0)
                .collect::<Result<_, _>>()
                .unwrap();
            let mine: Vec<_> = binary::parse_all(&want, 0)
                .collect::<Result<_, _>>()
                .unwrap();
            for (i, (a, b)) in bins.iter().zip(&mine).enumerate() {
                assert_eq!(
                    a.entries[0].strings,
                    b.entries[0].strings,
                    "run {run}, image {i}: {}",
                    args[i + 2]
                );
            }
            panic!("run {run}: output differs in bytes");
        }
        cases += expected.len();
    }
    assert_eq!(cases, 400);
}

fn arb_kind(version: Version) -> BoxedStrategy<OffloadKind> {
    let raw = prop_oneof![0u16..5, any::<u16>()];
    match version {
        Version::V1 => raw.prop_map(|v| OffloadKind::from_raw(1, v)).boxed(),
        _ => raw.prop_map(|v| OffloadKind::from_raw(2, v)).boxed(),
    }
}

/// Keys never contain NUL; values may in versions 2 and 3.
fn arb_strings(version: Version) -> BoxedStrategy<Vec<(Vec<u8>, Vec<u8>)>> {
    let key = proptest::collection::vec(1u8..=255, 0..80);
    let value = match version {
        Version::V1 => proptest::collection::vec(1u8..=255, 0..80).boxed(),
        _ => proptest::collection::vec(any::<u8>(), 0..80).boxed(),
    };
    proptest::collection::vec((key, value), 0..6).boxed()
}

#[derive(Debug, Clone)]
struct OwnedImage {
    image_kind: ImageKind,
    offload_kind: OffloadKind,
    flags: u32,
    strings: Vec<(Vec<u8>, Vec<u8>)>,
    data: Vec<u8>,
}

impl OwnedImage {
    fn borrow(&self) -> Image<'_> {
        Image {
            spec: ImageSpec {
                image_kind: self.image_kind,
                offload_kind: self.offload_kind,
                flags: self.flags,
                strings: self
                    .strings
                    .iter()
                    .map(|(k, v)| (k.as_slice(), v.as_slice()))
                    .collect(),
            },
            data: &self.data,
        }
    }
}

fn arb_image(version: Version) -> impl Strategy<Value = OwnedImage> {
    (
        any::<u16>(),
        arb_kind(version),
        any::<u32>(),
        arb_strings(version),
        proptest::collection::vec(any::<u8>(), 0..300),
    )
        .prop_map(|(ik, ok, flags, strings, data)| OwnedImage {
            image_kind: ImageKind::from_raw(ik % 9),
            offload_kind: ok,
            flags,
            strings,
            data,
        })
}

fn arb_case() -> impl Strategy<Value = (Version, Compression, Vec<OwnedImage>)> {
    prop_oneof![Just(Version::V1), Just(Version::V2), Just(Version::V3)].prop_flat_map(|v| {
        let compression = match v {
            Version::V3 => prop_oneof![
                Just(Compression::None),
                (0u32..=9).prop_map(|level| Compression::Zlib { level }),
                (1i32..=19).prop_map(|level| Compression::Zstd { level }),
            ]
            .boxed(),
            _ => Just(Compression::None).boxed(),
        };
        let n = if v == Version::V1 { 0..5 } else { 1..5 };
        (
            Just(v),
            compression,
            proptest::collection::vec(arb_image(v), n),
        )
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// `parse(write(x)) == x`, and the canonical bytes written again are the same bytes.
    #[test]
    fn round_trip_every_version((version, compression, images) in arb_case()) {
        let borrowed: Vec<Image<'_>> = images.iter().map(OwnedImage::borrow).collect();
        let bytes = binary::write(version, &borrowed, compression, offkit_llvm::LlvmVersion::V22).unwrap();
        let bins: Vec<_> = binary::parse_all(&bytes, 0).collect::<Result<_, _>>().unwrap();
        let parsed: Vec<Image<'_>> = bins.iter().flat_map(|b| b.entries.iter().map(|e| e.as_image())).collect();
        prop_assert_eq!(&parsed, &borrowed);
        for b in &bins {
            prop_assert_eq!(b.version, version.to_raw());
            prop_assert_eq!(b.compression.is_some(), compression != Compression::None);
        }
        // write(parse(b)) == b
        let again = binary::write(version, &parsed, compression, offkit_llvm::LlvmVersion::V22).unwrap();
        prop_assert_eq!(again, bytes);
    }
}

#[test]
fn image_offsets_are_absolute() {
    let spec = ImageSpec {
        image_kind: ImageKind::Object,
        offload_kind: OffloadKind::OpenMp,
        flags: 0,
        strings: vec![(b"triple", b"x86_64-pc-linux-gnu")],
    };
    let v1 = binary::write_v1(&spec, b"image", offkit_llvm::LlvmVersion::V19).unwrap();
    let mut data = vec![0u8; 0x100];
    data.extend_from_slice(&v1);
    let b = binary::parse_one(&data[0x100..], 0x100).unwrap();
    let e = &b.entries[0];
    assert_eq!(
        &data[e.image_offset as usize..e.image_offset as usize + 5],
        b"image"
    );
    assert!(matches!(e.image, Cow::Borrowed(_)));
}

/// Checks that offkit's embedded binaries hold exactly the images LLVM's packager extracts.
#[track_caller]
fn same_images_as_packager(dir: &Path, obj: &Path) -> usize {
    let data = std::fs::read(obj).unwrap();
    let embedded = bitcode::embedded_objects(&data, 0).unwrap();
    let mut n = 0;
    for e in &embedded {
        for b in binary::parse_all(&e.data, e.offset) {
            let b = b.unwrap();
            for entry in &b.entries {
                let mut spec = format!("triple={}", entry.triple());
                if !entry.arch().is_empty() {
                    spec += &format!(",arch={}", entry.arch());
                }
                let out = format!("x{n}.img");
                let want = tb::packager_extract(dir, obj, &spec, &out).unwrap();
                assert!(
                    want == entry.image.as_ref(),
                    "image {n} ({spec}) of {}",
                    obj.display()
                );
                n += 1;
            }
        }
    }
    n
}

#[test]
fn embedded_objects_match_packager_extraction() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let omp = |name: &str, extra: &[&str]| {
        let mut args = vec!["-flto", "-fopenmp"];
        args.extend_from_slice(extra);
        tb::compile(d, name, offkit_testutil::fixtures::OPENMP_SAXPY, &args)
    };
    let x86 = omp("x86.c", &["-fopenmp-targets=x86_64-pc-linux-gnu"]);
    assert_eq!(same_images_as_packager(d, &x86), 1);
    let two = omp(
        "two.c",
        &[
            "-fopenmp-targets=x86_64-pc-linux-gnu,amdgcn-amd-amdhsa",
            "--offload-arch=gfx90a",
            "-nogpulib",
        ],
    );
    assert_eq!(same_images_as_packager(d, &two), 2);
    let lto = omp(
        "olto.c",
        &[
            "-fopenmp-targets=amdgcn-amd-amdhsa,nvptx64-nvidia-cuda",
            "-Xopenmp-target=amdgcn-amd-amdhsa",
            "--offload-arch=gfx90a",
            "-Xopenmp-target=nvptx64-nvidia-cuda",
            "--offload-arch=sm_70",
            "-nogpulib",
            "-foffload-lto",
        ],
    );
    assert_eq!(same_images_as_packager(d, &lto), 2);
    let mut hip = tb::HIP_FLAGS.to_vec();
    hip.extend(["--offload-new-driver", "-flto"]);
    let hip = tb::compile(d, "host.hip", tb::HIP_HOST, &hip);
    assert_eq!(same_images_as_packager(d, &hip), 1);
}
