//! Integration tests: the kernels and resources of code objects, whole and read from the stream
//! of a compressed bundle.
//!
//! - AMD GPU code objects built by clang-19 (kernels with LDS, scratch and spills, and gfx90a
//!   AGPRs; code object v5 and v6, including a `gfx9-generic` v6 one): each kernel's resources
//!   against the YAML `llvm-readelf-19 --notes` prints of the metadata note.
//! - Compressed bundles (CCOB v2 zlib, v3 zstd) of those code objects and of large stand-in
//!   ones (megabytes of code, symbol and string tables out of reach of a window at the image's
//!   end, so that a second pass over the stream is needed): listing them with
//!   [`Inflate::Headers`] describes every image as the whole bundle does.

use std::collections::BTreeMap;

use offkit_format::bundle::{binary as bundle_binary, compressed};
use offkit_format::code_object::{CodeObject, Resources};
use offkit_format::scan::{self, Event, Inflate, Options};
use offkit_testutil::code_objects::{self, Kernel};
use offkit_testutil::{clang, llvm_tool, run_ok};

const HIP: &str = r#"
#define __global__ __attribute__((global))
#define __shared__ __attribute__((shared))
__global__ void plain(int *x) { *x = 42; }
__global__ void lds(float *x) {
  __shared__ float tile[512];
  unsigned i = __builtin_amdgcn_workitem_id_x();
  tile[i] = x[i];
  __builtin_amdgcn_s_barrier();
  x[i] = tile[511 - i];
}
__global__ void scratch(float *x, int n) {
  volatile float arr[100];
  for (int i = 0; i < 100; i++) arr[i] = x[i * n];
  float s = 0;
  for (int i = 0; i < 100; i++) s += arr[(i * n) % 100];
  x[0] = s;
}
__global__ void agprs(int *x) {
#if defined(__gfx90a__)
  asm volatile("v_accvgpr_write_b32 a9, 0" ::: "a9");
#endif
  *x = 1;
}
"#;

/// `(offload arch, code object version)` of each build.
const BUILDS: [(&str, &str); 4] = [
    ("gfx90a", "5"),
    ("gfx90a", "6"),
    ("gfx1030", "5"),
    ("gfx9-generic", "6"),
];

/// `(bundle entry ID, image bytes, code object)` of every device image in `data`, walked with
/// `inflate`.
fn images(data: &[u8], inflate: Inflate) -> Vec<(String, Vec<u8>, CodeObject)> {
    let mut out = Vec::new();
    let mut opts = Options {
        kernels: true,
        inflate,
        ..Options::default()
    };
    scan::walk(data, "in", &mut opts, &mut |ev| {
        if let Event::Image(i) = ev {
            if !i.info.offload_kind.is_host() {
                let co = i.info.code_object.clone().expect("described");
                out.push((i.info.location.to_string(), i.bytes.to_vec(), co));
            }
        }
        Ok::<(), offkit_format::Error>(())
    })
    .unwrap();
    out
}

/// The kernels of `llvm-readelf --notes`'s YAML: per kernel, its scalar keys (4-space indented
/// `.key: value` lines of an `amdhsa.kernels` item; nested lists such as `.args` are deeper).
fn readelf_kernels(notes: &str) -> Vec<BTreeMap<String, String>> {
    let mut out: Vec<BTreeMap<String, String>> = Vec::new();
    for line in notes.lines() {
        let (start, rest) = match line.strip_prefix("  - ") {
            Some(r) => (true, r),
            None => match line.strip_prefix("    ") {
                Some(r) if !r.starts_with(' ') && !r.starts_with('-') => (false, r),
                _ => continue,
            },
        };
        let Some((k, v)) = rest.split_once(':') else {
            continue;
        };
        if !k.starts_with('.') {
            continue;
        }
        if start {
            out.push(BTreeMap::new());
        }
        if let Some(m) = out.last_mut() {
            m.insert(k.to_string(), v.trim().trim_matches('\'').to_string());
        }
    }
    out
}

