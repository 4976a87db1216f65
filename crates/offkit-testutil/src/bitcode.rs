//! Test support for the bitcode reader: bitcode built by clang-19 the way users build it, and
//! LLVM 19's own views of it (`clang-offload-packager` extraction, `llvm-nm`, `llvm-ar`
//! symbol tables, `llvm-lto2 dump-symtab`).

use std::path::{Path, PathBuf};

use crate::llvm::{clang, llvm_tool};
use crate::run::{run, run_ok};
use crate::Error;

/// Writes `src` to `dir/<name>` and compiles it with clang-19 `args` to `dir/<name>.bc`
/// (`-c` is added). Returns the output path.
#[track_caller]
pub fn compile(dir: &Path, name: &str, src: &str, args: &[&str]) -> PathBuf {
    let input = dir.join(name);
    std::fs::write(&input, src).expect("write source");
    let out = dir.join(format!("{name}.bc"));
    let mut argv: Vec<String> = args.iter().map(|s| s.to_string()).collect();
    argv.extend([
        "-c".into(),
        input.display().to_string(),
        "-o".into(),
        out.display().to_string(),
    ]);
    run_ok(clang(), &argv, dir);
    out
}

/// Packs `images` (`(file, "triple=..,arch=..,kind=..")`) into one offload binary file
/// `dir/<name>` with LLVM 19's `clang-offload-packager`.
#[track_caller]
pub fn package(dir: &Path, name: &str, images: &[(&Path, &str)]) -> PathBuf {
    let out = dir.join(name);
    let mut argv = vec!["-o".to_string(), out.display().to_string()];
    for (file, spec) in images {
        argv.push(format!("--image=file={},{spec}", file.display()));
    }
    run_ok(llvm_tool("clang-offload-packager"), &argv, dir);
    out
}

/// Extracts, with LLVM 19's `clang-offload-packager`, the image of `input` matching `spec`
/// (`triple=..,arch=..`) into `dir/<out>` and returns its bytes; [`Error::ToolFailed`] (with
/// the packager's stderr) if the packager fails.
pub fn packager_extract(dir: &Path, input: &Path, spec: &str, out: &str) -> Result<Vec<u8>, Error> {
    let path = dir.join(out);
    let o = run(
        llvm_tool("clang-offload-packager"),
        [
            input.display().to_string(),
            format!("--image=file={},{spec}", path.display()),
        ],
        dir,
    );
    let tool = "clang-offload-packager";
    if o.code != Some(0) {
        return Err(Error::ToolFailed {
            tool,
            code: o.code,
            stderr: o.stderr_str(),
        });
    }
    std::fs::read(&path).map_err(|source| Error::NoOutput { tool, path, source })
}

/// One line of `llvm-nm -a -p` for a bitcode file: the type letter and the name.
pub type NmSymbol = (char, String);

/// `llvm-nm-19 --no-sort [--debug-syms] FILE`: every symbol in symbol-table order (with
/// `all`, format-specific ones too).
#[track_caller]
pub fn nm(file: &Path, all: bool) -> Vec<NmSymbol> {
    nm_many(&[file], all).pop().unwrap_or_default()
}

/// [`nm`] of several files in one `llvm-nm-19` run: one list per file, in order.
#[track_caller]
pub fn nm_many(files: &[&Path], all: bool) -> Vec<Vec<NmSymbol>> {
    let mut args = vec!["--no-sort".to_string()];
    if all {
        args.push("--debug-syms".into());
    }
    args.extend(files.iter().map(|f| f.display().to_string()));
    let cwd = files
        .first()
        .and_then(|f| f.parent())
        .unwrap_or(Path::new("."));
    let out = run_ok(llvm_tool("llvm-nm"), &args, cwd);
    let mut lists: Vec<Vec<NmSymbol>> = Vec::new();
    if files.len() == 1 {
        lists.push(Vec::new());
    }
    for l in out.stdout_str().lines() {
        if l.starts_with('-') || l.starts_with(' ') {
            // "<16 address chars or spaces> <letter> <name>"
            let letter = l.chars().nth(17).unwrap_or('?');
            let sym = (letter, l.get(19..).unwrap_or_default().to_string());
            lists
                .last_mut()
                .expect("a file header comes first")
                .push(sym);
        } else if l.ends_with(':') {
            // "<file>:" before each file's symbols when there are several files.
            lists.push(Vec::new());
        }
    }
    assert_eq!(lists.len(), files.len(), "llvm-nm listed every file");
    lists
}

/// The archive symbol table `llvm-ar-19 --format=gnu rcs` writes for `members` (copied into a
/// fresh directory under their file names), as `llvm-nm-19 --print-armap` lists it: the
/// symbol names of each member in order, as `(symbol, member)` pairs.
#[track_caller]
pub fn armap(dir: &Path, members: &[&Path]) -> Vec<(String, String)> {
    let work = tempfile::tempdir_in(dir).expect("temp dir");
    let work = work.path();
    let mut names = Vec::new();
    for m in members {
        let name = m
            .file_name()
            .expect("member name")
            .to_string_lossy()
            .into_owned();
        std::fs::copy(m, work.join(&name)).expect("copy member");
        names.push(name);
    }
    let mut args = vec!["--format=gnu".to_string(), "rcs".into(), "lib.a".into()];
    args.extend(names);
    run_ok(llvm_tool("llvm-ar"), &args, work);
    let out = run_ok(
        llvm_tool("llvm-nm"),
        ["--print-armap", "--just-symbol-name", "lib.a"],
        work,
    );
    let text = out.stdout_str();
    let map = text
        .split("\n\n")
        .next()
        .and_then(|s| s.strip_prefix("Archive map\n"))
        .unwrap_or_default();
    map.lines()
        .filter_map(|l| l.rsplit_once(" in "))
        .map(|(s, m)| (s.to_string(), m.to_string()))
        .collect()
}

