//! The text form of `offkit size`: per file a heading, then tables by target, by translation
//! unit and by kernel, each ending in a `total` row that is the sum of the rows above it, and
//! a line per rewrite estimated. Sizes are exact byte counts.

use std::fmt::Write as _;

use super::json::{Document, EstimateJson, FileJson};
use crate::cmd::inspect::text::table;
use crate::output::plural;

/// `part` of `whole` as a percentage with one decimal.
fn share(part: u64, whole: u64) -> String {
    if whole == 0 {
        return "-".into();
    }
    format!("{:.1}%", part as f64 * 100.0 / whole as f64)
}

fn s(n: impl ToString) -> String {
    n.to_string()
}

/// The text of `doc`, listing at most `kernels` kernels per file.
pub fn render(doc: &Document, kernels: usize) -> String {
    let mut out = String::new();
    for f in doc.files.iter().filter(|f| f.error.is_none()) {
        if !out.is_empty() {
            out.push('\n');
        }
        file(&mut out, f, doc, kernels);
    }
    if doc.files.len() > 1 {
        if !out.is_empty() {
            out.push('\n');
        }
        let read = doc.files.iter().filter(|f| f.error.is_none());
        let _ = writeln!(
            out,
            "size: {}, {} device bytes stored ({} inflated)",
            plural(read.clone().count(), "file", "files"),
            doc.totals.stored,
            doc.totals.inflated
        );
        let sum = |pick: fn(&FileJson) -> Option<&EstimateJson>| -> (i64, usize) {
            let mut freed = 0;
            let mut refused = 0;
            for e in read.clone().filter_map(pick) {
                match e.freed {
                    Some(n) => freed += n,
                    None => refused += 1,
                }
            }
            (freed, refused)
        };
        if let Some(p) = &doc.prune {
            let (freed, refused) = sum(|f| f.prune.as_ref());
            let _ = writeln!(
                out,
                "  prune --keep {}: {}{}",
                p.keep.join(","),
                freed_text(freed),
                refused_text(refused)
            );
        }
        if doc.compress.is_some() {
            let (freed, refused) = sum(|f| f.compress.as_ref());
            let _ = writeln!(
                out,
                "  compress: {}{}",
                freed_text(freed),
                refused_text(refused)
            );
        }
    }
    out
}

fn freed_text(n: i64) -> String {
    if n >= 0 {
        format!("would free {n} bytes")
    } else {
        format!("would take {} bytes", n.unsigned_abs())
    }
}

fn refused_text(n: usize) -> String {
    match n {
        0 => String::new(),
        n => format!(" ({} cannot be rewritten)", plural(n, "file", "files")),
    }
}

fn file(out: &mut String, f: &FileJson, doc: &Document, kernels: usize) {
    let _ = writeln!(
        out,
        "{}: {} bytes; device code {} bytes stored, {} inflated; {} in {}",
        f.path,
        f.file_size,
        f.totals.stored,
        f.totals.inflated,
        plural(f.images, "image", "images"),
        plural(f.units.len(), "translation unit", "translation units"),
    );
    if f.units.is_empty() {
        let _ = writeln!(out, "  no device code");
    } else {
        out.push('\n');
        let total = f.totals.stored;
        let mut rows = vec![vec![
            s("TARGET"),
            s("IMAGES"),
            s("STORED"),
            s("SHARE"),
            s("INFLATED"),
        ]];
        for t in &f.targets {
            rows.push(vec![
                t.name.clone(),
                s(t.images),
                s(t.stored),
                share(t.stored, total),
                s(t.inflated),
            ]);
        }
        rows.push(vec![
            s("(headers, padding)"),
            s("-"),
            s(f.headers.stored),
            share(f.headers.stored, total),
            s(f.headers.inflated),
        ]);
        rows.push(vec![
            s("total"),
            s(f.images),
            s(total),
            share(total, total),
            s(f.totals.inflated),
        ]);
        table(out, "  ", &rows, &[false, true, true, true, true], &[0]);
        out.push('\n');
        let mut rows = vec![vec![
            s("TRANSLATION UNIT"),
            s("KIND"),
            s("IMAGES"),
            s("STORED"),
            s("SHARE"),
            s("INFLATED"),
        ]];
        for u in &f.units {
            rows.push(vec![
                u.name.clone(),
                s(u.kind),
                s(u.images.len()),
                s(u.stored),
                share(u.stored, total),
                s(u.inflated),
            ]);
        }
        rows.push(vec![
            s("total"),
            s(""),
            s(f.images),
            s(total),
            share(total, total),
            s(f.totals.inflated),
        ]);
        table(
            out,
            "  ",
            &rows,
            &[false, false, true, true, true, true],
            &[0],
        );
    }
    kernels_table(out, f, kernels);
    estimates(out, f, doc);
}

/// The kernels of `f`, the largest `kernels` one row each.
fn kernels_table(out: &mut String, f: &FileJson, kernels: usize) {
    if f.kernels.list.is_empty() {
        return;
    }
    out.push('\n');
    let mut rows = vec![vec![s("KERNEL"), s("IMAGES"), s("CODE"), s("SHARE")]];
    let whole = f.kernels.image_bytes;
    for k in f.kernels.list.iter().take(kernels) {
        rows.push(vec![
            k.name.clone(),
            s(k.images),
            s(k.code),
            share(k.code, whole),
        ]);
    }
    let rest = f.kernels.list.get(kernels..).unwrap_or_default();
    if !rest.is_empty() {
        let code: u64 = rest.iter().map(|k| k.code).sum();
        rows.push(vec![
            format!("({})", plural(rest.len(), "more kernel", "more kernels")),
            s("-"),
            s(code),
            share(code, whole),
        ]);
    }
    rows.push(vec![
        s("(not kernel code)"),
        s("-"),
        s(f.kernels.other),
        share(f.kernels.other, whole),
    ]);
    rows.push(vec![
        s("total (inflated bytes of the code objects)"),
        s(""),
        s(whole),
        share(whole, whole),
    ]);
    table(out, "  ", &rows, &[false, true, true, true], &[0]);
}

/// A line per rewrite estimated.
fn estimates(out: &mut String, f: &FileJson, doc: &Document) {
    let estimates = [
        (
            doc.prune
                .as_ref()
                .map(|p| format!("prune --keep {}", p.keep.join(","))),
            &f.prune,
            true,
        ),
        (
            doc.compress.as_ref().map(|c| {
                format!(
                    "compress (ccob v{} {} {})",
                    c.ccob_version, c.method, c.level
                )
            }),
            &f.compress,
            false,
        ),
    ];
    let mut first = true;
    for (what, e, prune) in estimates {
        let (Some(what), Some(e)) = (what, e) else {
            continue;
        };
        if std::mem::take(&mut first) {
            out.push('\n');
        }
        let _ = match (e.freed, e.size_before, e.size_after) {
            (Some(freed), Some(before), Some(after)) => {
                let done = if prune {
                    let n = e.images_removed.unwrap_or(0);
                    format!("{} dropped", plural(n, "image", "images"))
                } else {
                    let n = e.bundles_changed.unwrap_or(0);
                    format!("{} compressed", plural(n, "bundle", "bundles"))
                };
                writeln!(
                    out,
                    "  {what}: {done}, {}; the file {before} -> {after} bytes",
                    freed_text(freed),
                )
            }
            _ => writeln!(
                out,
                "  {what}: cannot be done: {}",
                e.error.as_ref().map_or("", |e| e.message.as_str())
            ),
        };
    }
}
