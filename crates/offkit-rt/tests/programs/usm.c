// requires unified_shared_memory: host pointers are used directly unless `close`.
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#pragma omp requires unified_shared_memory
int main(void) {
  int *a = malloc(4 * sizeof(int));
  int on_dev = -1, same = -1;
  for (int i = 0; i < 4; i++)
    a[i] = i;
#pragma omp target map(tofrom : a[0 : 4]) map(from : on_dev, same)
  {
    on_dev = !omp_is_initial_device();
    same = 1;
    a[1] = 50;
  }
  printf("usm a[1]=%d present %d on_dev %d\n", a[1], omp_target_is_present(a, 0), on_dev);
  int b[4] = {0};
#pragma omp target map(close, tofrom : b) map(from : on_dev)
  {
    on_dev = !omp_is_initial_device();
    b[0] = 7;
  }
  printf("close b[0]=%d on_dev %d\n", b[0], on_dev);
  free(a);
  return 0;
}
