//! The holes of a sparse file, so that walking it does not read them: a file pruned in place
//! has its freed bytes as holes, and reading a hole through a map makes the kernel fill a page
//! of zeros for every 4 KiB of it (a second prune of a pruned 1 GiB library read 800 MiB of
//! zeros).

use std::fs::File;

use rustix::fs::{seek, SeekFrom};

/// The most data runs kept; a file with more is treated as having no holes (read as before).
const MAX_RUNS: usize = 1 << 20;

/// The data runs of a file (the ranges that are not holes), from `SEEK_DATA`/`SEEK_HOLE`.
#[derive(Debug, Clone, Default)]
pub(crate) struct Extents {
    /// `(start, end)` of each data run, in order; `None`: unknown, all data.
    runs: Option<Vec<(u64, u64)>>,
}

impl Extents {
    /// No holes known (an input in memory).
    pub fn none() -> Extents {
        Extents::default()
    }

    /// The data runs of `file` (`len` bytes). A file system without `SEEK_DATA` reports the
    /// whole file as data.
    pub fn of(file: &File, len: u64) -> Extents {
        let mut runs = Vec::new();
        let mut pos = 0;
        while pos < len {
            let Ok(start) = seek(file, SeekFrom::Data(pos)) else {
                // ENXIO: only a hole is left (another error: as good as no holes).
                break;
            };
            let Ok(end) = seek(file, SeekFrom::Hole(start)) else {
                return Extents::none();
            };
            if end <= start || runs.len() == MAX_RUNS {
                return Extents::none();
            }
            runs.push((start, end.min(len)));
            pos = end;
        }
        Extents { runs: Some(runs) }
    }

    /// Data runs given as such (tests).
    #[cfg(test)]
    pub fn from_runs(runs: Vec<(u64, u64)>) -> Extents {
        Extents { runs: Some(runs) }
    }

    /// Where the hole after `at` starts: the end of the data run holding `at` (`u64::MAX`
    /// when unknown, or when `at` is in a hole: then it is `at`).
    pub fn hole_after(&self, at: u64) -> u64 {
        let Some(runs) = &self.runs else {
            return u64::MAX;
        };
        let i = runs.partition_point(|&(_, end)| end <= at);
        match runs.get(i) {
            Some(&(start, end)) if start <= at => end,
            _ => at,
        }
    }

    /// The first offset at or after `at` that holds data; `None` when only a hole follows.
    pub fn data_from(&self, at: u64) -> Option<u64> {
        let Some(runs) = &self.runs else {
            return Some(at);
        };
        let i = runs.partition_point(|&(_, end)| end <= at);
        runs.get(i).map(|&(start, _)| start.max(at))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{Seek, Write};

    #[test]
    fn a_sparse_file_has_its_holes_found() {
        let mut f = tempfile::tempfile().unwrap();
        f.write_all(&[1; 4096]).unwrap();
        f.seek(std::io::SeekFrom::Start(4 << 20)).unwrap();
        f.write_all(&[2; 4096]).unwrap();
        f.set_len(8 << 20).unwrap();
        let e = Extents::of(&f, 8 << 20);
        // A file system without holes reports one run: then nothing is skipped.
        if e.runs.as_ref().is_some_and(|r| r.len() > 1) {
            assert!(e.hole_after(10) <= 4 << 20);
            assert_eq!(e.data_from(e.hole_after(10)), Some(4 << 20));
            assert_eq!(e.data_from((4 << 20) + 5000), None);
        }
        assert_eq!(Extents::none().hole_after(10), u64::MAX);
        assert_eq!(Extents::none().data_from(10), Some(10));
    }
}
