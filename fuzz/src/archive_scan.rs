//! Fuzz body: the scanner on static archives (GNU, BSD, thin), members walked recursively.

use offkit_format::scan::{Location, Options, Resolver};

/// Gives every thin member the bytes of the input itself cut at a length taken from the
/// member name, so that thin archives are walked too, boundedly.
struct SelfResolver<'a> {
    data: &'a [u8],
    calls: usize,
}

impl Resolver for SelfResolver<'_> {
    fn thin_member(
        &mut self,
        _archive: &Location,
        member: &str,
    ) -> std::io::Result<Box<dyn AsRef<[u8]>>> {
        self.calls += 1;
        if self.calls > 64 {
            return Err(std::io::Error::other("too many thin members"));
        }
        let cut = member.len().min(self.data.len());
        Ok(Box::new(self.data[cut..].to_vec()))
    }
}

/// Walks `data` as an input file (normally an archive) with thin members resolved; the checks
/// of [`crate::elf_scan::check`] apply.
pub fn run(data: &[u8]) {
    // The flat list of offload binaries over archives (members, nested archives) too.
    let _ = offkit_format::scan::all_binaries(data, 0);
    for inflate in [
        offkit_format::scan::Inflate::Whole,
        offkit_format::scan::Inflate::Headers,
    ] {
        let mut r = SelfResolver { data, calls: 0 };
        let mut opts = Options {
            entry_tables: offkit_format::scan::EntryTables::All,
            inflate,
            kernels: true,
            resolver: Some(&mut r),
        };
        crate::elf_scan::check(data, &mut opts);
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn seeds_and_mutations() {
        let seeds = crate::seeds("archive_scan");
        assert!(!seeds.is_empty());
        for input in crate::mutations(&seeds, 300) {
            super::run(&input);
        }
    }
}
