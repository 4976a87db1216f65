//! Surgery on real multi-TU HIP shared libraries (clang-19, `gfx90a,gfx1030`, some translation
//! units compressed, linked by GNU ld and lld), judged by LLVM 19's bundler: after a prune, a
//! compress and a decompress, each bundle handed to `clang-offload-bundler` lists exactly the
//! kept targets and unbundles code objects identical to the originals; every compressed bundle
//! is byte for byte what `clang-offload-bundler -compress` writes from the same inputs; a
//! program that dlopens the pruned library sees every bundle at its address through a stub HIP
//! runtime; readelf and the linker accept the results.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use object::{Object, ObjectSection};
use offkit_format::bundle::compressed::Options;
use offkit_format::bundle::sequence::{self, Kind};
use offkit_format::device::Device;
use offkit_surgery::{Edit, Error, Filter, Plan};
use offkit_testutil::hip::{self, Linker};
use offkit_testutil::{llvm_tool, run, run_ok};

/// The bundles of a file's `.hip_fatbin`: offset and bytes, and whether compressed.
fn bundles(file: &Path) -> Vec<(u64, Vec<u8>, bool)> {
    let data = std::fs::read(file).unwrap();
    let obj = object::File::parse(&*data).unwrap();
    let s = obj.section_by_name(".hip_fatbin").unwrap();
    let (off, _) = s.file_range().unwrap();
    sequence::sequence(s.data().unwrap(), off)
        .map(|p| {
            let p = p.unwrap();
            let c = matches!(p.kind, Kind::Compressed(_));
            (p.offset, p.data.to_vec(), c)
        })
        .collect()
}

/// What LLVM 19's bundler sees in one bundle: the IDs it lists (sorted) and the device code
/// objects it unbundles.
fn llvm_view(dir: &Path, stem: &str, bytes: &[u8]) -> (Vec<String>, BTreeMap<String, Vec<u8>>) {
    let got = hip::bundler_unbundle(dir, stem, bytes);
    let mut ids: Vec<String> = got.iter().map(|(id, _)| id.clone()).collect();
    ids.sort();
    let cos = got
        .into_iter()
        .filter_map(|(id, co)| Some((id, co?)))
        .filter(|(id, _)| !id.starts_with("host"))
        .collect();
    (ids, cos)
}

/// `clang-offload-bundler -compress` over the code objects `cos` with the IDs of `ids` (in
/// bundle order), as HIP's driver calls it (`-type=o -bundle-align=4096`, host `/dev/null`).
fn llvm_compress(
    dir: &Path,
    stem: &str,
    ids: &[String],
    cos: &BTreeMap<String, Vec<u8>>,
) -> Vec<u8> {
    let mut targets = Vec::new();
    let mut inputs = Vec::new();
    for id in ids {
        if id.starts_with("host") {
            targets.push(id.trim_end_matches('-').to_string());
            inputs.push("-input=/dev/null".to_string());
        } else {
            let p = dir.join(format!("{stem}-{}.co", id.replace(':', "_")));
            std::fs::write(&p, &cos[id]).unwrap();
            targets.push(id.clone());
            inputs.push(format!("-input={}", p.display()));
        }
    }
    let out = dir.join(format!("{stem}.ccob"));
    let mut args = vec![
        "-type=o".to_string(),
        "-bundle-align=4096".into(),
        format!("-targets={}", targets.join(",")),
        format!("-output={}", out.display()),
        "-compress".into(),
    ];
    args.extend(inputs);
    run_ok(llvm_tool("clang-offload-bundler"), &args, dir);
    std::fs::read(out).unwrap()
}

/// Rewrites `input` into `output` with `edit` (through the library, as the CLI does).
fn rewrite(input: &Path, output: &Path, edit: &Edit) -> Result<Plan, Error> {
    let data = std::fs::read(input).unwrap();
    let mut plan = offkit_surgery::plan(&data, &input.display().to_string(), edit, 2)?;
    let src = std::fs::File::open(input).unwrap();
    let perms = offkit_surgery::Perms::of(&src.metadata().unwrap(), false);
    offkit_surgery::write(&mut plan, &data, &src, output, perms, &mut |_, _| {})?;
    Ok(plan)
}

