// Kernels, globals per device, firstprivate/private, device numbers, omp_* queries.
#include <omp.h>
#include <stdio.h>

int g = 5;
double table[3] = {1.5, 2.5, 3.5};
#pragma omp declare target(g, table)

int main(void) {
  int a[4] = {1, 2, 3, 4};
  int on_dev = -1;
  printf("devices %d initial %d default %d\n", omp_get_num_devices(),
         omp_get_initial_device(), omp_get_default_device());
  printf("g present before first use: %d\n", omp_target_is_present(&g, 0));
#pragma omp target map(tofrom : a) map(from : on_dev)
  {
    on_dev = !omp_is_initial_device();
    for (int i = 0; i < 4; i++)
      a[i] *= 10 + g;
  }
  printf("on_dev %d a %d %d %d %d\n", on_dev, a[0], a[1], a[2], a[3]);
  printf("g present after first use: %d on dev1: %d\n", omp_target_is_present(&g, 0),
         omp_target_is_present(&g, 1));

  // A declare-target global has its own copy per device; map(tofrom) moves nothing.
  g = 7;
  int seen[4];
  for (int d = 0; d < 4; d++) {
#pragma omp target device(d) map(from : seen[d : 1], on_dev) map(tofrom : g)
    {
      on_dev = !omp_is_initial_device();
      seen[d] = g;
      g += 100 * (d + 1);
    }
    printf("device %d on_dev %d saw g=%d host g=%d\n", d, on_dev, seen[d], g);
  }
#pragma omp target update to(g) device(2)
#pragma omp target device(2) map(from : seen[0 : 1])
  seen[0] = g;
  printf("after update to: device 2 g=%d\n", seen[0]);
#pragma omp target map(always, tofrom : g)
  g += 1;
  printf("after always tofrom: g=%d\n", g);
#pragma omp target update from(table)
  printf("table %.1f %.1f %.1f\n", table[0], table[1], table[2]);

  // firstprivate scalar, firstprivate array, private array.
  int fp = 42;
  int arr[8];
  int priv[8];
  for (int i = 0; i < 8; i++)
    arr[i] = i;
  int sum = 0;
#pragma omp target firstprivate(fp, arr) private(priv) map(from : sum, on_dev)
  {
    on_dev = !omp_is_initial_device();
    sum = 0;
    for (int i = 0; i < 8; i++) {
      priv[i] = arr[i] * fp;
      arr[i] = -1;
      sum += priv[i];
    }
    fp = 0;
  }
  printf("sum %d fp %d arr[3] %d on_dev %d\n", sum, fp, arr[3], on_dev);

  // teams and parallel inside the kernel run through libomp.
  int hits[64] = {0};
#pragma omp target teams distribute parallel for map(tofrom : hits) num_teams(2)
  for (int i = 0; i < 64; i++)
    hits[i] = i * 2 + !omp_is_initial_device();
  long total = 0;
  for (int i = 0; i < 64; i++)
    total += hits[i];
  printf("teams total %ld\n", total);

  // The initial device runs the host fallback.
  int where = -1;
#pragma omp target device(omp_get_initial_device()) map(from : where)
  where = omp_is_initial_device();
  printf("initial device region on host: %d\n", where);
  return 0;
}
