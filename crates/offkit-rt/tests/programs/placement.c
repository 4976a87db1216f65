// Where device memory comes from: LLVM 19's host plugin takes it from the C allocator through
// its memory manager. Blocks up to LIBOMPTARGET_MEMORY_MANAGER_THRESHOLD bytes (default 8192)
// are kept on the device's free list when freed: the next allocation of the same size gets
// one back, oldest first, and malloc never sees them again. Larger blocks, and all blocks
// with the threshold 0, go back to malloc at once.
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

void *llvm_omp_target_alloc_host(size_t, int);
void *llvm_omp_target_alloc_shared(size_t, int);
void *llvm_omp_target_alloc_device(size_t, int);
void llvm_omp_target_free_host(void *, int);
void llvm_omp_target_free_shared(void *, int);
void llvm_omp_target_free_device(void *, int);

int main(void) {
  int dev = 0, host = omp_get_initial_device();
  size_t sizes[] = {1, 4, 100, 4096, 8192, 8193, 100000};
  int kept100 = 0;
  for (int k = 0; k < 7; k++) {
    size_t n = sizes[k];
    void *a = omp_target_alloc(n, dev);
    omp_target_free(a, dev);
    void *h = malloc(n);         // takes a's block unless the manager kept it
    void *b = omp_target_alloc(n, dev);
    void *c = omp_target_alloc(n + 1, dev);
    printf("%zu: kept %d, back for the same size %d, for another size %d\n", n, h != a, b == a,
           c == a);
    if (n == 100)
      kept100 = h != a;
    free(h);
    omp_target_free(b, dev);
    omp_target_free(c, dev);
  }

  // Oldest freed first.
  void *p[6];
  for (int i = 0; i < 6; i++)
    p[i] = omp_target_alloc(64, dev);
  for (int i = 5; i >= 0; i--)
    omp_target_free(p[i], dev);
  void *q = omp_target_alloc(64, dev), *r = omp_target_alloc(64, dev);
  for (int i = 0; i < 6; i++)
    if (q == p[i] || r == p[i])
      printf("reused the block freed %d-th\n", 6 - i);
  omp_target_free(q, dev);
  omp_target_free(r, dev);

  // Each device has its own free lists.
  void *d0 = omp_target_alloc(72, 0);
  omp_target_free(d0, 0);
  void *d1 = omp_target_alloc(72, 1);
  printf("another device reuses it %d\n", d1 == d0);
  omp_target_free(d1, 1);

  // Mapped data: exit data frees the block, the next map of the same size gets it back. (When
  // the manager does not keep 100-byte blocks, whether malloc hands the block to the next
  // mapping depends on the runtime's own allocations in between: not compared.)
  int off = !kept100;
  int x[25], y[25];
#pragma omp target enter data map(to : x)
  void *px = omp_get_mapped_ptr(x, dev);
#pragma omp target exit data map(delete : x)
#pragma omp target enter data map(to : y)
  if (!off)
    printf("a mapping of the same size reuses the block %d\n", omp_get_mapped_ptr(y, dev) == px);
#pragma omp target exit data map(delete : y)
  void *ta = omp_target_alloc(sizeof x, dev);
  if (!off)
    printf("omp_target_alloc after it reuses it too %d\n", ta == px);
  omp_target_free(ta, dev);

  // Host and shared memory are malloc/free; device memory is the manager's.
  void *hm = llvm_omp_target_alloc_host(48, dev);
  llvm_omp_target_free_host(hm, dev);
  void *hh = malloc(48);
  printf("host memory goes back to malloc %d\n", hh == hm);
  free(hh);
  void *sm = llvm_omp_target_alloc_shared(48, dev);
  llvm_omp_target_free_shared(sm, dev);
  void *sh = malloc(48);
  printf("shared memory goes back to malloc %d\n", sh == sm);
  free(sh);
  void *dm = llvm_omp_target_alloc_device(48, dev);
  llvm_omp_target_free_device(dm, dev);
  void *dh = malloc(48);
  printf("device memory is kept %d\n", dh != dm);
  free(dh);
  // The initial device is plain malloc/free.
  void *im = omp_target_alloc(48, host);
  omp_target_free(im, host);
  void *ih = malloc(48);
  printf("initial device memory goes back to malloc %d\n", ih == im);
  free(ih);
  return 0;
}
