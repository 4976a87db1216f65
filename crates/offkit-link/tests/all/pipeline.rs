//! The pipeline with fake tools: argument handling, ordering, grouping, archive members,
//! verbose/dry-run text, `--offload-targets`, `--explain`, `--emit-plan`, `-r`.

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use offkit_format::kind::OffloadKind;
use offkit_link::{Error, Link, LinkConfig, Wrap, WrapRequest};
use offkit_tools::Env;

use crate::fixtures::{archive, device_object, fat_object, fat_object_of, put, Image, Sym};

const X86: &str = "x86_64-pc-linux-gnu";
const AMD: &str = "amdgcn-amd-amdhsa";

/// A directory with fake tools in `bin/`, their log in `log/`, temporaries in `tmp/`.
struct Fake {
    dir: tempfile::TempDir,
}

impl Fake {
    fn new() -> Fake {
        let dir = tempfile::tempdir().unwrap();
        for d in ["bin", "log", "tmp"] {
            std::fs::create_dir(dir.path().join(d)).unwrap();
        }
        for tool in [
            "clang",
            "ld",
            "clang-offload-bundler",
            "fatbinary",
            "nvlink",
        ] {
            std::os::unix::fs::symlink(
                env!("CARGO_BIN_EXE_fake-tool"),
                dir.path().join("bin").join(tool),
            )
            .unwrap();
        }
        Fake { dir }
    }

    fn path(&self) -> &Path {
        self.dir.path()
    }

    fn bin(&self, tool: &str) -> String {
        self.path().join("bin").join(tool).display().to_string()
    }

    fn fail_on(&self, s: &str) {
        std::fs::write(self.path().join("fail"), s).unwrap();
    }

    /// Every tool run: its name, then its arguments.
    fn calls(&self) -> Vec<Vec<String>> {
        let mut files: Vec<PathBuf> = std::fs::read_dir(self.path().join("log"))
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        files.sort();
        files
            .iter()
            .map(|f| {
                std::fs::read_to_string(f)
                    .unwrap()
                    .lines()
                    .map(String::from)
                    .collect()
            })
            .collect()
    }

    fn put(&self, name: &str, bytes: &[u8]) -> String {
        put(self.path(), name, bytes).display().to_string()
    }
}

/// What the wrap step was asked for: kind, `(triple, arch)` of each image, relocatable.
type WrapCall = (OffloadKind, Vec<(String, String)>, bool);

#[derive(Default)]
struct Recorder {
    calls: Mutex<Vec<WrapCall>>,
}

impl Wrap for Recorder {
    fn wrap(&self, req: &WrapRequest<'_>) -> Result<Vec<u8>, offkit_wrap::Error> {
        let images = req
            .images
            .iter()
            .map(|i| (i.triple.to_string(), i.arch.unwrap_or("").to_string()))
            .collect();
        self.calls
            .lock()
            .unwrap()
            .push((req.kind, images, req.relocatable));
        Ok(b"wrapper object".to_vec())
    }
}

struct Outcome {
    result: Result<(), Error>,
    lines: Vec<String>,
    wraps: Vec<WrapCall>,
}

fn link_with(f: &Fake, args: &[&str], env: &[(&str, &str)]) -> Outcome {
    let mut words = vec![format!("--linker-path={}", f.bin("ld"))];
    words.extend(args.iter().map(|s| s.to_string()));
    // Outputs go to the test's directory, never the working directory.
    for i in 1..words.len() {
        if words[i - 1] == "-o" && !words[i].starts_with('/') {
            words[i] = f.path().join(&words[i]).display().to_string();
        }
    }
    let clang = f.bin("clang");
    let bundler = f.bin("clang-offload-bundler");
    let bin = f.path().join("bin").display().to_string();
    let tmp = f.path().join("tmp").display().to_string();
    let mut pairs = vec![
        ("OFFKIT_CLANG", clang.as_str()),
        ("OFFKIT_CLANG_OFFLOAD_BUNDLER", bundler.as_str()),
        ("PATH", bin.as_str()),
        ("TMPDIR", tmp.as_str()),
    ];
    pairs.extend_from_slice(env);
    let env = Env::from_pairs(&pairs);
    let lines = Mutex::new(Vec::new());
    let log = |l: &str| lines.lock().unwrap().push(l.to_string());
    let rec = Recorder::default();
    // The drop-in's way: LLVM's command line read into a configuration.
    let result =
        LinkConfig::from_llvm_args(&words, offkit_llvm::LlvmVersion::V19).and_then(|config| {
            Link::new(&config, &env)?
                .with_wrapper(&rec)
                .with_log(&log)
                .run()
        });
    Outcome {
        result,
        lines: lines.into_inner().unwrap(),
        wraps: rec.calls.into_inner().unwrap(),
    }
}

