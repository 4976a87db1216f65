//! The LLVM 22 tables and rules against Debian 13's LLVM 22.1.8 (`offkit_testutil::llvm22`):
//! `TargetId::parse(V22, …)` against clang-22's HIP driver (every processor name of either
//! release's table, with features), and the bundler's 22 rules (`-targets` checks, entry-ID
//! parsing and standardisation) against `clang-offload-bundler` 22, which writes the
//! standardised IDs into the bundle that `-list` prints. Each side runs once per test: one
//! shell inside the root runs every case and marks where each begins.

use std::collections::BTreeSet;

use offkit_llvm::target_id::amdgpu::{AMDGCN_GPUS, R600_GPUS};
use offkit_llvm::target_id::bundle::{check_targets, standardise, BundleEntryId};
use offkit_llvm::target_id::offload_arch::OFFLOAD_ARCHS;
use offkit_llvm::target_id::TargetId;
use offkit_llvm::triple::{CanonicalForm, Triple};
use offkit_llvm::LlvmVersion::V22;
use offkit_testutil::llvm22::{Run, Scratch, Side};

use super::assert_no_mismatch;

/// Runs `script` (sh) in `dir` inside the root; returns what each case printed, split at the
/// lines `@@<n>` the script prints before case `n`.
fn run_cases(dir: &Scratch, script: &str, n: usize) -> Vec<String> {
    dir.write("cases.sh", script);
    let out = Run::new(Side::Llvm, "sh", ["cases.sh"], &dir.inner()).output();
    let text = out.stdout_str();
    let mut cases = vec![String::new(); n];
    let mut current: Option<usize> = None;
    for line in text.split_inclusive('\n') {
        if let Some(k) = line.trim_end().strip_prefix("@@") {
            current = k.parse().ok();
            continue;
        }
        if let Some(c) = current.and_then(|i| cases.get_mut(i)) {
            c.push_str(line);
        }
    }
    cases
}

/// Single-quotes `s` for sh.
fn quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', "'\\''"))
}

/// What clang-22's HIP driver made of `--offload-arch=<id>`: the canonical target ID (from the
/// device object's name `x-<canonical>-<hash>.o`), or `Err` with its message.
fn canonical_by_clang(id: &str, out: &str) -> Result<String, String> {
    if out.contains(&format!("error: invalid target ID '{id}'"))
        || out.contains("error: unsupported CUDA gpu architecture")
        || out.contains("error: ")
    {
        return Err(out.to_string());
    }
    let path = out
        .split("\"-o\" \"")
        .skip(1)
        .filter_map(|rest| rest.split_once('"').map(|(p, _)| p))
        .find(|p| p.ends_with(".o"))
        .ok_or_else(|| format!("no device object in: {out}"))?;
    let name = path.rsplit('/').next().unwrap_or(path);
    name.strip_prefix("x-")
        .and_then(|n| n.strip_suffix(".o"))
        .and_then(|n| n.rsplit_once('-'))
        .map(|(c, _)| c.to_string())
        .ok_or_else(|| format!("unexpected device object name {path}"))
}

#[test]
fn target_id_parse_matches_clang_22_hip_driver() {
    let dir = Scratch::new();
    dir.write("x.hip", "");
    let suffixes = [
        "",
        ":xnack+",
        ":xnack-",
        ":sramecc+",
        ":sramecc-:xnack+",
        ":xnack-:sramecc+",
        ":foo+",
        ":xnack",
        ":xnack+:xnack-",
        ":",
    ];
    let mut ids: Vec<String> = Vec::new();
    for (n, gpu) in AMDGCN_GPUS.iter().enumerate() {
        for k in 0..3 {
            ids.push(format!(
                "{}{}",
                gpu.name,
                suffixes[(n + k * 3) % suffixes.len()]
            ));
        }
    }
    // Every new processor with xnack set both ways (gfx1250 has xnack always on: no feature).
    for p in ["gfx950", "gfx1153", "gfx1250", "gfx1251", "gfx9-4-generic"] {
        ids.push(format!("{p}:xnack+"));
        ids.push(format!("{p}:sramecc-"));
    }
    for extra in [
        "gfx940",
        "gfx941",
        "gfx12-5-generic",
        "generic",
        "sm_100a",
        "amdgcnspirv",
        "GFX906",
        ":xnack+",
        R600_GPUS[0].name,
    ] {
        ids.push(extra.to_string());
    }
    let mut script = String::new();
    for (i, id) in ids.iter().enumerate() {
        script.push_str(&format!(
            "echo @@{i}; clang -### -x hip --offload-arch={} -nogpulib -nogpuinc \
             --cuda-device-only -c x.hip 2>&1\n",
            quote(id)
        ));
    }
    let outs = run_cases(&dir, &script, ids.len());
    let triple = Triple::parse("amdgcn-amd-amdhsa");
    let mut mismatches = Vec::new();
    let mut valid = 0;
    for (id, out) in ids.iter().zip(&outs) {
        let llvm = canonical_by_clang(id, out);
        let ours = TargetId::parse(V22, &triple, id.as_str())
            .map(|t| String::from_utf8(t.canonical()).unwrap());
        valid += usize::from(llvm.is_ok());
        if llvm.as_ref().ok() != ours.as_ref().ok() {
            mismatches.push(format!("`{id}`: LLVM 22 {llvm:?}, offkit {ours:?}"));
        }
    }
    assert_no_mismatch(
        "TargetId::parse(V22) (clang-22 HIP driver)",
        ids.len(),
        &mismatches,
    );
    assert!(
        valid > 40 && valid < ids.len() - 40,
        "{valid} of {} valid",
        ids.len()
    );
}

