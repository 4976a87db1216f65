//! Integration tests: the container scanner and the entry-table reader, on inputs built by
//! clang-19, lld-19, llvm-ar-19 and clang-offload-bundler-19 (objects for x86-64, i386 and
//! big-endian powerpc64; PIE and non-PIE executables from GNU ld and lld, with RELA and RELR;
//! shared libraries; GNU, BSD and thin archives; bundles plain and compressed), checked against
//! what llvm-nm and llvm-readelf say about the same files.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use offkit_format::bundle::{binary as bundle_binary, compressed};
use offkit_format::entry::{self, Format, Name, Resolution, Role, TableKind};
use offkit_format::kind::{ImageKind, OffloadKind};
use offkit_format::scan::{self, Location, Options, Report, Resolver, Source, Step};
use offkit_format::{binary, Error};
use offkit_read::limits;
use offkit_testutil::fixtures::*;
use offkit_testutil::{llvm_tool, run_ok};

/// Every fixture, built once per test run.
struct Fx {
    dir: PathBuf,
}

fn fx() -> &'static Fx {
    static FX: OnceLock<Fx> = OnceLock::new();
    FX.get_or_init(build)
}

fn p(name: &str) -> PathBuf {
    fx().dir.join(name)
}

fn s(p: &Path) -> String {
    p.display().to_string()
}

fn build() -> Fx {
    let dir = shared_dir(env!("CARGO_TARGET_TMPDIR"), "scan");
    let d = dir.as_path();
    // Objects for three hosts: x86-64, i386 (32-bit, REL), powerpc64 (big-endian).
    compile_openmp_for(d, "full", OPENMP_FULL, "x86_64-pc-linux-gnu", &[]);
    compile_openmp_for(d, "k32", OPENMP_KERNEL, "i386-pc-linux-gnu", &["-fPIC"]);
    compile_openmp_for(d, "kppc", OPENMP_KERNEL, "powerpc64-linux-gnu", &["-fPIC"]);
    compile_openmp_for(d, "k64", OPENMP_KERNEL, "x86_64-pc-linux-gnu", &["-fPIC"]);
    compile_openmp(d, "main", MAIN_SAXPY, &["x86_64-pc-linux-gnu"], &[]);
    // Linked: the wrapper embeds the images in the executable and keeps the entry table.
    let omp = ["-fopenmp", "-fopenmp-targets=x86_64-pc-linux-gnu"];
    for (out, extra) in [
        ("exe.bfd", &[][..]),
        ("exe.lld", &["-fuse-ld=lld"][..]),
        (
            "exe.relr",
            &["-fuse-ld=lld", "-Wl,-z,pack-relative-relocs"][..],
        ),
        ("exe.nopie", &["-fuse-ld=lld", "-no-pie"][..]),
        ("libk.so", &["-fuse-ld=lld", "-shared"][..]),
    ] {
        let mut args: Vec<&str> = omp.to_vec();
        args.extend_from_slice(extra);
        let mut inputs = vec!["k64.o"];
        if !out.ends_with(".so") {
            inputs.push("main.o");
        }
        args.extend(inputs);
        args.extend(["-o", out]);
        clang_in(d, &args);
    }
    // 32-bit and big-endian shared libraries, linked by lld directly (no runtime needed).
    let lld = llvm_tool("ld.lld");
    run_ok(&lld, ["-shared", "k32.o", "-o", "k32.so"], d);
    run_ok(&lld, ["-shared", "kppc.o", "-o", "kppc.so"], d);
    // LLVM 20+ entries, in an object and in a shared library with RELR relocations.
    write_source(d, "e20.s", LLVM_OFFLOAD_ENTRIES_ASM);
    clang_in(d, &["-c", "e20.s", "-o", "e20.o"]);
    run_ok(
        &lld,
        [
            "-shared",
            "-z",
            "pack-relative-relocs",
            "e20.o",
            "-o",
            "e20.so",
        ],
        d,
    );
    // HIP.
    compile_hip(d, "h", HIP_KERNEL, "gfx90a", &["-fPIC"]);
    fake_hip_runtime(d);
    clang_in(
        d,
        &[
            "--offload-new-driver",
            "-fgpu-rdc",
            "--hip-link",
            "--offload-arch=gfx90a",
            "-shared",
            "h.o",
            "-L.",
            "-o",
            "libh.so",
        ],
    );
    // Archives.
    let members = [dir.join("k64.o"), dir.join("main.o")];
    let members: Vec<&Path> = members.iter().map(PathBuf::as_path).collect();
    archive(d, "libgnu.a", &members, "gnu");
    archive(d, "libbsd.a", &members, "bsd");
    archive(d, "libthin.a", &members, "thin");
    // Bundles: a bundled object (-type=o) and a compressed bitcode-type bundle of objects.
    let bundler = llvm_tool("clang-offload-bundler");
    run_ok(
        &bundler,
        [
            "-type=o",
            "-targets=host-x86_64-unknown-linux-gnu,openmp-x86_64-pc-linux-gnu,hip-amdgcn-amd-amdhsa--gfx90a",
            "-input=k64.o",
            "-input=k64.o",
            "-input=h.o",
            "-output=fat.o",
        ],
        d,
    );
    run_ok(
        &bundler,
        [
            "-type=bc",
            "-compress",
            "-targets=host-x86_64-unknown-linux-gnu,openmp-x86_64-pc-linux-gnu",
            "-input=main.o",
            "-input=k64.o",
            "-output=fat.ccob",
        ],
        d,
    );
    // A -flto host object (bitcode) in an archive.
    compile_openmp(
        d,
        "lto",
        OPENMP_KERNEL,
        &["x86_64-pc-linux-gnu"],
        &["-flto"],
    );
    archive(d, "liblto.a", &[&dir.join("lto.o")], "gnu");
    // A COFF object (a MinGW host offloading to x86_64 Linux), alone and in an archive.
    compile_openmp(
        d,
        "kcoff",
        OPENMP_KERNEL,
        &["x86_64-pc-linux-gnu"],
        &["--target=x86_64-w64-windows-gnu"],
    );
    archive(d, "libcoff.a", &[&dir.join("kcoff.o")], "gnu");
    Fx { dir }
}

