//! The order in which LLVM 19's linker wrapper lays out the images of one offload kind.
//!
//! `clang-linker-wrapper` 19 passes the linked images to `llvm::sort` (libstdc++'s `std::sort`)
//! with the comparator `a.triple > b.triple || a.arch > b.arch || a.kind < b.kind`. That is
//! not a strict weak order, so the result is whatever libstdc++'s algorithm makes of it: for up
//! to 16 images a plain insertion sort, above that introsort (median-of-three quicksort down to
//! blocks of 16, heap sort past the depth limit, then a final insertion sort). This module runs
//! the same algorithm step by step on the same comparator.
//!
//! With a comparator this inconsistent, libstdc++'s *unguarded* loops can in principle walk off
//! the ends of the array (undefined behaviour in LLVM). Where that would happen this model
//! stops at the array bounds instead; no input of realistic size was found to reach it.

/// Within one wrapper object every image has the same offload kind, so the comparator's last
/// clause is always false and only `(triple, arch)` matters.
#[cfg(test)]
type Key<'a> = (&'a str, &'a str);

/// The positions of `keys` (`(triple, arch)` per image, in the order the linker wrapper found
/// them) in LLVM 19's sorted order: `result[i]` is the index of the image that comes `i`th.
pub fn llvm19_order(keys: &[(&str, &str)]) -> Vec<usize> {
    llvm19_sort(keys).0
}

/// [`llvm19_order`], and for each image (by its index in `keys`) whether the comparator read
/// its `arch`. LLVM reads it with `StringData["arch"]`, which *inserts* an empty `arch` string
/// into an image that had none (an `--override-image` without a CPU), so such an image's offload
/// binary gets an `arch` key exactly when the sort compared it past the triples.
pub fn llvm19_sort(keys: &[(&str, &str)]) -> (Vec<usize>, Vec<bool>) {
    let mut v: Vec<usize> = (0..keys.len()).collect();
    let mut touched = vec![false; keys.len()];
    let mut s = Sorter {
        keys,
        v: &mut v,
        touched: &mut touched,
    };
    s.sort();
    (v, touched)
}

struct Sorter<'k, 'v> {
    keys: &'k [(&'k str, &'k str)],
    v: &'v mut Vec<usize>,
    touched: &'v mut Vec<bool>,
}

const THRESHOLD: usize = 16;

impl Sorter<'_, '_> {
    /// LLVM's comparator on images `a` and `b`; `||` short-circuits, so the arches are read
    /// only when the triples do not decide.
    fn c(&mut self, a: usize, b: usize) -> bool {
        let (ka, kb) = (self.keys[a], self.keys[b]);
        if ka.0 > kb.0 {
            return true;
        }
        self.touched[a] = true;
        self.touched[b] = true;
        ka.1 > kb.1
    }

    /// `comp(v[i], v[j])`.
    fn cv(&mut self, i: usize, j: usize) -> bool {
        self.c(self.v[i], self.v[j])
    }

    fn sort(&mut self) {
        let n = self.v.len();
        if n < 2 {
            return;
        }
        let depth = 2 * (usize::BITS - 1 - n.leading_zeros()) as usize;
        self.introsort_loop(0, n, depth);
        self.final_insertion_sort(0, n);
    }

    fn introsort_loop(&mut self, first: usize, mut last: usize, mut depth: usize) {
        while last - first > THRESHOLD {
            if depth == 0 {
                self.heap_sort(first, last);
                return;
            }
            depth -= 1;
            let cut = self.partition_pivot(first, last);
            self.introsort_loop(cut, last, depth);
            last = cut;
        }
    }

    fn partition_pivot(&mut self, first: usize, last: usize) -> usize {
        let mid = first + (last - first) / 2;
        self.move_median_to_first(first, first + 1, mid, last - 1);
        self.unguarded_partition(first + 1, last, first)
    }

    fn move_median_to_first(&mut self, result: usize, a: usize, b: usize, c: usize) {
        let pick = if self.cv(a, b) {
            if self.cv(b, c) {
                b
            } else if self.cv(a, c) {
                c
            } else {
                a
            }
        } else if self.cv(a, c) {
            a
        } else if self.cv(b, c) {
            c
        } else {
            b
        };
        self.v.swap(result, pick);
    }

