// Data regions, reference counts, update, device memory routines.
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N 16

int main(void) {
  int x[N];
  int on_dev = -1;
  for (int i = 0; i < N; i++)
    x[i] = i;

  // Reference counts: enter twice, a target region in between, exit once, still present.
#pragma omp target enter data map(to : x)
#pragma omp target enter data map(to : x)
#pragma omp target map(tofrom : x) map(from : on_dev)
  {
    on_dev = !omp_is_initial_device();
    for (int i = 0; i < N; i++)
      x[i] += 100;
  }
  printf("after region (count 2, no copy back): x[1]=%d on_dev %d\n", x[1], on_dev);
#pragma omp target exit data map(from : x)
  printf("after one exit: x[1]=%d present %d\n", x[1], omp_target_is_present(x, 0));
#pragma omp target exit data map(from : x)
  printf("after last exit: x[1]=%d present %d\n", x[1], omp_target_is_present(x, 0));

  // release and delete.
#pragma omp target enter data map(to : x)
#pragma omp target enter data map(to : x)
#pragma omp target exit data map(release : x)
  printf("after release: present %d\n", omp_target_is_present(x, 0));
#pragma omp target exit data map(delete : x)
  printf("after delete: present %d\n", omp_target_is_present(x, 0));

  // target data with update inside; alloc does not copy.
  int y[N];
  for (int i = 0; i < N; i++)
    y[i] = 1;
#pragma omp target data map(alloc : y)
  {
#pragma omp target update to(y)
#pragma omp target map(from : on_dev)
    {
      on_dev = !omp_is_initial_device();
      for (int i = 0; i < N; i++)
        y[i] *= 3;
    }
    printf("inside data region y[0]=%d\n", y[0]);
#pragma omp target update from(y[2 : 4])
    printf("after partial update y[1]=%d y[2]=%d y[5]=%d y[6]=%d\n", y[1], y[2], y[5], y[6]);
  }
  printf("after data region y[0]=%d on_dev %d\n", y[0], on_dev);

  // use_device_ptr / use_device_addr.
  int *p = malloc(N * sizeof(int));
  for (int i = 0; i < N; i++)
    p[i] = i;
#pragma omp target data map(tofrom : p[0 : N])
  {
    int *dp = NULL;
#pragma omp target data use_device_ptr(p)
    dp = p;
    printf("use_device_ptr gives the mapped address: %d, differs from host: %d\n",
           dp == omp_get_mapped_ptr(p, 0), dp != p);
    int *da = NULL;
#pragma omp target data use_device_addr(x)
    da = &x[0];
    printf("use_device_addr of unmapped x is the host address: %d\n", da == x);
#pragma omp target is_device_ptr(dp) map(from : on_dev)
    {
      on_dev = !omp_is_initial_device();
      for (int i = 0; i < N; i++)
        dp[i] += 1000;
    }
  }
  printf("p[3]=%d on_dev %d\n", p[3], on_dev);

  // omp_target_alloc / memcpy / memcpy_rect / memset / associate.
  int dev = 0, host = omp_get_initial_device();
  int *d = omp_target_alloc(N * sizeof(int), dev);
  printf("alloc 0 bytes gives NULL: %d\n", omp_target_alloc(0, dev) == NULL);
  int rc = omp_target_memcpy(d, p, N * sizeof(int), 0, 0, dev, host);
  omp_target_memset(d, 0, 4 * sizeof(int), dev);
  int back[N];
  rc |= omp_target_memcpy(back, d, N * sizeof(int), 0, 0, host, dev);
  printf("memcpy rc %d back[0]=%d back[4]=%d\n", rc, back[0], back[4]);
  printf("memcpy of nothing: %d\n", omp_target_memcpy(back, d, 0, 0, 0, host, dev));
  int m[4][4], r[4][4];
  for (int i = 0; i < 16; i++)
    ((int *)m)[i] = i;
  memset(r, 0, sizeof r);
  size_t vol[2] = {2, 2}, off[2] = {1, 1}, dims[2] = {4, 4}, zero[2] = {0, 0};
  rc = omp_target_memcpy_rect(d, m, sizeof(int), 2, vol, zero, off, dims, dims, dev, host);
  rc |= omp_target_memcpy_rect(r, d, sizeof(int), 2, vol, off, zero, dims, dims, host, dev);
  printf("rect rc %d r[1][1]=%d r[1][2]=%d r[2][1]=%d r[2][2]=%d max dims %d\n", rc, r[1][1],
         r[1][2], r[2][1], r[2][2], omp_target_memcpy_rect(NULL, NULL, 0, 0, NULL, NULL, NULL,
                                                           NULL, NULL, 0, 0) > 1000);
  int assoc[4] = {7, 7, 7, 7};
  rc = omp_target_associate_ptr(assoc, d, sizeof assoc, 0, dev);
  printf("associate rc %d present %d mapped %d again %d\n", rc, omp_target_is_present(assoc, dev),
         omp_get_mapped_ptr(assoc, dev) == d,
         omp_target_associate_ptr(assoc, d, sizeof assoc, 0, dev));
#pragma omp target map(tofrom : assoc) map(from : on_dev)
  {
    on_dev = !omp_is_initial_device();
    assoc[0] = 99;
  }
  printf("associated data stays on device: assoc[0]=%d on_dev %d\n", assoc[0], on_dev);
  printf("disassociate %d then %d\n", omp_target_disassociate_ptr(assoc, dev),
         omp_target_is_present(assoc, dev));
  printf("mapped ptr of initial device is itself: %d; bad device gives NULL: %d\n",
         omp_get_mapped_ptr(x, host) == x, omp_get_mapped_ptr(x, 17) == NULL);
  omp_target_free(d, dev);
  omp_target_free(NULL, dev);
  free(p);
  return 0;
}
