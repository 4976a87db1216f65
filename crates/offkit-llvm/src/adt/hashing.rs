//! LLVM 19's `hash_value(StringRef)` (`llvm/ADT/Hashing.h`): the CityHash-derived `hash_short`
//! for up to 64 bytes and the 64-byte block state machine of `hash_combine_range` beyond, with
//! the fixed seed of release builds (`LLVM_ENABLE_ABI_BREAKING_CHECKS` off, as Debian builds
//! LLVM).
//!
//! It matters because `DenseMap<StringRef, …>` places keys by the low 32 bits of this hash, and
//! `clang-offload-packager` writes its string entries in that map's bucket order (see
//! [`super::densemap`]). Newer LLVM (20+) switched `hash_value` to xxh3; this is the 19 one.

/// The execution seed of LLVM 19 release builds (`get_execution_seed`).
pub(crate) const SEED: u64 = 0xff51_afd7_ed55_8ccd;

const K0: u64 = 0xc3a5_c85c_97cb_3127;
const K1: u64 = 0xb492_b66f_be98_f273;
const K2: u64 = 0x9ae1_6a3b_2f90_404f;
const K3: u64 = 0xc949_d7c7_509e_6557;

/// `llvm::hash_value(StringRef)` with the release seed: the full 64-bit `hash_code`.
pub(crate) fn hash_value(bytes: &[u8]) -> u64 {
    hash_bytes(bytes, SEED)
}

/// `DenseMapInfo<StringRef>::getHashValue` in LLVM 19: the low 32 bits of [`hash_value`].
pub(crate) fn dense_map_hash(bytes: &[u8]) -> u32 {
    hash_value(bytes) as u32
}

/// `hash_combine_range` over contiguous bytes with an explicit seed.
pub(crate) fn hash_bytes(s: &[u8], seed: u64) -> u64 {
    let len = s.len();
    if len <= 64 {
        return hash_short(s, seed);
    }
    // Whole 64-byte blocks, then (if the length is not a multiple of 64) the *last* 64 bytes
    // once more, overlapping the previous block, as LLVM does.
    let mut state = State::create(block(s, 0), seed);
    let aligned_end = len & !63;
    let mut at = 64;
    while at != aligned_end {
        state.mix(block(s, at));
        at += 64;
    }
    if len & 63 != 0 {
        state.mix(block(s, len - 64));
    }
    state.finalize(len as u64)
}

/// The 64 bytes at `at` (the caller guarantees `at + 64 <= s.len()`).
fn block(s: &[u8], at: usize) -> &[u8; 64] {
    s.get(at..at + 64)
        .and_then(|b| b.try_into().ok())
        .unwrap_or(&[0; 64])
}

/// `hash_short`: inputs of 0 to 64 bytes.
fn hash_short(s: &[u8], seed: u64) -> u64 {
    let len = s.len();
    match len {
        0 => K2 ^ seed,
        1..=3 => {
            let a = u32::from(s[0]);
            let b = u32::from(s[len >> 1]);
            let c = u32::from(s[len - 1]);
            let y = a.wrapping_add(b << 8);
            let z = (len as u32).wrapping_add(c << 2);
            shift_mix(u64::from(y).wrapping_mul(K2) ^ u64::from(z).wrapping_mul(K3) ^ seed)
                .wrapping_mul(K2)
        }
        4..=8 => {
            let a = u64::from(fetch32(s, 0));
            hash_16_bytes(
                (len as u64).wrapping_add(a << 3),
                seed ^ u64::from(fetch32(s, len - 4)),
            )
        }
        9..=16 => {
            let a = fetch64(s, 0);
            let b = fetch64(s, len - 8);
            hash_16_bytes(
                seed ^ a,
                b.wrapping_add(len as u64).rotate_right(len as u32),
            ) ^ b
        }
        17..=32 => {
            let a = fetch64(s, 0).wrapping_mul(K1);
            let b = fetch64(s, 8);
            let c = fetch64(s, len - 8).wrapping_mul(K2);
            let d = fetch64(s, len - 16).wrapping_mul(K0);
            hash_16_bytes(
                a.wrapping_sub(b)
                    .rotate_right(43)
                    .wrapping_add((c ^ seed).rotate_right(30))
                    .wrapping_add(d),
                a.wrapping_add((b ^ K3).rotate_right(20))
                    .wrapping_sub(c)
                    .wrapping_add(len as u64)
                    .wrapping_add(seed),
            )
        }
        _ => hash_33_to_64(s, seed),
    }
}

