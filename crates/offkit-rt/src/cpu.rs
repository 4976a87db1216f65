//! The host plugin's "target ID": what this CPU can run. An x86-64 image built for a micro-
//! architecture level (`x86-64-v2`…`v4`) or a `-march` CPU needs that CPU's instruction set
//! extensions; among several compatible images of one descriptor the one needing the most
//! extensions is the most specific (offkit's choice; LLVM 19 takes the last compatible image).

/// What an image's `arch` asks of the CPU.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Fit {
    /// Runs here; the number is its specificity (extensions it needs; -1 for an arch offkit
    /// does not know, which is used only when nothing better fits).
    Runs(i32),
    /// Needs extensions this CPU lacks.
    Lacks(Vec<&'static str>),
}

const V2: &[&str] = &["cmpxchg16b", "popcnt", "sse3", "sse4.1", "sse4.2", "ssse3"];
const V3: &[&str] = &[
    "avx", "avx2", "bmi1", "bmi2", "f16c", "fma", "lzcnt", "movbe", "xsave",
];
const V4: &[&str] = &["avx512f", "avx512bw", "avx512cd", "avx512dq", "avx512vl"];

/// The extensions an `arch` needs (levels, and `-march` CPUs by the level they include).
fn needs(arch: &str) -> Option<Vec<&'static str>> {
    let level = match arch {
        "" | "native" | "x86-64" | "generic" | "x86_64" => 1,
        "x86-64-v2" | "nehalem" | "westmere" | "silvermont" | "goldmont" | "btver2" | "bdver1"
        | "bdver2" | "bdver3" | "bdver4" | "sandybridge" | "ivybridge" => 2,
        "x86-64-v3" | "haswell" | "broadwell" | "skylake" | "alderlake" | "raptorlake"
        | "meteorlake" | "gracemont" | "znver1" | "znver2" | "znver3" => 3,
        "x86-64-v4" | "skylake-avx512" | "cascadelake" | "cooperlake" | "cannonlake"
        | "icelake-client" | "icelake-server" | "tigerlake" | "rocketlake" | "sapphirerapids"
        | "emeraldrapids" | "graniterapids" | "znver4" | "znver5" => 4,
        _ => return None,
    };
    let mut v = Vec::new();
    for (l, f) in [(2, V2), (3, V3), (4, V4)] {
        if level >= l {
            v.extend_from_slice(f);
        }
    }
    Some(v)
}

fn has(f: &str) -> bool {
    match f {
        "cmpxchg16b" => std::arch::is_x86_feature_detected!("cmpxchg16b"),
        "popcnt" => std::arch::is_x86_feature_detected!("popcnt"),
        "sse3" => std::arch::is_x86_feature_detected!("sse3"),
        "sse4.1" => std::arch::is_x86_feature_detected!("sse4.1"),
        "sse4.2" => std::arch::is_x86_feature_detected!("sse4.2"),
        "ssse3" => std::arch::is_x86_feature_detected!("ssse3"),
        "avx" => std::arch::is_x86_feature_detected!("avx"),
        "avx2" => std::arch::is_x86_feature_detected!("avx2"),
        "bmi1" => std::arch::is_x86_feature_detected!("bmi1"),
        "bmi2" => std::arch::is_x86_feature_detected!("bmi2"),
        "f16c" => std::arch::is_x86_feature_detected!("f16c"),
        "fma" => std::arch::is_x86_feature_detected!("fma"),
        "lzcnt" => std::arch::is_x86_feature_detected!("lzcnt"),
        "movbe" => std::arch::is_x86_feature_detected!("movbe"),
        "xsave" => std::arch::is_x86_feature_detected!("xsave"),
        "avx512f" => std::arch::is_x86_feature_detected!("avx512f"),
        "avx512bw" => std::arch::is_x86_feature_detected!("avx512bw"),
        "avx512cd" => std::arch::is_x86_feature_detected!("avx512cd"),
        "avx512dq" => std::arch::is_x86_feature_detected!("avx512dq"),
        "avx512vl" => std::arch::is_x86_feature_detected!("avx512vl"),
        _ => false,
    }
}

/// Every extension the runtime checks when it chooses an image, in level order.
pub(crate) fn checked() -> impl Iterator<Item = &'static str> {
    V2.iter().chain(V3).chain(V4).copied()
}

/// The highest x86-64 micro-architecture level (1 to 4) whose extensions `has` reports: what
/// `offkit arch` shows as the host's processor and what [`fit`] ranks images by.
pub(crate) fn level_with(has: impl Fn(&str) -> bool) -> u8 {
    let mut level = 1;
    for (l, f) in [(2, V2), (3, V3), (4, V4)] {
        if !f.iter().all(|x| has(x)) {
            break;
        }
        level = l;
    }
    level
}

/// Whether this CPU has the extension `f` (one of [`checked`]).
pub(crate) fn has_extension(f: &str) -> bool {
    has(f)
}

/// How an image built for `arch` fits this CPU.
pub(crate) fn fit(arch: &str) -> Fit {
    fit_with(arch, has)
}

fn fit_with(arch: &str, has: impl Fn(&str) -> bool) -> Fit {
    match needs(arch) {
        None => Fit::Runs(-1),
        Some(n) => {
            let lacks: Vec<&'static str> = n.iter().copied().filter(|f| !has(f)).collect();
            if lacks.is_empty() {
                Fit::Runs(n.len() as i32)
            } else {
                Fit::Lacks(lacks)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_nest_and_missing_extensions_are_named() {
        let avx2_cpu = |f: &str| !f.starts_with("avx512");
        assert_eq!(fit_with("x86-64", avx2_cpu), Fit::Runs(0));
        assert_eq!(fit_with("x86-64-v3", avx2_cpu), Fit::Runs(15));
        assert_eq!(fit_with("haswell", avx2_cpu), Fit::Runs(15));
        assert_eq!(fit_with("x86-64-v4", avx2_cpu), Fit::Lacks(V4.to_vec()));
        assert_eq!(fit_with("znver4", |_| true), Fit::Runs(20));
        assert_eq!(fit_with("some-future-cpu", |_| true), Fit::Runs(-1));
        // The baseline always runs on this machine.
        assert_eq!(fit("x86-64"), Fit::Runs(0));
        assert_eq!(level_with(avx2_cpu), 3);
        assert_eq!(level_with(|_| true), 4);
        assert_eq!(level_with(|f: &str| f != "popcnt"), 1);
        // A level is reached only when every lower level is (no v3 without v2).
        assert_eq!(level_with(|f: &str| f != "sse3"), 1);
        // The level fit() ranks agrees with the one arch reports.
        let here = level_with(has);
        let name = if here == 1 {
            "x86-64".to_owned()
        } else {
            format!("x86-64-v{here}")
        };
        assert!(matches!(fit(&name), Fit::Runs(_)));
        if here < 4 {
            assert!(matches!(
                fit(&format!("x86-64-v{}", here + 1)),
                Fit::Lacks(_)
            ));
        }
    }
}
