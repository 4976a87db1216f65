//! Integration tests: bitcode. Conformance against LLVM 19 on bitcode built by clang-19 at
//! test time: embedded offload objects against the files given to `-fembed-offload-object`
//! (the images in them against `clang-offload-packager`: offkit-format's `tests/all/binary.rs`); symbol tables against `llvm-lto2 dump-symtab`, `llvm-nm` and
//! the archive symbol table `llvm-ar` writes.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use offkit_llvm::bitcode::{self, Symtab, Visibility};
use offkit_llvm::Error;
use offkit_testutil::bitcode as tb;
use offkit_testutil::{llvm_tool, run_ok};

fn tmp() -> tempfile::TempDir {
    tempfile::tempdir().expect("temp dir")
}

fn read(p: &Path) -> Vec<u8> {
    std::fs::read(p).unwrap_or_else(|e| panic!("read {}: {e}", p.display()))
}

const MAIN_C: &str = "int main(void) { return 0; }\n";

/// Packager outputs with 1, 2 and 3 images (the images are arbitrary files).
fn packaged(dir: &Path) -> Vec<PathBuf> {
    let img = |name: &str, bytes: &[u8]| {
        let p = dir.join(name);
        std::fs::write(&p, bytes).unwrap();
        p
    };
    let a = img("a.img", b"\x7fELF pretend image a");
    let b = img("b.img", &[0xAB; 1001]);
    let c = img(
        "c.img",
        &(0..=255u8).cycle().take(70_000).collect::<Vec<_>>(),
    );
    vec![
        tb::package(
            dir,
            "one.out",
            &[(&a, "triple=x86_64-pc-linux-gnu,arch=generic,kind=openmp")],
        ),
        tb::package(
            dir,
            "two.out",
            &[
                (&b, "triple=amdgcn-amd-amdhsa,arch=gfx90a,kind=openmp"),
                (&a, "triple=x86_64-pc-linux-gnu,kind=openmp"),
            ],
        ),
        tb::package(
            dir,
            "three.out",
            &[
                (&c, "triple=nvptx64-nvidia-cuda,arch=sm_70,kind=cuda"),
                (&a, "triple=amdgcn-amd-amdhsa,arch=gfx1030,kind=hip"),
                (&b, "triple=spirv64-intel,arch=generic,kind=openmp"),
            ],
        ),
    ]
}

#[test]
fn embedded_objects_are_the_embedded_files() {
    let dir = tmp();
    let outs = packaged(dir.path());
    for n in 1..=3 {
        for target in [
            "x86_64-pc-linux-gnu",
            "x86_64-apple-macos11",
            "x86_64-pc-windows-msvc",
        ] {
            let mut args = vec!["-flto".to_string(), format!("--target={target}")];
            for o in &outs[..n] {
                args.push("-Xclang".into());
                args.push(format!("-fembed-offload-object={}", o.display()));
            }
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            let name = format!("main{n}-{target}.c");
            let bc = tb::compile(dir.path(), &name, MAIN_C, &args);
            let data = read(&bc);
            let got = bitcode::embedded_objects(&data, 0).unwrap();
            assert_eq!(got.len(), n, "{target}");
            for (i, e) in got.iter().enumerate() {
                let want_name = match i {
                    0 => "llvm.embedded.object".to_string(),
                    i => format!("llvm.embedded.object.{i}"),
                };
                assert_eq!(e.name, want_name.as_bytes());
                assert_eq!(e.section, b".llvm.offloading");
                assert!(
                    e.data.as_ref() == read(&outs[i]).as_slice(),
                    "{target} object {i}"
                );
                if let std::borrow::Cow::Borrowed(b) = &e.data {
                    let at = e.offset as usize;
                    assert_eq!(&data[at..at + b.len()], *b);
                }
            }
        }
    }
}

