//! `--explain`: for every device image found in the inputs (objects and archive members),
//! whether it was linked, for which target, and why — which symbol pulled an archive member
//! in, why a member stayed out, which images `--offload-targets` dropped.

use crate::resolve::{compatible, Reason, Resolution, TargetId};
use crate::scan::DeviceInput;

/// The report being built.
#[derive(Debug, Default)]
pub struct Explain {
    on: bool,
    lines: Vec<(usize, String)>,
}

fn target(t: &TargetId) -> String {
    if t.1.is_empty() {
        t.0.clone()
    } else {
        format!("{} {}", t.0, t.1)
    }
}

fn describe(d: &DeviceInput<'_>) -> String {
    format!(
        "{}: {} image for {} ({})",
        d.origin,
        d.entry.offload_kind,
        target(&d.target()),
        d.entry.image_kind
    )
}

fn reason(d: &DeviceInput<'_>, r: &Reason) -> String {
    match r {
        Reason::Regular if d.origin.member.is_some() => {
            "a member of an archive under --whole-archive".into()
        }
        Reason::Regular => "a regular input".into(),
        Reason::Resolves(s) => format!("defines `{s}`, which an input linked before needs"),
        Reason::NewGlobal(s) => format!(
            "defines the new visible symbol `{s}` (LLVM 19 links every archive member that does)"
        ),
        Reason::BitcodeLibrary => "given with --bitcode-library".into(),
        Reason::TargetUsed => {
            "an archive member for a target that an input linked before has (LLVM 22 links every such member)".into()
        }
        Reason::ShouldExtract => "its arch is named by --should-extract".into(),
    }
}

impl Explain {
    /// A report that is printed only when `on` (`--explain`).
    pub fn new(on: bool) -> Self {
        Explain {
            on,
            lines: Vec::new(),
        }
    }

    /// Records what resolution decided for every image.
    pub fn resolution(&mut self, inputs: &[DeviceInput<'_>], res: &Resolution) {
        if !self.on {
            return;
        }
        for d in inputs {
            let mut any = false;
            for g in &res.groups {
                for (id, why) in g.inputs.iter().filter(|(id, _)| *id == d.id) {
                    any = true;
                    let _ = id;
                    self.lines.push((
                        d.id,
                        format!(
                            "{}: linked for {}: {}",
                            describe(d),
                            target(&g.target),
                            reason(d, why)
                        ),
                    ));
                }
            }
            if !any {
                let own = d.target();
                let has_group = res
                    .groups
                    .iter()
                    .any(|g| g.target == own || compatible(&own, &g.target));
                let why = if has_group {
                    format!("defines no symbol the {} link needs", target(&own))
                } else {
                    format!("no regular input has device code for {}", target(&own))
                };
                self.lines
                    .push((d.id, format!("{}: not linked: {why}", describe(d))));
            }
        }
    }

    /// Records that `--offload-targets` dropped a group.
    pub fn dropped(&mut self, inputs: &[DeviceInput<'_>], g: &crate::resolve::Group, list: &str) {
        if !self.on {
            return;
        }
        for (id, _) in &g.inputs {
            if let Some(d) = inputs.iter().find(|d| d.id == *id) {
                self.lines.push((
                    d.id,
                    format!(
                        "{}: dropped for {}: not in --offload-targets={list}",
                        describe(d),
                        target(&g.target)
                    ),
                ));
            }
        }
    }

    /// The report's lines, in input order (none unless `--explain`).
    pub fn lines(&self) -> Vec<String> {
        let mut l = self.lines.clone();
        l.sort_by_key(|(id, _)| *id);
        l.into_iter().map(|(_, s)| s).collect()
    }
}
