//! Conformance tests of `triple` and `target_id` against the LLVM 19 tools that apply each
//! rule: `clang-offload-bundler` (entry-ID standardisation, code-object compatibility,
//! `-targets` checks, `-check-input-archive`), `clang-linker-wrapper` (grouping of device
//! images), and `opt` (which prints `Triple::normalize` of `-mtriple`). The matrices are
//! generated from a fixed seed; the tools run two at a time.

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::path::Path;

use offkit_format::target_id::bundle::{
    archive_conflict_message, check_archive_member, check_targets, is_compatible, standardise,
    BundleEntryId,
};
use offkit_format::target_id::linker;
use offkit_format::triple::Triple;
use offkit_testutil::targets::{archive_member_names, run_all, write_bundle, Job, Rng};
use offkit_testutil::{llvm_tool, run_ok};

fn lossy(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// Fails with the first mismatches (and how many there were) if there are any.
#[track_caller]
fn assert_no_mismatch(what: &str, compared: usize, mismatches: &[String]) {
    assert!(compared > 0, "{what}: nothing was compared");
    if !mismatches.is_empty() {
        let mut msg = format!(
            "{what}: {} of {compared} cases differ from LLVM 19:\n",
            mismatches.len()
        );
        for m in mismatches.iter().take(25) {
            let _ = writeln!(msg, "  {m}");
        }
        panic!("{msg}");
    }
    eprintln!("{what}: {compared} cases agree with LLVM 19");
}

// ---------------------------------------------------------------------------------------
// The bundler.

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

fn bundler() -> std::path::PathBuf {
    llvm_tool("clang-offload-bundler")
}

/// Unique IDs `kind-triple-tid`, generated from the pools (plus the examples of bundler.md).
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
            let std: BTreeSet<Vec<u8>> = all.iter().map(|s| standardise(s.as_bytes())).collect();
            std.len() == all.len() && check_targets(&all, true).is_ok()
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

/// The full compatibility matrix (bundler.md §2.5): an archive with one single-entry bundle
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
        .filter(|t| BundleEntryId::parse(t.as_bytes()).check().is_ok())
        .collect();

    // One member per entry, payload naming it.
    let mut members = Vec::new();
    for (i, id) in entries.iter().enumerate() {
        let name = format!("k{i}.bc");
        let payload = format!("payload {i}\n");
        std::fs::write(
            dir.path().join(&name),
            write_bundle(&[(id.as_bytes(), payload.as_bytes())]),
        )
        .unwrap();
        members.push(name);
    }
    let mut ar_args = vec!["rc".to_string(), "lib.a".into()];
    ar_args.extend(members.iter().cloned());
    run_ok(llvm_tool("llvm-ar"), &ar_args, dir.path());

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

    let runs = partition_targets(&targets);
    let mut jobs = Vec::new();
    let mut plan = Vec::new();
    for (r, run) in runs.iter().enumerate() {
        for flag in [false, true] {
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
            jobs.push(Job::new(bundler(), args, dir.path()));
            plan.push((run, flag, outputs));
        }
    }
    let results = run_all(&jobs);

    let mut mismatches = Vec::new();
    let mut compared = 0;
    let mut positives = 0;
    for ((run, flag, outputs), out) in plan.iter().zip(&results) {
        assert_eq!(
            out.code,
            Some(0),
            "bundler rejected targets {run:?}: {}",
            out.stderr_str()
        );
        for (target, output) in run.iter().zip(outputs) {
            let got = entries_in_archive(&dir.path().join(output));
            let std = standardise(target.as_bytes());
            let requested = BundleEntryId::parse(&std);
            for (i, entry) in entries.iter().enumerate() {
                let ours =
                    is_compatible(&BundleEntryId::parse(entry.as_bytes()), &requested, *flag);
                compared += 1;
                positives += usize::from(got.contains(&i));
                if ours != got.contains(&i) {
                    mismatches.push(format!(
                        "code object `{entry}`, target `{target}`, hip-openmp-compatible={flag}: \
                         LLVM {}, offkit {ours}",
                        got.contains(&i)
                    ));
                }
            }
        }
    }
    // The matrix must exercise the rule, not only the easy "no".
    assert!(positives > 500, "only {positives} compatible pairs");
    eprintln!("bundler compatibility matrix: {positives} compatible pairs");
    assert_no_mismatch("bundler compatibility matrix", compared, &mismatches);
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
        .filter(|t| check_targets(&[t], true).is_ok())
        .collect();
    let mut jobs = Vec::new();
    let mut plan = Vec::new();
    for n in 0..80 {
        // Bias towards pairs that share a triple and kind, where the target ID decides.
        let entry = rng.pick(&entries).clone();
        let target = if n % 2 == 0 {
            let e = BundleEntryId::parse(entry.as_bytes());
            let tid = rng.pick(TARGET_IDS);
            let kind = if e.is_kind_valid() {
                lossy(e.kind())
            } else {
                "hip".into()
            };
            let t = format!("{kind}-{}-{tid}", lossy(e.triple().as_bytes()));
            if check_targets(&[&t], true).is_ok() {
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
        let std = standardise(target.as_bytes());
        let ours = is_compatible(
            &BundleEntryId::parse(entry.as_bytes()),
            &BundleEntryId::parse(&std),
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

/// `-targets` checks (bundler.md §1.3 steps 9–11) in both modes: exit status and the exact
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
        let expected = check_targets(targets, *unbundle);
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

/// `-check-input-archive` (bundler.md §6.4): the conflict check over whole IDs per member,
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
                check_archive_member(ids.iter().map(|s| s.as_bytes())).map(|(a, b)| {
                    let msg = archive_conflict_message(a, b, name.as_bytes(), b"lib.a");
                    (
                        Some(1),
                        format!("{}: error: {}\n", bundler().display(), lossy(&msg)),
                    )
                })
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

/// Architecture spellings: every ARM/Thumb/AArch64 form the ARM parser may see, and the
/// special cases of `parseArch` (BPF, Kalimba, MIPS, PowerPC, SPIR-V and DXIL versions…).
fn arch_spellings(rng: &mut Rng) -> Vec<String> {
    let prefixes = [
        "arm",
        "armeb",
        "thumb",
        "thumbeb",
        "aarch64",
        "aarch64_be",
        "arm64",
        "arm64_32",
        "arm64e",
    ];
    let versions = [
        "",
        "v4",
        "v4t",
        "v5",
        "v5e",
        "v5te",
        "v6",
        "v6j",
        "v6m",
        "v6sm",
        "v6k",
        "v6kz",
        "v6t2",
        "v6hl",
        "v7",
        "v7a",
        "v7-a",
        "v7l",
        "v7r",
        "v7m",
        "v7em",
        "v7s",
        "v7k",
        "v7ve",
        "v8",
        "v8a",
        "v8l",
        "v8.1a",
        "v8.5a",
        "v8.9a",
        "v8r",
        "v8m.base",
        "v8m.main",
        "v8.1m.main",
        "v9",
        "v9a",
        "v9.5a",
        "v9.6a",
        "v3",
        "v2",
        "vx",
        "x",
        "v7eb",
        "ebv7",
    ];
    let mut out: Vec<String> = [
        "xscale",
        "xscaleeb",
        "iwmmxt",
        "bpf",
        "bpfel",
        "bpfeb",
        "bpf_le",
        "bpf_be",
        "bpfx",
        "kalimba",
        "kalimba3",
        "kalimba5x",
        "mips",
        "mipsel",
        "mipsr6",
        "mipsisa32r6el",
        "mips64r6",
        "mipsn32el",
        "powerpc",
        "powerpcspe",
        "ppc32le",
        "ppu",
        "spirv",
        "spirv1.5",
        "spirv1.4",
        "spirv32v1.3",
        "spirv64v1.6",
        "dxil",
        "dxilv1.3",
        "dxilv1.9",
        "le32",
        "le64",
        "x86-64",
        "i986",
        "i1086",
        "amd64",
        "x86_64h",
        "x86_64",
        "s390x",
        "systemz",
        "sparc64",
        "amdgcn",
        "r600",
        "nvptx",
        "nvptx64",
        "a",
        "gfx906",
        "arm64ec",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    while out.len() < 170 {
        let a = format!("{}{}", rng.pick(&prefixes), rng.pick(&versions));
        if !out.contains(&a) {
            out.push(a);
        }
    }
    out
}

/// Triple parsing through the bundler, which rejects a target whose architecture is unknown
/// (`isTripleValid`) and matches code objects by `isCompatibleWith` on the parsed enums: every
/// architecture spelling is checked for validity, and a matrix of spellings (architecture,
/// sub-architecture, vendor, OS, environment, object format) for compatibility. All IDs end in
/// `-sm_70`, so the target ID is equal and only the triples decide.
#[test]
fn bundler_triple_parsing_and_compatibility() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("in"), b"x").unwrap();
    let mut rng = Rng::new(31337);
    let archs = arch_spellings(&mut rng);

    // Validity: one bundling run per spelling.
    let jobs: Vec<Job> = archs
        .iter()
        .enumerate()
        .map(|(n, a)| {
            Job::new(
                bundler(),
                [
                    "-type=bc".to_string(),
                    format!("-targets=openmp-{a}-unknown-linux-gnu-sm_70,host-x86_64--"),
                    "-input=in".into(),
                    "-input=in".into(),
                    format!("-output=v{n}.bc"),
                ],
                dir.path(),
            )
        })
        .collect();
    let mut mismatches = Vec::new();
    for (a, out) in archs.iter().zip(run_all(&jobs)) {
        let target = format!("openmp-{a}-unknown-linux-gnu-sm_70");
        let ours = match BundleEntryId::parse(target.as_bytes()).check() {
            Ok(()) => (Some(0), String::new()),
            Err(e) => (Some(1), format!("{}: error: {e}\n", bundler().display())),
        };
        if (out.code, out.stderr_str()) != ours {
            mismatches.push(format!(
                "arch `{a}`: LLVM {:?}, offkit {ours:?}",
                (out.code, out.stderr_str())
            ));
        }
    }
    let validity_cases = archs.len();

    // Compatibility: entries and targets over the same spellings.
    let mut triples: Vec<String> = archs
        .iter()
        .map(|a| format!("{a}-unknown-linux-gnu"))
        .collect();
    for v in ["pc", "unknown", "xyz", "apple", ""] {
        for o in ["linux", "linux5", "macosx10.15", "ios", "windows", "amdhsa"] {
            for e in [
                "gnu",
                "",
                "gnu-elf",
                "msvc",
                "macabi",
                "eabi",
                "unknown-coff",
            ] {
                if rng.below(4) == 0 {
                    let a = *rng.pick(&["x86_64", "armv7", "thumbv7", "arm64", "aarch64"]);
                    triples.push(format!("{a}-{v}-{o}-{e}"));
                }
            }
        }
    }
    triples.sort();
    triples.dedup();
    let entries: Vec<String> = triples
        .iter()
        .map(|t| format!("openmp-{t}-sm_70"))
        .collect();
    let targets: Vec<String> = entries
        .iter()
        .filter(|t| BundleEntryId::parse(t.as_bytes()).check().is_ok())
        .cloned()
        .collect();
    let mut ar_args = vec!["rc".to_string(), "lib.a".into()];
    for (i, id) in entries.iter().enumerate() {
        let name = format!("k{i}.bc");
        std::fs::write(
            dir.path().join(&name),
            write_bundle(&[(id.as_bytes(), b"p")]),
        )
        .unwrap();
        ar_args.push(name);
    }
    run_ok(llvm_tool("llvm-ar"), &ar_args, dir.path());
    let runs = partition_targets(&targets);
    let jobs: Vec<Job> = runs
        .iter()
        .enumerate()
        .map(|(r, run)| {
            let mut args = vec![
                "-type=a".to_string(),
                "-unbundle".into(),
                "-allow-missing-bundles".into(),
                "-input=lib.a".into(),
                format!("-targets={}", run.join(",")),
            ];
            args.extend((0..run.len()).map(|j| format!("-output=t{r}-{j}.a")));
            Job::new(bundler(), args, dir.path())
        })
        .collect();
    let mut compared = validity_cases;
    let mut positives = 0;
    for ((r, run), out) in runs.iter().enumerate().zip(run_all(&jobs)) {
        assert_eq!(out.code, Some(0), "{}", out.stderr_str());
        for (j, target) in run.iter().enumerate() {
            let got = entries_in_archive(&dir.path().join(format!("t{r}-{j}.a")));
            let std = standardise(target.as_bytes());
            let requested = BundleEntryId::parse(&std);
            for (i, entry) in entries.iter().enumerate() {
                let ours =
                    is_compatible(&BundleEntryId::parse(entry.as_bytes()), &requested, false);
                compared += 1;
                positives += usize::from(got.contains(&i));
                if ours != got.contains(&i) {
                    mismatches.push(format!(
                        "code object `{entry}`, target `{target}`: LLVM {}, offkit {ours}",
                        got.contains(&i)
                    ));
                }
            }
        }
    }
    assert!(
        positives > targets.len(),
        "only {positives} compatible pairs"
    );
    assert_no_mismatch(
        "bundler triple parsing and compatibility",
        compared,
        &mismatches,
    );
}

// ---------------------------------------------------------------------------------------
// The linker wrapper.

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

// ---------------------------------------------------------------------------------------
// Triples.

/// What `opt -mtriple=<t>` shows of `Triple::normalize(t)`: the module's triple (or, when no
/// target is registered for it, the triple named in the warning), or the fatal error.
fn normalized_by_opt(out: &offkit_testutil::Output) -> Result<String, String> {
    let stdout = out.stdout_str();
    if let Some(line) = stdout.lines().find(|l| l.starts_with("target triple = \"")) {
        return Ok(line["target triple = \"".len()..line.len() - 1].to_string());
    }
    let stderr = out.stderr_str();
    if let Some(rest) = stderr.split("unable to get target for '").nth(1) {
        return Ok(rest.split_once("'").unwrap().0.to_string());
    }
    Err(stderr)
}

/// `Triple::normalize` against LLVM 19's, over generated triples (components of every kind in
/// every position, unknown and empty ones, Windows/MinGW/Cygwin, Android, SUSE, DXIL).
#[test]
fn triple_normalization_matches_opt() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("e.ll"), "").unwrap();
    let archs = [
        "x86_64",
        "i686",
        "amd64",
        "armv7",
        "armv7eb",
        "thumbv7",
        "thumbv6m",
        "aarch64",
        "arm64",
        "arm64e",
        "mips64el",
        "mipsisa64r6",
        "mipsn32",
        "powerpc64le",
        "powerpcspe",
        "amdgcn",
        "r600",
        "nvptx64",
        "spirv64",
        "spirv1.6",
        "wasm32",
        "riscv64",
        "dxil",
        "dxilv1.3",
        "bpf",
        "kalimba4",
        "foo",
        "",
    ];
    let vendors = [
        "pc", "apple", "unknown", "amd", "nvidia", "suse", "w64", "none", "xyz", "",
    ];
    let oses = [
        "linux",
        "windows",
        "win32",
        "mingw32",
        "cygwin",
        "darwin",
        "macosx10.15",
        "ios13",
        "amdhsa",
        "cuda",
        "none",
        "freebsd",
        "shadermodel6.3",
        "shadermodel6.x",
        "shadermodel5.0",
        "visionos1",
        "",
    ];
    let envs = [
        "gnu",
        "gnueabi",
        "gnueabihf",
        "android",
        "androideabi",
        "androideabi21",
        "musl",
        "msvc",
        "eabi",
        "macabi",
        "library",
        "",
    ];
    let formats = ["elf", "coff", "macho", "wasm", "xcoff", "gnu-elf"];
    let mut triples: Vec<String> = [
        "-",
        "--",
        "i386",
        "i386-linux",
        "linux-i386",
        "pc-i386-linux",
        "a-b-c-i386",
        "a-pc-c-i386",
        "x86_64-gnu-linux",
        "x86_64-linux-gnu",
        "i486-pc-mingw32",
        "i386-pc-cygwin",
        "x86_64-pc-win32",
        "x86_64-pc-win32-elf",
        "x86_64-pc-windows-gnu-elf",
        "x86_64-pc-windows-msvc-coff-extra",
        "armv7-linux-androideabi",
        "armv7-linux-androideabi21",
        "armv7-suse-linux-gnueabi",
        "arm-none-eabi",
        "aarch64-none-elf",
        "dxil-shadermodel6.3-library",
        "dxil-pc-shadermodel6.x-compute",
        "dxil-pc-shadermodel5.0-compute",
        "dxil-unknown-shadermodel6.9-compute",
        "dxil-unknown-shadermodel6.2147483649-pixel",
        "amdgcn-amd-amdhsa",
        "amdgcn--amdhsa",
        "nvptx64-nvidia-cuda",
        "amdhsa-amdgcn",
        "cuda-nvptx64",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let mut rng = Rng::new(1919);
    while triples.len() < 330 {
        let mut comps: Vec<&str> = Vec::new();
        for _ in 0..1 + rng.below(5) {
            comps.push(match rng.below(5) {
                0 => *rng.pick(&archs),
                1 => *rng.pick(&vendors),
                2 => *rng.pick(&oses),
                3 => *rng.pick(&envs),
                _ => *rng.pick(&formats),
            });
        }
        // Mostly in order, sometimes shuffled.
        if rng.below(3) == 0 {
            for i in (1..comps.len()).rev() {
                comps.swap(i, rng.below(i + 1));
            }
        }
        let t = comps.join("-");
        if !t.is_empty() && !triples.contains(&t) {
            triples.push(t);
        }
    }
    let jobs: Vec<Job> = triples
        .iter()
        .map(|t| {
            Job::new(
                llvm_tool("opt"),
                [
                    "-S".to_string(),
                    format!("-mtriple={t}"),
                    "e.ll".into(),
                    "-o".into(),
                    "-".into(),
                ],
                dir.path(),
            )
        })
        .collect();
    let results = run_all(&jobs);
    let mut mismatches = Vec::new();
    for (t, out) in triples.iter().zip(&results) {
        let llvm = normalized_by_opt(out);
        let ours = Triple::normalize(t);
        let same = match (&llvm, &ours) {
            (Ok(a), Ok(b)) => a == b,
            (Err(e), Err(_)) => e.contains("Unsupported Shader Model version"),
            _ => false,
        };
        if !same {
            mismatches.push(format!("`{t}`: LLVM {llvm:?}, offkit {ours:?}"));
        }
    }
    assert_no_mismatch("Triple::normalize", triples.len(), &mismatches);
}