/// The IDs of a bundle in file order, from our parser of the (decompressed) bundle.
fn file_ids(bytes: &[u8]) -> Vec<String> {
    let plain = if bytes.starts_with(b"CCOB") {
        offkit_format::bundle::compressed::decompress_all(bytes, 0, u64::MAX)
            .unwrap()
            .remove(0)
            .1
    } else {
        bytes.to_vec()
    };
    offkit_format::bundle::binary::parse(&plain, plain.len() as u64, 0)
        .unwrap()
        .entries
        .iter()
        .map(|e| e.id_str().into_owned())
        .collect()
}

struct Original {
    offsets: Vec<u64>,
    cos: Vec<BTreeMap<String, Vec<u8>>>,
}

fn original(dir: &Path, lib: &Path) -> Original {
    let bs = bundles(lib);
    let mut cos = Vec::new();
    for (i, (_, b, _)) in bs.iter().enumerate() {
        let (ids, co) = llvm_view(dir, &format!("orig{i}"), b);
        assert_eq!(ids.len(), 3, "{ids:?}");
        cos.push(co);
    }
    Original {
        offsets: bs.iter().map(|b| b.0).collect(),
        cos,
    }
}

/// Every bundle of `file` at its original offset, holding (for LLVM 19's bundler) exactly the
/// host entry and the code objects of `keep`, identical to the originals.
#[track_caller]
fn check_kept(dir: &Path, tag: &str, file: &Path, orig: &Original, keep: &[&str]) {
    let bs = bundles(file);
    assert_eq!(
        bs.iter().map(|b| b.0).collect::<Vec<_>>(),
        orig.offsets,
        "{tag}"
    );
    for (i, (_, b, _)) in bs.iter().enumerate() {
        let (ids, cos) = llvm_view(dir, &format!("{tag}{i}"), b);
        let mut want: Vec<String> = keep
            .iter()
            .map(|a| format!("hipv4-amdgcn-amd-amdhsa--{a}"))
            .chain(["host-x86_64-unknown-linux--".to_string()])
            .collect();
        want.sort();
        assert_eq!(ids, want, "{tag} bundle {i}");
        for (id, co) in &cos {
            assert_eq!(Some(co), orig.cos[i].get(id), "{tag} bundle {i} {id}");
        }
    }
    run_ok("readelf", ["-a", "-W", &file.display().to_string()], dir);
}

/// Every compressed bundle of `file` is what LLVM 19's bundler writes with `-compress`.
#[track_caller]
fn check_llvm_bytes(dir: &Path, tag: &str, file: &Path) {
    for (i, (_, b, compressed)) in bundles(file).iter().enumerate() {
        if !compressed {
            continue;
        }
        let (_, cos) = llvm_view(dir, &format!("{tag}{i}"), b);
        let ids = file_ids(b);
        let llvm = llvm_compress(dir, &format!("{tag}{i}"), &ids, &cos);
        assert!(llvm == *b, "{tag} bundle {i}: not LLVM 19's bytes");
    }
}

fn gfx90a() -> Filter {
    Filter::Keep(vec![Device::parse("gfx90a").unwrap().into()])
}

