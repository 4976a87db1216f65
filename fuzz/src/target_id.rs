//! Fuzz body: triples and target IDs (`triple`, `target_id`, `target_id::bundle`,
//! `target_id::linker` of offkit-llvm, `device` of offkit-format).
//!
//! The input is split at `\n` into strings; each goes through every parser, and pairs of them
//! through every rule. Checked: nothing panics; the canonical form of a target ID is a
//! fixed point (it parses, to the same canonical form); a standardised bundle entry ID
//! re-parses to the same kind and triple; the four-component rebuild is a fixed point;
//! compatibility of a triple with itself holds; a device's canonical form parses to the same
//! device; an image that fits a device is code for that kind of device.

use offkit_format::device::{Device, ImageTargetId};
use offkit_format::kind::ImageKind;
use offkit_llvm::target_id::{self, bundle, linker, TargetId};
use offkit_llvm::triple::{CanonicalForm, Triple};
use offkit_llvm::LlvmVersion;

/// Triples whose target-ID rules differ (AMDGCN and R600 tables, NVPTX, anything else).
const TRIPLES: [&str; 4] = [
    "amdgcn-amd-amdhsa",
    "r600--",
    "nvptx64-nvidia-cuda",
    "x86_64-unknown-linux-gnu",
];

fn one(s: &[u8]) {
    // Triples.
    let t = Triple::parse(s);
    let four = t.four_components();
    assert_eq!(four.four_components(), four, "the rebuild is a fixed point");
    assert!(t.is_compatible_with(&t.clone()));
    let _ = (
        t.arch_name(),
        t.vendor_name(),
        t.os_name(),
        t.environment_name(),
    );
    let _ = Triple::normalize_bytes(s);
    if let Ok(text) = std::str::from_utf8(s) {
        let _ = Triple::normalize(text);
    }
    for form in [
        CanonicalForm::Any,
        CanonicalForm::ThreeIdent,
        CanonicalForm::FourIdent,
        CanonicalForm::FiveIdent,
    ] {
        if let (Ok(n), Some(k)) = (
            Triple::normalize_form(LlvmVersion::V22, s, form),
            form.components(),
        ) {
            assert_eq!(
                n.split(|&b| b == b'-').count(),
                k,
                "the form's component count"
            );
        }
    }

    // Target IDs.
    let _ = target_id::parse_format(s);
    for triple in TRIPLES {
        let triple = Triple::parse(triple);
        for v in LlvmVersion::ALL {
            if let Ok(id) = TargetId::parse(v, &triple, s) {
                let canonical = id.canonical();
                let again =
                    TargetId::parse(v, &triple, &canonical).expect("the canonical form parses");
                assert_eq!(
                    again.canonical(),
                    canonical,
                    "the canonical form is a fixed point"
                );
                assert!(
                    TargetId::parse_any(&triple, s).is_ok(),
                    "any release's ID reads"
                );
            }
        }
    }

    // Devices.
    if let Ok(d) = std::str::from_utf8(s)
        .map_err(drop)
        .and_then(|t| Device::parse(t).map_err(drop))
    {
        let again = Device::parse(&d.to_string()).expect("the canonical form of a device parses");
        assert_eq!(again, d, "the canonical form of a device is a fixed point");
        let _ = (d.flag(), d.kind_name());
    }

    // Bundle entry IDs, by each release's rules and offkit's own.
    for v in LlvmVersion::ALL {
        let id = bundle::BundleEntryId::parse(v, s);
        let std = id.standardised();
        let re = bundle::BundleEntryId::parse(v, &std);
        assert_eq!(re.kind(), id.kind(), "standardising keeps the kind");
        let _ = (id.check(), bundle::is_well_formed(v, s));
        let _ = bundle::is_compatible(&id, &re, true);
        let _ = bundle::is_compatible(&re, &id, false);
    }
    let any = bundle::BundleEntryId::parse_any(s);
    let _ = (any.standardised(), any.check());
}

/// Runs the body on one input.
pub fn run(data: &[u8]) {
    let parts: Vec<&[u8]> = data.split(|&b| b == b'\n').take(16).collect();
    for p in &parts {
        one(p);
    }
    // Pairs of the first few strings (all pairs of 16 would make each run 16x slower).
    let few = parts.get(..parts.len().min(6)).unwrap_or_default();
    for a in few {
        for b in few {
            for v in LlvmVersion::ALL {
                let (ia, ib) = (
                    bundle::BundleEntryId::parse(v, a),
                    bundle::BundleEntryId::parse(v, b),
                );
                let _ = bundle::is_compatible(&ia, &ib, false);
                let _ = bundle::is_compatible(&ia, &ib, true);
            }
            let _ = target_id::is_compatible(a, b);
            let _ = Triple::parse(a).is_compatible_with(&Triple::parse(b));
            let (ta, tb) = (split_pair(a), split_pair(b));
            assert_eq!(
                linker::is_compatible(ta, tb),
                linker::is_compatible(tb, ta),
                "the linker wrapper's rule is symmetric"
            );
        }
        let t = split_pair(a);
        assert!(!linker::is_compatible(t, t), "a target is its own group");
        // `a` as a device, each other string as an image's target ID on each triple.
        let Some(d) = std::str::from_utf8(a)
            .ok()
            .and_then(|t| Device::parse(t).ok())
        else {
            continue;
        };
        for b in few {
            let id = String::from_utf8_lossy(b);
            for triple in TRIPLES {
                let t = Triple::parse(triple);
                let read = ImageTargetId::read(&t, id.as_ref());
                for kind in [ImageKind::Object, ImageKind::Cubin, ImageKind::Ptx] {
                    if let Some(fit) = d.fit(&t, &read, kind) {
                        assert!(d.same_kind(&t), "{d} fits {triple} {id}");
                        let _ = (fit.rank(), fit.to_string());
                    }
                }
            }
        }
    }
    for v in LlvmVersion::ALL {
        let _ = bundle::check_targets(v, &parts, false);
        let _ = bundle::check_targets(v, &parts, true);
    }
    for v in LlvmVersion::ALL {
        let _ = bundle::check_archive_member(v, parts.iter().copied());
    }
    let pairs: Vec<_> = parts.iter().map(|p| split_pair(p)).collect();
    let groups = linker::group(&pairs);
    let members: usize = groups.iter().map(|(_, m)| m.len()).sum();
    assert!(members >= pairs.len(), "every image is in its own group");
}

/// `triple arch` split at the first space (a linker-wrapper target).
fn split_pair(s: &[u8]) -> (&[u8], &[u8]) {
    match s.iter().position(|&b| b == b' ') {
        Some(i) => (
            s.get(..i).unwrap_or_default(),
            s.get(i + 1..).unwrap_or_default(),
        ),
        None => (s, &[]),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn seeds_and_mutations() {
        let seeds = crate::seeds("target_id");
        assert!(!seeds.is_empty());
        for input in crate::mutations(&seeds, 400) {
            super::run(&input);
        }
    }
}