fn read(name: &str) -> Vec<u8> {
    std::fs::read(p(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// `llvm-nm` of a file: symbol name → value.
fn nm(name: &str) -> BTreeMap<String, u64> {
    let out = run_ok(llvm_tool("llvm-nm"), [s(&p(name))], &fx().dir).stdout_str();
    out.lines()
        .filter_map(|l| {
            let mut it = l.split_whitespace();
            let (v, _ty, n) = (it.next()?, it.next()?, it.next()?);
            Some((n.to_string(), u64::from_str_radix(v, 16).ok()?))
        })
        .collect()
}

/// The entry names of a file as its `.offloading.entry.<name>` symbols give them, in address
/// order (clang names each entry's global after the entry).
fn nm_entry_names(name: &str) -> Vec<String> {
    let mut v: Vec<(u64, String)> = nm(name)
        .into_iter()
        .filter_map(|(n, v)| Some((v, n.strip_prefix(".offloading.entry.")?.to_string())))
        .collect();
    v.sort();
    v.into_iter().map(|(_, n)| n).collect()
}

fn tables(name: &str) -> Vec<entry::Table<'static>> {
    let data: &'static [u8] = Box::leak(read(name).into_boxed_slice());
    entry::read_tables(data, 0)
        .unwrap_or_else(|e| panic!("{name}: {e}"))
        .into_iter()
        .map(|t| t.unwrap_or_else(|e| panic!("{name}: {}", e.error)))
        .collect()
}

fn names(t: &entry::Table<'_>) -> Vec<String> {
    t.entries.iter().map(|e| e.name.display()).collect()
}

fn str_name(e: &entry::Entry<'_>) -> String {
    match e.name {
        Name::Str(s) => String::from_utf8_lossy(s).into_owned(),
        other => panic!("unresolved name {other:?}"),
    }
}

#[test]
fn openmp_object_entries_match_symbols_and_flags() {
    let t = tables("full.o");
    assert_eq!(t.len(), 1);
    let t = &t[0];
    assert_eq!(t.kind, TableKind::OpenMp);
    assert_eq!(t.resolution, Resolution::Static);
    assert_eq!((t.layout.stride, t.layout.pointer_size), (32, 8));
    // The requires entry has no name and no symbol of its own; the others are named by theirs.
    let mut expected = nm_entry_names("full.o");
    let got: Vec<String> = t
        .entries
        .iter()
        .filter(|e| e.describe().role != Role::Requires)
        .map(str_name)
        .collect();
    expected.retain(|n| !n.is_empty());
    assert_eq!(got, expected);
    let by_role = |r: Role| {
        t.entries
            .iter()
            .filter(|e| e.describe().role == r)
            .collect::<Vec<_>>()
    };
    let k = by_role(Role::Kernel);
    assert_eq!(k.len(), 1);
    assert!(str_name(k[0]).starts_with("__omp_offloading_"));
    assert!(str_name(k[0]).contains("_saxpy_l"));
    assert_eq!(k[0].raw.size, 0);
    // The kernel's address is its `.region_id` global.
    let addr = String::from_utf8_lossy(k[0].addr.symbol.unwrap()).into_owned();
    assert_eq!(addr, format!(".{}.region_id", str_name(k[0])));
    let link = by_role(Role::Link);
    assert_eq!(link.len(), 1);
    assert_eq!(str_name(link[0]), "g_link_decl_tgt_ref_ptr");
    assert_eq!((link[0].raw.size, link[0].raw.flags), (8, 1));
    let ind = by_role(Role::IndirectFunction);
    assert_eq!(ind.len(), 1);
    assert_eq!((ind[0].raw.size, ind[0].raw.flags), (8, 8));
    assert_eq!(ind[0].addr.symbol, Some(&b"twice"[..]));
    let req = by_role(Role::Requires);
    assert_eq!(req.len(), 1);
    // clang 19 points the name at an empty string.
    assert_eq!(req[0].name, Name::Str(b""));
    assert!(req[0].addr.is_null());
    assert_eq!((req[0].raw.flags, req[0].raw.data), (0x10, 8));
    assert_eq!(req[0].describe().requires, ["unified_shared_memory"]);
}

/// The names, sizes, flags and roles of a table, pointer-size independent.
fn shape(t: &entry::Table<'_>) -> Vec<(String, u32, Role, bool)> {
    t.entries
        .iter()
        .map(|e| {
            let d = e.describe();
            (e.name.display(), e.raw.flags, d.role, e.raw.size > 0)
        })
        .collect()
}

#[test]
fn i386_and_ppc64_objects_read_like_x86_64() {
    let t64 = tables("k64.o");
    for (name, stride) in [("k32.o", 20), ("kppc.o", 32)] {
        let t = tables(name);
        assert_eq!(t.len(), 1, "{name}");
        assert_eq!(t[0].layout.stride, stride, "{name}");
        assert_eq!(names(&t[0]), nm_entry_names(name), "{name}");
        // Same source, same entries (kernel names differ: they hold the file's inode).
        let strip = |v: Vec<(String, u32, Role, bool)>| {
            v.into_iter()
                .map(|(n, f, r, sz)| (if r == Role::Kernel { String::new() } else { n }, f, r, sz))
                .collect::<Vec<_>>()
        };
        assert_eq!(strip(shape(&t[0])), strip(shape(&t64[0])), "{name}");
        let scale = t[0]
            .entries
            .iter()
            .find(|e| e.name == Name::Str(b"scale"))
            .unwrap();
        assert_eq!(scale.raw.size, 4);
        let link = t[0].entries.iter().find(|e| e.raw.flags == 1).unwrap();
        assert_eq!(link.raw.size, if stride == 20 { 4 } else { 8 }, "{name}");
    }
}

#[test]
fn linked_files_apply_dynamic_relocations() {
    let obj = tables("k64.o");
    for name in [
        "exe.bfd",
        "exe.lld",
        "exe.relr",
        "exe.nopie",
        "libk.so",
        "k32.so",
    ] {
        let t = tables(name);
        assert_eq!(t.len(), 1, "{name}");
        assert_eq!(t[0].resolution, Resolution::Dynamic, "{name}");
        if !name.starts_with("k32") && !name.starts_with("kppc") {
            assert_eq!(shape(&t[0]), shape(&obj[0]), "{name}");
        }
        assert_eq!(names(&t[0]), nm_entry_names(name), "{name}");
        // Every address is the link-time address of the symbol the object's entry named.
        let syms = nm(name);
        for e in &t[0].entries {
            let sym = String::from_utf8_lossy(e.addr.symbol.expect("symbol")).into_owned();
            assert_eq!(e.addr.value, syms.get(&sym).copied(), "{name}: {sym}");
        }
    }
    // lld leaves the RELA targets zero in the section: the values come from .rela.dyn.
    let data = read("exe.lld");
    let t = &tables("exe.lld")[0];
    let first = usize::try_from(t.offset).unwrap();
    assert!(data[first..first + 16].iter().all(|&b| b == 0));
}

#[test]
fn llvm20_entries_in_object_and_relr_shared_library() {
    for name in ["e20.o", "e20.so"] {
        let t = tables(name);
        assert_eq!(t.len(), 1);
        let t = &t[0];
        assert_eq!(
            (t.kind, t.layout.format, t.layout.stride),
            (TableKind::Llvm, Format::Llvm, 56)
        );
        let e = &t.entries;
        assert_eq!(e.len(), 3);
        assert_eq!(e[0].name, Name::Str(b"kern"));
        assert_eq!(
            (e[0].offload_kind, e[0].describe().role, e[0].raw.version),
            (OffloadKind::OpenMp, Role::Kernel, 1)
        );
        assert_eq!(e[0].addr.symbol, Some(&b"kern_stub"[..]));
        assert_eq!(e[1].name, Name::Str(b"dev_var"));
        assert_eq!(e[1].offload_kind, OffloadKind::Hip);
        assert_eq!((e[1].raw.size, e[1].raw.data), (16, 7));
        assert_eq!(e[1].describe().flags, ["constant"]);
        assert_eq!(e[2].offload_kind, OffloadKind::Cuda);
        match e[2].name {
            Name::Unresolved(a) => assert_eq!(a.symbol, Some(&b"ext_name"[..])),
            other => panic!("{other:?}"),
        }
        if name == "e20.so" {
            let syms = nm(name);
            assert_eq!(e[0].addr.value, syms.get("kern_stub").copied());
            assert_eq!(e[1].addr.value, syms.get("dev_var").copied());
            assert_eq!(e[2].addr.value, None);
        }
    }
    let sections = run_ok(llvm_tool("llvm-readelf"), ["-S", "e20.so"], &fx().dir).stdout_str();
    assert!(sections.contains(".relr.dyn"), "{sections}");
}

#[test]
fn hip_entries_and_hip_fatbin() {
    let t = tables("h.o");
    assert_eq!(t[0].kind, TableKind::Hip);
    let d: Vec<(String, Role, Vec<&str>, u64)> = t[0]
        .entries
        .iter()
        .map(|e| {
            let d = e.describe();
            (e.name.display(), d.role, d.flags, e.raw.size)
        })
        .collect();
    assert_eq!(
        d,
        [
            ("_Z4kernPi".to_string(), Role::Kernel, vec![], 0),
            ("dv".into(), Role::Variable, vec![], 16),
            ("cv".into(), Role::Variable, vec!["constant"], 4),
            ("mv".into(), Role::Managed, vec![], 4),
        ]
    );
    // The shared library: the table with dynamic relocations, and `.hip_fatbin`, a bundle with
    // an empty host entry and the gfx90a code object.
    let r = scan_file("libh.so");
    assert_eq!(r.tables[0].entries.len(), 4);
    assert_eq!(
        r.tables[0].entries[1].addr_value,
        nm("libh.so").get("dv").copied()
    );
    let dir = format!("{}/", fx().dir.display());
    let rows: Vec<(String, String, String, String, ImageKind)> = r
        .images
        .iter()
        .map(|i| {
            (
                i.location.to_string().replace(&dir, ""),
                i.offload_kind.to_string(),
                i.triple.to_string(),
                i.target_id.to_string(),
                i.image_kind,
            )
        })
        .collect();
    assert_eq!(
        rows,
        [
            (
                "libh.so:.hip_fatbin[0]:host-x86_64-unknown-linux--".to_string(),
                "host".to_string(),
                "x86_64-unknown-linux".to_string(),
                "".to_string(),
                ImageKind::None
            ),
            (
                "libh.so:.hip_fatbin[0]:hip-amdgcn-amd-amdhsa--gfx90a".to_string(),
                "hip".to_string(),
                "amdgcn-amd-amdhsa".to_string(),
                "gfx90a".to_string(),
                ImageKind::Object
            ),
        ]
    );
}

struct Files;

impl Resolver for Files {
    fn thin_member(
        &mut self,
        archive: &Location,
        member: &str,
    ) -> std::io::Result<Box<dyn AsRef<[u8]>>> {
        let Some(Step::File(f)) = archive.steps.first() else {
            return Err(std::io::Error::other("no file"));
        };
        let path = Path::new(f).parent().unwrap().join(member);
        std::fs::read(&path).map(|v| Box::new(v) as Box<dyn AsRef<[u8]>>)
    }
}

fn scan_file(name: &str) -> Report {
    let data = read(name);
    let mut r = Files;
    let mut opts = Options {
        entry_tables: scan::EntryTables::All,
        inflate: scan::Inflate::Whole,
        kernels: true,
        resolver: Some(&mut r),
    };
    scan::scan(&data, &s(&p(name)), &mut opts).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// `(location without the directory, offload kind, triple, target id)` of every image.
fn rows(r: &Report) -> Vec<(String, String, String, String)> {
    let dir = format!("{}/", fx().dir.display());
    r.images
        .iter()
        .map(|i| {
            (
                i.location.to_string().replace(&dir, ""),
                i.offload_kind.to_string(),
                i.triple.to_string(),
                i.target_id.to_string(),
            )
        })
        .collect()
}

#[test]
fn archives_gnu_bsd_and_thin() {
    for (name, kind) in [
        ("libgnu.a", "gnu"),
        ("libbsd.a", "bsd"),
        ("libthin.a", "thin"),
    ] {
        let r = scan_file(name);
        assert_eq!(
            r.containers[0].format,
            scan::Format::Archive { kind },
            "{name}"
        );
        let x86 = |loc: &str| {
            (
                loc.to_string(),
                "openmp".to_string(),
                "x86_64-pc-linux-gnu".to_string(),
                String::new(),
            )
        };
        assert_eq!(
            rows(&r),
            [
                x86(&format!("{name}(k64.o):.llvm.offloading[0]")),
                x86(&format!("{name}(main.o):.llvm.offloading[0]")),
            ],
            "{name}"
        );
        // The host object's own table and the device image's.
        assert_eq!(r.tables.len(), 2, "{name}");
        let thin = r.images.iter().all(|i| i.location.thin_member().is_some());
        assert_eq!(thin, kind == "thin", "{name}");
    }
    // A thin archive without a resolver is an error that names the member.
    let data = read("libthin.a");
    let e = scan::scan(&data, "libthin.a", &mut Options::default()).unwrap_err();
    assert!(e.to_string().contains("k64.o"), "{e}");
}

#[test]
fn bundled_object_and_compressed_bundle() {
    let r = scan_file("fat.o");
    let got = rows(&r);
    let loc = |s: &str| format!("fat.o:{s}");
    assert!(got.contains(&(
        loc("__CLANG_OFFLOAD_BUNDLE__hip-amdgcn-amd-amdhsa--gfx90a"),
        "hip".into(),
        "amdgcn-amd-amdhsa".into(),
        "gfx90a".into()
    )));
    // The host entry is the one-byte placeholder; the openmp entry is k64.o itself, whose
    // .llvm.offloading the walk finds too.
    let host = r.images.iter().find(|i| i.offload_kind.is_host()).unwrap();
    assert!(matches!(
        host.source,
        Source::BundleSection {
            host_placeholder: true,
            ..
        }
    ));
    assert!(got.contains(&(
        loc("__CLANG_OFFLOAD_BUNDLE__openmp-x86_64-pc-linux-gnu-:.llvm.offloading[0]"),
        "openmp".into(),
        "x86_64-pc-linux-gnu".into(),
        String::new()
    )));
    assert!(got.contains(&(
        loc("__CLANG_OFFLOAD_BUNDLE__hip-amdgcn-amd-amdhsa--gfx90a:.llvm.offloading[0]"),
        "hip".into(),
        "amdgcn-amd-amdhsa".into(),
        "gfx90a".into()
    )));

    let r = scan_file("fat.ccob");
    let c = match &r.containers[0].format {
        scan::Format::CompressedBundle(c) => *c,
        other => panic!("{other:?}"),
    };
    assert_eq!(
        (c.format.name(), c.format.version(), c.format.method()),
        ("ccob", 2, "zstd")
    );
    assert_eq!(c.compressed_size, read("fat.ccob").len() as u64);
    let ids: Vec<&str> = r
        .images
        .iter()
        .filter_map(|i| match &i.source {
            Source::BundleEntry { id } => Some(id.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(
        ids,
        [
            "host-x86_64-unknown-linux-gnu-",
            "openmp-x86_64-pc-linux-gnu-"
        ]
    );
    assert!(r
        .images
        .iter()
        .all(|i| i.location.is_inflated() && i.compression.as_ref() == Some(&c)));
}

fn spec_binary(image: &[u8]) -> Vec<u8> {
    binary::write_v1(
        &binary::ImageSpec {
            image_kind: ImageKind::Object,
            offload_kind: OffloadKind::Hip,
            flags: 0,
            strings: vec![
                (b"triple", b"amdgcn-amd-amdhsa"),
                (b"arch", b"gfx90a:xnack+"),
            ],
        },
        image,
        offkit_llvm::LlvmVersion::V19,
    )
    .unwrap()
}

#[test]
fn zlib_and_v1_v3_compressed_bundles_nest() {
    let inner = spec_binary(b"\x7fELF not really");
    let bundle = bundle_binary::write(
        &[
            (b"host-x86_64-unknown-linux-gnu-", b""),
            (b"hip-amdgcn-amd-amdhsa--gfx90a", &inner),
        ],
        8,
    )
    .unwrap();
    for (version, method) in [
        (1, compressed::Method::Zlib),
        (2, compressed::Method::Zlib),
        (3, compressed::Method::Zstd),
    ] {
        let c = compressed::compress(
            &bundle,
            &compressed::Options {
                version,
                method,
                level: -1,
                ..Default::default()
            },
        )
        .unwrap();
        let r = scan::scan(&c.bytes, "b.ccob", &mut Options::default()).unwrap();
        let locs: Vec<String> = r.images.iter().map(|i| i.location.to_string()).collect();
        assert_eq!(
            locs,
            [
                "b.ccob[0]:host-x86_64-unknown-linux-gnu-",
                "b.ccob[0]:hip-amdgcn-amd-amdhsa--gfx90a",
                "b.ccob[0]:hip-amdgcn-amd-amdhsa--gfx90a[0]",
            ]
        );
        let last = &r.images[2];
        assert_eq!(last.target_id.as_str(), "gfx90a:xnack+");
        let comp = last.compression.as_ref().unwrap();
        assert_eq!(
            (comp.format.version(), comp.format.method()),
            (u32::from(version), method.name())
        );
        assert_eq!(comp.uncompressed_size, bundle.len() as u64);
    }
}

#[test]
fn limits_nesting_and_inflation() {
    // Bundles nested deeper than MAX_NESTING_DEPTH.
    let mut data = spec_binary(b"x");
    for _ in 0..=limits::MAX_NESTING_DEPTH {
        data = bundle_binary::write(&[(b"openmp-x86_64-pc-linux-gnu-", &data)], 1).unwrap();
    }
    let e = scan::scan(&data, "deep", &mut Options::default()).unwrap_err();
    assert!(
        e.to_string().contains("MAX_NESTING_DEPTH")
            || std::error::Error::source(&e)
                .is_some_and(|s| s.to_string().contains("MAX_NESTING_DEPTH")),
        "{e}"
    );
    // A v3 compressed bundle that claims to inflate beyond MAX_INFLATED_SIZE is refused before
    // anything is allocated.
    let c = compressed::compress(
        b"__CLANG_OFFLOAD_BUNDLE__ small",
        &compressed::Options {
            version: 3,
            ..Default::default()
        },
    )
    .unwrap();
    let mut bytes = c.bytes;
    bytes[16..24].copy_from_slice(&(limits::MAX_INFLATED_SIZE + 1).to_le_bytes());
    let e = scan::scan(&bytes, "bomb", &mut Options::default()).unwrap_err();
    assert!(
        matches!(
            e,
            Error::LimitExceeded {
                limit: limits::Limit::InflatedSize,
                ..
            }
        ),
        "{e}"
    );
}

#[test]
fn errors_name_member_section_and_offset() {
    let k = read("k64.o");
    let mut bad = k.clone();
    // Find the offload binary in the object and give it an unknown version.
    let at = bad
        .windows(4)
        .position(|w| w == binary::MAGIC)
        .expect("magic");
    bad[at + 4] = 9;
    let dir = &fx().dir;
    let bad_path = dir.join("bad-version.o");
    std::fs::write(&bad_path, &bad).unwrap();
    let a = archive(dir, "libbad.a", &[&p("k64.o"), &bad_path], "gnu");
    let data = std::fs::read(&a).unwrap();
    let e = scan::scan(&data, "libbad.a", &mut Options::default()).unwrap_err();
    let Error::Within { location, source } = &e else {
        panic!("{e:?}")
    };
    assert_eq!(location, "libbad.a(bad-version.o):.llvm.offloading");
    let Error::UnsupportedVersion {
        offset, version, ..
    } = **source
    else {
        panic!("{source:?}")
    };
    assert_eq!(version, 9);
    // The offset is absolute in the archive.
    assert_eq!(&data[offset as usize..offset as usize + 4], binary::MAGIC);
}

#[test]
fn lto_bitcode_objects_and_archives() {
    for (name, loc) in [
        ("lto.o", "lto.o:@llvm.embedded.object[0]"),
        ("liblto.a", "liblto.a(lto.o):@llvm.embedded.object[0]"),
    ] {
        let r = scan_file(name);
        let got = rows(&r);
        assert_eq!(
            got,
            [(
                loc.to_string(),
                "openmp".into(),
                "x86_64-pc-linux-gnu".into(),
                String::new()
            )],
            "{name}"
        );
        // The device image (an ELF object) and its entry table are found inside.
        assert_eq!(r.images[0].image_kind, ImageKind::Object);
        assert_eq!(r.tables.len(), 1, "{name}");
        assert!(r
            .containers
            .iter()
            .any(|c| c.format == scan::Format::Bitcode));
    }
}

#[test]
fn compressed_v3_offload_binaries_are_inflated_and_walked() {
    let k = read("k64.o");
    let spec = |arch: &'static [u8]| binary::ImageSpec {
        image_kind: ImageKind::Object,
        offload_kind: OffloadKind::OpenMp,
        flags: 0,
        strings: vec![(b"triple", b"x86_64-pc-linux-gnu"), (b"arch", arch)],
    };
    let images = [
        binary::Image {
            spec: spec(b""),
            data: &k,
        },
        binary::Image {
            spec: spec(b"x"),
            data: b"opaque",
        },
    ];
    for c in [binary::Compression::zlib(), binary::Compression::zstd()] {
        let bytes = binary::write(
            binary::Version::V3,
            &images,
            c,
            offkit_llvm::LlvmVersion::V19,
        )
        .unwrap();
        let r = scan::scan(&bytes, "v3.bin", &mut Options::default()).unwrap();
        let locs: Vec<String> = r.images.iter().map(|i| i.location.to_string()).collect();
        // Both images, then the binary found inside k64.o (itself inside the inflated data).
        assert_eq!(
            locs,
            ["v3.bin[0]", "v3.bin[0]:.llvm.offloading[0]", "v3.bin[1]"]
        );
        let comp = r.images[0].compression.as_ref().unwrap();
        assert_eq!(
            (comp.format.name(), comp.format.version()),
            ("offload-binary", 3)
        );
        assert_eq!(r.images[1].compression.as_ref(), Some(comp));
        assert!(r.images[1].location.is_inflated());
        assert!(!r.images[0].location.is_inflated());
        assert_eq!(r.images[2].target_id.as_str(), "x");
    }
}

/// A sequence of plain and compressed bundles (every version, both methods) with 4096-byte
/// zero padding: walked whole and by headers only, the same images at the same offsets, each
/// with its bundle and an address; by headers only, compressed images are not at hand and the
/// walk never decompresses more than the entry tables.
#[test]
fn bundle_sequences_whole_and_by_headers() {
    use offkit_format::bundle::{binary, compressed};
    let big: Vec<u8> = (0..3_000_000u32).map(|i| (i % 251) as u8).collect();
    let plain = binary::write(
        &[
            (b"host-x86_64-unknown-linux--", b""),
            (b"hipv4-amdgcn-amd-amdhsa--gfx90a", &big),
        ],
        4096,
    )
    .unwrap();
    let mut data = Vec::new();
    let mut starts = Vec::new();
    for (version, method) in [
        (0, compressed::Method::Zstd),
        (1, compressed::Method::Zlib),
        (2, compressed::Method::Zstd),
        (3, compressed::Method::Zlib),
        (1, compressed::Method::Zstd),
    ] {
        starts.push(data.len() as u64);
        if version == 0 {
            data.extend_from_slice(&plain);
        } else {
            let opts = compressed::Options {
                version,
                method,
                level: 1,
                ..Default::default()
            };
            data.extend_from_slice(&compressed::compress(&plain, &opts).unwrap().bytes);
        }
        data.resize(data.len().div_ceil(4096) * 4096, 0);
    }
    let walk = |inflate| {
        let mut rows = Vec::new();
        let mut opts = Options {
            inflate,
            ..Options::default()
        };
        scan::walk(&data, "seq.bundle", &mut opts, &mut |ev| {
            if let scan::Event::Image(i) = ev {
                rows.push((i.info.clone(), i.whole, i.bytes.len()));
            }
            Ok::<(), offkit_format::Error>(())
        })
        .unwrap();
        rows
    };
    let whole = walk(scan::Inflate::Whole);
    let heads = walk(scan::Inflate::Headers);
    assert_eq!(whole.len(), 10);
    for ((w, w_whole, w_len), (h, h_whole, h_len)) in whole.iter().zip(&heads) {
        assert_eq!(w, h);
        assert!(*w_whole);
        assert_eq!(*w_len as u64, w.size);
        let b = w.bundle.unwrap();
        assert_eq!(b.offset, starts[b.index]);
        let a = w.address.unwrap();
        match &w.compression {
            None => {
                assert!(*h_whole);
                assert_eq!((a.offset, a.size, a.inflated), (w.offset, w.size, None));
                assert_eq!(
                    &data[a.offset as usize..][..a.size as usize],
                    &big[..a.size as usize]
                );
            }
            Some(c) => {
                // The 3 MB payload lies past the prefix that holds the header.
                assert_eq!(*h_whole, w.size == 0, "{}", w.location);
                assert!(*h_len as u64 <= w.size);
                assert_eq!((a.offset, a.size), (c.offset, b.size));
                assert_eq!(a.inflated, Some((w.offset, w.size)));
            }
        }
    }
    let locs: Vec<String> = heads.iter().map(|r| r.0.location.to_string()).collect();
    assert_eq!(locs[2], "seq.bundle[1]:host-x86_64-unknown-linux--");
    assert_eq!(locs[9], "seq.bundle[4]:hipv4-amdgcn-amd-amdhsa--gfx90a");
}

/// How many offload binaries deep an image is.
fn binary_depth(i: &scan::ImageInfo) -> usize {
    i.location
        .steps
        .iter()
        .filter(|s| matches!(s, Step::Binary(_)))
        .count()
}

/// The flat list of offload binaries that the packager's extraction and the linker wrapper's
/// scan work from finds, in every kind of container, the images the walk finds, in the same
/// order, borrowed from the input (owned only for thin members and decoded bitcode).
#[test]
fn flat_list_agrees_with_the_walk() {
    for name in [
        "full.o",
        "k32.o",
        "kppc.o",
        "exe.lld",
        "exe.bfd",
        "libk.so",
        "libgnu.a",
        "libbsd.a",
        "libthin.a",
        "liblto.a",
        "kcoff.o",
        "libcoff.a",
    ] {
        let data = read(name);
        let mut files = Files;
        let mut read = scan::read_binaries;
        let mut opts = scan::Binaries {
            read: &mut read,
            resolver: Some(&mut files),
            skip_shared_input: false,
            bitcode_error: |e| e,
        };
        let found = scan::offload_binaries(&data, 0, &s(&p(name)), &mut opts)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        let flat: Vec<(String, String, u64, usize)> = found
            .iter()
            .flat_map(|f| {
                f.binary.entries.iter().map(|e| {
                    (
                        f.members.join("/"),
                        e.triple().into_owned(),
                        e.image_offset,
                        e.image.len(),
                    )
                })
            })
            .collect();
        let walked: Vec<(String, String, u64, usize)> = scan_file(name)
            .images
            .iter()
            .filter(|i| matches!(i.source, Source::OffloadBinary { .. }))
            // Only the images of the input's own binaries, not those nested in images.
            .filter(|i| binary_depth(i) == 1)
            .map(|i| {
                let member = i
                    .location
                    .steps
                    .iter()
                    .filter_map(|s| match s {
                        Step::Member(m) | Step::ThinMember(m) => Some(m.clone()),
                        _ => None,
                    })
                    .collect::<Vec<_>>()
                    .join("/");
                (member, i.triple.to_string(), i.offset, i.size as usize)
            })
            .collect();
        assert!(!flat.is_empty(), "{name}");
        assert_eq!(flat, walked, "{name}");
        for f in &found {
            for e in &f.binary.entries {
                let owned_ok = name == "libthin.a" || name == "liblto.a";
                match &e.image {
                    std::borrow::Cow::Borrowed(b) => assert!(
                        data.as_ptr_range().contains(&b.as_ptr()),
                        "{name}: borrowed from the input"
                    ),
                    std::borrow::Cow::Owned(_) => assert!(owned_ok, "{name}: copied"),
                }
            }
        }
    }
}

/// COFF objects (and archives of them) hold their offload binaries in `.llvm.offloading`
/// sections named through the string table: the walk and the flat list find the image, and its
/// bytes are those LLVM 19's `clang-offload-packager` extracts.
#[test]
fn coff_objects_and_archives_as_llvm_19() {
    let packager = llvm_tool("clang-offload-packager");
    for name in ["kcoff.o", "libcoff.a"] {
        let out = fx().dir.join(format!("{name}.llvm.img"));
        run_ok(
            &packager,
            [
                s(&p(name)),
                format!("--image=triple=x86_64-pc-linux-gnu,file={}", s(&out)),
            ],
            &fx().dir,
        );
        let theirs = std::fs::read(&out).expect("LLVM 19 extracted the image");
        let r = scan_file(name);
        let member = if name.ends_with(".a") {
            "(kcoff.o)"
        } else {
            ""
        };
        let dir = format!("{}/", fx().dir.display());
        let top: Vec<String> = r
            .images
            .iter()
            .filter(|i| binary_depth(i) == 1)
            .map(|i| i.location.to_string().replace(&dir, ""))
            .collect();
        assert_eq!(top, [format!("{name}{member}:.llvm.offloading[0]")]);
        assert_eq!(
            r.containers[usize::from(!member.is_empty())].format,
            scan::Format::Coff
        );
        let data = read(name);
        let bins = offkit_format::scan::all_binaries(&data, 0).unwrap();
        assert_eq!(bins.len(), 1, "{name}");
        assert_eq!(bins[0].entries[0].image.as_ref(), &theirs[..], "{name}");
    }
}

/// A PE image linked by lld (MinGW) keeps the wrapped device image in a section whose name lld
/// cuts to `.llvm` (the object's own `.llvm.offloading` is dropped: `IMAGE_SCN_LNK_REMOVE`).
/// The walk finds it there, with the bytes the wrapper linked (`--save-temps`'s `.img`); LLVM
/// 19's `extractOffloadBinaries` reads no PE image, and neither does the flat list (its rules).
#[test]
fn pe_images_linked_by_lld() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    compile_openmp(
        d,
        "k",
        OPENMP_KERNEL,
        &["x86_64-pc-linux-gnu"],
        &["--target=x86_64-w64-windows-gnu"],
    );
    // Stand-ins for the runtime libraries: the program is looked into, never run.
    for lib in ["libomp.a", "libomptarget.a"] {
        std::fs::write(d.join(lib), b"!<arch>\n").unwrap();
    }
    clang_in(
        d,
        &[
            "--target=x86_64-w64-windows-gnu",
            "-fopenmp",
            "-fopenmp-targets=x86_64-pc-linux-gnu",
            "-fuse-ld=lld",
            "-save-temps",
            "k.o",
            "-L.",
            "-Wl,-Xlink=/force:unresolved",
            "-o",
            "k.exe",
        ],
    );
    let data = std::fs::read(d.join("k.exe")).unwrap();
    let linked = std::fs::read(d.join("k.exe.x86_64.native.img")).unwrap();
    let r = scan::scan(&data, "k.exe", &mut Options::default()).unwrap();
    assert_eq!(r.containers[0].format, scan::Format::Coff);
    let top: Vec<&scan::ImageInfo> = r.images.iter().filter(|i| binary_depth(i) == 1).collect();
    assert_eq!(top.len(), 1);
    assert_eq!(top[0].location.to_string(), "k.exe:.llvm[0]");
    assert_eq!(top[0].triple.to_string(), "x86_64-pc-linux-gnu");
    let at = usize::try_from(top[0].offset).unwrap();
    assert_eq!(data.get(at..at + linked.len()), Some(&linked[..]));
    assert_eq!(top[0].size as usize, linked.len());
    // LLVM 19's tools find nothing in it; the flat list (LLVM 19's rules) neither.
    let objdump = run_ok(llvm_tool("llvm-objdump"), ["--offloading", "k.exe"], d);
    assert!(!String::from_utf8_lossy(&objdump.stdout).contains("OFFLOADING IMAGE"));
    assert!(offkit_format::scan::all_binaries(&data, 0)
        .unwrap()
        .is_empty());
}
