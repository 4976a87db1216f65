// A shared library with its own target regions and globals.
#include <omp.h>
#include <stdio.h>
int lib_g = 3;
#pragma omp declare target(lib_g)
__attribute__((constructor)) static void lib_ctor(void) { printf("lib constructor\n"); }
int lib_work(int *a, int n) {
  int on_dev = -1;
#pragma omp target map(tofrom : a[0 : n]) map(from : on_dev)
  {
    on_dev = !omp_is_initial_device();
    for (int i = 0; i < n; i++)
      a[i] += lib_g;
    lib_g++;
  }
  return on_dev;
}
int lib_present(int *a) { return omp_target_is_present(a, 0); }
