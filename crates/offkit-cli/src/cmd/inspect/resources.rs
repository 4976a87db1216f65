//! What each kernel uses (`offkit inspect --resources`), in text and in JSON: for AMD GPU code
//! objects the metadata note's counts, for cubins what `cuobjdump -res-usage` reports (its
//! words: `REG:22 STACK:0 SHARED:0 LOCAL:0 CONSTANT[0]:960`).

use std::fmt::Write as _;

use serde::Serialize;

use offkit_format::code_object::amdgpu::KernelResources;
use offkit_format::code_object::cuda::{self, Bank};
use offkit_format::code_object::{CodeObject, Resources};

/// The kernel lines of code object `c` with their resources: AMD GPU kernels in symbol order,
/// each followed by its metadata's counts; a cubin's module-wide usage, then each function
/// (kernels and, in relocatable cubins, device functions) with its usage.
pub fn text(c: &CodeObject, out: &mut String) {
    match &c.resources {
        Some(Resources::Amdgpu(kernels)) => amdgpu_text(c, kernels, out),
        Some(Resources::Cuda(r)) => cuda_text(r, out),
        None => {
            for k in &c.kernels {
                let _ = writeln!(out, "      {k}");
            }
            if !c.kernels.is_empty() {
                out.push_str("        (no resource usage recorded)\n");
            }
        }
    }
}

fn amdgpu_text(c: &CodeObject, kernels: &[KernelResources], out: &mut String) {
    let of = |name: &str| {
        kernels
            .iter()
            .find(|k| k.name == name || k.symbol.strip_suffix(".kd") == Some(name))
    };
    for name in &c.kernels {
        let _ = writeln!(out, "      {name}");
        match of(name) {
            Some(k) => {
                let _ = writeln!(out, "          {}", amdgpu_line(k));
            }
            None => out.push_str("          (not in the metadata note)\n"),
        }
    }
    // Kernels of the note without a descriptor symbol (a stripped code object).
    for k in kernels.iter().filter(|k| !c.kernels.contains(&k.name)) {
        let _ = writeln!(out, "      {} (metadata only)", k.name);
        let _ = writeln!(out, "          {}", amdgpu_line(k));
    }
}

/// `VGPR:23 SGPR:28 AGPR:0 …`: the metadata's keys the note has.
fn amdgpu_line(k: &KernelResources) -> String {
    let fields: [(&str, Option<u64>); 11] = [
        ("VGPR", k.vgpr_count),
        ("SGPR", k.sgpr_count),
        ("AGPR", k.agpr_count),
        ("VGPR_SPILL", k.vgpr_spill_count),
        ("SGPR_SPILL", k.sgpr_spill_count),
        ("LDS", k.group_segment_fixed_size),
        ("SCRATCH", k.private_segment_fixed_size),
        ("KERNARG", k.kernarg_segment_size),
        ("KERNARG_ALIGN", k.kernarg_segment_align),
        ("WAVEFRONT", k.wavefront_size),
        ("MAX_FLAT_WORKGROUP", k.max_flat_workgroup_size),
    ];
    let mut words: Vec<String> = fields
        .iter()
        .filter_map(|(n, v)| v.map(|v| format!("{n}:{v}")))
        .collect();
    if let Some(d) = k.uses_dynamic_stack {
        words.push(format!("DYNAMIC_STACK:{}", if d { "yes" } else { "no" }));
    }
    words.join(" ")
}

fn cuda_text(r: &cuda::Resources, out: &mut String) {
    let mut common = format!("GLOBAL:{}", r.global);
    push_banks(&mut common, &r.constant);
    let _ = writeln!(out, "      common: {common}");
    for f in &r.functions {
        let what = if f.entry { "" } else { " (device function)" };
        let _ = writeln!(out, "      {}{what}", f.name);
        let _ = writeln!(out, "          {}", cuda_line(f));
    }
}

