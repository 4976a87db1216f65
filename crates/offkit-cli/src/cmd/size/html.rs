//! `offkit size --html`: one self-contained page (no script, no external resource) with an SVG
//! treemap of the stored device bytes — file, translation unit, then each image and the
//! unit's headers, every leaf's area in proportion to its bytes — and the text's tables.
//! The same report gives the same bytes.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use super::json::{Document, FileJson};
use super::treemap::{squarify, Rect};

/// The treemap's size in SVG units.
const WIDTH: f64 = 960.0;
const HEIGHT: f64 = 600.0;

/// `s` escaped for HTML text and attribute values.
fn esc(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => o.push_str("&amp;"),
            '<' => o.push_str("&lt;"),
            '>' => o.push_str("&gt;"),
            '"' => o.push_str("&quot;"),
            '\'' => o.push_str("&#39;"),
            c => o.push(c),
        }
    }
    o
}

/// A colour per target, spread around the hue circle in name order.
fn colours(doc: &Document) -> BTreeMap<String, String> {
    let mut names: Vec<&str> = doc
        .files
        .iter()
        .flat_map(|f| f.targets.iter().map(|t| t.name.as_str()))
        .collect();
    names.sort_unstable();
    names.dedup();
    let n = names.len().max(1) as f64;
    names
        .into_iter()
        .enumerate()
        .map(|(i, name)| {
            let hue = (i as f64 * 360.0 / n + 200.0) % 360.0;
            (name.to_string(), format!("hsl({hue:.0},60%,62%)"))
        })
        .collect()
}

/// One leaf of the treemap.
struct Leaf {
    label: String,
    title: String,
    bytes: u64,
    fill: String,
}

fn rect_attrs(r: &Rect) -> String {
    format!(
        "x=\"{:.3}\" y=\"{:.3}\" width=\"{:.3}\" height=\"{:.3}\"",
        r.x, r.y, r.w, r.h
    )
}

/// The leaves of `r`, and a label where one fits.
fn leaves(svg: &mut String, leaves: &[Leaf], r: Rect) {
    let values: Vec<u64> = leaves.iter().map(|l| l.bytes).collect();
    for (l, q) in leaves.iter().zip(squarify(&values, r)) {
        if l.bytes == 0 {
            continue;
        }
        let _ = writeln!(
            svg,
            "<rect class=\"leaf\" {} fill=\"{}\" data-bytes=\"{}\"><title>{}</title></rect>",
            rect_attrs(&q),
            l.fill,
            l.bytes,
            esc(&l.title)
        );
        if q.w > 7.0 * l.label.len() as f64 && q.h > 16.0 {
            let _ = writeln!(
                svg,
                "<text x=\"{:.3}\" y=\"{:.3}\">{}</text>",
                q.x + 3.0,
                q.y + 13.0,
                esc(&l.label)
            );
        }
    }
}

/// The units of file `f` in `r`: each unit's images and headers.
fn file_map(svg: &mut String, f: &FileJson, r: Rect, colour: &BTreeMap<String, String>) {
    let values: Vec<u64> = f.units.iter().map(|u| u.stored).collect();
    let rects = squarify(&values, r);
    for (u, q) in f.units.iter().zip(&rects) {
        if u.stored == 0 {
            continue;
        }
        let mut ls: Vec<Leaf> = u
            .images
            .iter()
            .map(|i| Leaf {
                label: i.target.rsplit(' ').next().unwrap_or_default().to_string(),
                title: format!(
                    "{}{} {}: {} bytes stored, {} inflated",
                    f.path, u.name, i.target, i.stored, i.inflated
                ),
                bytes: i.stored,
                fill: colour.get(&i.target).cloned().unwrap_or_default(),
            })
            .collect();
        ls.push(Leaf {
            label: String::new(),
            title: format!(
                "{}{} headers and padding: {} bytes",
                f.path, u.name, u.headers.stored
            ),
            bytes: u.headers.stored,
            fill: "#bbbbbb".into(),
        });
        leaves(svg, &ls, *q);
        let _ = writeln!(
            svg,
            "<rect class=\"unit\" {} fill=\"none\" stroke=\"#222\" stroke-width=\"1.5\"><title>{}{}: {} bytes</title></rect>",
            rect_attrs(q),
            esc(&f.path),
            esc(&u.name),
            u.stored
        );
    }
}

fn row(html: &mut String, cells: &[String]) {
    html.push_str("<tr>");
    for c in cells {
        let _ = write!(html, "<td>{}</td>", esc(c));
    }
    html.push_str("</tr>\n");
}

fn head(html: &mut String, cells: &[&str]) {
    html.push_str("<tr>");
    for c in cells {
        let _ = write!(html, "<th>{}</th>", esc(c));
    }
    html.push_str("</tr>\n");
}