#[test]
fn files_without_embedded_objects() {
    let dir = tmp();
    let plain = tb::compile(dir.path(), "plain.c", MAIN_C, &["-flto"]);
    assert!(bitcode::embedded_objects(&read(&plain), 0)
        .unwrap()
        .is_empty());
    // The named metadata exists but names another section: skipped, as LLVM does.
    let ll = dir.path().join("other.ll");
    std::fs::write(
        &ll,
        "@obj = private constant [4 x i8] c\"\\10\\FF\\10\\AD\", section \".other\"\n\
         @zero = private constant [8 x i8] zeroinitializer, section \".llvm.offloading\"\n\
         !llvm.embedded.objects = !{!0, !1, !2}\n\
         !0 = !{ptr @obj, !\".other\"}\n!1 = !{ptr @zero, !\".llvm.offloading\"}\n!2 = !{ptr @obj}\n",
    )
    .unwrap();
    let bc = dir.path().join("other.bc");
    run_ok(
        llvm_tool("llvm-as"),
        [
            ll.display().to_string(),
            "-o".into(),
            bc.display().to_string(),
        ],
        dir.path(),
    );
    assert!(bitcode::embedded_objects(&read(&bc), 0).unwrap().is_empty());
}

#[test]
fn data_constants_and_cstrings_are_read_like_llvm() {
    // A global whose initializer is a `DATA` array of i32 and one that is a C string: LLVM's
    // `getAsString` gives their bytes in memory order (little-endian here), the C string with
    // its NUL. Both then fail to parse as offload binaries, like in LLVM.
    let dir = tmp();
    let ll = dir.path().join("data.ll");
    std::fs::write(
        &ll,
        "@a = private constant [3 x i32] [i32 1, i32 -2, i32 65536], section \".llvm.offloading\"\n\
         @b = private constant [4 x i8] c\"abc\\00\", section \".llvm.offloading\"\n\
         @c = private constant <2 x double> <double 1.0, double -0.5>\n\
         !llvm.embedded.objects = !{!0, !1, !2}\n\
         !0 = !{ptr @a, !\".llvm.offloading\"}\n!1 = !{ptr @b, !\".llvm.offloading\"}\n\
         !2 = !{ptr @c, !\".llvm.offloading\"}\n",
    )
    .unwrap();
    let bc = dir.path().join("data.bc");
    run_ok(
        llvm_tool("llvm-as"),
        [
            ll.display().to_string(),
            "-o".into(),
            bc.display().to_string(),
        ],
        dir.path(),
    );
    let data = read(&bc);
    let got = bitcode::embedded_objects(&data, 0).unwrap();
    let bytes: Vec<&[u8]> = got.iter().map(|e| e.data.as_ref()).collect();
    let mut doubles = 1.0f64.to_le_bytes().to_vec();
    doubles.extend((-0.5f64).to_le_bytes());
    assert_eq!(
        bytes,
        vec![
            &[1, 0, 0, 0, 0xFE, 0xFF, 0xFF, 0xFF, 0, 0, 1, 0][..],
            b"abc\0",
            &doubles[..]
        ]
    );
    let names: Vec<&[u8]> = got.iter().map(|e| e.name).collect();
    assert_eq!(names, vec![&b"a"[..], b"b", b"c"]);
    let packager = tb::packager_extract(dir.path(), &bc, "triple=x", "x.img");
    assert!(
        packager.is_err(),
        "LLVM parses these as offload binaries too, and fails"
    );
}

#[test]
fn multi_module_files_are_refused_like_llvm() {
    let dir = tmp();
    let outs = packaged(dir.path());
    let emb = format!("-fembed-offload-object={}", outs[0].display());
    let a = tb::compile(dir.path(), "a.c", MAIN_C, &["-flto", "-Xclang", &emb]);
    let b = tb::compile(dir.path(), "b.c", "int b;", &["-flto"]);
    let cat = dir.path().join("cat.bc");
    run_ok(
        llvm_tool("llvm-cat"),
        [
            "-b",
            "-o",
            &cat.display().to_string(),
            &a.display().to_string(),
            &b.display().to_string(),
        ],
        dir.path(),
    );
    let data = read(&cat);
    let file = bitcode::parse(&data, 0).unwrap();
    assert_eq!(file.modules.len(), 2);
    assert_eq!(
        file.modules[1].header().unwrap().source_filename,
        dir.path().join("b.c").display().to_string().as_bytes()
    );
    assert!(matches!(
        bitcode::embedded_objects(&data, 0),
        Err(Error::Invalid { .. })
    ));
    let packager = tb::packager_extract(dir.path(), &cat, "triple=x86_64-pc-linux-gnu", "c.img");
    assert!(packager
        .unwrap_err()
        .to_string()
        .contains("Failed to create module"));
    // llvm-cat -b writes no symbol table: LLVM would rebuild one; offkit says it cannot.
    assert!(matches!(
        bitcode::symbol_table(&data, 0),
        Err(Error::Unsupported { .. })
    ));
}

