//! Fuzz body: a KFD topology node's `properties` file (`omptarget::arch::parse_properties`,
//! what `offkit arch` and the runtime read from sysfs).
//!
//! Checked: nothing panics; what parses round-trips (the two properties written back in the
//! kernel's `name value` form read the same), and the processor name of any version is
//! `gfx` followed by lowercase alphanumerics.

use std::path::Path;

use omptarget::arch::{gfx_processor, parse_properties};

/// Runs the body over one input.
pub fn run(data: &[u8]) {
    let path = Path::new("properties");
    let Ok(p) = parse_properties(path, data) else {
        return;
    };
    let text = format!(
        "gfx_target_version {}\ncapability {}\n",
        p.gfx_target_version, p.capability
    );
    let again = parse_properties(path, text.as_bytes()).expect("written properties parse");
    assert_eq!(again, p, "properties round-trip");
    let name = gfx_processor(p.gfx_target_version);
    assert!(name.starts_with("gfx"));
    assert!(name[3..]
        .bytes()
        .all(|b| b.is_ascii_digit() || b.is_ascii_lowercase()));
}

#[cfg(test)]
mod tests {
    #[test]
    fn seeds_and_mutations() {
        let seeds = crate::seeds("kfd");
        assert!(!seeds.is_empty());
        for input in crate::mutations(&seeds, 400) {
            super::run(&input);
        }
    }
}
