//! The text form of `offkit inspect`, for people: per input, the path once as a heading, an
//! aligned table of device images that fits [`MAX_WIDTH`] columns (long locations and IDs are
//! elided in the middle with `…`, never cut silently; `--json` has everything), a summary, and
//! one table per offload entry table. Offsets are hexadecimal, sizes decimal.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

use offkit_format::entry::Resolution;
use offkit_format::scan::{Format, ImageInfo, Location, Report, Source, Step, TableInfo};

use crate::output::plural;
use crate::select::is_device_code;

/// The widest a table row may be.
pub const MAX_WIDTH: usize = 120;

/// The narrowest an elided cell becomes.
const MIN_ELIDED: usize = 12;

/// The width of `s` in columns (characters; the text is nearly always ASCII).
fn width(s: &str) -> usize {
    if s.is_ascii() {
        s.len()
    } else {
        s.chars().count()
    }
}

fn pad(out: &mut String, n: usize) {
    out.extend(std::iter::repeat_n(' ', n));
}

/// `s` in at most `w` columns: unchanged if it fits, else its start and end around `…`.
pub fn elide(s: &str, w: usize) -> String {
    let n = width(s);
    if n <= w {
        return s.to_string();
    }
    let keep = w.saturating_sub(1);
    let head = keep.div_ceil(2);
    let tail = keep - head;
    let mut out: String = s.chars().take(head).collect();
    out.push('…');
    out.extend(s.chars().skip(n - tail));
    out
}

/// Left-aligned columns (right-aligned where `right` says; the last one unpadded), separated by
/// two spaces, each line indented. While a row would be wider than [`MAX_WIDTH`], the widest
/// column of `elidable` loses a column (down to [`MIN_ELIDED`]); its cells are elided in the
/// middle.
pub fn table(
    out: &mut String,
    indent: &str,
    rows: &[Vec<String>],
    right: &[bool],
    elidable: &[usize],
) {
    let cols = rows.iter().map(Vec::len).max().unwrap_or(0);
    let mut widths = vec![0usize; cols];
    for r in rows {
        for (i, c) in r.iter().enumerate() {
            widths[i] = widths[i].max(width(c));
        }
    }
    let total =
        |w: &[usize]| indent.len() + w.iter().sum::<usize>() + 2 * w.len().saturating_sub(1);
    while total(&widths) > MAX_WIDTH {
        let Some(&col) = elidable
            .iter()
            .filter(|&&c| widths.get(c).is_some_and(|&w| w > MIN_ELIDED))
            .max_by_key(|&&c| (widths[c], std::cmp::Reverse(c)))
        else {
            break;
        };
        widths[col] -= 1;
    }
    for r in rows {
        let start = out.len();
        out.push_str(indent);
        for (i, c) in r.iter().enumerate() {
            let c = elide(c, widths[i]);
            let gap = widths[i] - width(&c);
            let last = i + 1 == r.len();
            if right.get(i).copied().unwrap_or(false) {
                pad(out, gap);
                out.push_str(&c);
            } else {
                out.push_str(&c);
                if !last {
                    pad(out, gap);
                }
            }
            if !last {
                out.push_str("  ");
            }
        }
        // No trailing blanks (an empty last column).
        let trimmed = out[start..].trim_end().len();
        out.truncate(start + trimmed);
        out.push('\n');
    }
}

