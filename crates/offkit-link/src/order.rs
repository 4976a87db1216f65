//! The order of the images inside one registration object.
//!
//! LLVM 19 collects the linked images of one offload kind in the order their groups were
//! linked, then `llvm::sort`s them with `a.triple > b.triple || a.arch > b.arch || a.kind <
//! b.kind` — not a strict weak order, so the result is what libstdc++'s `std::sort` does with
//! it; for up to 16 elements that is a plain insertion sort, reproduced here (and used for
//! longer lists too, where libstdc++'s introsort would differ).

/// `(triple, arch, offload kind value)`.
pub type Key<'a> = (&'a str, &'a str, u16);

fn comp(a: &Key<'_>, b: &Key<'_>) -> bool {
    a.0 > b.0 || a.1 > b.1 || a.2 < b.2
}

/// The permutation LLVM 19 applies: `result[i]` is the index in `keys` of the i-th image.
pub fn llvm19_order(keys: &[Key<'_>]) -> Vec<usize> {
    let mut a: Vec<usize> = (0..keys.len()).collect();
    for i in 1..a.len() {
        let v = a[i];
        if comp(&keys[v], &keys[a[0]]) {
            a.copy_within(0..i, 1);
            a[0] = v;
        } else {
            let mut j = i;
            while j > 0 && comp(&keys[v], &keys[a[j - 1]]) {
                a[j] = a[j - 1];
                j -= 1;
            }
            a[j] = v;
        }
    }
    a
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_the_measured_orders() {
        let k = [
            ("x86_64-pc-linux-gnu", "", 1),
            ("amdgcn-amd-amdhsa", "gfx90a", 1),
            ("nvptx64-nvidia-cuda", "sm_70", 1),
            ("amdgcn-amd-amdhsa", "gfx1030", 1),
        ];
        let names: Vec<&str> = llvm19_order(&k).iter().map(|&i| k[i].1).collect();
        assert_eq!(names, ["sm_70", "gfx90a", "gfx1030", ""]);
        let k = [
            ("amdgcn-amd-amdhsa", "gfx90a", 1),
            ("x86_64-pc-linux-gnu", "", 1),
        ];
        assert_eq!(llvm19_order(&k), [1, 0]);
    }
}
