// Unified shared memory and declare-target globals: device code reaches each global through a
// reference pointer that holds the host address (built once with `requires
// unified_shared_memory`, once with -fopenmp-force-usm and no pragma).
#include <omp.h>
#include <stdio.h>
#ifdef REQUIRE_USM
#pragma omp requires unified_shared_memory
#endif

int g = 5;
#pragma omp declare target(g)
int arr[4] = {1, 2, 3, 4};
#pragma omp declare target link(arr)
double table[3] = {0.5, 1.5, 2.5};
#pragma omp declare target to(table)

int main(void) {
  int on_dev = -1, r = 0, s = 0;
  double t = 0;
#pragma omp target map(from : on_dev, r, s, t)
  {
    on_dev = !omp_is_initial_device();
    r = g;
    g = 9;
    s = arr[2];
    arr[1] = 20;
    t = table[2];
    table[0] = 7.25;
  }
  printf("device read g=%d arr[2]=%d table[2]=%.2f on_dev %d\n", r, s, t, on_dev);
  printf("host sees device writes: g=%d arr[1]=%d table[0]=%.2f\n", g, arr[1], table[0]);
  // Host writes are seen by the next region without an update.
  g = 11;
  arr[3] = 40;
#pragma omp target map(from : r, s)
  {
    r = g;
    s = arr[3];
  }
  printf("device sees host writes: g=%d arr[3]=%d\n", r, s);
  printf("g present %d, same address on the device %d\n", omp_target_is_present(&g, 0),
         omp_get_mapped_ptr(&g, 0) == (void *)&g);
  return 0;
}