/// Bundle entry IDs for the 22 rules: every offload-arch name of either release behind the
/// usual triples, the short forms people write, and odd shapes.
fn bundle_ids() -> Vec<String> {
    let mut ids = Vec::new();
    for (n, a) in OFFLOAD_ARCHS.iter().enumerate() {
        let (kind, triple) = match n % 4 {
            0 => ("hip", "amdgcn-amd-amdhsa-"),
            1 => ("hipv4", "amdgcn-amd-amdhsa-unknown"),
            2 => ("openmp", "nvptx64-nvidia-cuda-"),
            _ => ("openmp", "amdgcn-amd-amdhsa-gnu"),
        };
        ids.push(format!("{kind}-{triple}-{}", a.name));
    }
    for s in [
        "hip-amdgcn-amd-amdhsa-gfx906",
        "hip-amdgcn-amd-amdhsa--gfx950:xnack+",
        "hip-amdgcn-amd-amdhsa--gfx1250:xnack+",
        "hip-amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-",
        "hip-amdgcn-amd-amdhsa--gfx90a-x",
        "hip-amdgcn-amd-amdhsa--:xnack+",
        "hip-amdgcn-amd-amdhsa--foo:xnack+",
        "hip-amdgcn-amd-amdhsa",
        "hip-amdgcn-amd",
        "openmp-x86_64-pc-linux-gnu",
        "openmp-x86_64-pc-linux-gnu-",
        "openmp-x86_64-pc-linux-gnu-sm_70",
        "openmp-x86_64-pc-linux-gnu-foo:bar+",
        "openmp-x86_64---",
        "openmp-x86_64----",
        "openmp-nvptx64-nvidia-cuda--sm_100a",
        "openmp-nvptx64-nvidia-cuda-sm_90",
        "openmp-spirv64-amd-amdhsa--amdgcnspirv",
        "openmp-spirv64-intel-unknown--bmg_g21",
        "openmp-x86_64-unknown-linux--graniterapids",
        "hip-amdgcn-xyz-amdhsa--gfx942",
        "hip-AMDGCN-amd-amdhsa--gfx942",
        "cuda-nvptx64-nvidia-cuda--sm_80",
        "hipv4-amdgcn-amd-amdhsa5--gfx1030",
        "hipv4-amdgcn-amd-amdhsa-elf-gfx1030",
        "hip-r600---cayman",
        "hip-amdgcn-amd-amdpal--gfx1100",
        "openmp-aarch64-unknown-linux-gnu-",
        "openmp-x86_64-pc-windows-msvc-",
        "openmp-x86_64-w64-mingw32-",
        "openmp-le32-unknown-nacl-",
        "openmp-riscv64be-unknown-linux-gnu-",
        "openmp-aarch64_lfi-unknown-linux-gnu-",
        "openmp-spirv64-intel-unknown--",
        "openmp-wasm32-unknown-wasip1-",
        "openmp-x86_64-pc-msys-",
        "openmp-mips64-unknown-linux-muslabi64-",
    ] {
        ids.push(s.to_string());
    }
    ids
}