fn hash_33_to_64(s: &[u8], seed: u64) -> u64 {
    let len = s.len();
    let n = len as u64;
    let mut z = fetch64(s, 24);
    let mut a = fetch64(s, 0).wrapping_add(n.wrapping_add(fetch64(s, len - 16)).wrapping_mul(K0));
    let mut b = a.wrapping_add(z).rotate_right(52);
    let mut c = a.rotate_right(37);
    a = a.wrapping_add(fetch64(s, 8));
    c = c.wrapping_add(a.rotate_right(7));
    a = a.wrapping_add(fetch64(s, 16));
    let vf = a.wrapping_add(z);
    let vs = b.wrapping_add(a.rotate_right(31)).wrapping_add(c);
    a = fetch64(s, 16).wrapping_add(fetch64(s, len - 32));
    z = fetch64(s, len - 8);
    b = a.wrapping_add(z).rotate_right(52);
    c = a.rotate_right(37);
    a = a.wrapping_add(fetch64(s, len - 24));
    c = c.wrapping_add(a.rotate_right(7));
    a = a.wrapping_add(fetch64(s, len - 16));
    let wf = a.wrapping_add(z);
    let ws = b.wrapping_add(a.rotate_right(31)).wrapping_add(c);
    let r = shift_mix(
        vf.wrapping_add(ws)
            .wrapping_mul(K2)
            .wrapping_add(wf.wrapping_add(vs).wrapping_mul(K0)),
    );
    shift_mix((seed ^ r.wrapping_mul(K0)).wrapping_add(vs)).wrapping_mul(K2)
}

/// `hash_state`: 56 bytes of CityHash-style state for inputs over 64 bytes.
struct State {
    h: [u64; 7],
}

impl State {
    fn create(s: &[u8; 64], seed: u64) -> State {
        let h4 = seed.wrapping_mul(K1);
        let h5 = shift_mix(seed);
        let mut st = State {
            h: [
                0,
                seed,
                hash_16_bytes(seed, K1),
                (seed ^ K1).rotate_right(49),
                h4,
                h5,
                hash_16_bytes(h4, h5),
            ],
        };
        st.mix(s);
        st
    }

    /// `mix_32_bytes`: folds 32 bytes into the pair `(a, b)`.
    fn mix_32(s: &[u8], at: usize, a: &mut u64, b: &mut u64) {
        *a = a.wrapping_add(fetch64(s, at));
        let c = fetch64(s, at + 24);
        *b = b.wrapping_add(*a).wrapping_add(c).rotate_right(21);
        let d = *a;
        *a = a.wrapping_add(fetch64(s, at + 8).wrapping_add(fetch64(s, at + 16)));
        *b = b.wrapping_add(a.rotate_right(44)).wrapping_add(d);
        *a = a.wrapping_add(c);
    }

