//! A stand-in CUDA/HIP runtime and stand-in CUDA tools, in C, built by clang-19 in the tests.
//!
//! The runtime ([`STUB_RUNTIME`]) defines `__hipRegisterFatBinary`, `__cudaRegisterFatBinary`
//! and the functions LLVM 19's registration code calls after them, and prints what it is
//! handed: the fatbinary wrapper's magic and version, the offload bundle's entries (ID, size,
//! FNV-1a hash of the code object) or the fatbinary's size and hash, every kernel and variable
//! registered, and the unregistration at exit (checking the handle); likewise
//! `__tgt_register_lib` (OpenMP) prints the descriptor: each image's size and hash and whether
//! its entries are the program's, then the entries. Two programs that print the same registered
//! the same images and entries. Built for Windows it is a DLL (`omp.dll`, see
//! [`stub_runtime_dll`]).
//!
//! The tools ([`FAKE_CUDA`]) stand in for NVIDIA's `ptxas`, `nvlink` and `fatbinary`, which
//! are not here: ptxas writes an empty ELF object for EM_CUDA (which `clang-nvlink-wrapper`
//! accepts), nvlink concatenates its inputs, fatbinary writes a fatbinary header and each
//! image's profile and contents — deterministic, so that two links can be compared.

use std::path::{Path, PathBuf};

use crate::fixtures::{clang_in, write_source};

/// The stand-in runtime's C source.
pub const STUB_RUNTIME: &str = r#"#include <stdio.h>
#include <stdint.h>
#include <string.h>
#include <stdlib.h>
#ifdef _WIN32
#define EXPORT __declspec(dllexport)
#else
#define EXPORT
#endif
typedef unsigned long long ull;
static uint64_t fnv(const unsigned char *p, uint64_t n) {
  uint64_t h = 14695981039346656037ull;
  for (uint64_t i = 0; i < n; i++) { h ^= p[i]; h *= 1099511628211ull; }
  return h;
}

/* OpenMP: libomptarget's registration entry points. */
struct entry { void *addr; char *name; uint64_t size; int32_t flags, data; };
struct image { const unsigned char *start, *end; struct entry *begin, *stop; };
struct desc { int32_t n; struct image *images; struct entry *begin, *end; };
EXPORT void __tgt_register_lib(struct desc *d) {
  printf("__tgt register: %d image(s), %d entries\n", d->n, (int)(d->end - d->begin));
  for (int i = 0; i < d->n; i++) {
    struct image *im = &d->images[i];
    printf("  image %d: %llu bytes fnv %016llx, entries %s\n", i, (ull)(im->end - im->start),
           (ull)fnv(im->start, im->end - im->start),
           im->begin == d->begin && im->stop == d->end ? "the program's" : "OTHER");
  }
  for (struct entry *e = d->begin; e < d->end; e++)
    printf("  entry %s size %llu flags %d\n", e->name, (ull)e->size, e->flags);
  fflush(stdout);
}
EXPORT void __tgt_unregister_lib(struct desc *d) {
  printf("__tgt unregister: %d image(s)\n", d->n);
  fflush(stdout);
}
/* A target region "runs" on the host fallback: the kernel launch fails. */
EXPORT int __tgt_target_kernel(void *loc, int64_t dev, int32_t teams, int32_t threads,
                               void *host_ptr, void *args) { return 1; }
EXPORT void __tgt_target_data_begin_mapper(void) {}
EXPORT void __tgt_target_data_end_mapper(void) {}
EXPORT int __kmpc_global_thread_num(void *loc) { return 0; }