#[test]
fn module_headers() {
    let dir = tmp();
    let mac = tb::compile(
        dir.path(),
        "m.c",
        MAIN_C,
        &["-flto", "--target=x86_64-apple-macos11"],
    );
    let data = read(&mac);
    assert!(data.starts_with(&bitcode::WRAPPER_MAGIC));
    let file = bitcode::parse(&data, 0x1000).unwrap();
    assert_eq!(file.offset, 0x1014);
    let [m] = file.modules.as_slice() else {
        panic!("one module")
    };
    assert_eq!(m.producer().unwrap().as_deref(), Some(&b"LLVM19.1.7"[..]));
    let h = m.header().unwrap();
    assert_eq!(h.version, 2);
    assert_eq!(h.triple, b"x86_64-apple-macosx11.0.0");
    assert!(h.datalayout.starts_with(b"e-m:o"));
    assert!(h.source_filename.ends_with(b"m.c"));
}

/// offkit's rendering of `llvm-lto2 dump-symtab` (LLVM 19) for one file.
fn dump_symtab(t: &Symtab<'_>) -> String {
    let s = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    let triple = s(t.target_triple);
    let mut out = String::new();
    writeln!(out, "version: {}", t.version).unwrap();
    writeln!(out, "producer: {}", s(t.producer)).unwrap();
    writeln!(out, "target triple: {triple}").unwrap();
    writeln!(out, "source filename: {}", s(t.source_filename)).unwrap();
    let coff = triple.contains("windows");
    let macho = triple.contains("apple");
    if coff {
        writeln!(out, "linker opts: {}", s(t.coff_linker_opts)).unwrap();
    } else if !macho {
        out += "dependent libraries:";
        for l in &t.dependent_libraries {
            write!(out, " \"{}\"", s(l)).unwrap();
        }
        out += "\n";
    }
    for sym in t
        .symbols
        .iter()
        .filter(|x| x.is_global() && !x.is_format_specific())
    {
        out.push(match sym.visibility() {
            Visibility::Hidden => 'H',
            Visibility::Protected => 'P',
            Visibility::Default => 'D',
        });
        for (c, b) in [
            ('U', sym.is_undefined()),
            ('C', sym.is_common()),
            ('W', sym.is_weak()),
            ('I', sym.is_indirect()),
            ('O', sym.can_be_omitted()),
            ('T', sym.is_tls()),
            ('X', sym.is_executable()),
        ] {
            out.push(if b { c } else { '-' });
        }
        writeln!(out, " {}", s(sym.name)).unwrap();
        if sym.is_common() {
            writeln!(
                out,
                "         size {} align {}",
                sym.common_size, sym.common_align
            )
            .unwrap();
        }
        if let Some(c) = sym.comdat {
            let c = t.comdats[c as usize];
            let kind = ["any", "exactmatch", "largest", "nodeduplicate", "samesize"]
                [c.selection_kind as usize];
            writeln!(out, "         comdat {kind} {}", s(c.name)).unwrap();
        }
        if coff && sym.is_weak() && sym.is_indirect() {
            writeln!(
                out,
                "         fallback {}",
                s(sym.coff_weak_external_fallback)
            )
            .unwrap();
        }
        if !sym.section_name.is_empty() {
            writeln!(out, "         section {}", s(sym.section_name)).unwrap();
        }
    }
    out += "\n";
    out
}

