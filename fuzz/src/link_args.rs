//! Fuzz body: the linker wrapper's command line (`offkit_link::opts`, LLVM's `OptTable` rules)
//! read into a typed configuration (`LinkConfig::from_llvm_args`).
//!
//! The input is split at `\n` into arguments. Checked: nothing panics; the host line a
//! configuration keeps is a fixed point — read again, it gives the same host line and no
//! option of the wrapper — so the host linker gets what LLVM 19's wrapper gives it.

use offkit_link::{opts, LinkConfig};
use offkit_llvm::LlvmVersion;

/// Reads `data` as a command line.
pub fn run(data: &[u8]) {
    if data.len() > 1 << 16 {
        return;
    }
    let words: Vec<String> = String::from_utf8_lossy(data)
        .split('\n')
        .map(String::from)
        .collect();
    // Each release's table (the check refuses the other release's options).
    for llvm in LlvmVersion::ALL {
        let _ = opts::parse(&words, llvm);
        let _ = offkit_link::nvlink::opts::parse(&words, llvm);
        let Ok(config) = LinkConfig::from_llvm_args(&words, llvm) else {
            continue;
        };
        let again = LinkConfig::from_llvm_args(&config.host_args, llvm)
            .expect("the host line of a configuration reads back");
        assert_eq!(
            again.host_args, config.host_args,
            "the host line is a fixed point"
        );
        let mut plain = LinkConfig::new("", config.host_args.clone());
        plain.llvm = llvm;
        assert_eq!(again, plain, "the host line holds no option of the wrapper");
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn seeds_and_mutations() {
        let seeds = crate::seeds("link_args");
        assert!(seeds.len() >= 2);
        for input in crate::mutations(&seeds, 200) {
            super::run(&input);
        }
    }
}