/// `REG:22 STACK:0 SHARED:0 LOCAL:0 CONSTANT[0]:960`, as `cuobjdump -res-usage` writes it
/// (without its counts of bound textures, surfaces and samplers).
pub fn cuda_line(f: &cuda::Function) -> String {
    let stack = f.stack.map_or("UNKNOWN".to_string(), |s| s.to_string());
    let mut line = format!(
        "REG:{} STACK:{stack} SHARED:{} LOCAL:{}",
        f.registers, f.shared, f.local
    );
    push_banks(&mut line, &f.constant);
    line
}

fn push_banks(line: &mut String, banks: &[Bank]) {
    for b in banks {
        let _ = write!(line, " CONSTANT[{}]:{}", b.bank, b.size);
    }
}

/// The JSON form of a code object's resources (docs/inspect-json.md, "Resources").
#[derive(Debug, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ResourcesJson<'a> {
    /// An AMD GPU code object's metadata note.
    Amdgpu { kernels: Vec<AmdKernelJson<'a>> },
    /// A cubin's.
    Cuda {
        global: u64,
        constant: Vec<BankJson>,
        functions: Vec<FunctionJson<'a>>,
    },
}

/// One kernel of an AMD GPU metadata note: its keys without the leading dot.
#[derive(Debug, Serialize)]
pub struct AmdKernelJson<'a> {
    name: &'a str,
    symbol: &'a str,
    vgpr_count: Option<u64>,
    sgpr_count: Option<u64>,
    agpr_count: Option<u64>,
    vgpr_spill_count: Option<u64>,
    sgpr_spill_count: Option<u64>,
    group_segment_fixed_size: Option<u64>,
    private_segment_fixed_size: Option<u64>,
    uses_dynamic_stack: Option<bool>,
    kernarg_segment_size: Option<u64>,
    kernarg_segment_align: Option<u64>,
    wavefront_size: Option<u64>,
    max_flat_workgroup_size: Option<u64>,
}

/// A constant bank.
#[derive(Debug, Serialize)]
pub struct BankJson {
    bank: u32,
    size: u64,
}

/// One function of a cubin.
#[derive(Debug, Serialize)]
pub struct FunctionJson<'a> {
    name: &'a str,
    entry: bool,
    registers: u32,
    stack: Option<u32>,
    frame: Option<u32>,
    shared: u64,
    local: u64,
    constant: Vec<BankJson>,
}

fn banks(b: &[Bank]) -> Vec<BankJson> {
    b.iter()
        .map(|b| BankJson {
            bank: b.bank,
            size: b.size,
        })
        .collect()
}

/// The JSON form of `r`.
pub fn json(r: &Resources) -> ResourcesJson<'_> {
    match r {
        Resources::Amdgpu(kernels) => ResourcesJson::Amdgpu {
            kernels: kernels
                .iter()
                .map(|k| AmdKernelJson {
                    name: &k.name,
                    symbol: &k.symbol,
                    vgpr_count: k.vgpr_count,
                    sgpr_count: k.sgpr_count,
                    agpr_count: k.agpr_count,
                    vgpr_spill_count: k.vgpr_spill_count,
                    sgpr_spill_count: k.sgpr_spill_count,
                    group_segment_fixed_size: k.group_segment_fixed_size,
                    private_segment_fixed_size: k.private_segment_fixed_size,
                    uses_dynamic_stack: k.uses_dynamic_stack,
                    kernarg_segment_size: k.kernarg_segment_size,
                    kernarg_segment_align: k.kernarg_segment_align,
                    wavefront_size: k.wavefront_size,
                    max_flat_workgroup_size: k.max_flat_workgroup_size,
                })
                .collect(),
        },
        Resources::Cuda(c) => ResourcesJson::Cuda {
            global: c.global,
            constant: banks(&c.constant),
            functions: c
                .functions
                .iter()
                .map(|f| FunctionJson {
                    name: &f.name,
                    entry: f.entry,
                    registers: f.registers,
                    stack: f.stack,
                    frame: f.frame,
                    shared: f.shared,
                    local: f.local,
                    constant: banks(&f.constant),
                })
                .collect(),
        },
    }
}
