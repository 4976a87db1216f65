//! Triples: `Triple::normalize` against LLVM 19's (`opt -mtriple` prints it), and parsing
//! and compatibility through the bundler.

use offkit_llvm::target_id::bundle::BundleEntryId;
use offkit_llvm::triple::Triple;
use offkit_llvm::LlvmVersion::V19;
use offkit_testutil::llvm_tool;
use offkit_testutil::targets::{run_all, Job, Rng};

use super::assert_no_mismatch;
use super::bundler::{archive_matrix, bundler, entry_archive};

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

/// Generated triples (components of every kind in every position, unknown and empty ones,
/// Windows/MinGW/Cygwin, Android, SUSE, DXIL), `extra` first; `seed` picks the generated ones.
pub(super) fn normalize_cases(extra: &[&str], seed: u64, n: usize) -> Vec<String> {
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
    let mut triples: Vec<String> = extra.iter().map(|s| s.to_string()).collect();
    triples.extend(
        [
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
        .map(|s| s.to_string()),
    );
    let mut rng = Rng::new(seed);
    while triples.len() < n {
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
    triples
}

/// `Triple::normalize` against LLVM 19's, over [`normalize_cases`].
#[test]
fn triple_normalization_matches_opt() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("e.ll"), "").unwrap();
    let triples = normalize_cases(&[], 1919, 330);
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
        let ours = match BundleEntryId::parse(V19, target.as_bytes()).check() {
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
        .filter(|t| BundleEntryId::parse(V19, t.as_bytes()).check().is_ok())
        .cloned()
        .collect();
    entry_archive(dir.path(), &entries);
    let mut m = archive_matrix(dir.path(), &entries, &targets, &[false]);
    assert!(
        m.positives > targets.len(),
        "only {} compatible pairs",
        m.positives
    );
    mismatches.append(&mut m.mismatches);
    assert_no_mismatch(
        "bundler triple parsing and compatibility",
        m.compared + validity_cases,
        &mismatches,
    );
}
