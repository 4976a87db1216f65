//! The iteration order of LLVM 19's `StringMap` (XXH3-64 hash, probing, tombstones, rehashing).
//!
//! `clang-offload-bundler` keeps the entries of a binary bundle, and the work list of an
//! unbundling run, in a `StringMap`; `-list` prints and unbundling matches in the map's bucket
//! order, not in file order. This model reproduces `llvm/lib/Support/StringMap.cpp` of LLVM 19:
//!
//! * the hash is the low 32 bits of XXH3-64 (seed 0) of the key;
//! * the table starts with 16 buckets on the first insertion; a key's home bucket is
//!   `hash & (buckets - 1)`; collisions probe `b, b+1, b+3, b+6, …` (steps 1, 2, 3, …);
//! * a lookup compares the stored hash first, then the key; an insertion reuses the first
//!   tombstone it met on the way;
//! * after inserting a new key the table doubles when more than 3/4 full, or is rehashed at the
//!   same size when at most 1/8 of the buckets are truly empty; rehashing walks the old buckets in
//!   index order;
//! * removal leaves a tombstone; iteration visits buckets in index order.
//!
//! ```
//! use offkit_llvm::adt::stringmap::StringMap;
//!
//! let mut m = StringMap::new();
//! for id in ["host-x86_64-unknown-linux-gnu-", "hip-amdgcn-amd-amdhsa--gfx906", "openmp-nvptx64-nvidia-cuda--"] {
//!     m.insert(id.as_bytes(), ());
//! }
//! let order: Vec<&[u8]> = m.iter().map(|(k, _)| k).collect();
//! assert_eq!(order, [&b"hip-amdgcn-amd-amdhsa--gfx906"[..], b"openmp-nvptx64-nvidia-cuda--", b"host-x86_64-unknown-linux-gnu-"]);
//! ```

/// One bucket of the table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Bucket {
    Empty,
    Tombstone,
    /// An index into `items`.
    Full(usize),
}

/// A model of LLVM's `StringMap<V>`: the same lookups, and the same iteration order.
#[derive(Debug, Clone)]
pub struct StringMap<K, V> {
    buckets: Vec<Bucket>,
    /// The stored 32-bit hash of each bucket (LLVM keeps them in a parallel array).
    hashes: Vec<u32>,
    /// The live and removed items; buckets point into this.
    items: Vec<Option<(K, V)>>,
    num_items: usize,
    num_tombstones: usize,
}

impl<K: AsRef<[u8]>, V> Default for StringMap<K, V> {
    fn default() -> Self {
        Self::new()
    }
}

/// LLVM 19's `StringMapImpl::hash`: XXH3-64 of the key, truncated to 32 bits.
pub(crate) fn hash(key: &[u8]) -> u32 {
    xxhash_rust::xxh3::xxh3_64(key) as u32
}

impl<K: AsRef<[u8]>, V> StringMap<K, V> {
    /// An empty map (no buckets until the first insertion, as in LLVM).
    pub fn new() -> Self {
        StringMap {
            buckets: Vec::new(),
            hashes: Vec::new(),
            items: Vec::new(),
            num_items: 0,
            num_tombstones: 0,
        }
    }

    /// How many keys the map holds.
    pub fn len(&self) -> usize {
        self.num_items
    }

    /// Whether the map is empty.
    pub fn is_empty(&self) -> bool {
        self.num_items == 0
    }

    /// How many buckets the table has (0 before the first insertion).
    pub fn num_buckets(&self) -> usize {
        self.buckets.len()
    }

    /// `LookupBucketFor`: the bucket holding `key`, or the one an insertion would use.
    /// Returns `(bucket, found)`.
    fn lookup_bucket_for(&mut self, key: &[u8], full_hash: u32) -> (usize, bool) {
        if self.buckets.is_empty() {
            self.buckets = vec![Bucket::Empty; 16];
            self.hashes = vec![0; 16];
        }
        let mask = self.buckets.len() - 1;
        let mut bucket = full_hash as usize & mask;
        let mut probe = 1usize;
        let mut first_tombstone: Option<usize> = None;
        loop {
            match self.buckets[bucket] {
                Bucket::Empty => {
                    let at = first_tombstone.unwrap_or(bucket);
                    self.hashes[at] = full_hash;
                    return (at, false);
                }
                Bucket::Tombstone => {
                    first_tombstone.get_or_insert(bucket);
                }
                Bucket::Full(i) => {
                    if self.hashes[bucket] == full_hash {
                        if let Some((k, _)) = &self.items[i] {
                            if k.as_ref() == key {
                                return (bucket, true);
                            }
                        }
                    }
                }
            }
            bucket = (bucket + probe) & mask;
            probe += 1;
        }
    }

    /// `FindKey`: the bucket holding `key`, without changing anything.
    fn find_bucket(&self, key: &[u8]) -> Option<usize> {
        if self.buckets.is_empty() {
            return None;
        }
        let full_hash = hash(key);
        let mask = self.buckets.len() - 1;
        let mut bucket = full_hash as usize & mask;
        let mut probe = 1usize;
        loop {
            match self.buckets[bucket] {
                Bucket::Empty => return None,
                Bucket::Tombstone => {}
                Bucket::Full(i) => {
                    if self.hashes[bucket] == full_hash {
                        if let Some((k, _)) = &self.items[i] {
                            if k.as_ref() == key {
                                return Some(bucket);
                            }
                        }
                    }
                }
            }
            bucket = (bucket + probe) & mask;
            probe += 1;
        }
    }

