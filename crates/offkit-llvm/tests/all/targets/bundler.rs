//! The bundler's rules (`target_id::bundle`, and `triple` through it) against
//! `clang-offload-bundler` 19.

use offkit_llvm::LlvmVersion::V19;
use std::collections::BTreeSet;
use std::path::Path;

use offkit_llvm::target_id::bundle::{check_targets, is_compatible, standardise, BundleEntryId};
use offkit_testutil::targets::{archive_member_names, run_all, write_bundle, Job, Rng};
use offkit_testutil::{llvm_tool, run_ok};

use super::{assert_no_mismatch, lossy};

const ENTRY_KINDS: &[&str] = &["hip", "hipv4", "openmp", "host", "HIP", "hipx"];
const TARGET_KINDS: &[&str] = &["hip", "hipv4", "openmp", "host"];
/// Triples as they appear between the kind and the target ID (several spellings of the same
/// enums, old three-component forms, odd vendors and environments, ARM/Thumb, Apple).
const TRIPLES: &[&str] = &[
    "amdgcn-amd-amdhsa-",
    "amdgcn-amd-amdhsa",
    "amdgcn-xyz-amdhsa-",
    "amdgcn-unknown-amdhsa-",
    "amdgcn-amd-amdhsa-unknown",
    "amdgcn-amd-amdhsa-gnu",
    "amdgcn--amdhsa-",
    "amdgcn-amd-amdhsa5-",
    "amdgcn-amd-amdhsa-elf",
    "nvptx64-nvidia-cuda-",
    "nvptx64-nvidia-cuda",
    "nvptx-nvidia-cuda-",
    "x86_64-unknown-linux-gnu",
    "x86_64-pc-linux-gnu",
    "amd64-unknown-linux-gnu",
    "x86_64",
    "armv7-unknown-linux-gnueabihf",
    "thumbv7-unknown-linux-gnueabihf",
    "thumbv6-unknown-linux-gnueabihf",
    "armv7-apple-ios",
    "thumbv7-apple-ios13-macabi",
    "x86_64-apple-macosx10.15",
    "x86_64-apple-macosx11-gnu",
    "r600--",
    "spirv64-amd-amdhsa-",
];
const TARGET_IDS: &[&str] = &[
    "gfx906",
    "gfx906:xnack+",
    "gfx906:xnack-",
    "gfx906:sramecc+:xnack-",
    "gfx906:xnack+:sramecc+",
    "gfx908:xnack-",
    "gfx908",
    "gfx90a",
    "gfx90a:xnack+",
    "gfx90a:sramecc-:xnack+",
    "gfx1030",
    "gfx1010:xnack-",
    "gfx9-generic",
    "gfx950",
    "gfx950:xnack+",
    "sm_70",
    "sm_80",
    "",
    "generic",
    "gfx906:xnack",
    "gfx906:foo+",
    "gfx906:xnack+:",
    "gfx600",
    "amdgcnspirv",
];

pub(super) fn bundler() -> std::path::PathBuf {
    llvm_tool("clang-offload-bundler")
}

/// Unique IDs `kind-triple-tid`, generated from the pools (plus examples of LLVM's bundler documentation).
fn generate_ids(rng: &mut Rng, kinds: &[&str], n: usize, extra: &[&str]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for e in extra {
        if !out.iter().any(|o| o == e) {
            out.push(e.to_string());
        }
    }
    let n = n.saturating_sub(out.len());
    more_ids(&mut out, rng, kinds, TRIPLES, TARGET_IDS, n);
    out
}

/// Appends `n` more unique IDs drawn from the given pools.
fn more_ids(
    out: &mut Vec<String>,
    rng: &mut Rng,
    kinds: &[&str],
    triples: &[&str],
    tids: &[&str],
    n: usize,
) {
    let goal = out.len() + n;
    while out.len() < goal {
        let id = format!(
            "{}-{}-{}",
            rng.pick(kinds),
            rng.pick(triples),
            rng.pick(tids)
        );
        if !out.contains(&id) {
            out.push(id);
        }
    }
}