fn link(f: &Fake, args: &[&str]) -> Outcome {
    link_with(f, args, &[])
}

#[track_caller]
fn must_have(args: &[String], want: &str) {
    assert!(
        args.iter().any(|a| a == want),
        "`{want}` missing from {args:?}"
    );
}

#[track_caller]
fn must_have_in_order(args: &[String], want: &[&str]) {
    let mut it = args.iter();
    for w in want {
        assert!(
            it.any(|a| a == w || (w.ends_with('*') && a.starts_with(&w[..w.len() - 1]))),
            "`{w}` missing or out of order in {args:?} (wanted {want:?})"
        );
    }
}

fn kernel_object(
    f: &Fake,
    name: &str,
    images: &[(&'static str, &'static str, &[Sym<'_>])],
) -> String {
    let images: Vec<Image> = images
        .iter()
        .map(|(triple, arch, syms)| Image {
            triple,
            arch,
            bytes: device_object(syms),
        })
        .collect();
    f.put(name, &fat_object(&images))
}

#[test]
fn x86_64_device_link_and_host_link() {
    let f = Fake::new();
    let p = kernel_object(&f, "p.o", &[(X86, "", &[Sym::Def("__omp_offloading_k")])]);
    let out = f.path().join("a.out").display().to_string();
    let libdir = f.path().display().to_string();
    let o = link(
        &f,
        &[
            "-m",
            "elf_x86_64",
            "-o",
            &out,
            "/crt1.o",
            &p,
            &format!("-L{libdir}"),
            "-pie",
            "--as-needed",
        ],
    );
    o.result.unwrap();
    let calls = f.calls();
    assert_eq!(calls.len(), 2, "{calls:?}");
    assert_eq!(calls[0][0], "clang");
    must_have_in_order(
        &calls[0],
        &[
            "--no-default-config",
            "-o",
            "*",
            &format!("--target={X86}"),
            "-march=native",
            "-O2",
            "-Wl,--no-undefined",
            "*",
            "-Wl,-Bsymbolic",
            "-shared",
            "-L",
            &libdir,
        ],
    );
    let out_img = &calls[0][3];
    assert!(
        out_img.contains("a.out.x86_64.native-") && out_img.ends_with(".img"),
        "{out_img}"
    );
    let input = &calls[0][8];
    assert!(
        input.contains("/tmp/p-x86_64-pc-linux-gnu--") && input.ends_with(".o"),
        "{input}"
    );
    // The host link: the original arguments re-rendered, the wrapper object right after -o.
    assert_eq!(calls[1][0], "ld");
    assert_eq!(&calls[1][1..5], ["-m", "elf_x86_64", "-o", out.as_str()]);
    assert!(
        calls[1][5].contains("a.out.openmp.image.wrapper-"),
        "{:?}",
        calls[1]
    );
    assert_eq!(
        &calls[1][6..],
        [
            "/crt1.o",
            p.as_str(),
            "-L",
            libdir.as_str(),
            "-pie",
            "--as-needed"
        ]
    );
    assert_eq!(
        o.wraps,
        [(
            OffloadKind::OpenMp,
            vec![(X86.into(), String::new())],
            false
        )]
    );
    // Temporaries are gone.
    assert_eq!(std::fs::read_dir(f.path().join("tmp")).unwrap().count(), 0);
}

#[test]
fn no_device_code_means_no_wrapper() {
    let f = Fake::new();
    let plain = f.put("plain.o", &device_object(&[Sym::Def("main")]));
    let o = link(&f, &["-o", "x", &plain, "-lfoo.so", "--wrapper-verbose"]);
    assert!(
        matches!(&o.result, Err(Error::LibraryNotFound(l)) if l == "foo.so"),
        "{:?}",
        o.result.err()
    );
    let o = link(&f, &["-o", "x", &plain, "--wrapper-verbose"]);
    o.result.unwrap();
    let x = f.path().join("x");
    assert_eq!(
        o.lines,
        [format!(" \"{}\" -o {} {plain}", f.bin("ld"), x.display())]
    );
    assert!(o.wraps.is_empty());
}

#[test]
fn groups_and_image_order() {
    let f = Fake::new();
    let p = kernel_object(
        &f,
        "p.o",
        &[
            (X86, "", &[Sym::Def("k")]),
            (AMD, "gfx90a", &[Sym::Def("k")]),
        ],
    );
    let o = link(&f, &["-o", "p", &p]);
    o.result.unwrap();
    let calls = f.calls();
    assert_eq!(calls.len(), 3);
    must_have(&calls[0], &format!("--target={X86}"));
    must_have(&calls[1], &format!("--target={AMD}"));
    must_have(&calls[1], "-mcpu=gfx90a");
    assert!(
        !calls[1].iter().any(|a| a == "-shared"),
        "AMDGPU links get no host libraries"
    );
    // The wrap step gets the images in the order the groups were linked (it applies LLVM
    // 19's order itself).
    assert_eq!(
        o.wraps[0].1,
        [
            (X86.to_string(), String::new()),
            (AMD.to_string(), "gfx90a".to_string())
        ]
    );
}

#[test]
fn archive_members_pulled_in_as_llvm_19_does() {
    let f = Fake::new();
    let p = kernel_object(
        &f,
        "p.o",
        &[(X86, "", &[Sym::Def("k"), Sym::Undef("needed")])],
    );
    let member = |syms: &[Sym<'_>], triple: &'static str, arch: &'static str| {
        fat_object(&[Image {
            triple,
            arch,
            bytes: device_object(syms),
        }])
    };
    let lib = f.put(
        "libdev.a",
        &archive(&[
            ("hidden.o", member(&[Sym::Hidden("h")], X86, "")),
            ("needed.o", member(&[Sym::Def("needed")], X86, "")),
            (
                "extra.o",
                member(&[Sym::Def("unused_but_visible")], X86, ""),
            ),
            ("gpu.o", member(&[Sym::Def("needed")], AMD, "gfx90a")),
        ]),
    );
    let o = link(&f, &["-o", "p", &p, &lib, "--explain"]);
    o.result.unwrap();
    let calls = f.calls();
    assert_eq!(calls.len(), 2, "one device link (x86_64) and the host link");
    let inputs: Vec<&String> = calls[0]
        .iter()
        .filter(|a| a.contains("/tmp/") && a.ends_with(".o"))
        .collect();
    assert_eq!(inputs.len(), 3, "{inputs:?}");
    assert!(inputs[0].contains("/p-x86_64"));
    assert!(inputs[1].contains("/needed-x86_64"));
    assert!(inputs[2].contains("/extra-x86_64"));
    let explain: Vec<&String> = o
        .lines
        .iter()
        .filter(|l| l.starts_with("offkit: explain: "))
        .collect();
    assert_eq!(explain.len(), 5, "{explain:#?}");
    assert!(explain[0].contains("p.o: openmp image for x86_64-pc-linux-gnu (object): linked for x86_64-pc-linux-gnu: a regular input"), "{}", explain[0]);
    assert!(
        explain[1].contains("libdev.a(hidden.o)")
            && explain[1].contains("not linked: defines no symbol"),
        "{}",
        explain[1]
    );
    assert!(
        explain[2].contains("libdev.a(needed.o)")
            && explain[2].contains("defines `needed`, which an input linked before needs"),
        "{}",
        explain[2]
    );
    assert!(
        explain[3].contains("libdev.a(extra.o)")
            && explain[3].contains("new visible symbol `unused_but_visible`"),
        "{}",
        explain[3]
    );
    assert!(
        explain[4].contains("libdev.a(gpu.o)")
            && explain[4].contains("no regular input has device code for amdgcn-amd-amdhsa gfx90a"),
        "{}",
        explain[4]
    );

    // Under --whole-archive every member is a regular input.
    let f = Fake::new();
    let p2 = f.put("p.o", &std::fs::read(&p).unwrap());
    let lib2 = f.put("libdev.a", &std::fs::read(&lib).unwrap());
    let o = link(
        &f,
        &[
            "-o",
            "p",
            &p2,
            "--whole-archive",
            &lib2,
            "--no-whole-archive",
        ],
    );
    o.result.unwrap();
    assert_eq!(
        f.calls().len(),
        3,
        "x86_64 and amdgcn device links, host link"
    );
}

#[test]
fn offload_targets_drop_images() {
    let two = |f: &Fake| {
        kernel_object(
            f,
            "p.o",
            &[
                (X86, "", &[Sym::Def("k")]),
                (AMD, "gfx90a", &[Sym::Def("k")]),
            ],
        )
    };
    let f = Fake::new();
    let p = two(&f);
    let o = link(
        &f,
        &[
            "-o",
            "p",
            &p,
            "--offload-targets=x86_64-pc-linux-gnu",
            "--wrapper-verbose",
            "--explain",
        ],
    );
    o.result.unwrap();
    assert_eq!(f.calls().len(), 2);
    assert_eq!(o.wraps[0].1, [(X86.to_string(), String::new())]);
    assert!(
        o.lines.iter().any(|l| l == "offkit: dropping the amdgcn-amd-amdhsa gfx90a device images (1 input(s)): not in --offload-targets=x86_64-pc-linux-gnu"),
        "{:#?}",
        o.lines
    );
    assert!(o
        .lines
        .iter()
        .any(|l| l.contains("dropped for amdgcn-amd-amdhsa gfx90a: not in --offload-targets")));
    // The host linker never sees offkit's options.
    assert!(!f.calls()[1]
        .iter()
        .any(|a| a.contains("offload-targets") || a == "--explain"));

    // The same through the environment, and with a target ID.
    let f = Fake::new();
    let p = two(&f);
    let o = link_with(
        &f,
        &["-o", "p", &p],
        &[("OFFKIT_OFFLOAD_TARGETS", "amdgcn-amd-amdhsa:gfx90a")],
    );
    o.result.unwrap();
    assert_eq!(o.wraps[0].1, [(AMD.to_string(), "gfx90a".to_string())]);

    // A target no input has is an error naming it.
    let f = Fake::new();
    let p = two(&f);
    let o = link(
        &f,
        &[
            "-o",
            "p",
            &p,
            "--offload-targets=nvptx64-nvidia-cuda,x86_64-pc-linux-gnu",
        ],
    );
    assert_eq!(
        o.result.unwrap_err().to_string(),
        "no device image for the requested offload target `nvptx64-nvidia-cuda` in any input"
    );
    assert!(f.calls().is_empty());
}

#[test]
fn dry_run_prints_and_runs_nothing() {
    let f = Fake::new();
    let p = kernel_object(&f, "p.o", &[(X86, "", &[Sym::Def("k")])]);
    let o = link(
        &f,
        &[
            "-o",
            "p",
            &p,
            "--dry-run",
            "-mllvm",
            "-openmp-opt-disable",
            "--device-linker=-bar",
        ],
    );
    o.result.unwrap();
    assert!(f.calls().is_empty());
    assert_eq!(o.lines.len(), 2, "{:#?}", o.lines);
    let clang = format!(" \"{}\" --no-default-config -o ", f.bin("clang"));
    assert!(o.lines[0].starts_with(&clang), "{}", o.lines[0]);
    assert!(
        o.lines[0].ends_with(" -Wl,-Bsymbolic -shared -mllvm -openmp-opt-disable -bar"),
        "{}",
        o.lines[0]
    );
    let out = f.path().join("p");
    assert!(o.lines[1].starts_with(&format!(" \"{}\" -o {} ", f.bin("ld"), out.display())));
}

#[test]
fn a_failing_tool_stops_the_link() {
    let f = Fake::new();
    let p = kernel_object(&f, "p.o", &[(X86, "", &[Sym::Def("k")])]);
    f.fail_on("--target=x86_64");
    let o = link(&f, &["-o", "p", &p]);
    assert_eq!(o.result.unwrap_err().to_string(), "'clang' failed");
    assert_eq!(f.calls().len(), 1, "the host linker never ran");
    assert_eq!(std::fs::read_dir(f.path().join("tmp")).unwrap().count(), 0);
}

#[test]
fn wrapper_jobs() {
    let f = Fake::new();
    let p = kernel_object(
        &f,
        "p.o",
        &[
            (X86, "", &[Sym::Def("k")]),
            (AMD, "gfx90a", &[Sym::Def("k")]),
        ],
    );
    let o = link(&f, &["-o", "p", &p, "--wrapper-jobs=2"]);
    o.result.unwrap();
    assert_eq!(f.calls().len(), 3);
    assert_eq!(o.wraps[0].1.len(), 2);
    for bad in ["0", "x", "-1"] {
        let o = link(&f, &["-o", "p", &p, &format!("--wrapper-jobs={bad}")]);
        assert_eq!(
            o.result.unwrap_err().to_string(),
            format!("--wrapper-jobs={bad}: expected a positive integer, got '{bad}'")
        );
    }
}

#[test]
fn emit_plan_writes_a_script() {
    let f = Fake::new();
    let p = kernel_object(&f, "p.o", &[(X86, "", &[Sym::Def("k")])]);
    let plan = f.path().join("plan.sh");
    let o = link(
        &f,
        &["-o", "p", &p, &format!("--emit-plan={}", plan.display())],
    );
    o.result.unwrap();
    let text = std::fs::read_to_string(&plan).unwrap();
    assert!(text.starts_with("#!/bin/sh\n"), "{text}");
    assert!(
        text.contains(&format!("# device image of {p}\ntail -c +")),
        "{text}"
    );
    assert!(text.contains("\"$OFFKIT\" wrap --kind openmp --host-triple x86_64-pc-linux-gnu -o \"$T\"/p.openmp.image.wrapper-"), "{text}");
    assert!(
        text.contains(&format!(
            "{} -o {} \"$T\"/p.openmp.image.wrapper-",
            f.bin("ld"),
            f.path().join("p").display()
        )),
        "{text}"
    );
}

#[test]
fn relocatable_output_renamed_in_place() {
    use object::write::{Object, Relocation, StandardSection, Symbol, SymbolSection};
    use object::{Object as _, ObjectSection as _, ObjectSymbol as _};
    let mut o = Object::new(
        object::BinaryFormat::Elf,
        object::Architecture::X86_64,
        object::Endianness::Little,
    );
    let text = o.section_id(StandardSection::Text);
    o.append_section_data(text, &[0; 16], 16);
    let entries = o.add_section(
        Vec::new(),
        b"omp_offloading_entries".to_vec(),
        object::SectionKind::Data,
    );
    o.append_section_data(entries, &[0; 32], 8);
    let off = o.add_section(
        Vec::new(),
        b".llvm.offloading".to_vec(),
        object::SectionKind::Other,
    );
    o.section_mut(off).flags = object::SectionFlags::Elf {
        sh_type: object::elf::SectionType(0x6fff_4c0b),
        sh_flags: object::elf::SectionFlags(0x8000_0000),
    };
    o.append_section_data(off, &[1; 64], 8);
    let start = o.add_symbol(Symbol {
        name: b"__start_omp_offloading_entries".to_vec(),
        value: 0,
        size: 0,
        kind: object::SymbolKind::Data,
        scope: object::SymbolScope::Linkage,
        weak: false,
        section: SymbolSection::Undefined,
        flags: object::SymbolFlags::None,
    });
    o.add_relocation(
        entries,
        Relocation {
            offset: 0,
            symbol: start,
            addend: 0,
            flags: object::RelocationFlags::Elf {
                r_type: object::elf::R_X86_64_64,
            },
        },
    )
    .unwrap();
    let bytes = o.write().unwrap();
    let suffix = offkit_link::relocate::suffix(&bytes);
    let out = offkit_link::relocate::rewrite(
        std::path::Path::new("t.o"),
        &bytes,
        &suffix,
        offkit_llvm::LlvmVersion::V19,
    )
    .unwrap();
    let file = object::File::parse(&*out).unwrap();
    let names: Vec<String> = file
        .sections()
        .map(|s| s.name().unwrap().to_string())
        .collect();
    assert!(
        names.contains(&format!("omp_offloading_entries{suffix}")),
        "{names:?}"
    );
    assert!(
        names.contains(&format!(".relaomp_offloading_entries{suffix}")),
        "{names:?}"
    );
    let llvm = file.section_by_name(".llvm.offloading").unwrap();
    assert_eq!(llvm.size(), 0);
    let syms: Vec<String> = file
        .symbols()
        .map(|s| s.name().unwrap().to_string())
        .collect();
    assert!(
        syms.contains(&format!("__start_omp_offloading_entries{suffix}")),
        "{syms:?}"
    );
    // The relocation still points at the renamed symbol.
    let (_, rel) = file
        .section_by_name(&format!("omp_offloading_entries{suffix}"))
        .unwrap()
        .relocations()
        .next()
        .unwrap();
    let object::RelocationTarget::Symbol(i) = rel.target() else {
        panic!()
    };
    assert_eq!(
        file.symbol_by_index(i).unwrap().name().unwrap(),
        format!("__start_omp_offloading_entries{suffix}")
    );
}

#[test]
fn hip_and_cuda_bundles() {
    let f = Fake::new();
    let img = |arch: &'static str, triple: &'static str| Image {
        triple,
        arch,
        bytes: device_object(&[Sym::Def("k")]),
    };
    let hip = f.put(
        "hip.o",
        &fat_object_of(&[img("gfx90a", AMD), img("gfx1030", AMD)], OffloadKind::Hip),
    );
    let o = link(
        &f,
        &["-o", "p", &hip, "--compress", "--compression-level=9"],
    );
    o.result.unwrap();
    let calls = f.calls();
    let bundler = calls
        .iter()
        .find(|c| c[0] == "clang-offload-bundler")
        .unwrap();
    must_have_in_order(
        bundler,
        &[
            "-type=o",
            "-bundle-align=4096",
            "-compress",
            "-compression-level=9",
            "-targets=host-x86_64-unknown-linux,hip-amdgcn-amd-amdhsa--gfx90a,hip-amdgcn-amd-amdhsa--gfx1030",
            "-input=/dev/null",
            "-input=*",
            "-input=*",
            "-output=*",
        ],
    );
    assert_eq!(o.wraps.len(), 1);
    assert_eq!(o.wraps[0].0, OffloadKind::Hip);
    assert_eq!(o.wraps[0].1.len(), 1, "one offload bundle");

    // CUDA: without a CUDA toolkit the nvptx device link is a clear error.
    let f = Fake::new();
    let cu = f.put(
        "cu.o",
        &fat_object_of(&[img("sm_70", "nvptx64-nvidia-cuda")], OffloadKind::Cuda),
    );
    std::fs::remove_file(f.path().join("bin/nvlink")).unwrap();
    let o = link(&f, &["-o", "p", &cu]);
    let err = o.result.unwrap_err().to_string();
    assert!(
        err.starts_with("linking nvptx64-nvidia-cuda device code needs the CUDA toolkit"),
        "{err}"
    );
    // With one (here: fake nvlink and fatbinary), the fatbinary is made as LLVM 19 makes it.
    let f = Fake::new();
    let cu = f.put(
        "cu.o",
        &fat_object_of(&[img("sm_70", "nvptx64-nvidia-cuda")], OffloadKind::Cuda),
    );
    let o = link(&f, &["-o", "p", &cu]);
    o.result.unwrap();
    let calls = f.calls();
    assert!(
        !calls[0].iter().any(|a| a == "-Wl,--no-undefined"),
        "no --no-undefined for NVPTX"
    );
    let fatbin = calls.iter().find(|c| c[0] == "fatbinary").unwrap();
    must_have_in_order(
        fatbin,
        &["-64", "--create", "*", "--image=profile=sm_70,file=*"],
    );
    assert_eq!(o.wraps[0].0, OffloadKind::Cuda);
}

#[test]
fn time_trace() {
    let f = Fake::new();
    let p = kernel_object(&f, "p.o", &[(X86, "", &[Sym::Def("k")])]);
    let t = f.path().join("trace.json");
    let o = link(
        &f,
        &[
            "-o",
            "p",
            &p,
            &format!("--wrapper-time-trace={}", t.display()),
            "--wrapper-time-trace-granularity=0",
        ],
    );
    o.result.unwrap();
    let j = std::fs::read_to_string(&t).unwrap();
    for name in [
        "ExtractDeviceCode",
        "Link device input",
        "Wrap bundled images",
        "Execute host linker",
        "Execute linker wrapper",
        "process_name",
    ] {
        assert!(
            j.contains(&format!("\"name\":\"{name}\"")),
            "{name} missing: {j}"
        );
    }
}

#[test]
fn empty_offload_targets() {
    let f = Fake::new();
    let p = kernel_object(&f, "p.o", &[(X86, "", &[Sym::Def("k")])]);
    let o = link(&f, &["-o", "p", &p, "--offload-targets="]);
    assert_eq!(
        o.result.unwrap_err().to_string(),
        "--offload-targets= names no target"
    );
    // An empty OFFKIT_OFFLOAD_TARGETS is as if it were not set.
    let o = link_with(&f, &["-o", "p", &p], &[("OFFKIT_OFFLOAD_TARGETS", "")]);
    o.result.unwrap();
    assert_eq!(o.wraps.len(), 1);
}
