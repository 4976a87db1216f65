//! LLVM's `StringRef::getAsInteger` with radix 0 (automatic), as LLVM's command-line parsers
//! read integer option values: `0x`/`0X` hex, `0b`/`0B` binary, `0o` or a leading `0` octal,
//! else decimal.

/// `StringRef::getAsInteger(0, …)` for an unsigned value: `0x`/`0X` hex, `0b`/`0B` binary,
/// `0o` or a leading `0` octal, else decimal; the whole string must be digits of that radix.
pub fn parse_u64(s: &str) -> Option<u64> {
    let (radix, digits) = if let Some(r) = s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        (16, r)
    } else if let Some(r) = s.strip_prefix("0b").or_else(|| s.strip_prefix("0B")) {
        (2, r)
    } else if let Some(r) = s.strip_prefix("0o") {
        (8, r)
    } else if s.len() > 1 && s.starts_with('0') {
        (8, &s[1..])
    } else {
        (10, s)
    };
    if digits.is_empty() || !digits.chars().all(|c| c.is_digit(radix)) {
        return None;
    }
    u64::from_str_radix(digits, radix).ok()
}

/// `StringRef::getAsInteger(0, …)` for a signed value (an optional leading `-`).
pub fn parse_i64(s: &str) -> Option<i64> {
    match s.strip_prefix('-') {
        Some(rest) => {
            let v = parse_u64(rest)?;
            if v <= i64::MAX as u64 + 1 {
                Some((v as i64).wrapping_neg())
            } else {
                None
            }
        }
        None => parse_u64(s).and_then(|v| i64::try_from(v).ok()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn radixes() {
        assert_eq!(parse_u64("0x10"), Some(16));
        assert_eq!(parse_u64("010"), Some(8));
        assert_eq!(parse_u64("0o17"), Some(15));
        assert_eq!(parse_u64("0b11"), Some(3));
        assert_eq!(parse_u64("0"), Some(0));
        assert_eq!(parse_u64("-1"), None);
        assert_eq!(parse_u64("12a"), None);
        assert_eq!(parse_u64(""), None);
        assert_eq!(parse_u64("0x"), None);
        assert_eq!(parse_i64("-0x10"), Some(-16));
        assert_eq!(parse_i64("-9223372036854775808"), Some(i64::MIN));
        assert_eq!(parse_i64("9223372036854775808"), None);
    }
}
