//! `TargetId::parse` and the canonical form against clang 19's HIP driver, which parses every
//! `--offload-arch` with `parseTargetID` for `amdgcn-amd-amdhsa`, rejects what does not parse
//! (`invalid target ID '…'`), and names the device object after the canonical target ID
//! (`x-gfx906:sramecc-:xnack+-<hash>.o` for `gfx906:xnack+:sramecc-`, `x-gfx600-….o` for
//! `tahiti`): so every processor name of the AMDGCN table, with features, is checked.

use offkit_llvm::target_id::amdgpu::{AMDGCN_GPUS, R600_GPUS};
use offkit_llvm::target_id::TargetId;
use offkit_llvm::triple::Triple;
use offkit_llvm::LlvmVersion::V19;
use offkit_testutil::llvm_tool;
use offkit_testutil::targets::{run_all, Job};

use super::assert_no_mismatch;

/// What the driver made of one `--offload-arch`: the canonical target ID, or `Err` with the
/// driver's message.
fn canonical_by_clang(id: &str, out: &offkit_testutil::Output) -> Result<String, String> {
    let stderr = out.stderr_str();
    if stderr.contains(&format!("error: invalid target ID '{id}'")) {
        return Err(stderr);
    }
    // `"-o" "/tmp/x-<canonical>-<6 hex>.o"`
    let path = stderr
        .split("\"-o\" \"")
        .skip(1)
        .filter_map(|rest| rest.split_once('"').map(|(p, _)| p))
        .find(|p| p.ends_with(".o"))
        .ok_or_else(|| format!("no device object in: {stderr}"))?;
    let name = std::path::Path::new(path)
        .file_name()
        .and_then(|n| n.to_str())
        .ok_or_else(|| path.to_string())?;
    let name = name.strip_prefix("x-").and_then(|n| n.strip_suffix(".o"));
    let canonical = name
        .and_then(|n| n.rsplit_once('-'))
        .map(|(c, _)| c.to_string());
    canonical.ok_or_else(|| format!("unexpected device object name {path}"))
}

#[test]
fn target_id_parse_matches_clang_hip_driver() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("x.hip"), "").unwrap();
    let suffixes = [
        "",
        ":xnack+",
        ":xnack-",
        ":sramecc+",
        ":sramecc-:xnack+",
        ":xnack-:sramecc+",
        ":xnack+:sramecc+",
        ":foo+",
        ":xnack",
        ":xnack+:xnack-",
        ":",
        ":xnack+:",
        "::",
        ":+",
    ];
    let mut ids: Vec<String> = Vec::new();
    for (n, gpu) in AMDGCN_GPUS.iter().enumerate() {
        // Every name with four of the suffixes, rotating so that each suffix meets many names.
        for k in 0..4 {
            ids.push(format!(
                "{}{}",
                gpu.name,
                suffixes[(n + k * 3) % suffixes.len()]
            ));
        }
    }
    for extra in [
        "gfx950",
        "gfx1153",
        "gfx9-4-generic",
        "generic",
        "sm_70",
        "amdgcnspirv",
        "GFX906",
        ":xnack+",
        "",
        R600_GPUS[0].name,
        R600_GPUS[5].name,
    ] {
        ids.push(extra.to_string());
    }
    let jobs: Vec<Job> = ids
        .iter()
        .map(|id| {
            Job::new(
                llvm_tool("clang"),
                [
                    "-###".to_string(),
                    "-x".into(),
                    "hip".into(),
                    format!("--offload-arch={id}"),
                    "-nogpulib".into(),
                    "-nogpuinc".into(),
                    "--cuda-device-only".into(),
                    "-c".into(),
                    "x.hip".into(),
                ],
                dir.path(),
            )
        })
        .collect();
    let triple = Triple::parse("amdgcn-amd-amdhsa");
    let mut mismatches = Vec::new();
    let mut valid = 0;
    for (id, out) in ids.iter().zip(run_all(&jobs)) {
        let llvm = canonical_by_clang(id, &out);
        let ours = TargetId::parse(V19, &triple, id.as_str())
            .map(|t| String::from_utf8(t.canonical()).unwrap());
        valid += usize::from(llvm.is_ok());
        if llvm.as_ref().ok() != ours.as_ref().ok() {
            mismatches.push(format!("`{id}`: LLVM {llvm:?}, offkit {ours:?}"));
        }
    }
    assert_no_mismatch("TargetId::parse (clang HIP driver)", ids.len(), &mismatches);
    // Both outcomes must be well represented.
    assert!(
        valid > 50 && valid < ids.len() - 50,
        "{valid} of {} valid",
        ids.len()
    );
}
