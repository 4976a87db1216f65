//! Fuzz body: the in-process objcopy step of relocatable links (`offkit_link::relocate::rewrite`)
//! on any input. It must not panic; whatever it rewrites must be rewritten again (the builder
//! reads what it wrote), and the second pass changes no name, since the entry sections and
//! their `__start_`/`__stop_` symbols already carry the suffix.

use std::path::Path;

use offkit_link::relocate::{rewrite, suffix};
use offkit_llvm::LlvmVersion;

/// Rewrites `data`, then rewrites the result again.
pub fn run(data: &[u8]) {
    if data.len() > 1 << 20 {
        return;
    }
    let s = suffix(data);
    // Each release's entry sections.
    for llvm in LlvmVersion::ALL {
        let Ok(out) = rewrite(Path::new("fuzz.o"), data, &s, llvm) else {
            continue;
        };
        let again = rewrite(Path::new("fuzz.o"), &out, &s, llvm);
        assert!(again.is_ok(), "the rewrite does not read back: {again:?}");
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn seeds_and_mutations() {
        let seeds = crate::seeds("relocate");
        assert!(seeds.len() >= 2);
        // The clang-19 seeds are rewritten; the ones fuzzing found (`regress-*`) need only not
        // crash (one is refused: a 2^32 section alignment).
        for (name, s) in crate::named_seeds("relocate") {
            let suffix = offkit_link::relocate::suffix(&s);
            let out = offkit_link::relocate::rewrite(
                std::path::Path::new("seed.o"),
                &s,
                &suffix,
                offkit_llvm::LlvmVersion::V19,
            );
            assert!(
                out.is_ok() || name.starts_with("regress-"),
                "{name}: {out:?}"
            );
            // And the whole body, which rewrites the result again.
            super::run(&s);
        }
        for input in crate::mutations(&seeds, 40) {
            super::run(&input);
        }
    }
}