/// `location` without its first step (the input file, which is the heading).
fn within(location: &Location) -> String {
    let rest = Location {
        steps: location.steps.iter().skip(1).cloned().collect(),
    };
    let s = rest.to_string();
    if s.is_empty() {
        "(the file)".into()
    } else {
        s
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
        within(&i.location),
        or_dash(&i.offload_kind.to_string()),
        kind,
        or_dash(&i.triple.to_string()),
        or_dash(i.target_id.as_str()),
        offset,
        i.size.to_string(),
        i.compression
            .as_ref()
            .map_or_else(|| "-".to_string(), |c| c.format.to_string()),
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
        within(&t.location),
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
    table(out, "  ", &rows, &[true, false, true], &[4, 5]);
}

/// `n` bytes for people: `812 B`, `4.4 KiB`, `1.3 GiB`.
pub fn human(n: u64) -> String {
    const UNITS: [&str; 4] = ["KiB", "MiB", "GiB", "TiB"];
    if n < 1024 {
        return format!("{n} B");
    }
    let mut v = n as f64 / 1024.0;
    let mut unit = 0;
    while v >= 1024.0 && unit + 1 < UNITS.len() {
        v /= 1024.0;
        unit += 1;
    }
    format!("{v:.1} {}", UNITS[unit])
}

/// Appends `items` joined by `, ` after `head`, wrapping lines at [`MAX_WIDTH`] (continuation
/// lines indented under the first item).
fn wrapped(out: &mut String, head: &str, items: &[String]) {
    let mut line = head.to_string();
    let cont = " ".repeat(width(head));
    for (n, item) in items.iter().enumerate() {
        let sep = if n + 1 < items.len() { "," } else { "" };
        if n > 0 && width(&line) + 1 + width(item) + sep.len() > MAX_WIDTH {
            out.push_str(line.trim_end());
            out.push('\n');
            line = cont.clone();
        } else if n > 0 {
            line.push(' ');
        }
        line.push_str(item);
        line.push_str(sep);
    }
    out.push_str(&line);
    out.push('\n');
}

/// The summary lines of one input: bundles, device images and their bytes (images nested in
/// other images counted once, with their parent), compressed share, images per target.
fn summary(r: &Report, out: &mut String) {
    let plain = r
        .containers
        .iter()
        .filter(|c| matches!(c.format, Format::Bundle))
        .count();
    // A bundled object (`__CLANG_OFFLOAD_BUNDLE__*` sections) is one bundle.
    let bundled_objects: BTreeSet<String> = r
        .images
        .iter()
        .filter(|i| matches!(i.source, Source::BundleSection { .. }))
        .map(|i| {
            let n = i.location.steps.len().saturating_sub(1);
            Location {
                steps: i.location.steps[..n].to_vec(),
            }
            .to_string()
        })
        .collect();
    let plain = plain + bundled_objects.len();
    let compressed = r
        .containers
        .iter()
        .filter(|c| matches!(c.format, Format::CompressedBundle(_)))
        .count();
    let code: Vec<&ImageInfo> = r.images.iter().filter(|i| is_device_code(i)).collect();
    let locations: BTreeSet<String> = code.iter().map(|i| i.location.to_string()).collect();
    // An image inside another listed image (an offload binary's image in a bundle entry) is
    // counted once, in its container. Inflated and decoded steps do not show in a location, so
    // a compressed CUDA fat binary entry's location is also its container's: that one is no
    // parent (every such summary said "of 0 B").
    let nested = |i: &ImageInfo| {
        let own = i.location.to_string();
        (1..i.location.steps.len()).any(|k| {
            let parent = Location {
                steps: i.location.steps[..k].to_vec(),
            }
            .to_string();
            parent != own && locations.contains(&parent)
        })
    };
    let bytes: u64 = code
        .iter()
        .filter(|i| !nested(i))
        .map(|i| i.size)
        .fold(0, u64::saturating_add);
    let binaries: BTreeSet<u64> = r
        .images
        .iter()
        .filter_map(|i| match i.source {
            Source::OffloadBinary { offset, .. } if i.location.in_file() => Some(offset),
            _ => None,
        })
        .collect();
    let mut parts = Vec::new();
    if plain.max(compressed) > 0 {
        let mut p = plural(plain.max(compressed), "bundle", "bundles");
        if compressed > 0 {
            let _ = write!(p, " ({compressed} compressed)");
        }
        parts.push(p);
    }
    if !binaries.is_empty() {
        parts.push(plural(binaries.len(), "offload binary", "offload binaries"));
    }
    parts.push(format!(
        "{} of {}",
        plural(code.len(), "device image", "device images"),
        human(bytes)
    ));
    let mut line = format!("  summary: {}", parts.join(", "));
    let mut containers = BTreeSet::new();
    let (mut packed, mut inflated) = (0u64, 0u64);
    for c in r.images.iter().filter_map(|i| i.compression.as_ref()) {
        if containers.insert((c.format.name(), c.offset, c.compressed_size)) {
            packed = packed.saturating_add(c.compressed_size);
            inflated = inflated.saturating_add(c.uncompressed_size);
        }
    }
    if inflated > 0 {
        let _ = write!(
            line,
            "; compressed: {} hold {} ({}%)",
            human(packed),
            human(inflated),
            packed.saturating_mul(100) / inflated
        );
    }
    out.push_str(&line);
    out.push('\n');
    let mut by_target: BTreeMap<String, usize> = BTreeMap::new();
    for i in &code {
        let key = if i.target_id.is_empty() {
            i.triple.to_string()
        } else {
            i.target_id.to_string()
        };
        *by_target.entry(key).or_default() += 1;
    }
    if !by_target.is_empty() {
        let items: Vec<String> = by_target
            .iter()
            .map(|(t, n)| format!("{} ×{n}", or_dash(t)))
            .collect();
        wrapped(out, "  by target: ", &items);
    }
}

/// Renders one input's report (`selected`: its images are those a selection kept).
pub fn render(path: &str, r: &Report, selected: bool, out: &mut String) {
    // A file holding several bundles one after another (a `.hip_fatbin` section's bytes) is
    // that sequence, not its first bundle.
    let top_bundles = r
        .containers
        .iter()
        .filter(|c| {
            matches!(
                c.location.steps.as_slice(),
                [Step::File(_), Step::Bundle(_)]
            )
        })
        .count();
    let format = match r.containers.first() {
        _ if top_bundles > 1 => format!("sequence of {top_bundles} offload bundles"),
        Some(c) => c.format.to_string(),
        None => String::new(),
    };
    let _ = writeln!(out, "{path}: {format}");
    if r.images.is_empty() {
        out.push_str(if selected {
            "  no device image matches the selection\n"
        } else {
            "  no device images\n"
        });
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
        // The compression column only where something is compressed (the room goes to the
        // locations).
        if r.images.iter().all(|i| i.compression.is_none()) {
            rows.iter_mut().for_each(|row| {
                row.pop();
            });
        }
        table(
            out,
            "  ",
            &rows,
            &[false, false, false, false, false, true, true],
            &[0, 4, 3],
        );
        if r.images.iter().any(|i| !i.location.in_file()) {
            out.push_str("  (* offset in inflated or decoded data, not in the file)\n");
        }
    }
    if !r.images.is_empty() {
        summary(r, out);
    }
    for t in &r.tables {
        entry_table(out, t);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn elision_keeps_both_ends() {
        assert_eq!(elide("gfx90a", 12), "gfx90a");
        assert_eq!(elide("abcdefghij", 5), "ab…ij");
        assert_eq!(elide("abcdefghij", 6), "abc…ij");
        assert_eq!(width(&elide(&"x".repeat(300), 40)), 40);
    }

    #[test]
    fn tables_fit_the_width() {
        let long = format!(":.hip_fatbin[hipv4-amdgcn-amd-amdhsa--{}]", "g".repeat(150));
        let rows = vec![
            vec!["IMAGE".to_string(), "TRIPLE".into(), "SIZE".into()],
            vec![long.clone(), "amdgcn-amd-amdhsa".into(), "5328".into()],
        ];
        let mut out = String::new();
        table(&mut out, "  ", &rows, &[false, false, true], &[0]);
        assert!(out.lines().all(|l| width(l) <= MAX_WIDTH), "{out}");
        let row = out.lines().nth(1).unwrap();
        assert!(row.contains('…') && row.contains(":.hip_fatbin[hipv4") && row.ends_with("5328"));
        // Short tables are left alone.
        let mut out = String::new();
        table(&mut out, "  ", &rows[..1], &[false, false, true], &[0]);
        assert_eq!(out, "  IMAGE  TRIPLE  SIZE\n");
    }

    #[test]
    fn sizes_for_people() {
        assert_eq!(human(812), "812 B");
        assert_eq!(human(4506), "4.4 KiB");
        assert_eq!(human(1 << 30), "1.0 GiB");
    }
}