/* CUDA and HIP: the fatbinary registration. */
struct fatbin_wrapper { int32_t magic, version; const void *image, *reserved; };
static void show(const char *rt, const struct fatbin_wrapper *w) {
  const unsigned char *img = w->image;
  printf("%s register: magic %#x version %d\n", rt, (unsigned)w->magic, w->version);
  if (!memcmp(img, "__CLANG_OFFLOAD_BUNDLE__", 24)) {
    uint64_t n, off, size, len; memcpy(&n, img + 24, 8);
    const unsigned char *e = img + 32;
    for (uint64_t i = 0; i < n; i++) {
      memcpy(&off, e, 8); memcpy(&size, e + 8, 8); memcpy(&len, e + 16, 8);
      printf("  bundle entry %.*s size %llu fnv %016llx\n", (int)len, e + 24, (ull)size,
             (ull)fnv(img + off, size));
      e += 24 + len;
    }
  } else {
    uint16_t hs; uint64_t size; memcpy(&hs, img + 6, 2); memcpy(&size, img + 8, 8);
    printf("  fatbinary %llu bytes fnv %016llx\n", (ull)(hs + size), (ull)fnv(img, hs + size));
  }
  fflush(stdout);
}
static void *handle = &handle;
#define RT(P) \
EXPORT void **P##RegisterFatBinary(const struct fatbin_wrapper *w) { show(#P, w); return handle; } \
EXPORT void P##UnregisterFatBinary(void **h) \
  { printf(#P " unregister %s\n", h == handle ? "ok" : "WRONG HANDLE"); fflush(stdout); } \
EXPORT void P##RegisterFunction(void **h, const void *hostFun, char *deviceFun, const char *deviceName, \
                                int limit, void *a, void *b, void *c, void *d, int *e) \
  { printf("  function %s\n", deviceName); } \
EXPORT void P##RegisterVar(void **h, char *hostVar, char *deviceAddress, const char *deviceName, \
                           int ext, uint64_t size, int constant, int global) \
  { printf("  variable %s size %llu extern %d constant %d\n", deviceName, (ull)size, ext, constant); } \
EXPORT void P##RegisterManagedVar(void **h, void **hostVar, char *deviceAddress, const char *deviceName, \
                                  uint64_t size, unsigned align) \
  { printf("  managed %s size %llu align %u\n", deviceName, (ull)size, align); } \
EXPORT void P##RegisterSurface(void **h, void *v, char *da, const char *name, int dim, int ext) \
  { printf("  surface %s\n", name); } \
EXPORT void P##RegisterTexture(void **h, void *v, char *da, const char *name, int dim, int norm, int ext) \
  { printf("  texture %s\n", name); } \
EXPORT int P##PopCallConfiguration(void *a, void *b, void *c, void *d) { return 0; } \
EXPORT int P##PushCallConfiguration(void) { return 0; }
RT(__hip)
RT(__cuda)
EXPORT void __cudaRegisterFatBinaryEnd(void **h) { printf("__cuda register end\n"); }
EXPORT int hipLaunchKernel(void) { return 0; }
EXPORT int cudaLaunchKernel(void) { return 0; }
EXPORT int cudaSetupArgument(void) { return 0; }
EXPORT int cudaLaunch(void) { return 0; }
EXPORT int cudaConfigureCall(void) { return 0; }
"#;

/// The stand-in CUDA tools' C source (one program; `argv[0]` chooses the tool).
pub const FAKE_CUDA: &str = r#"/* Stand-ins for NVIDIA's ptxas, nvlink and fatbinary (absent here), chosen by argv[0]:
   ptxas writes an empty relocatable ELF for EM_CUDA, nvlink concatenates its inputs,
   fatbinary writes a fatbinary header (magic 0xba55ed50, version 1, header size 16, size)
   followed by each image's profile and contents. */
