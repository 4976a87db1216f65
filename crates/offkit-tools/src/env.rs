//! The environment, read in one place (clippy bans `std::env::var` elsewhere).

use std::ffi::OsString;

/// The environment variables offkit and its drop-in faces read, captured once at start-up.
#[derive(Debug, Clone, Default)]
pub struct Env {
    vars: Vec<(OsString, OsString)>,
}

impl Env {
    /// Captures the process environment.
    pub fn capture() -> Self {
        Env {
            vars: std::env::vars_os().collect(),
        }
    }

    /// An environment with exactly these variables (for tests and for child processes).
    pub fn from_pairs(pairs: &[(&str, &str)]) -> Self {
        Env {
            vars: pairs.iter().map(|(k, v)| (k.into(), v.into())).collect(),
        }
    }

    /// The value of `name`, if set.
    pub fn get_os(&self, name: &str) -> Option<&OsString> {
        self.vars
            .iter()
            .rev()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v)
    }

    /// Every variable, in the order captured.
    pub fn vars(&self) -> &[(OsString, OsString)] {
        &self.vars
    }

    /// The value of `name` if it is set and valid UTF-8.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.get_os(name).and_then(|v| v.to_str())
    }
}
