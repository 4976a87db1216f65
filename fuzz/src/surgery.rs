//! Fuzz body: surgery planned and carried out in memory (`offkit_surgery::plan`,
//! `rewrite_bytes`) on any input: compress, decompress and prune. Whatever is planned must be
//! written without the check after the rewrite failing (that would be a bug: the rewrite and its
//! own check disagree), and compressing what was compressed changes nothing more. `convert` both
//! ways likewise (OpenMP executables and old-driver fat objects among the seeds).

use offkit_format::bundle::compressed::Options;
use offkit_surgery::{convert_file, plan, rewrite_bytes, Edit, Error, Filter, PruneTarget, Target};

fn edits() -> Vec<Edit> {
    let dev = |s: &str| PruneTarget::parse(s).expect("a device");
    vec![
        Edit::Compress(Options::default()),
        Edit::Decompress,
        Edit::Prune {
            filter: Filter::Keep(vec![dev("gfx90a"), dev("sm_80"), dev("compute_80")]),
            level: 1,
            // Files left without device code are written too: the write path is what is fuzzed.
            allow_empty: true,
        },
        Edit::Prune {
            filter: Filter::Drop(vec![dev("gfx1030")]),
            level: 1,
            allow_empty: true,
        },
    ]
}

/// Plans and carries out every edit on `data`.
pub fn run(data: &[u8]) {
    if data.len() > 1 << 20 {
        return;
    }
    for edit in edits() {
        let Ok(p) = plan(data, "fuzz", &edit, 1) else {
            continue;
        };
        match rewrite_bytes(&p, data) {
            Ok(out) => {
                if matches!(edit, Edit::Compress(_)) {
                    let again = plan(&out, "fuzz", &edit, 1).expect("the rewrite plans again");
                    assert!(
                        !again.changes_anything(),
                        "compressing twice changed something"
                    );
                }
            }
            Err(e @ (Error::Validation { .. } | Error::Reread { .. })) => panic!("{e}"),
            Err(_) => {}
        }
    }
    // `offkit convert` both ways: what converts must read back as converted, and convert back
    // (for the linker wrapper of either release, chosen by the input's length).
    let llvm = offkit_llvm::LlvmVersion::ALL[data.len() % offkit_llvm::LlvmVersion::ALL.len()];
    for (to, back) in [
        (Target::OffloadBinary, Target::Bundle),
        (Target::Bundle, Target::OffloadBinary),
    ] {
        match convert_file(data, "fuzz", to, llvm) {
            Ok(Some(c)) => {
                if let Err(e @ (Error::Validation { .. } | Error::Reread { .. })) =
                    convert_file(&c.bytes, "fuzz", back, llvm)
                {
                    panic!("{e}")
                }
            }
            Err(e @ (Error::Validation { .. } | Error::Reread { .. })) => panic!("{e}"),
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn seeds_and_mutations() {
        let mut seeds = crate::seeds("surgery");
        seeds.extend(crate::seeds("bundle_sequence"));
        assert!(seeds.len() >= 3);
        for input in crate::mutations(&seeds, 40) {
            super::run(&input);
        }
    }
}