/// `llvm-lto2-19 dump-symtab FILE...`: the irsymtab as LLVM's LTO reads it (the files' dumps
/// one after the other, each ending with an empty line).
#[track_caller]
pub fn dump_symtab(files: &[&Path]) -> String {
    let cwd = files
        .first()
        .and_then(|f| f.parent())
        .unwrap_or(Path::new("."));
    let mut args = vec!["dump-symtab".to_string()];
    args.extend(files.iter().map(|f| f.display().to_string()));
    run_ok(llvm_tool("llvm-lto2"), &args, cwd).stdout_str()
}

/// A C file with one symbol of each kind the module symbol table distinguishes.
pub const C_SYMBOLS: &str = r#"
int defined_data = 1;
int zero_data;
static int local_data = 2;
const int const_data = 3;
extern int undefined_data;
__attribute__((weak)) int weak_data = 4;
__attribute__((weak)) extern int weak_undefined_data;
__attribute__((visibility("hidden"))) int hidden_data = 5;
__attribute__((visibility("protected"))) int protected_data = 6;
__thread int tls_data = 7;
_Thread_local static int local_tls;
__attribute__((section("my_section"))) int sectioned_data = 8;
__attribute__((used)) static int used_local = 9;
int common_data;
int common_aligned __attribute__((aligned(64)));
static char private_string[] = "hello";
extern void undefined_fn(void);
static int local_fn(int x) { return x + local_data + used_local + local_tls; }
__attribute__((weak)) int weak_fn(void) { return 1; }
__attribute__((visibility("hidden"))) int hidden_fn(void) { return 2; }
int defined_fn(int x) {
  undefined_fn();
  return local_fn(x) + undefined_data + (weak_undefined_data ? 1 : 0) + private_string[x];
}
int alias_fn(int) __attribute__((alias("defined_fn")));
extern int alias_data __attribute__((alias("defined_data")));
static int (*resolve_ifn(void))(void) { return weak_fn; }
int ifn(void) __attribute__((ifunc("resolve_ifn")));
__asm__(".globl asm_defined\nasm_defined:\n.long 0\n.weak asm_weak\nasm_weak:\n.long 1\n"
        "asm_local:\n.long 2\ncall asm_undefined\n");
"#;

/// A C++ file with templates, inline functions, comdats, vtables and anonymous namespaces.
pub const CXX_SYMBOLS: &str = r#"
template <typename T> T twice(T x) { return x + x; }
template int twice<int>(int);
template <typename T> struct Box { static T value; T get() const { return value; } };
template <typename T> T Box<T>::value = T();
inline int inline_fn(int x) { return x * 3; }
struct Base { virtual ~Base(); virtual int f() { return 1; } };
struct Derived : Base { int f() override { return 2; } };
Base::~Base() {}
namespace { int anon_fn(int x) { return x - 1; } }
int counter() { static int n = 0; return ++n; }
int use(Base &b) {
  Box<long> bl;
  Derived d;
  return twice(2.0f) + bl.get() + inline_fn(1) + anon_fn(2) + b.f() + d.f() + counter();
}
extern "C" int c_linkage(void) { return 4; }
"#;

/// HIP device code with kernels and device globals; device-only `-fgpu-rdc` compiles give
/// bitcode. Builds without a HIP installation (`-nogpuinc -nogpulib`).
pub const HIP_DEVICE: &str = r#"
#define __device__ __attribute__((device))
#define __global__ __attribute__((global))
__device__ int dev_one = 1;
__device__ __attribute__((visibility("hidden"))) int dev_hidden = 2;
__device__ int dev_fn(int x) { return x + dev_one + dev_hidden; }
__global__ void kern_one(int *p) { *p = dev_fn(*p); }
__global__ void kern_two(int *p) { *p = 2; }
"#;

/// HIP code whose host side also compiles without a HIP installation (kernel stubs need a
/// `hipLaunchKernel` declaration), for `--offload-new-driver` host objects.
pub const HIP_HOST: &str = r#"
#define __device__ __attribute__((device))
#define __global__ __attribute__((global))
struct dim3 { unsigned x, y, z; };
typedef struct ihipStream_t *hipStream_t;
extern "C" int hipLaunchKernel(const void *, dim3, dim3, void **, unsigned long, hipStream_t);
__device__ int dev_one = 1;
__global__ void kern_one(int *p) { *p = dev_one; }
"#;

/// The HIP flags that build for gfx90a without a ROCm installation.
pub const HIP_FLAGS: &[&str] = &[
    "-x",
    "hip",
    "--offload-arch=gfx90a",
    "-nogpulib",
    "-nogpuinc",
    "-fgpu-rdc",
];