/// The tables of one file.
fn tables(html: &mut String, f: &FileJson) {
    let _ = writeln!(
        html,
        "<h2>{}</h2>\n<p>{} bytes; device code {} bytes stored, {} inflated; {} images in {} \
         translation units</p>",
        esc(&f.path),
        f.file_size,
        f.totals.stored,
        f.totals.inflated,
        f.images,
        f.units.len()
    );
    html.push_str("<table>\n");
    head(html, &["target", "images", "stored", "inflated"]);
    for t in &f.targets {
        row(
            html,
            &[
                t.name.clone(),
                t.images.to_string(),
                t.stored.to_string(),
                t.inflated.to_string(),
            ],
        );
    }
    row(
        html,
        &[
            "(headers, padding)".into(),
            "-".into(),
            f.headers.stored.to_string(),
            f.headers.inflated.to_string(),
        ],
    );
    html.push_str("</table>\n<table>\n");
    head(
        html,
        &["translation unit", "kind", "images", "stored", "inflated"],
    );
    for u in &f.units {
        row(
            html,
            &[
                u.name.clone(),
                u.kind.to_string(),
                u.images.len().to_string(),
                u.stored.to_string(),
                u.inflated.to_string(),
            ],
        );
    }
    html.push_str("</table>\n");
    if !f.kernels.list.is_empty() {
        html.push_str("<table>\n");
        head(html, &["kernel", "images", "code"]);
        for k in &f.kernels.list {
            row(
                html,
                &[k.name.clone(), k.images.to_string(), k.code.to_string()],
            );
        }
        row(
            html,
            &[
                "(not kernel code)".into(),
                "-".into(),
                f.kernels.other.to_string(),
            ],
        );
        html.push_str("</table>\n");
    }
    for (what, e) in [("prune", &f.prune), ("compress", &f.compress)] {
        let Some(e) = e else { continue };
        let text = match (e.freed, e.size_before, e.size_after) {
            (Some(n), Some(b), Some(a)) => {
                format!("{what}: {n} bytes freed; the file {b} -> {a} bytes")
            }
            _ => format!(
                "{what}: cannot be done: {}",
                e.error.as_ref().map_or("", |e| e.message.as_str())
            ),
        };
        let _ = writeln!(html, "<p>{}</p>", esc(&text));
    }
}

/// The page of `doc`.
pub fn render(doc: &Document) -> String {
    let colour = colours(doc);
    let files: Vec<&FileJson> = doc.files.iter().filter(|f| f.error.is_none()).collect();
    let mut svg = String::new();
    let _ = writeln!(
        svg,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" id=\"treemap\" width=\"{WIDTH}\" height=\"{HEIGHT}\" viewBox=\"0 0 {WIDTH} {HEIGHT}\" data-bytes=\"{}\">",
        doc.totals.stored
    );
    let values: Vec<u64> = files.iter().map(|f| f.totals.stored).collect();
    let whole = Rect {
        x: 0.0,
        y: 0.0,
        w: WIDTH,
        h: HEIGHT,
    };
    for (f, q) in files.iter().zip(squarify(&values, whole)) {
        if f.totals.stored == 0 {
            continue;
        }
        file_map(&mut svg, f, q, &colour);
        let _ = writeln!(
            svg,
            "<rect class=\"file\" {} fill=\"none\" stroke=\"#000\" stroke-width=\"3\"><title>{}: {} bytes</title></rect>",
            rect_attrs(&q),
            esc(&f.path),
            f.totals.stored
        );
    }
    svg.push_str("</svg>\n");
    let mut html = String::new();
    html.push_str(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <title>offkit size</title>\n<style>\n\
         body { font: 14px sans-serif; margin: 1em; }\n\
         svg text { font: 11px sans-serif; pointer-events: none; }\n\
         table { border-collapse: collapse; margin: .5em 0; }\n\
         td, th { border: 1px solid #ccc; padding: 2px 6px; text-align: right; }\n\
         td:first-child, th:first-child { text-align: left; }\n\
         .key span { display: inline-block; width: 1em; height: 1em; margin: 0 .3em 0 1em; \
         vertical-align: middle; }\n\
         </style>\n</head>\n<body>\n",
    );
    let _ = writeln!(
        html,
        "<h1>Device code: {} bytes stored, {} inflated, in {} files</h1>",
        doc.totals.stored,
        doc.totals.inflated,
        files.len()
    );
    html.push_str(
        "<p>Each rectangle is a device image (grey: a container's headers and padding), its \
         area in proportion to the bytes it takes in the file; outlined: translation units and \
         files.</p>\n<p class=\"key\">",
    );
    for (name, c) in &colour {
        let _ = write!(html, "<span style=\"background:{c}\"></span>{}", esc(name));
    }
    html.push_str("</p>\n");
    html.push_str(&svg);
    for f in &files {
        tables(&mut html, f);
    }
    html.push_str("</body>\n</html>\n");
    html
}
