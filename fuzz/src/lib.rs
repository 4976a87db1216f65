//! The bodies of offkit's fuzz targets.
//!
//! Each parser has one `pub fn run(data: &[u8])` here; `fuzz_targets/<name>.rs` hands it
//! libFuzzer's inputs, and this crate's tests run it over the seed corpus in `seeds/<name>/`
//! plus generated and mutated inputs. The rule every body checks: no panic, and whatever parses
//! round-trips (writing what was read and reading it again gives the same value).

pub mod archive_scan;
pub mod binary;
pub mod bitcode;
pub mod bundle;
pub mod bundle_sequence;
pub mod code_object;
pub mod compressed;
pub mod elf;
pub mod elf_scan;
pub mod entry;
pub mod fatbin;
pub mod kfd;
pub mod link_args;
pub mod msgpack;
pub mod nvinfo;
pub mod relocate;
pub mod surgery;
pub mod target_id;
pub mod wrap;

/// Deterministic pseudo-random inputs for the tests: every truncation and some byte flips of
/// each seed, plus random buffers.
pub fn mutations(seeds: &[Vec<u8>], rounds: usize) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    for s in seeds {
        for cut in 0..s.len().min(512) {
            out.push(s[..cut].to_vec());
        }
        for _ in 0..rounds {
            let mut m = s.clone();
            if m.is_empty() {
                continue;
            }
            for _ in 0..1 + next() % 4 {
                let i = (next() % m.len() as u64) as usize;
                m[i] = match next() % 4 {
                    0 => 0xff,
                    1 => 0,
                    2 => m[i].wrapping_add(1),
                    _ => next() as u8,
                };
            }
            out.push(m);
        }
    }
    for len in [0usize, 1, 7, 8, 31, 32, 72, 100, 4096] {
        out.push((0..len).map(|_| next() as u8).collect());
    }
    out
}

/// The seed files of target `name` (`fuzz/seeds/<name>/*`).
pub fn seeds(name: &str) -> Vec<Vec<u8>> {
    named_seeds(name).into_iter().map(|(_, s)| s).collect()
}

/// [`seeds`] with their file names.
pub fn named_seeds(name: &str) -> Vec<(String, Vec<u8>)> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("seeds")
        .join(name);
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .map(|d| d.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    files.sort();
    files
        .into_iter()
        .filter_map(|p| {
            let n = p.file_name()?.to_string_lossy().into_owned();
            Some((n, std::fs::read(p).ok()?))
        })
        .collect()
}
