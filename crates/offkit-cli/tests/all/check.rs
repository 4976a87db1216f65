//! `offkit check` against LLVM 19's bundler: over a matrix of image target IDs (features any,
//! on, off; generic targets) and devices, a device is covered exactly when
//! `clang-offload-bundler -unbundle -targets=hipv4-amdgcn-amd-amdhsa--<device>` finds the image
//! in a bundle that holds it. The bundler has no rule for generic targets (it compares
//! processors); there the expectation is the bundler's answer for the device's own processor
//! with the image's features, when LLVM's AMDGPU documentation puts the device in the generic
//! target's family, and "not covered" otherwise. Where a bundle holds several candidates, the
//! image `check` names is the one the bundler extracts.

use std::path::Path;

use offkit_llvm::target_id::amdgpu;
use offkit_llvm::LlvmVersion;
use offkit_testutil::{llvm_tool, run, run_ok};

const IMAGES: [&str; 11] = [
    "gfx90a",
    "gfx90a:xnack+",
    "gfx90a:xnack-",
    "gfx90a:sramecc+:xnack+",
    "gfx90a:sramecc-",
    "gfx906",
    "gfx906:xnack-",
    "gfx1030",
    "gfx9-generic",
    "gfx9-generic:xnack-",
    "gfx11-generic",
];

const DEVICES: [&str; 10] = [
    "gfx90a",
    "gfx90a:xnack+",
    "gfx90a:xnack-",
    "gfx90a:sramecc+:xnack+",
    "gfx90a:sramecc-:xnack-",
    "gfx906",
    "gfx906:xnack-",
    "gfx1030",
    "gfx1100",
    "gfx1103",
];

fn target(id: &str) -> String {
    format!("hipv4-amdgcn-amd-amdhsa--{id}")
}

/// Bundles `images` (payload: `image <id>`) with an empty host entry into `out`.
fn bundle(dir: &Path, images: &[&str], out: &str) {
    std::fs::write(dir.join("host.bin"), b"").unwrap();
    let mut targets = vec!["host-x86_64-unknown-linux-gnu".to_string()];
    let mut args = vec!["-type=o".to_string(), "-input=host.bin".to_string()];
    for (n, id) in images.iter().enumerate() {
        let f = format!("img{n}.bin");
        std::fs::write(dir.join(&f), format!("image {id}")).unwrap();
        targets.push(target(id));
        args.push(format!("-input={f}"));
    }
    args.push(format!("-targets={}", targets.join(",")));
    args.push(format!("-output={out}"));
    run_ok(llvm_tool("clang-offload-bundler"), &args, dir);
}

/// What LLVM 19's bundler extracts from `file` for `device` (`None`: nothing compatible).
fn bundler_picks(dir: &Path, file: &str, device: &str) -> Option<String> {
    let _ = std::fs::remove_file(dir.join("out.bin"));
    let out = run(
        llvm_tool("clang-offload-bundler"),
        [
            "-type=o",
            "-unbundle",
            &format!("-input={file}"),
            &format!("-targets={}", target(device)),
            "-output=out.bin",
        ],
        dir,
    );
    (out.code == Some(0)).then(|| std::fs::read_to_string(dir.join("out.bin")).unwrap())
}

/// The target ID of the image `offkit check` says `device` loads from `file`.
fn check_picks(dir: &Path, file: &str, device: &str) -> Option<String> {
    let out = run(
        env!("CARGO_BIN_EXE_offkit"),
        ["check", "--json", file, "--device", device],
        dir,
    );
    assert!(matches!(out.code, Some(0 | 1)), "{}", out.stderr_str());
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    let v = &doc["files"][0]["devices"][0];
    assert_eq!(v["covered"].as_bool(), Some(out.code == Some(0)));
    v["image"]["target_id"].as_str().map(str::to_string)
}

fn family_of(generic: &str) -> Vec<&'static str> {
    amdgpu::generic_members(LlvmVersion::NEWEST, generic).collect()
}

#[test]
fn matrix_agrees_with_the_bundler() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    for (n, image) in IMAGES.iter().enumerate() {
        let file = format!("b{n}.hipfb");
        bundle(dir, &[image], &file);
        let (processor, features) = image.split_once(':').map_or((*image, ""), |(p, f)| (p, f));
        for device in DEVICES {
            let got = check_picks(dir, &file, device);
            let want = if processor.ends_with("-generic") {
                let dev_processor = device.split(':').next().unwrap();
                if family_of(processor).contains(&dev_processor) {
                    // The bundler's rule for the device's own processor with these features.
                    let own = if features.is_empty() {
                        dev_processor.to_string()
                    } else {
                        format!("{dev_processor}:{features}")
                    };
                    let alt = format!("alt{n}.hipfb");
                    bundle(dir, &[&own], &alt);
                    bundler_picks(dir, &alt, device).map(|_| image.to_string())
                } else {
                    None
                }
            } else {
                bundler_picks(dir, &file, device).map(|p| p["image ".len()..].to_string())
            };
            assert_eq!(got, want, "image {image} on device {device}");
        }
    }
}

#[test]
fn several_candidates_pick_what_the_bundler_extracts() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    bundle(
        dir,
        &["gfx90a:xnack-", "gfx90a:xnack+", "gfx1030", "gfx906:xnack+"],
        "multi.hipfb",
    );
    for device in [
        "gfx90a:xnack+",
        "gfx90a:sramecc+:xnack-",
        "gfx1030",
        "gfx906:xnack+",
    ] {
        let llvm =
            bundler_picks(dir, "multi.hipfb", device).map(|p| p["image ".len()..].to_string());
        assert!(llvm.is_some(), "{device}");
        assert_eq!(check_picks(dir, "multi.hipfb", device), llvm, "{device}");
    }
    // With a generic image beside the processor's own, the own one is loaded.
    bundle(dir, &["gfx9-generic:xnack+", "gfx906:xnack+"], "gen.hipfb");
    assert_eq!(
        check_picks(dir, "gen.hipfb", "gfx906:xnack+").as_deref(),
        Some("gfx906:xnack+")
    );
    assert_eq!(
        check_picks(dir, "gen.hipfb", "gfx900:xnack+").as_deref(),
        Some("gfx9-generic:xnack+")
    );
}
