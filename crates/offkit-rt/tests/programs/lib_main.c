#include <omp.h>
#include <stdio.h>
int lib_work(int *a, int n);
int lib_present(int *a);
int main(void) {
  int a[4] = {0, 1, 2, 3};
  int on_dev = -1;
  printf("main start, %d devices\n", omp_get_num_devices());
#pragma omp target data map(tofrom : a)
  {
    printf("library sees the executable's mapping: %d\n", lib_present(a));
    int d = lib_work(a, 4);
    printf("library region on device %d, a[3]=%d (not copied back yet)\n", d, a[3]);
#pragma omp target map(from : on_dev)
    {
      on_dev = !omp_is_initial_device();
      a[0] += 50;
    }
  }
  printf("after data: a %d %d %d %d on_dev %d\n", a[0], a[1], a[2], a[3], on_dev);
  printf("second call on_dev %d a[3]=%d\n", lib_work(a, 4), a[3]);
  return 0;
}