#include <stdio.h>
#include <stdint.h>
#include <string.h>
#include <stdlib.h>
static FILE *out(const char *p) { FILE *f = fopen(p, "wb"); if (!f) { perror(p); exit(1); } return f; }
static long copy(FILE *o, const char *path) {
  FILE *i = fopen(path, "rb"); if (!i) { perror(path); exit(1); }
  char buf[4096]; size_t n; long t = 0;
  while ((n = fread(buf, 1, sizeof buf, i)) > 0) { fwrite(buf, 1, n, o); t += n; }
  fclose(i); return t;
}
int main(int argc, char **argv) {
  const char *tool = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0];
  const char *o = 0;
  for (int i = 1; i < argc; i++)
    if ((!strcmp(argv[i], "-o") || !strcmp(argv[i], "--output-file") || !strcmp(argv[i], "--create")) && i + 1 < argc) o = argv[++i];
  if (!o) { fprintf(stderr, "%s: no output\n", tool); return 1; }
  FILE *f = out(o);
  if (!strcmp(tool, "ptxas")) {
    unsigned char h[64] = {0x7f, 'E', 'L', 'F', 2, 1, 1};
    h[16] = 1; h[18] = 190; h[20] = 1; h[52] = 64; h[58] = 64;
    fwrite(h, 1, 64, f);
  } else if (!strcmp(tool, "nvlink")) {
    for (int i = 1; i < argc; i++)
      if (argv[i][0] != '-' && argv[i] != o && strcmp(argv[i - 1], "-arch") && strcmp(argv[i - 1], "-L")) copy(f, argv[i]);
  } else {
    unsigned char h[16] = {0x50, 0xed, 0x55, 0xba, 1, 0, 16, 0};
    fwrite(h, 1, 16, f);
    for (int i = 1; i < argc; i++) {
      const char *file = strstr(argv[i], ",file=");
      if (strncmp(argv[i], "--image=", 8) || !file) continue;
      fwrite(argv[i] + 8, 1, file - argv[i] - 8, f); fputc(0, f); copy(f, file + 6);
    }
    uint64_t size = ftell(f) - 16; fseek(f, 8, SEEK_SET); fwrite(&size, 8, 1, f);
  }
  fclose(f);
  return 0;
}
"#;

/// Compiles the stand-in runtime to `dir/stubrt.o`; returns its path.
#[track_caller]
pub fn stub_runtime(dir: &Path) -> PathBuf {
    let src = write_source(dir, "stubrt.c", STUB_RUNTIME);
    let o = dir.join("stubrt.o");
    clang_in(
        dir,
        &[
            "-c",
            &src.display().to_string(),
            "-o",
            &o.display().to_string(),
        ],
    );
    o
}

/// Makes a stand-in CUDA installation `dir/fakecuda` (`bin/ptxas`, `bin/nvlink`,
/// `bin/fatbinary`) for `--cuda-path=` / `--ptxas-path=`; returns its path.
#[track_caller]
pub fn fake_cuda(dir: &Path) -> PathBuf {
    let root = dir.join("fakecuda");
    let bin = root.join("bin");
    if bin.join("fatbinary").exists() {
        return root;
    }
    std::fs::create_dir_all(&bin).expect("create fakecuda/bin");
    let src = write_source(dir, "fakecuda.c", FAKE_CUDA);
    let ptxas = bin.join("ptxas");
    clang_in(
        dir,
        &[
            &src.display().to_string(),
            "-o",
            &ptxas.display().to_string(),
        ],
    );
    for tool in ["nvlink", "fatbinary"] {
        std::os::unix::fs::symlink("ptxas", bin.join(tool)).expect("symlink fake tool");
    }
    root
}

/// Builds the stand-in runtime as a Windows DLL for `target` (a MinGW triple) in `dir`:
/// `dir/omp.dll` and its import library `dir/libomp.a` (the name LLVM 19's linker wrapper
/// finds for `-lomp`). Returns `dir`.
#[track_caller]
pub fn stub_runtime_dll(dir: &Path, target: &str) -> PathBuf {
    std::fs::create_dir_all(dir).expect("create runtime dir");
    let src = write_source(dir, "stubrt.c", STUB_RUNTIME);
    let dll = dir.join("omp.dll");
    let implib = dir.join("libomp.a");
    clang_in(
        dir,
        &[
            &format!("--target={target}"),
            "-fuse-ld=lld",
            "-shared",
            &src.display().to_string(),
            "-o",
            &dll.display().to_string(),
            &format!("-Wl,--out-implib,{}", implib.display()),
        ],
    );
    dir.to_path_buf()
}
