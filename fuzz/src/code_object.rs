//! Fuzz body: what is inside a code object (`code_object::describe`).

use offkit_format::code_object;

/// Describes `data`; a description must agree with itself (its own target ID as the
/// container's adds no warning) and keep its bounds.
pub fn run(data: &[u8]) {
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