/// Compares offkit's symbol table of `file` with `llvm-lto2 dump-symtab`, `llvm-nm` (with and
/// without format-specific symbols) and the archive symbol table of `llvm-ar`.
#[track_caller]
fn same_symbols_as_llvm(dir: &Path, file: &Path) -> usize {
    let data = read(file);
    let t = bitcode::symbol_table(&data, 0).unwrap();
    assert_eq!(
        dump_symtab(&t),
        tb::dump_symtab(&[file]),
        "{}",
        file.display()
    );
    let ours: Vec<(char, String)> = t
        .symbols
        .iter()
        .map(|s| (s.nm_letter(), String::from_utf8_lossy(s.name).into_owned()))
        .collect();
    assert_eq!(ours, tb::nm(file, true), "llvm-nm -a of {}", file.display());
    let visible: Vec<(char, String)> = t
        .symbols
        .iter()
        .filter(|s| !s.is_format_specific())
        .map(|s| (s.nm_letter(), String::from_utf8_lossy(s.name).into_owned()))
        .collect();
    assert_eq!(
        visible,
        tb::nm(file, false),
        "llvm-nm of {}",
        file.display()
    );
    let member = file.file_name().unwrap().to_string_lossy().into_owned();
    let ar: Vec<(String, String)> = bitcode::archive_symbols(&data, 0)
        .unwrap()
        .into_iter()
        .map(|s| (String::from_utf8_lossy(s).into_owned(), member.clone()))
        .collect();
    assert_eq!(ar, tb::armap(dir, &[file]), "armap of {}", file.display());
    t.symbols.len()
}

#[test]
fn symbols_match_llvm_for_host_code() {
    let dir = tmp();
    let d = dir.path();
    let mut total = 0;
    for (name, src, args) in [
        ("c.c", tb::C_SYMBOLS, &["-flto", "-fcommon"][..]),
        ("cthin.c", tb::C_SYMBOLS, &["-flto=thin", "-fcommon"][..]),
        ("cxx.cpp", tb::CXX_SYMBOLS, &["-flto"][..]),
        ("cxx_o2.cpp", tb::CXX_SYMBOLS, &["-flto", "-O2"][..]),
        ("deplib.c", "#pragma comment(lib, \"m\")\nint f(void) { return 0; }\n", &["-flto"][..]),
        (
            "win.c",
            "__declspec(dllexport) int exported = 1;\n__declspec(selectany) int picked = 2;\n\
             #pragma comment(lib, \"kernel32\")\n#pragma comment(linker, \"/include:plain\")\n\
             int plain(void) { return exported + picked; }\n",
            &["-flto", "--target=x86_64-pc-windows-msvc"][..],
        ),
        (
            "mac.c",
            "int mac_fn(void) { return 1; }\nstatic int s;\nint g = 1;\nint get(void) { return s; }\n",
            &["-flto", "--target=x86_64-apple-macos11"][..],
        ),
    ] {
        let bc = tb::compile(d, name, src, args);
        assert!(bitcode::symbol_table(&read(&bc), 0).unwrap().is_from_llvm19());
        total += same_symbols_as_llvm(d, &bc);
    }
    let omp = tb::compile(
        d,
        "omp.c",
        offkit_testutil::fixtures::OPENMP_SAXPY,
        &["-flto", "-fopenmp", "-fopenmp-targets=x86_64-pc-linux-gnu"],
    );
    total += same_symbols_as_llvm(d, &omp);
    assert!(total > 100, "{total} symbols compared");
}

#[test]
fn tables_from_other_producers_are_read_as_stored() {
    // LLVM 19 rebuilds a table whose producer is not "19.1.7" from the module; offkit reads
    // the stored one. For a table of the same layout the two agree: `llvm-lto2 dump-symtab`
    // and `llvm-nm` below show the rebuilt table.
    let dir = tmp();
    let d = dir.path();
    for (name, src) in [("c.c", tb::C_SYMBOLS), ("cxx.cpp", tb::CXX_SYMBOLS)] {
        let input = d.join(name);
        std::fs::write(&input, src).unwrap();
        let out = d.join(format!("{name}.bc"));
        let status = std::process::Command::new(offkit_testutil::clang())
            .env("LLVM_OVERRIDE_PRODUCER", "other 1.0")
            .args(["-flto", "-fcommon", "-c"])
            .arg(&input)
            .arg("-o")
            .arg(&out)
            .status()
            .unwrap();
        assert!(status.success());
        let data = read(&out);
        let t = bitcode::symbol_table(&data, 0).unwrap();
        assert_eq!(t.producer, b"other 1.0");
        assert!(!t.is_from_llvm19());
        same_symbols_as_llvm(d, &out);
    }
}