/// AMDGPU spellings where kinds, triples and features all matter, for dense matrices.
const DENSE_TRIPLES: &[&str] = &[
    "amdgcn-amd-amdhsa-",
    "amdgcn-amd-amdhsa",
    "amdgcn-unknown-amdhsa-",
    "amdgcn-xyz-amdhsa-",
    "amdgcn-amd-amdhsa-unknown",
];
const DENSE_TARGET_IDS: &[&str] = &[
    "gfx906",
    "gfx906:xnack+",
    "gfx906:xnack-",
    "gfx906:sramecc+",
    "gfx906:sramecc-:xnack+",
    "gfx906:sramecc+:xnack-",
    "gfx906:xnack+:sramecc+",
    "gfx90a",
    "gfx90a:xnack+",
    "gfx90a:sramecc-",
];

/// Splits `targets` into groups the bundler accepts for unbundling, whose standardised forms
/// are distinct (a repeated standardised target would map two outputs to one).
fn partition_targets(targets: &[String]) -> Vec<Vec<String>> {
    let mut runs: Vec<Vec<String>> = Vec::new();
    for t in targets {
        let fits = |run: &Vec<String>| {
            let mut all = run.clone();
            all.push(t.clone());
            let std: BTreeSet<Vec<u8>> =
                all.iter().map(|s| standardise(V19, s.as_bytes())).collect();
            std.len() == all.len() && check_targets(V19, &all, true).is_ok()
        };
        match runs.iter_mut().find(|r| fits(r)) {
            Some(r) => r.push(t.clone()),
            None => runs.push(vec![t.clone()]),
        }
    }
    runs
}

/// The entry indices in an archive the bundler wrote: its members are named
/// `k<index>-<entry ID>k<index><ext>`.
fn entries_in_archive(path: &Path) -> BTreeSet<usize> {
    let data = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    archive_member_names(&data)
        .iter()
        .map(|name| {
            let digits: String = name[1..]
                .iter()
                .take_while(|b| b.is_ascii_digit())
                .map(|&b| b as char)
                .collect();
            digits.parse().unwrap()
        })
        .collect()
}

/// Writes one single-entry bundle `k<i>.bc` per code-object ID (payload `payload <i>`) and
/// `lib.a` holding them all, in `dir`.
pub(super) fn entry_archive(dir: &Path, entries: &[String]) {
    let mut ar_args = vec!["rc".to_string(), "lib.a".into()];
    for (i, id) in entries.iter().enumerate() {
        let name = format!("k{i}.bc");
        let payload = format!("payload {i}\n");
        std::fs::write(
            dir.join(&name),
            write_bundle(&[(id.as_bytes(), payload.as_bytes())]),
        )
        .unwrap();
        ar_args.push(name);
    }
    run_ok(llvm_tool("llvm-ar"), &ar_args, dir);
}

/// How a matrix run went.
#[derive(Default)]
pub(super) struct Matrix {
    pub compared: usize,
    pub positives: usize,
    pub mismatches: Vec<String>,
}

/// Unbundles `lib.a` (see [`entry_archive`]) for `targets` (split into runs the bundler
/// accepts) once per flag value: `-type=a` gives each target *every* compatible code object,
/// so one run shows whole rows of the compatibility matrix. Compares each cell with
/// [`is_compatible`].
pub(super) fn archive_matrix(
    dir: &Path,
    entries: &[String],
    targets: &[String],
    flags: &[bool],
) -> Matrix {
    let runs = partition_targets(targets);
    let mut jobs = Vec::new();
    let mut plan = Vec::new();
    for (r, run) in runs.iter().enumerate() {
        for &flag in flags {
            let mut args = vec![
                "-type=a".to_string(),
                "-unbundle".into(),
                "-allow-missing-bundles".into(),
                "-input=lib.a".into(),
                format!("-targets={}", run.join(",")),
            ];
            if flag {
                args.push("-hip-openmp-compatible".into());
            }
            let outputs: Vec<String> = (0..run.len())
                .map(|j| format!("out-{r}-{}-{j}.a", u8::from(flag)))
                .collect();
            args.extend(outputs.iter().map(|o| format!("-output={o}")));
            jobs.push(Job::new(bundler(), args, dir));
            plan.push((run, flag, outputs));
        }
    }
    let mut m = Matrix::default();
    for ((run, flag, outputs), out) in plan.iter().zip(run_all(&jobs)) {
        assert_eq!(
            out.code,
            Some(0),
            "bundler rejected targets {run:?}: {}",
            out.stderr_str()
        );
        for (target, output) in run.iter().zip(outputs) {
            let got = entries_in_archive(&dir.join(output));
            let std = standardise(V19, target.as_bytes());
            let requested = BundleEntryId::parse(V19, &std);
            for (i, entry) in entries.iter().enumerate() {
                let llvm = got.contains(&i);
                let ours = is_compatible(
                    &BundleEntryId::parse(V19, entry.as_bytes()),
                    &requested,
                    *flag,
                );
                m.compared += 1;
                m.positives += usize::from(llvm);
                if ours != llvm {
                    m.mismatches.push(format!(
                        "code object `{entry}`, target `{target}`, hip-openmp-compatible={flag}: \
                         LLVM {llvm}, offkit {ours}"
                    ));
                }
            }
        }
    }
    m
}

