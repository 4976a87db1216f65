//! The bundler's `-targets` checks and `-check-input-archive` (`target_id::bundle`) against
//! `clang-offload-bundler` 19.

use offkit_llvm::target_id::Conflict;
use offkit_llvm::LlvmVersion::V19;
use std::collections::BTreeSet;

use offkit_llvm::target_id::bundle::{
    archive_conflict_message, check_archive_member, check_targets,
};
use offkit_testutil::targets::{run_all, write_bundle, Job, Rng};
use offkit_testutil::{llvm_tool, run_ok};

use super::bundler::bundler;
use super::{assert_no_mismatch, lossy};

/// `-targets` checks (`ClangOffloadBundler.cpp`'s `main`) in both modes: exit status and the exact
/// message; on success, `-list` of the bundle shows the standardised IDs.
#[test]
fn bundler_target_checks_and_standardisation() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("in"), b"input\n").unwrap();
    std::fs::write(
        dir.path().join("in.bc"),
        write_bundle(&[(b"hip-amdgcn-amd-amdhsa--gfx906", b"x")]),
    )
    .unwrap();
    let pool: Vec<String> = [
        "host",
        "",
        "hip",
        "hipx-amdgcn-amd-amdhsa-gfx906",
        "HIP-amdgcn-amd-amdhsa-gfx906",
        "openmp-foo-bar-baz",
        "hip-x86_xx-pc-linux",
        "openmp-gfx906",
        "hip-amdgcn-amd-amdhsa-gfx950:xnack+",
        "host-x86_64-unknown-linux-gnu",
        "host-x86_64-unknown-linux-gnu-",
        "host-x86_64-pc-linux-gnu",
        "openmp-x86_64",
        "openmp-x86_64-pc-linux",
        "openmp-nvptx64-nvidia-cuda",
        "openmp-nvptx64-nvidia-cuda-sm_70",
        "openmp-nvptx64-nvidia-cuda--sm_70",
        "hip-amdgcn-amd-amdhsa-gfx906",
        "hip-amdgcn-amd-amdhsa--gfx906",
        "hip-amdgcn-amd-amdhsa--gfx906:xnack+",
        "hip-amdgcn-amd-amdhsa--gfx906:xnack-",
        "hip-amdgcn-amd-amdhsa-gfx906:sramecc+",
        "hip-amdgcn-amd-amdhsa-gfx906:sramecc+:xnack+",
        "hip-amdgcn-amd-amdhsa-unknown-gfx90a:xnack-:sramecc+",
        "hipv4-amdgcn-amd-amdhsa-gfx908",
        "hip-amdgcn-amd-amdhsa-gfx9-generic",
        "hip-amdgcn-amd-amdhsa-gfx906:xnack",
        "hip-amdgcn-amd-amdhsa-gfx906:sramecc+:zz",
        "hip-amdgcn-amd-amdhsa-gfx906:xnack+:xnack-",
        "openmp-amdgcn-amd-amdhsa-gfx906:xnack+",
        "openmp-amdgcn-amd-amdhsa-gfx906",
        "openmp-thumbv7-unknown-linux-gnueabihf",
        "hip-amdgcn-amd-amdhsa",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let mut rng = Rng::new(4242);
    let mut cases: Vec<(Vec<String>, bool)> = Vec::new();
    for n in 0..90 {
        let len = 1 + rng.below(4);
        let targets: Vec<String> = (0..len).map(|_| rng.pick(&pool).clone()).collect();
        cases.push((targets, n % 3 == 0));
    }
    let mut jobs = Vec::new();
    for (n, (targets, unbundle)) in cases.iter().enumerate() {
        let mut args = vec![
            "-type=bc".to_string(),
            format!("-targets={}", targets.join(",")),
        ];
        if *unbundle {
            args.extend([
                "-unbundle".into(),
                "-allow-missing-bundles".into(),
                "-input=in.bc".into(),
            ]);
            args.extend((0..targets.len()).map(|j| format!("-output=o{n}-{j}")));
        } else {
            args.extend((0..targets.len()).map(|_| "-input=in".to_string()));
            args.push(format!("-output=b{n}.bc"));
        }
        jobs.push(Job::new(bundler(), args, dir.path()));
    }
    let results = run_all(&jobs);

    let mut list_jobs = Vec::new();
    let mut listed_cases = Vec::new();
    let mut mismatches = Vec::new();
    for (n, ((targets, unbundle), out)) in cases.iter().zip(&results).enumerate() {
        let expected = check_targets(V19, targets, *unbundle);
        let ours = match &expected {
            Ok(_) => (Some(0), String::new()),
            Err(e) => (Some(1), format!("{}: error: {e}\n", bundler().display())),
        };
        let llvm = (out.code, out.stderr_str());
        if llvm != ours {
            mismatches.push(format!(
                "targets {targets:?} (unbundle={unbundle}): LLVM {llvm:?}, offkit {ours:?}"
            ));
        }
        if let (Ok(checked), false, Some(0)) = (&expected, unbundle, out.code) {
            list_jobs.push(Job::new(
                bundler(),
                [
                    "-type=bc".to_string(),
                    "-list".into(),
                    format!("-input=b{n}.bc"),
                ],
                dir.path(),
            ));
            listed_cases.push(checked.standardised.clone());
        }
    }
    let listed = run_all(&list_jobs);
    for (standardised, out) in listed_cases.iter().zip(&listed) {
        let llvm: BTreeSet<Vec<u8>> = out
            .stdout
            .split(|&b| b == b'\n')
            .filter(|l| !l.is_empty())
            .map(<[u8]>::to_vec)
            .collect();
        let ours: BTreeSet<Vec<u8>> = standardised.iter().cloned().collect();
        if llvm != ours {
            mismatches.push(format!(
                "-list: LLVM {:?}, offkit {:?}",
                llvm.iter().map(|v| lossy(v)).collect::<Vec<_>>(),
                ours.iter().map(|v| lossy(v)).collect::<Vec<_>>()
            ));
        }
    }
    assert!(
        !listed_cases.is_empty() && listed_cases.len() < cases.len(),
        "the generated cases should both pass and fail"
    );
    assert_no_mismatch(
        "bundler -targets checks and -list",
        cases.len() + listed_cases.len(),
        &mismatches,
    );
}

