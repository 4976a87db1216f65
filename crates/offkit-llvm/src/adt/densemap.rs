//! The iteration order of LLVM 19's `DenseMap<StringRef, …>`.
//!
//! `clang-offload-packager` parses each `--image=k=v,...` into a `DenseMap<StringRef,
//! StringRef>` and writes the string entries of the offload binary in that map's iteration
//! order, so reproducing its bytes needs the exact bucket layout:
//!
//! * a default-constructed map has no buckets; the first insertion allocates 64;
//! * before inserting the `n`-th key (counting from 1), the table doubles when
//!   `n * 4 >= buckets * 3`, re-inserting the old keys in bucket order;
//! * a key's home bucket is `hash & (buckets - 1)` with the hash of
//!   `hashing::dense_map_hash`; collisions probe quadratically (`+1`, `+2`, `+3`, …);
//! * iteration walks the buckets from 0.
//!
//! No key is ever erased there, so tombstones never occur.

use super::hashing::dense_map_hash;

/// The buckets a default-constructed `DenseMap` allocates on its first insertion.
pub(crate) const INITIAL_BUCKETS: usize = 64;

/// A model of the bucket array of a `DenseMap` with string keys (only the layout; values are
/// kept by the caller). Keys are identified by the index the caller gives them.
#[derive(Debug, Clone, Default)]
pub struct StringKeyMap<'k> {
    buckets: Vec<Option<(&'k [u8], usize)>>,
    len: usize,
}

impl<'k> StringKeyMap<'k> {
    /// An empty map, as default-constructed (no buckets yet).
    pub fn new() -> Self {
        Self::default()
    }

    /// How many keys the map holds.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the map is empty.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// How many buckets the table has now.
    pub fn buckets(&self) -> usize {
        self.buckets.len()
    }

    /// The tag of `key` if present.
    pub fn get(&self, key: &[u8]) -> Option<usize> {
        match self.probe(key) {
            Probe::Found(b) => self.buckets.get(b).copied().flatten().map(|(_, t)| t),
            Probe::Empty(_) => None,
        }
    }

    /// Inserts `key` with `tag` unless it is present (as `DenseMap::try_emplace`); returns the
    /// tag the map holds for the key afterwards.
    pub fn insert(&mut self, key: &'k [u8], tag: usize) -> usize {
        if let Probe::Found(b) = self.probe(key) {
            return self
                .buckets
                .get(b)
                .copied()
                .flatten()
                .map_or(tag, |(_, t)| t);
        }
        let n = self.buckets.len();
        if (self.len + 1) * 4 >= n * 3 {
            self.grow((n * 2).max(INITIAL_BUCKETS));
        }
        if let Probe::Empty(b) = self.probe(key) {
            if let Some(slot) = self.buckets.get_mut(b) {
                *slot = Some((key, tag));
                self.len += 1;
            }
        }
        tag
    }

    /// The keys and tags in iteration order.
    pub fn iter(&self) -> impl Iterator<Item = (&'k [u8], usize)> + '_ {
        self.buckets.iter().filter_map(|b| *b)
    }

    fn grow(&mut self, at_least: usize) {
        let old = std::mem::replace(&mut self.buckets, vec![None; at_least.next_power_of_two()]);
        self.len = 0;
        for (key, tag) in old.into_iter().flatten() {
            if let Probe::Empty(b) = self.probe(key) {
                if let Some(slot) = self.buckets.get_mut(b) {
                    *slot = Some((key, tag));
                    self.len += 1;
                }
            }
        }
    }

    fn probe(&self, key: &[u8]) -> Probe {
        let n = self.buckets.len();
        if n == 0 {
            return Probe::Empty(0);
        }
        let mask = n - 1;
        let mut b = dense_map_hash(key) as usize & mask;
        let mut step = 1;
        // Probing visits every bucket within `n` steps (n is a power of two, the steps are
        // triangular numbers) and the table always has an empty bucket.
        for _ in 0..n {
            match self.buckets.get(b).copied().flatten() {
                None => return Probe::Empty(b),
                Some((k, _)) if k == key => return Probe::Found(b),
                Some(_) => {
                    b = (b + step) & mask;
                    step += 1;
                }
            }
        }
        Probe::Empty(b)
    }
}

enum Probe {
    Found(usize),
    Empty(usize),
}

/// The iteration order of a `DenseMap<StringRef, …>` into which `keys` were inserted in this
/// order (repeats ignored): the distinct keys, each with the index of its first occurrence in
/// `keys`.
pub fn iteration_order<K: AsRef<[u8]>>(keys: &[K]) -> Vec<(usize, &[u8])> {
    let mut map = StringKeyMap::new();
    for (i, k) in keys.iter().enumerate() {
        map.insert(k.as_ref(), i);
    }
    map.iter().map(|(k, i)| (i, k)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packager_common_keys() {
        let keys = ["file", "triple", "arch", "kind"];
        let order: Vec<&[u8]> = iteration_order(&keys).into_iter().map(|(_, k)| k).collect();
        let order: Vec<&[u8]> = order
            .into_iter()
            .filter(|k| *k != b"file" && *k != b"kind")
            .collect();
        assert_eq!(order, [&b"arch"[..], b"triple"]);
    }

    #[test]
    fn growth_keeps_every_key() {
        let keys: Vec<String> = (0..500).map(|i| format!("key{i}")).collect();
        let mut map = StringKeyMap::new();
        for (i, k) in keys.iter().enumerate() {
            map.insert(k.as_bytes(), i);
        }
        assert_eq!(map.len(), 500);
        assert_eq!(map.buckets(), 1024);
        for (i, k) in keys.iter().enumerate() {
            assert_eq!(map.get(k.as_bytes()), Some(i));
        }
        // Repeats keep the first tag.
        assert_eq!(map.insert(b"key7", 9999), 7);
        assert_eq!(iteration_order(&keys).len(), 500);
    }

    #[test]
    fn sizes_follow_llvm() {
        let keys: Vec<String> = (0..48).map(|i| format!("k{i}")).collect();
        let mut map = StringKeyMap::new();
        assert_eq!(map.buckets(), 0);
        for (i, k) in keys.iter().enumerate() {
            map.insert(k.as_bytes(), i);
            // 47 keys fit in 64 buckets; the 48th triggers growth (48 * 4 >= 64 * 3).
            assert_eq!(map.buckets(), if i < 47 { 64 } else { 128 }, "after {i}");
        }
    }
}
