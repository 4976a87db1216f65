//! The linker wrapper's rule (`target_id::linker`) against `clang-linker-wrapper` 19.

use std::path::Path;

use offkit_llvm::target_id::linker;
use offkit_testutil::targets::{run_all, Job, Rng};
use offkit_testutil::{llvm_tool, run_ok};

use super::{assert_no_mismatch, lossy};

/// Device images: `(triple, arch)`. Only triples the wrapper can link (even in `--dry-run`).
const LINK_IMAGES: &[(&str, &str)] = &[
    ("amdgcn-amd-amdhsa", "gfx90a"),
    ("amdgcn-amd-amdhsa", "gfx90a:xnack+"),
    ("amdgcn-amd-amdhsa", "gfx90a:xnack-"),
    ("amdgcn-amd-amdhsa", "gfx90a:sramecc+"),
    ("amdgcn-amd-amdhsa", "gfx90a:sramecc-:xnack+"),
    ("amdgcn-amd-amdhsa", "gfx90a:xnack+:sramecc+"),
    ("amdgcn-amd-amdhsa", "gfx906"),
    ("amdgcn-amd-amdhsa", "gfx906:xnack-"),
    ("amdgcn-amd-amdhsa", "generic"),
    ("amdgcn-amd-amdhsa", "tahiti"),
    ("amdgcn-amd-amdhsa", "gfx600"),
    ("amdgcn--amdhsa", "gfx90a"),
    ("amdgcn--amdhsa", "gfx90a:xnack+"),
    ("nvptx64-nvidia-cuda", "sm_70"),
    ("nvptx64-nvidia-cuda", "sm_80"),
    ("nvptx64-nvidia-cuda", "generic"),
    ("x86_64-pc-linux-gnu", ""),
    ("x86_64-pc-linux-gnu", "generic"),
    ("x86_64-unknown-linux-gnu", ""),
];

/// One device-link command of a `--dry-run` trace: the group's `(triple, arch)` and the
/// `(triple, arch)` of each input image, in order (recovered from the temporary file names
/// `<stem>-<triple>-<arch>-<6 hex>.o`).
type Group = ((String, String), Vec<(String, String)>);

fn parse_device_links(stderr: &str) -> Vec<Group> {
    let mut groups = Vec::new();
    for line in stderr.lines() {
        if !line.contains("--no-default-config") {
            continue;
        }
        let words: Vec<&str> = line
            .split_whitespace()
            .map(|w| w.trim_matches('"'))
            .collect();
        let mut triple = String::new();
        let mut arch = String::new();
        let mut inputs = Vec::new();
        for w in &words {
            if let Some(t) = w.strip_prefix("--target=") {
                triple = t.into();
            } else if let Some(a) = w
                .strip_prefix("-mcpu=")
                .or_else(|| w.strip_prefix("-march="))
            {
                arch = if a == "native" {
                    String::new()
                } else {
                    a.into()
                };
            } else if w.ends_with(".o") {
                let base = Path::new(w).file_name().unwrap().to_str().unwrap();
                let base = base.strip_suffix(".o").unwrap();
                // Drop the random suffix and the container's stem (empty for copies).
                let (rest, _) = base.rsplit_once('-').unwrap();
                let rest = rest.split_once('-').map_or(rest, |(_, r)| r);
                let image = LINK_IMAGES
                    .iter()
                    .find(|(t, a)| format!("{t}-{a}") == rest)
                    .unwrap_or_else(|| panic!("unknown device input {w}"));
                inputs.push((image.0.to_string(), image.1.to_string()));
            }
        }
        groups.push(((triple, arch), inputs));
    }
    groups
}

/// Groups formed by `clang-linker-wrapper --dry-run` from fat objects whose images carry
/// chosen `(triple, arch)` pairs, against `linker::group` (built on `linker::is_compatible`).
#[test]
fn linker_wrapper_grouping() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("d.c"), "int dev_x = 1;\n").unwrap();
    std::fs::write(d.join("host.c"), "int host_y = 2;\n").unwrap();
    let clang = llvm_tool("clang");
    run_ok(&clang, ["-c", "d.c", "-o", "d.o"], d);

    // Host objects: one per image, plus a few carrying several images.
    let mut objects: Vec<Vec<usize>> = (0..LINK_IMAGES.len()).map(|i| vec![i]).collect();
    let mut rng = Rng::new(5150);
    for _ in 0..6 {
        objects.push(
            (0..2 + rng.below(2))
                .map(|_| rng.below(LINK_IMAGES.len()))
                .collect(),
        );
    }
    let mut pack = Vec::new();
    for (o, images) in objects.iter().enumerate() {
        let mut args = vec!["-o".to_string(), format!("h{o}.out")];
        for &i in images {
            let (t, a) = LINK_IMAGES[i];
            args.push(format!("--image=file=d.o,triple={t},arch={a},kind=openmp"));
        }
        pack.push(Job::new(llvm_tool("clang-offload-packager"), args, d));
    }
    for out in run_all(&pack) {
        assert_eq!(out.code, Some(0), "{}", out.stderr_str());
    }
    let embed: Vec<Job> = (0..objects.len())
        .map(|o| {
            Job::new(
                &clang,
                [
                    "-c".to_string(),
                    "host.c".into(),
                    "-Xclang".into(),
                    format!("-fembed-offload-object=h{o}.out"),
                    "-o".into(),
                    format!("h{o}.o"),
                ],
                d,
            )
        })
        .collect();
    for out in run_all(&embed) {
        assert_eq!(out.code, Some(0), "{}", out.stderr_str());
    }

    let mut scenarios: Vec<Vec<usize>> = Vec::new();
    for _ in 0..60 {
        let mut s = Vec::new();
        for _ in 0..1 + rng.below(6) {
            let o = rng.below(objects.len());
            if !s.contains(&o) {
                s.push(o);
            }
        }
        scenarios.push(s);
    }
    let jobs: Vec<Job> = scenarios
        .iter()
        .map(|s| {
            let mut args: Vec<String> = [
                "--dry-run",
                "--wrapper-verbose",
                "--host-triple=x86_64-pc-linux-gnu",
                "--linker-path=/usr/bin/ld",
                "-o",
                "a.out",
            ]
            .iter()
            .map(|s| s.to_string())
            .collect();
            args.extend(s.iter().map(|o| format!("h{o}.o")));
            Job::new(llvm_tool("clang-linker-wrapper"), args, d)
        })
        .collect();
    let results = run_all(&jobs);
    let mut mismatches = Vec::new();
    let mut compared = 0;
    for (s, out) in scenarios.iter().zip(&results) {
        assert_eq!(out.code, Some(0), "{}", out.stderr_str());
        let llvm = parse_device_links(&out.stderr_str());
        let images: Vec<(&[u8], &[u8])> = s
            .iter()
            .flat_map(|&o| objects[o].iter())
            .map(|&i| (LINK_IMAGES[i].0.as_bytes(), LINK_IMAGES[i].1.as_bytes()))
            .collect();
        let ours: Vec<Group> = linker::group(&images)
            .into_iter()
            .map(|((t, a), members)| {
                (
                    (lossy(t), lossy(a)),
                    members
                        .iter()
                        .map(|&m| (lossy(images[m].0), lossy(images[m].1)))
                        .collect(),
                )
            })
            .collect();
        compared += 1;
        if llvm != ours {
            mismatches.push(format!("objects {s:?}: LLVM {llvm:?}, offkit {ours:?}"));
        }
    }
    assert_no_mismatch("linker wrapper grouping", compared, &mismatches);
}