    fn unguarded_partition(&mut self, mut first: usize, mut last: usize, pivot: usize) -> usize {
        let end = last;
        loop {
            // libstdc++ relies on the pivot to stop this scan; stay inside the array.
            while first < end && self.cv(first, pivot) {
                first += 1;
            }
            last -= 1;
            while last > pivot && self.cv(pivot, last) {
                last -= 1;
            }
            if first >= last {
                return first;
            }
            self.v.swap(first, last);
            first += 1;
        }
    }

    fn final_insertion_sort(&mut self, first: usize, last: usize) {
        if last - first > THRESHOLD {
            self.insertion_sort(first, first + THRESHOLD);
            for i in first + THRESHOLD..last {
                self.unguarded_linear_insert(i);
            }
        } else {
            self.insertion_sort(first, last);
        }
    }

    fn insertion_sort(&mut self, first: usize, last: usize) {
        for i in first + 1..last {
            if self.cv(i, first) {
                let val = self.v[i];
                self.v.copy_within(first..i, first + 1);
                self.v[first] = val;
            } else {
                self.unguarded_linear_insert(i);
            }
        }
    }

    fn unguarded_linear_insert(&mut self, mut last: usize) {
        let val = self.v[last];
        // Unguarded in libstdc++; the earlier passes normally guarantee a stop above 0.
        while last > 0 && {
            let prev = self.v[last - 1];
            self.c(val, prev)
        } {
            self.v[last] = self.v[last - 1];
            last -= 1;
        }
        self.v[last] = val;
    }

    fn heap_sort(&mut self, first: usize, last: usize) {
        // __partial_sort(first, last, last): make_heap, then sort_heap.
        let len = last - first;
        if len >= 2 {
            let mut parent = (len - 2) / 2;
            loop {
                let value = self.v[first + parent];
                self.adjust_heap(first, parent, len, value);
                if parent == 0 {
                    break;
                }
                parent -= 1;
            }
        }
        let mut end = last;
        while end - first > 1 {
            end -= 1;
            let value = self.v[end];
            self.v[end] = self.v[first];
            self.adjust_heap(first, 0, end - first, value);
        }
    }

    fn adjust_heap(&mut self, first: usize, mut hole: usize, len: usize, value: usize) {
        let top = hole;
        let mut child = hole;
        while child < (len - 1) / 2 {
            child = 2 * (child + 1);
            if self.cv(first + child, first + child - 1) {
                child -= 1;
            }
            self.v[first + hole] = self.v[first + child];
            hole = child;
        }
        if len & 1 == 0 && child == (len - 2) / 2 {
            child = 2 * (child + 1);
            self.v[first + hole] = self.v[first + child - 1];
            hole = child - 1;
        }
        // __push_heap
        while hole > top {
            let parent = (hole - 1) / 2;
            let p = self.v[first + parent];
            if !self.c(p, value) {
                break;
            }
            self.v[first + hole] = self.v[first + parent];
            hole = parent;
        }
        self.v[first + hole] = value;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const X86: Key = ("x86_64-pc-linux-gnu", "");
    const GFX90A: Key = ("amdgcn-amd-amdhsa", "gfx90a");
    const GFX1030: Key = ("amdgcn-amd-amdhsa", "gfx1030");
    const SM70: Key = ("nvptx64-nvidia-cuda", "sm_70");

    fn order<'a>(keys: &[Key<'a>]) -> Vec<Key<'a>> {
        llvm19_order(keys).into_iter().map(|i| keys[i]).collect()
    }

    /// Two image orders of LLVM 19's OpenMP registration module, as `clang-linker-wrapper` 19 writes
    /// them (checked with the real tool).
    #[test]
    fn verified_orders() {
        assert_eq!(
            order(&[X86, GFX90A, SM70, GFX1030]),
            [SM70, GFX90A, GFX1030, X86]
        );
        assert_eq!(order(&[GFX90A, X86]), [X86, GFX90A]);
    }

    #[test]
    fn is_a_permutation_for_any_size() {
        let names: Vec<String> = (0..80).map(|i| format!("gfx{}", (i * 37) % 101)).collect();
        for n in [0, 1, 2, 16, 17, 33, 80] {
            let keys: Vec<Key> = names[..n]
                .iter()
                .enumerate()
                .map(|(i, a)| {
                    (
                        if i % 3 == 0 {
                            "x86_64--"
                        } else {
                            "amdgcn-amd-amdhsa"
                        },
                        a.as_str(),
                    )
                })
                .collect();
            let mut p = llvm19_order(&keys);
            p.sort();
            assert_eq!(p, (0..n).collect::<Vec<_>>());
        }
    }
}