#[test]
fn prune_compress_decompress_as_llvm_sees_them() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    for linker in [Linker::Lld, Linker::Bfd] {
        let name = format!("libk_{linker:?}.so");
        let (lib, _) = hip::library(dir, &name, &[false, true, false, false], linker);
        let orig = original(dir, &lib);
        let all = ["gfx1030", "gfx90a"];

        // Compress: every plain bundle becomes LLVM's compressed bundle; nothing moves.
        let c = dir.join(format!("c-{name}"));
        let plan = rewrite(&lib, &c, &Edit::Compress(Options::default())).unwrap();
        assert_eq!(plan.changes.iter().filter(|c| c.changed()).count(), 3);
        assert!(bundles(&c).iter().all(|b| b.2));
        check_kept(dir, "c", &c, &orig, &all);
        check_llvm_bytes(dir, "c", &c);
        assert!(std::fs::metadata(&c).unwrap().len() == std::fs::metadata(&lib).unwrap().len());
        // In memory (archive members), the bundles made a window at a time on disk are made
        // all at once: the same bytes.
        let data = std::fs::read(&lib).unwrap();
        let p = offkit_surgery::plan(&data, "lib", &Edit::Compress(Options::default()), 2).unwrap();
        assert_eq!(p.changes.iter().filter(|c| c.pending).count(), 3);
        let in_memory = offkit_surgery::rewrite_bytes(&p, &data).unwrap();
        assert!(
            in_memory == std::fs::read(&c).unwrap(),
            "{name}: in memory differs"
        );

        // Prune the compressed library: recompressed with LLVM's parameters.
        let pc = dir.join(format!("pc-{name}"));
        let edit = Edit::Prune {
            filter: gfx90a(),
            level: 3,
            allow_empty: false,
        };
        rewrite(&c, &pc, &edit).unwrap();
        check_kept(dir, "pc", &pc, &orig, &["gfx90a"]);
        check_llvm_bytes(dir, "pc", &pc);

        // Prune the original (plain and compressed bundles), then decompress what fits.
        let p = dir.join(format!("p-{name}"));
        let plan = rewrite(&lib, &p, &edit).unwrap();
        assert_eq!(
            plan.changes.iter().map(|c| c.removed.len()).sum::<usize>(),
            4
        );
        check_kept(dir, "p", &p, &orig, &["gfx90a"]);
        check_llvm_bytes(dir, "p", &p);

        // Decompressing the library compressed above gives back the original's bundles; the
        // compressed translation unit's bundle (compressed by clang at 4096-byte space) does not
        // fit once decompressed: a clear error, and nothing written.
        let d = dir.join(format!("d-{name}"));
        match rewrite(&c, &d, &Edit::Decompress) {
            Err(Error::DoesNotFit {
                index: 1, short, ..
            }) => assert!(short > 0),
            other => panic!("{other:?}"),
        }
        assert!(!d.exists());
        // A library of plain bundles compressed and decompressed is the original, byte for byte.
        let (plain, _) = hip::library(dir, &format!("plain-{name}"), &[false, false], linker);
        let pc2 = dir.join(format!("c2-{name}"));
        rewrite(&plain, &pc2, &Edit::Compress(Options::default())).unwrap();
        let back = dir.join(format!("back-{name}"));
        rewrite(&pc2, &back, &Edit::Decompress).unwrap();
        assert!(
            std::fs::read(&back).unwrap() == std::fs::read(&plain).unwrap(),
            "{name}"
        );
    }
}

/// A program linked with the stub HIP runtime (`-rdynamic`, so the library's calls to
/// `__hipRegisterFatBinary` reach it) dlopens a library and prints what each registration
/// is handed.
fn registered(dir: &Path, lib: &Path) -> String {
    let rt = offkit_testutil::stub_runtime::stub_runtime(dir);
    let main = dir.join("dl.c");
    std::fs::write(
        &main,
        "#include <dlfcn.h>\n#include <stdio.h>\n\
         int main(int c, char **v) { void *h = dlopen(v[1], RTLD_NOW); \
         if (!h) { puts(dlerror()); return 1; } return 0; }\n",
    )
    .unwrap();
    let exe = dir.join("dl");
    if !exe.exists() {
        run_ok(
            offkit_testutil::clang(),
            [
                "-rdynamic",
                &main.display().to_string(),
                &rt.display().to_string(),
                "-ldl",
                "-o",
                &exe.display().to_string(),
            ],
            dir,
        );
    }
    let out = run(&exe, [lib.display().to_string()], dir);
    assert_eq!(out.code, Some(0), "{}", out.stderr_str());
    out.stdout_str()
}

/// The lines the stub prints for a bundle holding `cos` (ID → code object).
fn fnv(b: &[u8]) -> u64 {
    b.iter().fold(14695981039346656037u64, |h, &x| {
        (h ^ u64::from(x)).wrapping_mul(1099511628211)
    })
}