/// The full compatibility matrix (`isCodeObjectCompatible`): an archive with one single-entry bundle
/// per code-object ID is unbundled for many targets at once (`-type=a` gives every target all
/// the compatible code objects, so one run shows a whole row of the matrix), with and without
/// `-hip-openmp-compatible`.
#[test]
fn bundler_compatibility_matrix() {
    let dir = tempfile::tempdir().unwrap();
    let mut rng = Rng::new(0x0ff1_0ad5);
    let entries = generate_ids(
        &mut rng,
        ENTRY_KINDS,
        90,
        &[
            "hip-amdgcn-amd-amdhsa--gfx906",
            "hip-amdgcn-amd-amdhsa--gfx906:xnack-",
            "hipv4-amdgcn-amd-amdhsa--gfx908:xnack-",
            "openmp-amdgcn-amd-amdhsa--gfx906",
            "HIP-amdgcn-amd-amdhsa--gfx906",
            "hip-amdgcn-xyz-amdhsa--gfx90a",
            "hip-amdgcn-amd-amdhsa-unknown-gfx906",
            "hip-amdgcn-amd-amdhsa-gnu-gfx906",
            "hip-amdgcn-amd-amdhsa--gfx90a",
            "openmp-nvptx64-nvidia-cuda--sm_70",
            "host-x86_64-unknown-linux-gnu",
            "host-x86_64-unknown-linux-gnu-",
            "hip-amdgcn-amd-amdhsa-gfx906",
            "hip-amdgcn-amd-amdhsa-gfx9-generic",
            "openmp-x86_64-pc-linux-gnu-",
            "openmp-x86_64----",
        ],
    );
    let targets = generate_ids(
        &mut rng,
        TARGET_KINDS,
        70,
        &[
            "hip-amdgcn-amd-amdhsa-gfx906:xnack+",
            "hip-amdgcn-amd-amdhsa-gfx906",
            "hip-amdgcn-amd-amdhsa-gfx908:sramecc+:xnack-",
            "hip-amdgcn-amd-amdhsa-gfx90a:foo+",
            "hip-amdgcn-unknown-amdhsa-gfx90a",
            "hip-amdgcn-amd-amdhsa-gfx90a",
            "hip-amdgcn-amd-amdhsa-gfx9-generic",
            "openmp-amdgcn-amd-amdhsa-gfx906",
            "openmp-nvptx64-nvidia-cuda-sm_80",
            "host-x86_64-unknown-linux-gnu",
            "openmp-x86_64-pc-linux-gnu",
        ],
    );
    let mut entries = entries;
    more_ids(
        &mut entries,
        &mut rng,
        &["hip", "hipv4", "openmp", "HIP"],
        DENSE_TRIPLES,
        DENSE_TARGET_IDS,
        70,
    );
    let mut targets = targets;
    more_ids(
        &mut targets,
        &mut rng,
        &["hip", "hipv4", "openmp"],
        DENSE_TRIPLES,
        DENSE_TARGET_IDS,
        50,
    );
    // Targets need a known architecture; invalid ones are the subject of another test.
    let targets: Vec<String> = targets
        .into_iter()
        .filter(|t| BundleEntryId::parse(V19, t.as_bytes()).check().is_ok())
        .collect();

    entry_archive(dir.path(), &entries);

    // The bundler reads the crafted IDs as written (one bundle with every entry, listed).
    let all: Vec<(Vec<u8>, Vec<u8>)> = entries
        .iter()
        .map(|e| (e.as_bytes().to_vec(), b"x".to_vec()))
        .collect();
    let refs: Vec<(&[u8], &[u8])> = all.iter().map(|(a, b)| (&a[..], &b[..])).collect();
    std::fs::write(dir.path().join("all.bc"), write_bundle(&refs)).unwrap();
    let listed = run_ok(
        bundler(),
        ["-type=bc", "-list", "-input=all.bc"],
        dir.path(),
    );
    let listed: BTreeSet<String> = listed.stdout_str().lines().map(String::from).collect();
    assert_eq!(listed, entries.iter().cloned().collect::<BTreeSet<_>>());

    let m = archive_matrix(dir.path(), &entries, &targets, &[false, true]);
    // The matrix must exercise the rule, not only the easy "no".
    assert!(m.positives > 500, "only {} compatible pairs", m.positives);
    eprintln!(
        "bundler compatibility matrix: {} compatible pairs",
        m.positives
    );
    assert_no_mismatch("bundler compatibility matrix", m.compared, &m.mismatches);
}

