//! `--offload-targets=<triple>[:<target-id>],...` (and `OFFKIT_OFFLOAD_TARGETS`): the device
//! targets to keep. LLVM 19 links and embeds every target it finds (seed 001's complaint); with
//! this option only the groups a requested target selects are linked and embedded.
//!
//! A request without a target ID selects every group of that triple; with one, the group whose
//! arch is that target ID or compatible with it under the wrapper's rule
//! ([`crate::resolve::compatible`]).

use crate::resolve::{compatible, TargetId};

/// One requested target.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Request {
    /// As written.
    pub text: String,
    /// The triple.
    pub triple: String,
    /// The target ID, if given.
    pub target_id: Option<String>,
}

/// Parses a comma-separated list (empty items are ignored).
pub fn parse(list: &str) -> Vec<Request> {
    list.split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|s| {
            let (triple, id) = match s.split_once(':') {
                Some((t, id)) => (t, Some(id.to_string())),
                None => (s, None),
            };
            Request {
                text: s.to_string(),
                triple: triple.to_string(),
                target_id: id,
            }
        })
        .collect()
}

impl Request {
    /// Whether this request selects the group of `target`.
    pub fn selects(&self, target: &TargetId) -> bool {
        if self.triple != target.0 {
            return false;
        }
        match &self.target_id {
            None => true,
            Some(id) => id == &target.1 || compatible(&(self.triple.clone(), id.clone()), target),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests() {
        let r = parse("x86_64-pc-linux-gnu, amdgcn-amd-amdhsa:gfx90a,");
        assert_eq!(r.len(), 2);
        let t = |a: &str, b: &str| (a.to_string(), b.to_string());
        assert!(r[0].selects(&t("x86_64-pc-linux-gnu", "")));
        assert!(!r[0].selects(&t("amdgcn-amd-amdhsa", "gfx90a")));
        assert!(r[1].selects(&t("amdgcn-amd-amdhsa", "gfx90a")));
        assert!(r[1].selects(&t("amdgcn-amd-amdhsa", "gfx90a:xnack+")));
        assert!(!r[1].selects(&t("amdgcn-amd-amdhsa", "gfx908")));
    }
}
