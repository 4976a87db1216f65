//! The text form of what is inside code objects: a warning line for each image whose ELF header
//! disagrees with its container (or could not be read), always; and with `--kernels`, each
//! device image's header target ID, code-object version and kernels (OpenMP images: their
//! offload entries), and each CUDA fat binary entry's kind, flags and sizes; with
//! `--resources`, each kernel's resource usage under it ([`super::resources`]).

use std::fmt::Write as _;

use offkit_format::scan::{ImageInfo, Report, Source};

/// Appends the code-object lines of report `r` to `out` (the kernels' resources too when
/// `resources`).
pub fn render(r: &Report, kernels: bool, resources: bool, out: &mut String) {
    if kernels {
        let described: Vec<&ImageInfo> = r
            .images
            .iter()
            .filter(|i| i.code_object.is_some() || matches!(i.source, Source::CudaFatbinEntry(_)))
            .collect();
        if !described.is_empty() {
            out.push_str("\n  code objects\n");
        }
        for i in described {
            image(i, resources, out);
        }
    }
    for i in &r.images {
        for w in i.code_object.iter().flat_map(|c| &c.warnings) {
            let _ = writeln!(out, "  warning: {}: {w}", i.location);
        }
    }
}

fn image(i: &ImageInfo, resources: bool, out: &mut String) {
    let mut facts: Vec<String> = Vec::new();
    if let Source::CudaFatbinEntry(e) = &i.source {
        let (major, minor) = e.code_version;
        facts.push(format!(
            "fat binary entry {} ({}), code version {major}.{minor}",
            e.kind.name(),
            e.flag_names.join(",")
        ));
        if let Some(c) = &i.compression {
            facts.push(format!(
                "{} {}→{}",
                c.format.method(),
                c.compressed_size,
                c.uncompressed_size
            ));
        }
        if let Some(n) = &e.name {
            facts.push(format!("name `{n}`"));
        }
    }
    let co = i.code_object.as_ref();
    if let Some(c) = co {
        if !c.target_id.is_empty() {
            facts.push(format!("header target ID {}", c.target_id));
        }
        if let Some(v) = c.code_object_version {
            facts.push(format!("code object v{v}"));
        }
        if let Some(g) = c.generic_version {
            facts.push(format!("generic version {g}"));
        }
        let count =
            |n: usize, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
        if c.entries.is_empty() {
            facts.push(count(c.kernels.len(), "kernel", "kernels"));
        } else {
            facts.push(count(c.entries.len(), "offload entry", "offload entries"));
        }
    }
    let _ = writeln!(out, "  {}: {}", i.location, facts.join("; "));
    if let Some(c) = co {
        if resources && c.entries.is_empty() {
            super::resources::text(c, out);
        } else if c.entries.is_empty() {
            for k in &c.kernels {
                let _ = writeln!(out, "      {k}");
            }
        } else {
            for e in &c.entries {
                let _ = writeln!(out, "      {:<9} {}", e.role.name(), e.name);
            }
        }
    }
}
