//! The typed API on a real program: an OpenMP program with an x86_64 offload target, compiled
//! by clang-19, linked through [`LinkConfig`] and [`Link`]'s phases only (no command line of
//! the wrapper), then run on LLVM 19's libomptarget.

use offkit_link::{Link, LinkConfig};
use offkit_testutil::{clang, llvm_bin, llvm_lib, run_ok};
use offkit_tools::Env;

const X86: &str = "x86_64-pc-linux-gnu";

const PROGRAM: &str = r#"#include <omp.h>
#include <stdio.h>
int main(void) {
  int sum = 0, initial = 1;
#pragma omp target map(tofrom: sum, initial)
  {
    initial = omp_is_initial_device();
    for (int i = 1; i <= 10; i++) sum += i * i;
  }
  printf("initial=%d sum=%d\n", initial, sum);
  return 0;
}
"#;

#[test]
fn openmp_x86_64_program_linked_through_the_api_runs() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("main.c"), PROGRAM).unwrap();
    run_ok(
        clang(),
        [
            "-fopenmp",
            &format!("-fopenmp-targets={X86}"),
            "-c",
            "main.c",
            "-o",
            "main.o",
        ],
        d,
    );
    let lib = llvm_lib().display().to_string();
    let app = d.join("app");
    let host_args = vec![
        "-fopenmp".to_string(),
        "-o".into(),
        app.display().to_string(),
        d.join("main.o").display().to_string(),
        format!("-L{lib}"),
        "-lomptarget".into(),
        format!("-Wl,-rpath,{lib}"),
    ];
    let mut config = LinkConfig::new(clang(), host_args);
    config.offload_targets = Some(X86.into());
    config.jobs = Some(1);
    let tmp = d.join("tmp");
    std::fs::create_dir(&tmp).unwrap();
    let clang_path = clang().display().to_string();
    let env = Env::from_pairs(&[
        ("OFFKIT_CLANG", clang_path.as_str()),
        ("PATH", &llvm_bin().display().to_string()),
        ("TMPDIR", &tmp.display().to_string()),
    ]);
    let lines = std::sync::Mutex::new(Vec::new());
    let log = |l: &str| lines.lock().unwrap().push(l.to_string());
    let link = Link::new(&config, &env).unwrap().with_log(&log);
    assert_eq!(link.output(), app.display().to_string());

    let inputs = link.load().unwrap();
    let scanned = link.scan(&inputs).unwrap();
    assert_eq!(scanned.inputs().len(), 1);
    assert_eq!(scanned.inputs()[0].entry.triple(), X86);
    let groups = link.group(&scanned).unwrap();
    let targets: Vec<_> = groups.groups.iter().map(|g| g.target.clone()).collect();
    assert_eq!(targets, [(X86.to_string(), String::new())]);
    let images = link.link_devices(&scanned, &groups).unwrap();
    assert_eq!(images.len(), 1);
    assert_eq!(images[0].images.len(), 1);
    assert!(images[0].images[0].bytes.starts_with(b"\x7fELF"));
    let objects = link.wrap(&images).unwrap();
    assert_eq!(objects.len(), 1);
    link.host_link(&objects).unwrap();
    link.finish(Ok(())).unwrap();
    drop(link);
    assert_eq!(lines.into_inner().unwrap(), Vec::<String>::new());
    // The temporaries are gone with the link.
    assert_eq!(std::fs::read_dir(&tmp).unwrap().count(), 0);

    let out = std::process::Command::new(&app)
        .env("OMP_TARGET_OFFLOAD", "mandatory")
        .env_remove("LIBOMPTARGET_INFO")
        .current_dir(d)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(String::from_utf8_lossy(&out.stdout), "initial=0 sum=385\n");
}