#[test]
fn bundle_ids_match_clang_offload_bundler_22() {
    let dir = Scratch::new();
    dir.write("h", "host\n");
    dir.write("a", "device\n");
    let ids = bundle_ids();
    let host = "host-x86_64-unknown-linux-gnu";
    let mut script = String::new();
    for (i, id) in ids.iter().enumerate() {
        script.push_str(&format!(
            "echo @@{i}; rm -f o; clang-offload-bundler -type=o -targets={} -input=h -input=a \
             -output=o 2>&1 && clang-offload-bundler -list -type=o -input=o\n",
            quote(&format!("{host},{id}"))
        ));
    }
    let outs = run_cases(&dir, &script, ids.len());
    let mut mismatches = Vec::new();
    let mut accepted = 0;
    for (id, out) in ids.iter().zip(&outs) {
        let targets = [host, id.as_str()];
        let llvm: Result<BTreeSet<String>, String> =
            match out.strip_prefix("clang-offload-bundler: error: ") {
                Some(msg) => Err(msg.trim_end().to_string()),
                None => Ok(out.lines().map(str::to_string).collect()),
            };
        let ours: Result<BTreeSet<String>, String> = check_targets(V22, &targets, false)
            .map(|c| {
                c.standardised
                    .iter()
                    .map(|s| String::from_utf8_lossy(s).into_owned())
                    .collect()
            })
            .map_err(|e| e.to_string());
        accepted += usize::from(llvm.is_ok());
        if llvm != ours {
            mismatches.push(format!("`{id}`: LLVM 22 {llvm:?}, offkit {ours:?}"));
        }
        // The standardised form is what 22 writes, and reads back as the same ID.
        if let Ok(c) = &ours {
            let std = standardise(V22, id.as_bytes());
            let again = BundleEntryId::parse(V22, &std);
            assert!(c.contains(&String::from_utf8_lossy(&std).into_owned()));
            assert_eq!(
                again.standardised(),
                std,
                "`{id}` standardises to a fixed point"
            );
        }
    }
    assert_no_mismatch(
        "bundle entry IDs (clang-offload-bundler 22)",
        ids.len(),
        &mismatches,
    );
    assert!(accepted > 20 && accepted < ids.len(), "{accepted} accepted");
}

/// Sets of target IDs for the conflict check, malformed ones included: LLVM 22 reads a stale
/// processor for a malformed ID, or crashes when there is none yet.
const CONFLICT_SETS: &[&[&str]] = &[
    &["gfx906", "gfx906:xnack+"],
    &["gfx906:xnack+", "gfx906:xnack-"],
    &["gfx906:xnack+", "gfx906:sramecc+"],
    &["gfx906:xnack+", "gfx906:xnack-", "gfx906:sramecc+:xnack+"],
    &["gfx906", "gfx906:xnack"],
    &["gfx906", "gfx906:sramecc+:zz"],
    &["gfx906:xnack+", "gfx906:xnack+:sramecc+:zz"],
    &[
        "gfx906:xnack+",
        "gfx906:xnack-",
        "gfx906:xnack-:sramecc+:zz",
    ],
    &["gfx906:xnack+:xnack-", "gfx906:sramecc+:sramecc-"],
    &["gfx906:xnack", "gfx906:xnack+"],
    &["gfx906:zz"],
    &["gfx908", "gfx906:zz"],
    &["gfx906:xnack+", "gfx908:sramecc+:zz"],
    &["gfx906:xnack+", "gfx908:zz"],
    &["gfx950:xnack+", "gfx950"],
    &["gfx950:xnack+", "gfx950:sramecc-:xnack+"],
    &["gfx1250", "gfx1251:xnack+"],
];

#[test]
fn conflict_checks_match_clang_offload_bundler_22() {
    let dir = Scratch::new();
    dir.write("h", "host\n");
    dir.write("a", "device\n");
    let host = "host-x86_64-unknown-linux-gnu";
    let mut script = String::new();
    for (i, set) in CONFLICT_SETS.iter().enumerate() {
        let mut targets = vec![host.to_string()];
        targets.extend(set.iter().map(|t| format!("hip-amdgcn-amd-amdhsa--{t}")));
        let inputs = " -input=a".repeat(set.len());
        script.push_str(&format!(
            "echo @@{i}; clang-offload-bundler -type=o -targets={} -input=h{inputs} -output=o \
             >out 2>&1; echo rc=$?; grep -v '^ #' out\n",
            quote(&targets.join(","))
        ));
    }
    let outs = run_cases(&dir, &script, CONFLICT_SETS.len());
    let mut mismatches = Vec::new();
    for (set, out) in CONFLICT_SETS.iter().zip(&outs) {
        let mut targets = vec![host.to_string()];
        targets.extend(set.iter().map(|t| format!("hip-amdgcn-amd-amdhsa--{t}")));
        let (rc, rest) = out.split_once('\n').unwrap_or((out, ""));
        let ours = match check_targets(V22, &targets, false) {
            Ok(_) => ("rc=0".to_string(), String::new()),
            Err(offkit_llvm::target_id::bundle::TargetsError::Crash { .. }) => {
                ("rc=139".to_string(), "Segmentation fault\n".to_string())
            }
            Err(e) => (
                "rc=1".to_string(),
                format!("clang-offload-bundler: error: {e}\n"),
            ),
        };
        let llvm = (rc.to_string(), rest.replace("sh: 1: ", ""));
        // The shell's own report of the crash varies; the status says it.
        let same = llvm.0 == ours.0 && (ours.0 == "rc=139" || llvm.1 == ours.1);
        if !same {
            mismatches.push(format!("{set:?}: LLVM 22 {llvm:?}, offkit {ours:?}"));
        }
    }
    assert_no_mismatch(
        "conflict checks (clang-offload-bundler 22)",
        CONFLICT_SETS.len(),
        &mismatches,
    );
}