/// The resources of `co` in the words of the YAML: `.vgpr_count` → `23`, …
fn ours(co: &CodeObject) -> Vec<BTreeMap<String, String>> {
    let Some(Resources::Amdgpu(kernels)) = &co.resources else {
        panic!("no AMDGPU resources: {co:?}");
    };
    kernels
        .iter()
        .map(|k| {
            let mut m = BTreeMap::new();
            let mut put = |key: &str, v: Option<String>| {
                if let Some(v) = v {
                    m.insert(key.to_string(), v);
                }
            };
            put(".name", Some(k.name.clone()));
            put(".symbol", Some(k.symbol.clone()));
            for (key, v) in [
                (".vgpr_count", k.vgpr_count),
                (".sgpr_count", k.sgpr_count),
                (".agpr_count", k.agpr_count),
                (".vgpr_spill_count", k.vgpr_spill_count),
                (".sgpr_spill_count", k.sgpr_spill_count),
                (".group_segment_fixed_size", k.group_segment_fixed_size),
                (".private_segment_fixed_size", k.private_segment_fixed_size),
                (".kernarg_segment_size", k.kernarg_segment_size),
                (".kernarg_segment_align", k.kernarg_segment_align),
                (".wavefront_size", k.wavefront_size),
                (".max_flat_workgroup_size", k.max_flat_workgroup_size),
            ] {
                put(key, v.map(|v| v.to_string()));
            }
            put(
                ".uses_dynamic_stack",
                k.uses_dynamic_stack.map(|b| b.to_string()),
            );
            m
        })
        .collect()
}

/// The keys offkit reads.
const KEYS: [&str; 14] = [
    ".name",
    ".symbol",
    ".vgpr_count",
    ".sgpr_count",
    ".agpr_count",
    ".vgpr_spill_count",
    ".sgpr_spill_count",
    ".group_segment_fixed_size",
    ".private_segment_fixed_size",
    ".kernarg_segment_size",
    ".kernarg_segment_align",
    ".wavefront_size",
    ".max_flat_workgroup_size",
    ".uses_dynamic_stack",
];

/// Builds the bundles of [`BUILDS`] in a temporary directory: `(name, bundle bytes)`.
fn build(d: &std::path::Path) -> Vec<(String, Vec<u8>)> {
    std::fs::write(d.join("k.hip"), HIP).unwrap();
    BUILDS
        .iter()
        .map(|(arch, v)| {
            let name = format!("{arch}-v{v}");
            let (a, cov) = (
                format!("--offload-arch={arch}"),
                format!("-mcode-object-version={v}"),
            );
            let out = format!("{name}.bundle");
            run_ok(
                clang(),
                [
                    "-x",
                    "hip",
                    &a,
                    &cov,
                    "-nogpulib",
                    "-nogpuinc",
                    "-O2",
                    "--cuda-device-only",
                    "-c",
                    "k.hip",
                    "-o",
                    &out,
                ],
                d,
            );
            (name, std::fs::read(d.join(&out)).unwrap())
        })
        .collect()
}

#[test]
fn amdgpu_resources_match_llvm_readelf_notes() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let mut agprs = 0;
    for (name, bundle) in build(d) {
        let found = images(&bundle, Inflate::Whole);
        assert_eq!(found.len(), 1, "{name}");
        let (_, bytes, co) = &found[0];
        let file = d.join(format!("{name}.o"));
        std::fs::write(&file, bytes).unwrap();
        let f = file.display().to_string();
        let notes = run_ok(llvm_tool("llvm-readelf"), ["--notes", f.as_str()], d).stdout_str();
        let theirs = readelf_kernels(&notes);
        // Every key offkit reads, as llvm-readelf prints it (booleans, integers, names).
        let mut ours = ours(co);
        let key = |m: &BTreeMap<String, String>| m[".name"].clone();
        ours.sort_by_key(key);
        let mut theirs: Vec<BTreeMap<String, String>> = theirs
            .into_iter()
            .map(|m| {
                m.into_iter()
                    .filter(|(k, _)| KEYS.contains(&k.as_str()))
                    .collect()
            })
            .collect();
        theirs.sort_by_key(key);
        assert_eq!(ours, theirs, "{name}\n{notes}");
        assert_eq!(ours.len(), 4, "{name}");
        let by = |k: &str| ours.iter().find(|m| m[".name"].contains(k)).unwrap();
        assert_eq!(by("lds")[".group_segment_fixed_size"], "2048", "{name}");
        assert_ne!(by("scratch")[".private_segment_fixed_size"], "0", "{name}");
        if let Some(a) = by("agprs").get(".agpr_count") {
            agprs += usize::from(a != "0");
        }
        assert_eq!(
            co.code_object_version.map(|v| v.to_string()).as_deref(),
            Some(&name[name.len() - 1..])
        );
        assert!(co.warnings.is_empty(), "{name}: {:?}", co.warnings);
    }
    assert_eq!(agprs, 2, "the gfx90a builds use AGPRs");
}

