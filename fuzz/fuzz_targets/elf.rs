#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| offkit_fuzz::elf::run(data));