/// `Triple::normalize_form(V22, …)` against `opt -mtriple` of LLVM 22 (which prints
/// `Triple::normalize`), over the generated triples of the 19 test and the names 22 added or
/// dropped.
#[test]
fn triple_normalization_matches_opt_22() {
    let dir = Scratch::new();
    dir.write("e.ll", "");
    let extra = [
        "riscv64be-unknown-linux",
        "riscv32be",
        "aarch64_lfi-unknown-linux",
        "x86_64-intel-linux",
        "spirv64-intel",
        "meta-x86_64-linux",
        "x86_64-managarm",
        "wasip2-wasm32",
        "wasm32-unknown-wasip1",
        "riscv32-cheriotrtos",
        "mips64-linux-muslabi64",
        "x86_64-linux-mlibc",
        "x86_64-unknown-linux-llvm",
        "le32-unknown-nacl",
        "le64",
        "x86_64-pc-msys",
        "msys-x86_64",
        "dxil-unknown-shadermodel6.9-compute",
        "dxil-unknown-shadermodel6.x-compute",
        "dxilv1.9-unknown-shadermodel6.9-library",
    ];
    let triples = super::triple::normalize_cases(&extra, 2222, 360);
    let mut script = String::new();
    for (i, t) in triples.iter().enumerate() {
        script.push_str(&format!(
            "echo @@{i}; opt -S -mtriple={} e.ll -o - 2>&1\n",
            quote(t)
        ));
    }
    let outs = run_cases(&dir, &script, triples.len());
    let mut mismatches = Vec::new();
    let mut compared_arch = 0;
    for (t, out) in triples.iter().zip(&outs) {
        let llvm = match out
            .lines()
            .find_map(|l| l.strip_prefix("target triple = \""))
        {
            Some(rest) => Ok(rest.trim_end_matches('"').to_string()),
            None => match out.split("unable to get target for '").nth(1) {
                Some(rest) => Ok(rest.split('\'').next().unwrap_or("").to_string()),
                None => Err(out.clone()),
            },
        };
        let ours = Triple::normalize_form(V22, t.as_bytes(), CanonicalForm::Any)
            .map(|b| String::from_utf8(b).unwrap());
        // opt 22 refuses a triple whose normalized architecture it does not know, naming it:
        // offkit's normalized triple must start with that unknown architecture.
        let unknown_arch = |e: &str| {
            e.split("unrecognized architecture '")
                .nth(1)
                .and_then(|r| r.split('\'').next())
                .map(str::to_string)
        };
        let same = match (&llvm, &ours) {
            (Ok(a), Ok(b)) => a == b,
            (Err(e), Err(_)) => e.contains("Unsupported Shader Model version"),
            // opt gets past normalizing and fails making a target machine for it.
            (Err(e), Ok(_)) if e.contains("LLVM ERROR: unsupported object format") => true,
            (Err(e), Ok(b)) => unknown_arch(e).is_some_and(|a| {
                b.split('-').next() == Some(a.as_str())
                    && Triple::parse_in(V22, b).arch() == offkit_llvm::triple::Arch::Unknown
            }),
            _ => false,
        };
        compared_arch += usize::from(llvm.is_ok());
        if !same {
            mismatches.push(format!("`{t}`: LLVM 22 {llvm:?}, offkit {ours:?}"));
        }
    }
    assert_no_mismatch("Triple::normalize (opt 22)", triples.len(), &mismatches);
    assert!(compared_arch > 250, "{compared_arch} printed by opt");
}
