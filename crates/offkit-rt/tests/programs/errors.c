// Failures that must abort (mandatory offloading), selected by argv[1].
#include <omp.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv) {
  const char *c = argc > 1 ? argv[1] : "";
  int a[8] = {0};
  int on_dev = -1;
  fprintf(stderr, "case %s\n", c);
  if (!strcmp(c, "present")) {
#pragma omp target map(present, tofrom : a) map(from : on_dev)
    on_dev = !omp_is_initial_device();
  } else if (!strcmp(c, "device")) {
#pragma omp target device(9) map(from : on_dev)
    on_dev = !omp_is_initial_device();
  } else if (!strcmp(c, "extension")) {
#pragma omp target enter data map(to : a[0 : 4])
#pragma omp target map(tofrom : a[0 : 8]) map(from : on_dev)
    on_dev = !omp_is_initial_device();
  } else if (!strcmp(c, "update")) {
#pragma omp target update to(present : a)
  } else if (!strcmp(c, "enter")) {
#pragma omp target enter data map(present, to : a)
  } else if (!strcmp(c, "exit")) {
#pragma omp target exit data map(present, from : a)
  } else if (!strcmp(c, "data-device")) {
#pragma omp target enter data map(to : a) device(7)
  } else if (!strcmp(c, "alloc-device")) {
    omp_target_alloc(16, 12);
  } else if (!strcmp(c, "mapped-null")) {
    printf("%d\n", omp_get_mapped_ptr(NULL, 0) == NULL);
    printf("%d\n", omp_target_memcpy(NULL, a, 4, 0, 0, 0, omp_get_initial_device()));
    printf("%d\n", omp_target_disassociate_ptr(a, 0));
    return 0;
  } else {
#pragma omp target map(from : on_dev)
    on_dev = !omp_is_initial_device();
    printf("default device region on_dev %d\n", on_dev);
    return 0;
  }
  fprintf(stderr, "not reached unless offloading is disabled, on_dev %d\n", on_dev);
  return 3;
}
