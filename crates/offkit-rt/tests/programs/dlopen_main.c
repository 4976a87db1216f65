// A library with target regions opened after main started, used, and closed.
#include <dlfcn.h>
#include <omp.h>
#include <stdio.h>
int main(void) {
  int on_dev = -1;
#pragma omp target map(from : on_dev)
  on_dev = !omp_is_initial_device();
  printf("before dlopen on_dev %d\n", on_dev);
  void *h = dlopen("./libk.so", RTLD_NOW);
  if (!h) {
    printf("dlopen failed: %s\n", dlerror());
    return 1;
  }
  int (*work)(int *, int) = (int (*)(int *, int))dlsym(h, "lib_work");
  int a[4] = {1, 2, 3, 4};
  int d = work(a, 4);
  printf("library loaded late: on_dev %d a[3]=%d\n", d, a[3]);
  d = work(a, 4);
  printf("again: on_dev %d a[3]=%d\n", d, a[3]);
  dlclose(h);
#pragma omp target map(from : on_dev)
  on_dev = !omp_is_initial_device();
  printf("after dlclose on_dev %d\n", on_dev);
  return 0;
}