/// Plain (non-archive) unbundling of a one-entry bundle with one target: the payload lands in
/// the output exactly when the rule says so; otherwise the bundler names the standardised
/// target in `Can't find bundles for …`.
#[test]
fn bundler_unbundles_one_entry_for_one_target() {
    let dir = tempfile::tempdir().unwrap();
    let mut rng = Rng::new(77);
    let entries = generate_ids(&mut rng, ENTRY_KINDS, 60, &[]);
    let targets: Vec<String> = generate_ids(&mut rng, TARGET_KINDS, 200, &[])
        .into_iter()
        .filter(|t| check_targets(V19, &[t], true).is_ok())
        .collect();
    let mut jobs = Vec::new();
    let mut plan = Vec::new();
    for n in 0..80 {
        // Bias towards pairs that share a triple and kind, where the target ID decides.
        let entry = rng.pick(&entries).clone();
        let target = if n % 2 == 0 {
            let e = BundleEntryId::parse(V19, entry.as_bytes());
            let tid = rng.pick(TARGET_IDS);
            let kind = if e.is_kind_valid() {
                lossy(e.kind())
            } else {
                "hip".into()
            };
            let t = format!("{kind}-{}-{tid}", lossy(e.triple().as_bytes()));
            if check_targets(V19, &[&t], true).is_ok() {
                t
            } else {
                rng.pick(&targets).clone()
            }
        } else {
            rng.pick(&targets).clone()
        };
        let flag = n % 3 == 0;
        let input = format!("in{n}.bc");
        let payload = format!("payload {n}\n");
        std::fs::write(
            dir.path().join(&input),
            write_bundle(&[(entry.as_bytes(), payload.as_bytes())]),
        )
        .unwrap();
        let mut args = vec![
            "-type=bc".to_string(),
            "-unbundle".into(),
            format!("-input={input}"),
            format!("-output=out{n}"),
            format!("-targets={target}"),
        ];
        if flag {
            args.push("-hip-openmp-compatible".into());
        }
        jobs.push(Job::new(bundler(), args, dir.path()));
        plan.push((entry, target, flag, payload));
    }
    let results = run_all(&jobs);
    let mut mismatches = Vec::new();
    for (n, ((entry, target, flag, payload), out)) in plan.iter().zip(&results).enumerate() {
        let std = standardise(V19, target.as_bytes());
        let ours = is_compatible(
            &BundleEntryId::parse(V19, entry.as_bytes()),
            &BundleEntryId::parse(V19, &std),
            *flag,
        );
        let expected_err = format!(
            "{}: error: Can't find bundles for {}\n",
            bundler().display(),
            lossy(&std)
        );
        let llvm = match out.code {
            Some(0) => {
                let got = std::fs::read(dir.path().join(format!("out{n}"))).unwrap();
                assert_eq!(got, payload.as_bytes(), "`{entry}` for `{target}`");
                true
            }
            Some(1) if out.stderr_str() == expected_err => false,
            _ => panic!(
                "`{entry}` for `{target}`: unexpected exit {:?}: {}",
                out.code,
                out.stderr_str()
            ),
        };
        if llvm != ours {
            mismatches.push(format!(
                "code object `{entry}`, target `{target}`, hip-openmp-compatible={flag}: \
                 LLVM {llvm}, offkit {ours}"
            ));
        }
    }
    assert_no_mismatch("bundler single-entry unbundling", plan.len(), &mismatches);
}
