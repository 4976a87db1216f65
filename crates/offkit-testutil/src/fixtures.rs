//! Inputs built by clang-19, the way users build them.

use std::path::{Path, PathBuf};

use crate::llvm::clang;
use crate::run::run_ok;

/// Compiles C source `src` (written to `dir/<name>.c`) to `dir/<name>.o` with OpenMP offloading
/// to `targets` (e.g. `["x86_64-pc-linux-gnu"]`), plus `extra` flags. Returns the object's path.
#[track_caller]
pub fn compile_openmp(
    dir: &Path,
    name: &str,
    src: &str,
    targets: &[&str],
    extra: &[&str],
) -> PathBuf {
    let c = dir.join(format!("{name}.c"));
    std::fs::write(&c, src).expect("write source");
    let o = dir.join(format!("{name}.o"));
    let mut args: Vec<String> = vec!["-fopenmp".into()];
    if !targets.is_empty() {
        args.push(format!("-fopenmp-targets={}", targets.join(",")));
    }
    args.extend(extra.iter().map(|s| s.to_string()));
    args.extend([
        "-c".into(),
        c.display().to_string(),
        "-o".into(),
        o.display().to_string(),
    ]);
    run_ok(clang(), &args, dir);
    o
}

/// A small OpenMP program: one target region, one `declare target` global.
pub const OPENMP_SAXPY: &str = r#"
#include <omp.h>
#pragma omp declare target
int scale = 2;
#pragma omp end declare target
int saxpy(int n, float *x, float *y) {
  int host = 1;
#pragma omp target map(to: x[0:n]) map(tofrom: y[0:n]) map(from: host)
  {
    for (int i = 0; i < n; ++i) y[i] += scale * x[i];
    host = omp_is_initial_device();
  }
  return host;
}
"#;
