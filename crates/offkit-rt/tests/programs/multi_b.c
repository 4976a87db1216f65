#include <omp.h>
extern int shared_g;
#pragma omp declare target(shared_g)
static int calls = 0;
#pragma omp declare target(calls)
int counter_b(int x) {
  int r = 0;
#pragma omp target map(from : r)
  {
    calls++;
    r = (omp_is_initial_device() ? -1000 : 0) + x * 100 + calls + shared_g;
  }
  return r;
}
