//! The environment the runtime reads itself (libomp reads `OMP_TARGET_OFFLOAD` and
//! `OMP_DEFAULT_DEVICE` and the runtime asks libomp for them).

/// What the runtime reads from the environment, once.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Env {
    /// `LIBOMPTARGET_INFO`, parsed as 19 does (`std::stoi`: decimal, optional sign, leading
    /// blanks; `0x10` reads as 0). 19 throws on text that is no number; offkit reads 0.
    pub info: u32,
    /// LLVM 22's `LIBOMPTARGET_TREAT_ATTACH_AUTO_AS_ALWAYS` (`true/yes/on/1`, any case;
    /// anything else is false): every `ATTACH` entry attaches (`attach.rs`).
    pub attach_always: bool,
    /// `LIBOMPTARGET_MEMORY_MANAGER_THRESHOLD` when set to a number (`UInt32Envar`).
    pub mm_threshold: Option<u32>,
}

impl Env {
    #[allow(clippy::disallowed_methods)] // this is the one Env struct of the runtime
    pub(crate) fn read() -> Env {
        let info = std::env::var("LIBOMPTARGET_INFO")
            .ok()
            .map_or(0, |s| stoi(&s) as u32);
        let attach_always =
            std::env::var("LIBOMPTARGET_TREAT_ATTACH_AUTO_AS_ALWAYS").is_ok_and(|s| bool_envar(&s));
        let mm_threshold = std::env::var("LIBOMPTARGET_MEMORY_MANAGER_THRESHOLD")
            .ok()
            .and_then(|s| parse_u32(&s));
        Env {
            info,
            attach_always,
            mm_threshold,
        }
    }
}

/// LLVM's `BoolEnvar` parsing: `true`, `yes`, `on` or `1` in any case.
pub(crate) fn bool_envar(s: &str) -> bool {
    ["true", "yes", "on", "1"]
        .iter()
        .any(|t| s.eq_ignore_ascii_case(t))
}

/// `std::stoi` without the exceptions: leading whitespace, an optional sign, decimal digits up
/// to the first other character; no digits gives 0.
pub(crate) fn stoi(s: &str) -> i32 {
    let t = s.trim_start();
    let (neg, digits) = match (t.strip_prefix('-'), t.strip_prefix('+')) {
        (Some(rest), _) => (true, rest),
        (None, Some(rest)) => (false, rest),
        (None, None) => (false, t),
    };
    let mut v: i64 = 0;
    for b in digits.bytes().take_while(u8::is_ascii_digit) {
        v = (v * 10 + i64::from(b - b'0')).min(i64::from(u32::MAX) + 1);
    }
    let v = if neg { -v } else { v };
    v.clamp(i64::from(i32::MIN), i64::from(i32::MAX)) as i32
}

/// `UInt32Envar`'s parse (`std::istringstream >> uint32_t`): `None` when it fails.
fn parse_u32(s: &str) -> Option<u32> {
    let t = s.trim_start_matches([' ', '\t', '\n', '\x0b', '\x0c', '\r']);
    let (neg, digits) = match (t.strip_prefix('-'), t.strip_prefix('+')) {
        (Some(rest), _) => (true, rest),
        (None, Some(rest)) => (false, rest),
        (None, None) => (false, t),
    };
    let end = digits
        .bytes()
        .position(|b| !b.is_ascii_digit())
        .unwrap_or(digits.len());
    let magnitude: u32 = digits.get(..end).filter(|d| !d.is_empty())?.parse().ok()?;
    Some(if neg {
        magnitude.wrapping_neg()
    } else {
        magnitude
    })
}

#[cfg(test)]
mod tests {
    use super::{bool_envar, parse_u32, stoi};

    #[test]
    fn bool_envars_read_like_llvms() {
        assert!(bool_envar("TRUE") && bool_envar("on") && bool_envar("1"));
        assert!(!bool_envar("0") && !bool_envar("enabled") && !bool_envar(""));
    }

    #[test]
    fn stoi_reads_like_std_stoi() {
        assert_eq!(stoi("-1"), -1);
        assert_eq!(stoi(" 32"), 32);
        assert_eq!(stoi("0x10"), 0);
        assert_eq!(stoi("16abc"), 16);
        assert_eq!(stoi("abc"), 0);
        assert_eq!(stoi("+4"), 4);
    }

    #[test]
    fn the_threshold_reads_like_an_istringstream() {
        assert_eq!(parse_u32("100"), Some(100));
        assert_eq!(parse_u32(" 50"), Some(50));
        assert_eq!(parse_u32("+20"), Some(20));
        assert_eq!(parse_u32("12abc"), Some(12));
        assert_eq!(parse_u32("0x10"), Some(0));
        assert_eq!(parse_u32("00"), Some(0));
        assert_eq!(parse_u32("-1"), Some(u32::MAX));
        assert_eq!(parse_u32("4294967295"), Some(u32::MAX));
        assert_eq!(parse_u32("4294967296"), None);
        assert_eq!(parse_u32("abc"), None);
        assert_eq!(parse_u32(""), None);
        assert_eq!(parse_u32("-"), None);
    }
}