/// `bundle`'s images described whole and from the stream of its compressed forms: the same.
fn same_whole_and_streamed(bundle: &[u8]) -> Vec<CodeObject> {
    let whole: Vec<CodeObject> = images(bundle, Inflate::Whole)
        .into_iter()
        .map(|(.., co)| co)
        .collect();
    for (version, method) in [(2, compressed::Method::Zlib), (3, compressed::Method::Zstd)] {
        let c = compressed::compress(
            bundle,
            &compressed::Options {
                version,
                method,
                level: 1,
                ..Default::default()
            },
        )
        .unwrap();
        let streamed: Vec<CodeObject> = images(&c.bytes, Inflate::Headers)
            .into_iter()
            .map(|(.., co)| co)
            .collect();
        assert_eq!(streamed, whole, "CCOB v{version}");
    }
    whole
}

#[test]
fn compressed_bundles_of_clang_code_objects() {
    let dir = tempfile::tempdir().unwrap();
    let images: Vec<Vec<u8>> = build(dir.path())
        .into_iter()
        .map(|(_, b)| images(&b, Inflate::Whole).remove(0).1)
        .collect();
    // In the order of BUILDS.
    let ids = [
        "hipv4-amdgcn-amd-amdhsa--gfx90a",
        "hip-amdgcn-amd-amdhsa--gfx90a",
        "hipv4-amdgcn-amd-amdhsa--gfx1030",
        "hipv4-amdgcn-amd-amdhsa--gfx9-generic",
    ];
    let entries: Vec<(&[u8], &[u8])> =
        std::iter::once((&b"host-x86_64-unknown-linux-gnu-"[..], &b""[..]))
            .chain(
                ids.iter()
                    .zip(&images)
                    .map(|(id, b)| (id.as_bytes(), &b[..])),
            )
            .collect();
    let bundle = bundle_binary::write(&entries, 4096).unwrap();
    let cos = same_whole_and_streamed(&bundle);
    assert_eq!(cos.len(), 4);
    for co in &cos {
        assert!(co.warnings.is_empty(), "{:?}", co.warnings);
        assert_eq!(co.kernels.len(), 4, "{co:?}");
        assert!(matches!(&co.resources, Some(Resources::Amdgpu(k)) if k.len() == 4));
    }
}

#[test]
fn compressed_bundles_of_large_code_objects_take_a_second_pass() {
    // Two images of 20,000 kernels with long names (2.5 MB of strings) after 3 MiB of code:
    // the symbol table starts more than a window before the end.
    let big = |prefix: &str| {
        let kernels: Vec<Kernel> = (0..20_000)
            .map(|i| Kernel::nth(&format!("{prefix}{}", "_long_kernel_name".repeat(6)), i))
            .collect();
        (code_objects::amdgpu(&kernels, 3 << 20), kernels)
    };
    let (a, ka) = big("a");
    let (b, kb) = big("b");
    let small = code_objects::amdgpu(&[Kernel::nth("small", 7)], 100);
    let symtab_at = {
        use object::read::elf::{FileHeader, SectionHeader};
        let h = object::elf::FileHeader64::<object::Endianness>::parse(&a[..]).unwrap();
        let e = h.endian().unwrap();
        let s = h.sections(e, &a[..]).unwrap();
        let t = s
            .iter()
            .find(|s| s.sh_type(e) == object::elf::SHT_SYMTAB)
            .unwrap();
        t.sh_offset(e)
    };
    assert!(
        symtab_at + (1 << 20) < a.len() as u64,
        "the symbol table ({symtab_at:#x}) must be out of the last MiB of {:#x}",
        a.len()
    );
    let bundle = bundle_binary::write(
        &[
            (b"host-x86_64-unknown-linux-gnu-", b""),
            (b"hipv4-amdgcn-amd-amdhsa--gfx90a", &a),
            (b"hipv4-amdgcn-amd-amdhsa--gfx90a:xnack+", &small),
            (b"hipv4-amdgcn-amd-amdhsa--gfx90a:xnack-", &b),
        ],
        4096,
    )
    .unwrap();
    let cos = same_whole_and_streamed(&bundle);
    assert_eq!(cos.len(), 3);
    for (co, kernels) in [(&cos[0], &ka), (&cos[2], &kb)] {
        let names: Vec<&str> = kernels.iter().map(|k| k.name.as_str()).collect();
        assert_eq!(co.kernels, names);
        let Some(Resources::Amdgpu(r)) = &co.resources else {
            panic!("{:?}", co.warnings)
        };
        assert_eq!(r.len(), kernels.len());
        assert_eq!(r[19_999].vgpr_count, Some(kernels[19_999].vgprs));
        assert_eq!(r[123].group_segment_fixed_size, Some(kernels[123].lds));
    }
    assert_eq!(cos[1].kernels, ["small000007"]);
}
