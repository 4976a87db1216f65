//! The text form of `offkit inspect`: per input, an aligned table of device images and one table
//! per offload entry table. Offsets are hexadecimal, sizes decimal.

use std::fmt::Write as _;

use offkit_format::entry::Resolution;
use offkit_format::scan::{ImageInfo, Report, Source, TableInfo};

/// Left-aligned columns (the last one unpadded), separated by two spaces, each line indented.
fn table(out: &mut String, indent: &str, rows: &[Vec<String>], right: &[bool]) {
    let cols = rows.iter().map(Vec::len).max().unwrap_or(0);
    let mut width = vec![0usize; cols];
    for r in rows {
        for (i, c) in r.iter().enumerate() {
            width[i] = width[i].max(c.chars().count());
        }
    }
    for r in rows {
        let mut line = String::from(indent);
        for (i, c) in r.iter().enumerate() {
            let pad = width[i] - c.chars().count();
            let last = i + 1 == r.len();
            if right.get(i).copied().unwrap_or(false) {
                line.extend(std::iter::repeat_n(' ', pad));
                line.push_str(c);
            } else {
                line.push_str(c);
                if !last {
                    line.extend(std::iter::repeat_n(' ', pad));
                }
            }
            if !last {
                line.push_str("  ");
            }
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
}

fn or_dash(s: &str) -> String {
    if s.is_empty() {
        "-".into()
    } else {
        s.into()
    }
}

fn image_row(i: &ImageInfo) -> Vec<String> {
    let mut offset = format!("{:#x}", i.offset);
    if !i.location.in_file() {
        offset.push('*');
    }
    let kind = match &i.source {
        Source::BundleSection {
            host_placeholder: true,
            ..
        } => "host object".to_string(),
        Source::HipFatbin => "bundle".to_string(),
        _ => i.image_kind.to_string(),
    };
    vec![
        i.location.to_string(),
        or_dash(&i.offload_kind),
        kind,
        or_dash(&i.triple),
        or_dash(&i.target_id),
        offset,
        i.size.to_string(),
        i.compression
            .as_ref()
            .map_or_else(|| "-".to_string(), |c| c.to_string()),
    ]
}

fn entry_table(out: &mut String, t: &TableInfo) {
    let kinds: Vec<&str> = {
        let mut k: Vec<&str> = t.entries.iter().map(|e| e.offload_kind.name()).collect();
        k.dedup();
        k
    };
    let _ = writeln!(
        out,
        "\n  entries {} ({}, {} × {} bytes, {} relocations)",
        t.location,
        if kinds.is_empty() {
            t.kind.section_name().to_string()
        } else {
            kinds.join("+")
        },
        t.entries.len(),
        t.layout.stride,
        match t.resolution {
            Resolution::Static => "static",
            Resolution::Dynamic => "dynamic",
        }
    );
    let mut rows = vec![vec![
        "#".to_string(),
        "ROLE".into(),
        "SIZE".into(),
        "FLAGS".into(),
        "NAME".into(),
        "ADDR".into(),
    ]];
    for e in &t.entries {
        let mut flags = if e.flags == 0 {
            "-".to_string()
        } else {
            format!("{:#x}", e.flags)
        };
        let mut names: Vec<String> = e
            .flag_names
            .iter()
            .map(|&n| {
                if n == "requires" && !e.requires.is_empty() {
                    format!("requires({})", e.requires.join(","))
                } else {
                    n.to_string()
                }
            })
            .collect();
        if e.unknown_flags != 0 {
            names.push(format!("?{:#x}", e.unknown_flags));
        }
        if !names.is_empty() {
            flags.push(' ');
            flags.push_str(&names.join(","));
        }
        rows.push(vec![
            e.index.to_string(),
            e.role.name().to_string(),
            e.size.to_string(),
            flags,
            or_dash(&e.name),
            e.addr.clone(),
        ]);
    }
    table(out, "  ", &rows, &[true, false, true]);
}

/// Renders one input's report.
pub fn render(path: &str, r: &Report, out: &mut String) {
    let format = r
        .containers
        .first()
        .map(|c| c.format.to_string())
        .unwrap_or_default();
    let _ = writeln!(out, "{path}: {format}");
    if r.images.is_empty() {
        out.push_str("  no device images\n");
    } else {
        let mut rows = vec![vec![
            "IMAGE".to_string(),
            "OFFLOAD".into(),
            "KIND".into(),
            "TRIPLE".into(),
            "TARGET ID".into(),
            "OFFSET".into(),
            "SIZE".into(),
            "COMPRESSION".into(),
        ]];
        rows.extend(r.images.iter().map(image_row));
        table(
            out,
            "  ",
            &rows,
            &[false, false, false, false, false, true, true],
        );
        if r.images.iter().any(|i| !i.location.in_file()) {
            out.push_str("  (* offset in inflated or decoded data, not in the file)\n");
        }
    }
    for t in &r.tables {
        entry_table(out, t);
    }
}