/// `-check-input-archive` (`CheckHeterogeneousArchive`): the conflict check over whole IDs per member,
/// against the tool's verdict and message.
#[test]
fn bundler_check_input_archive() {
    let dir = tempfile::tempdir().unwrap();
    let pool = [
        "hip-amdgcn-amd-amdhsa--gfx906",
        "hip-amdgcn-amd-amdhsa--gfx906:xnack+",
        "hip-amdgcn-amd-amdhsa--gfx906:xnack-",
        "hip-amdgcn-amd-amdhsa--gfx906:sramecc+",
        "hip-amdgcn-amd-amdhsa--gfx906:sramecc+:xnack+",
        "hip-amdgcn-amd-amdhsa--gfx906:sramecc-:xnack+",
        "hip-amdgcn-amd-amdhsa--gfx908",
        "hip-amdgcn-amd-amdhsa--gfx908:xnack-",
        "hipv4-amdgcn-amd-amdhsa--gfx906",
        "openmp-amdgcn-amd-amdhsa--gfx906:xnack+",
        "host-x86_64-unknown-linux-gnu-",
        "hip-amdgcn-amd-amdhsa--gfx906:xnack",
        "hip-amdgcn-amd-amdhsa--gfx906:sramecc+:zz",
    ];
    let mut rng = Rng::new(606);
    let mut jobs = Vec::new();
    let mut cases = Vec::new();
    for n in 0..30 {
        let sub = dir.path().join(format!("c{n}"));
        std::fs::create_dir(&sub).unwrap();
        let mut members: Vec<(String, Vec<&str>)> = Vec::new();
        for m in 0..1 + rng.below(2) {
            let mut ids: Vec<&str> = (0..1 + rng.below(4)).map(|_| *rng.pick(&pool)).collect();
            ids.sort_unstable();
            ids.dedup();
            let entries: Vec<(&[u8], &[u8])> =
                ids.iter().map(|id| (id.as_bytes(), &b"x"[..])).collect();
            let name = format!("m{m}.bc");
            std::fs::write(sub.join(&name), write_bundle(&entries)).unwrap();
            members.push((name, ids));
        }
        let mut ar = vec!["rc".to_string(), "lib.a".into()];
        ar.extend(members.iter().map(|(name, _)| name.clone()));
        run_ok(llvm_tool("llvm-ar"), &ar, &sub);
        jobs.push(Job::new(
            bundler(),
            [
                "-type=a",
                "-unbundle",
                "-check-input-archive",
                "-allow-missing-bundles",
                "-targets=hip-amdgcn-amd-amdhsa-gfx1030",
                "-input=lib.a",
                "-output=out.a",
            ],
            &sub,
        ));
        cases.push(members);
    }
    let results = run_all(&jobs);
    let mut mismatches = Vec::new();
    for (members, out) in cases.iter().zip(&results) {
        let ours = members
            .iter()
            .find_map(|(name, ids)| {
                match check_archive_member(V19, ids.iter().map(|s| s.as_bytes())) {
                    Conflict::Pair(a, b) => {
                        let msg = archive_conflict_message(a, b, name.as_bytes(), b"lib.a");
                        Some((
                            Some(1),
                            format!("{}: error: {}\n", bundler().display(), lossy(&msg)),
                        ))
                    }
                    _ => None,
                }
            })
            .unwrap_or((Some(0), String::new()));
        let llvm = (out.code, out.stderr_str());
        if llvm != ours {
            mismatches.push(format!(
                "members {members:?}: LLVM {llvm:?}, offkit {ours:?}"
            ));
        }
    }
    assert_no_mismatch("bundler -check-input-archive", cases.len(), &mismatches);
}