    fn mix(&mut self, s: &[u8; 64]) {
        let [mut h0, mut h1, mut h2, mut h3, mut h4, mut h5, mut h6] = self.h;
        h0 = h0
            .wrapping_add(h1)
            .wrapping_add(h3)
            .wrapping_add(fetch64(s, 8))
            .rotate_right(37)
            .wrapping_mul(K1);
        h1 = h1
            .wrapping_add(h4)
            .wrapping_add(fetch64(s, 48))
            .rotate_right(42)
            .wrapping_mul(K1);
        h0 ^= h6;
        h1 = h1.wrapping_add(h3).wrapping_add(fetch64(s, 40));
        h2 = h2.wrapping_add(h5).rotate_right(33).wrapping_mul(K1);
        h3 = h4.wrapping_mul(K1);
        h4 = h0.wrapping_add(h5);
        Self::mix_32(s, 0, &mut h3, &mut h4);
        h5 = h2.wrapping_add(h6);
        h6 = h1.wrapping_add(fetch64(s, 16));
        Self::mix_32(s, 32, &mut h5, &mut h6);
        std::mem::swap(&mut h2, &mut h0);
        self.h = [h0, h1, h2, h3, h4, h5, h6];
    }

    fn finalize(&self, length: u64) -> u64 {
        let [h0, h1, h2, h3, h4, h5, h6] = self.h;
        hash_16_bytes(
            hash_16_bytes(h3, h5)
                .wrapping_add(shift_mix(h1).wrapping_mul(K1))
                .wrapping_add(h2),
            hash_16_bytes(h4, h6)
                .wrapping_add(shift_mix(length).wrapping_mul(K1))
                .wrapping_add(h0),
        )
    }
}

fn shift_mix(v: u64) -> u64 {
    v ^ (v >> 47)
}

fn hash_16_bytes(low: u64, high: u64) -> u64 {
    const MUL: u64 = 0x9ddf_ea08_eb38_2d69;
    let mut a = (low ^ high).wrapping_mul(MUL);
    a ^= a >> 47;
    let mut b = (high ^ a).wrapping_mul(MUL);
    b ^= b >> 47;
    b.wrapping_mul(MUL)
}

/// Little-endian loads; callers stay within bounds by construction (lengths are checked by the
/// size classes above), and a short read would yield zeros rather than panic.
fn fetch64(s: &[u8], at: usize) -> u64 {
    s.get(at..at + 8)
        .and_then(|b| b.try_into().ok())
        .map_or(0, u64::from_le_bytes)
}

fn fetch32(s: &[u8], at: usize) -> u32 {
    s.get(at..at + 4)
        .and_then(|b| b.try_into().ok())
        .map_or(0, u32::from_le_bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Values of the Python model `linking-evidence/model/llvmhash.py` (checked against the
    /// real packager), one per size class up to 64 bytes.
    #[test]
    fn short_classes_match_the_model() {
        let k33 = [b'k'; 33];
        let d64: Vec<u8> = b"0123456789"
            .repeat(6)
            .into_iter()
            .chain(*b"abcd")
            .collect();
        let cases: &[(&[u8], u64)] = &[
            (b"", 0x65b0c5ecc2c5cc82),
            (b"a", 0xaeb6f9d5517c61f8),
            (b"ab", 0x7ab1edb96be496b4),
            (b"abc", 0xe38e60bf19c71a3f),
            (b"arch", 0x1499ea7cf386c709),
            (b"triple", 0x45f9d3270819b0d8),
            (b"x86_64-pc-linux-gnu", 0x7af81680dbac46b2),
            (b"amdgcn-amd-amdhsa-gfx90a:xnack+", 0xf6f0661ca04e8e08),
            (&k33, 0xd2503416857ebfea),
            (&d64, 0x4ba4fd21b56d1968),
        ];
        for (s, h) in cases {
            assert_eq!(hash_value(s), *h, "{:?}", String::from_utf8_lossy(s));
        }
    }

    #[test]
    fn long_inputs_depend_on_every_block() {
        let base: Vec<u8> = (0..300u32).map(|i| (i % 251) as u8).collect();
        let h = hash_value(&base);
        for i in [0, 63, 64, 127, 128, 200, 299] {
            let mut m = base.clone();
            m[i] ^= 1;
            assert_ne!(hash_value(&m), h, "byte {i} did not change the hash");
        }
    }
}
