// Which of several x86-64 images runs: each reports the instruction set it was built for.
#include <omp.h>
#include <stdio.h>
int main(void) {
  int v = -1, on_dev = -1;
#pragma omp target map(from : v, on_dev)
  {
    on_dev = !omp_is_initial_device();
#if defined(__AVX512F__)
    v = 512;
#elif defined(__AVX2__)
    v = 2;
#else
    v = 0;
#endif
  }
  printf("image level %d on_dev %d\n", v, on_dev);
  return 0;
}
