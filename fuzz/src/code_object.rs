//! Fuzz body: what is inside a code object (`code_object::describe`, and
//! `code_object::describe_parts` on the parts of it a stream would have kept).

use offkit_format::code_object::{self, Parts};

/// Describes `data`; a description must agree with itself (its own target ID as the
/// container's adds no warning) and keep its bounds.
pub fn run(data: &[u8]) {
    // As read from a stream: its first bytes and its last quarter only; then whole, in two
    // pieces, which must describe it as the whole does.
    let mut parts = Parts::new(data.len() as u64);
    parts.add(0, data.get(..64).unwrap_or(data));
    let tail = data.len() * 3 / 4;
    parts.add(tail as u64, &data[tail..]);
    if let Some(co) = code_object::describe_parts(&parts, 0) {
        assert!(co.kernels.len() <= offkit_read::limits::MAX_KERNELS);
    }
    parts.add(0, &data[..tail]);
    assert_eq!(
        code_object::describe_parts(&parts, 0),
        code_object::describe(data)
    );
    let Some(mut co) = code_object::describe(data) else {
        return;
    };
    assert!(co.kernels.len() <= offkit_read::limits::MAX_KERNELS);
    let warnings = co.warnings.len();
    let own = co.target_id.clone();
    co.check_container(&own);
    assert_eq!(co.warnings.len(), warnings, "{own}: {:?}", co.warnings);
}

#[cfg(test)]
mod tests {
    #[test]
    fn seeds_and_mutations() {
        let seeds = crate::seeds("code_object");
        assert!(seeds.len() >= 2, "fuzz/seeds/code_object is missing");
        for input in crate::mutations(&seeds, 1000) {
            super::run(&input);
        }
    }
}
