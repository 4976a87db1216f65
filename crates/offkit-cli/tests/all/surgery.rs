//! `offkit replace` round trip: every image of real multi-TU HIP libraries (plain and compressed
//! bundles, GNU ld and lld) extracted and put back in place of itself, selected by its location
//! and by its address URI, gives back the library byte for byte.

use offkit_testutil::hip::{self, Linker};
use offkit_testutil::run_ok;
use serde_json::Value;

const OFFKIT: &str = env!("CARGO_BIN_EXE_offkit");

#[test]
fn replacing_every_image_with_itself_gives_identical_bytes() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    for linker in [Linker::Bfd, Linker::Lld] {
        let name = format!("libk_{linker:?}.so");
        let (lib, _) = hip::library(dir, &name, &[false, true, true, false], linker);
        let original = std::fs::read(&lib).unwrap();
        let out = run_ok(OFFKIT, ["inspect", "--json", &name], dir);
        let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
        let images = doc["files"][0]["images"].as_array().unwrap().clone();
        assert_eq!(images.len(), 12, "{name}");
        for (i, img) in images.iter().enumerate() {
            let location = img["location"].as_str().unwrap();
            let uri = img["address"].as_str().unwrap();
            let co = dir.join(format!("img{i}"));
            std::fs::create_dir_all(&co).unwrap();
            run_ok(
                OFFKIT,
                ["extract", uri, "-o", &co.display().to_string()],
                dir,
            );
            let file = std::fs::read_dir(&co)
                .unwrap()
                .next()
                .unwrap()
                .unwrap()
                .path();
            let selector = if i % 2 == 0 { location } else { uri };
            let back = dir.join(format!("back{i}.so"));
            run_ok(
                OFFKIT,
                [
                    "replace",
                    &name,
                    "--image",
                    &format!("{selector}={}", file.display()),
                    "-o",
                    &back.display().to_string(),
                ],
                dir,
            );
            assert!(
                std::fs::read(&back).unwrap() == original,
                "{name}: {location} replaced by itself changed the file"
            );
        }
    }
}
