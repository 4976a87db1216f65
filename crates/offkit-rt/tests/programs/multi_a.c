// Several translation units: each has target regions and a declare-target global.
#include <omp.h>
#include <stdio.h>
int counter_b(int);
int shared_g = 10;
#pragma omp declare target(shared_g)
int main(void) {
  int on_dev = -1, r = 0;
#pragma omp target map(from : on_dev, r)
  {
    on_dev = !omp_is_initial_device();
    r = shared_g + 1;
  }
  printf("a: r %d on_dev %d\n", r, on_dev);
  printf("b: %d\n", counter_b(5));
  printf("b: %d\n", counter_b(6));
  return 0;
}
