// declare target indirect: the device function pointer is read from the image.
#include <omp.h>
#include <stdio.h>
int twice(int x) { return 2 * x; }
int thrice(int x) { return 3 * x; }
#pragma omp declare target indirect to(twice, thrice)
int main(void) {
  int (*fp)(int) = thrice;
  int r = 0, on_dev = -1;
#pragma omp target map(from : r, on_dev)
  {
    on_dev = !omp_is_initial_device();
    r = fp(7);
  }
  printf("r %d on_dev %d\n", r, on_dev);
  return 0;
}