    /// `operator[]` followed by an assignment: inserts `key`, or replaces the value of an
    /// existing key (which keeps its bucket). Returns whether the key was new.
    pub fn insert(&mut self, key: K, value: V) -> bool {
        let full_hash = hash(key.as_ref());
        let (bucket, found) = self.lookup_bucket_for(key.as_ref(), full_hash);
        if found {
            if let Bucket::Full(i) = self.buckets[bucket] {
                if let Some(item) = self.items[i].as_mut() {
                    item.1 = value;
                }
            }
            return false;
        }
        if self.buckets[bucket] == Bucket::Tombstone {
            self.num_tombstones -= 1;
        }
        self.items.push(Some((key, value)));
        self.buckets[bucket] = Bucket::Full(self.items.len() - 1);
        self.num_items += 1;
        self.rehash_table();
        true
    }

    /// `RehashTable`: grow when more than 3/4 full, rehash in place when few empty buckets
    /// remain.
    fn rehash_table(&mut self) {
        let n = self.buckets.len();
        let new_size = if self.num_items * 4 > n * 3 {
            n * 2
        } else if n - (self.num_items + self.num_tombstones) <= n / 8 {
            n
        } else {
            return;
        };
        let mut buckets = vec![Bucket::Empty; new_size];
        let mut hashes = vec![0u32; new_size];
        let mask = new_size - 1;
        for old in 0..n {
            if let Bucket::Full(i) = self.buckets[old] {
                let h = self.hashes[old];
                let mut b = h as usize & mask;
                let mut probe = 1usize;
                while buckets[b] != Bucket::Empty {
                    b = (b + probe) & mask;
                    probe += 1;
                }
                buckets[b] = Bucket::Full(i);
                hashes[b] = h;
            }
        }
        self.buckets = buckets;
        self.hashes = hashes;
        self.num_tombstones = 0;
    }

    /// The value of `key`.
    pub fn get(&self, key: &[u8]) -> Option<&V> {
        let b = self.find_bucket(key)?;
        match self.buckets[b] {
            Bucket::Full(i) => self.items[i].as_ref().map(|(_, v)| v),
            _ => None,
        }
    }

    /// `erase`: removes `key` (its bucket becomes a tombstone) and returns its value.
    pub fn remove(&mut self, key: &[u8]) -> Option<V> {
        let b = self.find_bucket(key)?;
        let Bucket::Full(i) = self.buckets[b] else {
            return None;
        };
        self.buckets[b] = Bucket::Tombstone;
        self.num_items -= 1;
        self.num_tombstones += 1;
        self.items[i].take().map(|(_, v)| v)
    }

    /// The entries in LLVM's iteration order (bucket index order).
    pub fn iter(&self) -> impl Iterator<Item = (&[u8], &V)> + '_ {
        self.buckets.iter().filter_map(move |b| match b {
            Bucket::Full(i) => self.items[*i].as_ref().map(|(k, v)| (k.as_ref(), v)),
            _ => None,
        })
    }

    /// The keys in LLVM's iteration order.
    pub fn keys(&self) -> impl Iterator<Item = &[u8]> + '_ {
        self.iter().map(|(k, _)| k)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spec_example_order() {
        let mut m = StringMap::new();
        m.insert("host-x86_64-unknown-linux-gnu-", 0);
        m.insert("hip-amdgcn-amd-amdhsa--gfx906", 1);
        m.insert("openmp-nvptx64-nvidia-cuda--", 2);
        let v: Vec<i32> = m.iter().map(|(_, v)| *v).collect();
        assert_eq!(v, [1, 2, 0]);
    }

    #[test]
    fn replace_keeps_position_and_remove_leaves_tombstone() {
        let mut m = StringMap::new();
        assert!(m.insert("a", 1));
        assert!(m.insert("b", 2));
        assert!(!m.insert("a", 3));
        assert_eq!(m.get(b"a"), Some(&3));
        assert_eq!(m.len(), 2);
        assert_eq!(m.remove(b"a"), Some(3));
        assert_eq!(m.get(b"a"), None);
        assert_eq!(m.len(), 1);
        assert_eq!(m.keys().collect::<Vec<_>>(), [b"b"]);
        assert!(m.insert("a", 4));
        assert_eq!(m.get(b"a"), Some(&4));
    }

    #[test]
    fn grows_and_keeps_everything() {
        let mut m = StringMap::new();
        for i in 0..1000 {
            m.insert(format!("key{i}"), i);
        }
        assert_eq!(m.len(), 1000);
        assert_eq!(m.num_buckets(), 2048);
        for i in 0..1000 {
            assert_eq!(m.get(format!("key{i}").as_bytes()), Some(&i));
        }
        let mut seen: Vec<i32> = m.iter().map(|(_, v)| *v).collect();
        seen.sort();
        assert_eq!(seen, (0..1000).collect::<Vec<_>>());
    }
}