#[test]
fn the_runtime_sees_every_pruned_bundle_at_its_address() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    // Without the runtime stub in the library: the program's stub answers.
    let objs: Vec<PathBuf> = (0..3).map(|i| hip::compile_tu(dir, i, false)).collect();
    let lib = dir.join("libk.so");
    let mut args = vec!["-shared".to_string(), "-fuse-ld=lld".into()];
    args.extend(objs.iter().map(|o| o.display().to_string()));
    args.extend([
        "-Wl,--unresolved-symbols=ignore-all".into(),
        "-o".into(),
        lib.display().to_string(),
    ]);
    run_ok(offkit_testutil::clang(), &args, dir);
    let orig = original(dir, &lib);
    let pruned = dir.join("libk-gfx90a.so");
    rewrite(
        &lib,
        &pruned,
        &Edit::Prune {
            filter: gfx90a(),
            level: 3,
            allow_empty: false,
        },
    )
    .unwrap();
    let before = registered(dir, &lib);
    let after = registered(dir, &pruned);
    assert_eq!(before.matches("__hip register").count(), 3, "{before}");
    assert_eq!(after.matches("__hip register").count(), 3, "{after}");
    // Each registration sees the pruned bundle: the host entry and gfx90a's code object,
    // identical to the original's; gfx1030's is gone.
    for (i, cos) in orig.cos.iter().enumerate() {
        let co = &cos["hipv4-amdgcn-amd-amdhsa--gfx90a"];
        let line = format!(
            "bundle entry hipv4-amdgcn-amd-amdhsa--gfx90a size {} fnv {:016x}",
            co.len(),
            fnv(co)
        );
        assert!(after.contains(&line), "bundle {i}: {line}\n{after}");
        assert!(before.contains(&line));
    }
    assert!(!after.contains("gfx1030"), "{after}");
    assert_eq!(
        after.matches("function ").count(),
        before.matches("function ").count()
    );
    // The linker accepts the pruned library.
    let user = dir.join("user.c");
    std::fs::write(&user, "int main(void) { return 0; }\n").unwrap();
    run_ok(
        offkit_testutil::clang(),
        [
            &user.display().to_string(),
            &pruned.display().to_string(),
            "-Wl,--unresolved-symbols=ignore-all",
            "-o",
            &dir.join("user").display().to_string(),
        ],
        dir,
    );
}

/// `size`'s estimates are the rewrites' own figures: for a library of plain and compressed
/// translation units, and for each of its objects, `estimate_file` gives the size of the file
/// `rewrite_file` writes and the bytes its plans free; and `size`'s tables add up.
#[test]
fn size_estimates_are_the_rewrites_and_its_sums_add_up() {
    use offkit_surgery::size::{size, SizeConfig};
    use offkit_surgery::{estimate_file, rewrite_file, Dest};

    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let (lib, objs) = hip::library(dir, "libs.so", &[false, true, false], Linker::Lld);
    let edits = [
        Edit::Compress(Options::default()),
        Edit::Prune {
            filter: gfx90a(),
            level: 3,
            allow_empty: false,
        },
    ];
    for input in std::iter::once(&lib).chain(&objs) {
        for (n, edit) in edits.iter().enumerate() {
            let e = estimate_file(input, edit, &mut |_, _| {}).unwrap();
            let out = dir.join(format!("out{n}"));
            let _ = std::fs::remove_file(&out);
            let done = rewrite_file(input, &Dest::To(out.clone()), edit, &mut |_, _| {}).unwrap();
            let freed: i64 = done.plans.iter().map(Plan::freed).sum();
            assert_eq!(e.freed(), freed, "{}: {edit:?}", input.display());
            let written = std::fs::metadata(&out).map_or(e.size_before, |m| m.len());
            assert_eq!(e.size_after, written, "{}: {edit:?}", input.display());
        }
    }
    let mut config = SizeConfig::new([&lib]);
    config.keep = vec![Device::parse("gfx90a").unwrap()];
    let report = size(&config, &mut |_, _, _| {}).unwrap();
    let f = &report.files[0];
    assert!(f.error.is_none());
    assert_eq!(f.units.len(), 3);
    let mut targets = f.headers();
    for t in &f.targets {
        targets.stored += t.bytes.stored;
        targets.inflated += t.bytes.inflated;
    }
    assert_eq!(targets, f.totals);
    let units: u64 = f.units.iter().map(|u| u.bytes.stored).sum();
    assert_eq!(units, f.totals.stored);
    let prune = f.prune.as_ref().unwrap().as_ref().unwrap();
    assert!(prune.freed > 0 && prune.images_removed == 3);
}