#[test]
fn symbols_match_llvm_for_device_code() {
    let dir = tmp();
    let d = dir.path();
    let mut args = tb::HIP_FLAGS.to_vec();
    args.push("--cuda-device-only");
    let hip = tb::compile(d, "k.hip", tb::HIP_DEVICE, &args);
    same_symbols_as_llvm(d, &hip);
    let names: Vec<Vec<u8>> = bitcode::archive_symbols(&read(&hip), 0)
        .unwrap()
        .into_iter()
        .map(<[u8]>::to_vec)
        .collect();
    assert!(names.iter().any(|n| n.starts_with(b"__hip_cuid_")));
    assert!(names.contains(&b"__oclc_ABI_version".to_vec()));

    // Device bitcode of libomptarget's device runtime, as the packager extracts it.
    let rtl = offkit_testutil::llvm_lib().join("libomptarget.devicertl.a");
    let mut members = Vec::new();
    for (member, spec) in [
        (
            "devicertl-amdgpu-gfx90a.o",
            "triple=amdgcn-amd-amdhsa,arch=gfx90a",
        ),
        (
            "devicertl-nvptx-sm_70.o",
            "triple=nvptx64-nvidia-cuda,arch=sm_70",
        ),
    ] {
        run_ok(
            llvm_tool("llvm-ar"),
            [
                "x".to_string(),
                rtl.display().to_string(),
                member.to_string(),
            ],
            d,
        );
        let out = format!("{member}.bc");
        tb::packager_extract(d, &d.join(member), spec, &out).unwrap();
        let bc = d.join(&out);
        assert!(same_symbols_as_llvm(d, &bc) > 50);
        members.push(bc);
    }
    // Several bitcode members in one archive.
    members.push(hip);
    let mut want = Vec::new();
    for m in &members {
        let member = m.file_name().unwrap().to_string_lossy().into_owned();
        for s in bitcode::archive_symbols(&read(m), 0).unwrap() {
            want.push((String::from_utf8_lossy(s).into_owned(), member.clone()));
        }
    }
    let refs: Vec<&Path> = members.iter().map(PathBuf::as_path).collect();
    assert_eq!(want, tb::armap(d, &refs));
}

#[test]
fn symbols_match_llvm_for_every_device_runtime_library() {
    // Every OpenMP device runtime bitcode library LLVM 19 installs (44 files, 17 MiB): one
    // `llvm-lto2 dump-symtab`, one `llvm-nm` and one `llvm-ar` run over all of them.
    let dir = tmp();
    let lib = offkit_testutil::llvm_lib();
    let mut files: Vec<PathBuf> = std::fs::read_dir(&lib)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            let n = p.file_name().unwrap().to_string_lossy();
            n.starts_with("libomptarget-") && n.ends_with(".bc")
        })
        .collect();
    files.sort();
    assert!(
        files.len() >= 40,
        "{} device runtime libraries",
        files.len()
    );
    let refs: Vec<&Path> = files.iter().map(PathBuf::as_path).collect();
    let datas: Vec<Vec<u8>> = files.iter().map(|f| read(f)).collect();
    let tables: Vec<Symtab<'_>> = datas
        .iter()
        .map(|d| bitcode::symbol_table(d, 0).unwrap())
        .collect();
    let ours: String = tables.iter().map(dump_symtab).collect();
    assert_eq!(ours, tb::dump_symtab(&refs));
    let nm = tb::nm_many(&refs, true);
    let mut armap = Vec::new();
    let mut symbols = 0;
    for ((t, theirs), f) in tables.iter().zip(&nm).zip(&files) {
        let ours: Vec<(char, String)> = t
            .symbols
            .iter()
            .map(|s| (s.nm_letter(), String::from_utf8_lossy(s.name).into_owned()))
            .collect();
        assert_eq!(&ours, theirs, "llvm-nm -a of {}", f.display());
        symbols += ours.len();
        let member = f.file_name().unwrap().to_string_lossy().into_owned();
        for s in t.symbols.iter().filter(|s| s.in_archive_symbol_table()) {
            armap.push((String::from_utf8_lossy(s.name).into_owned(), member.clone()));
        }
    }
    assert!(symbols > 10_000, "{symbols} symbols compared");
    assert_eq!(armap, tb::armap(dir.path(), &refs));
}
