// What an OMPT tool sees (ompt_tool.c prints every target callback): target regions, data
// regions, updates, firstprivates, pointers, mappers, nowait, the device memory routines and
// an asynchronous copy run by a libomp task.
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct {
  int n;
  double *v;
} vec_t;
#pragma omp declare mapper(vec_t s) map(s, s.v[0 : s.n])

static void step(const char *what) {
  printf("-- %s\n", what);
  fflush(stdout);
}

int main(void) {
  int a[8], b[8], big[512], on_dev = -1;
  for (int i = 0; i < 8; i++)
    a[i] = i, b[i] = 0;
  for (int i = 0; i < 512; i++)
    big[i] = i;
  step("target");
#pragma omp target map(to : a) map(from : b, on_dev)
  {
    on_dev = !omp_is_initial_device();
    for (int i = 0; i < 8; i++)
      b[i] = a[i];
  }
  step("teams and firstprivates");
  int k = 3;
  double f = 0.5;
#pragma omp target teams num_teams(2) firstprivate(k, f, big) map(tofrom : b)
  if (omp_get_team_num() == 0)
    b[0] += k + (int)(2 * f) + big[511];
  step("pointer");
  int *buf = malloc(4 * sizeof(int));
#pragma omp target map(tofrom : buf[0 : 4])
  buf[1] = 7;
  step("mapper");
  double vals[3] = {1, 2, 3};
  vec_t v = {3, vals};
#pragma omp target map(tofrom : v)
  v.v[2] *= 2;
  step("enter, update, exit");
#pragma omp target enter data map(to : a)
#pragma omp target update from(a[2 : 3])
#pragma omp target exit data map(from : a)
  step("data region");
#pragma omp target data map(tofrom : b) use_device_ptr(buf)
  {
#pragma omp target update to(b)
  }
  step("nowait");
#pragma omp target map(tofrom : b) nowait
  b[1]++;
#pragma omp taskwait
  step("second device");
#pragma omp target device(1) map(tofrom : b)
  b[2]++;
  step("memory routines");
  int host = omp_get_initial_device();
  void *p = omp_target_alloc(32, 0), *p1 = omp_target_alloc(32, 1);
  omp_target_memcpy(p, a, 32, 0, 0, 0, host);
  omp_target_memcpy(p1, p, 32, 0, 0, 1, 0);
  omp_target_memcpy(b, p1, 32, 0, 0, host, 1);
  size_t vol[2] = {2, 2}, zero[2] = {0, 0}, dims[2] = {2, 4};
  omp_target_memcpy_rect(p, a, sizeof(int), 2, vol, zero, zero, dims, dims, 0, host);
  omp_target_memset(p, 0, 8, 0);
  omp_target_associate_ptr(b, p, 32, 0, 0);
  omp_target_disassociate_ptr(b, 0);
  step("async copy");
  omp_target_memcpy_async(b, p, 32, 0, 0, host, 0, 0, NULL);
#pragma omp taskwait
  omp_target_free(p, 0);
  omp_target_free(p1, 1);
  step("end");
  printf("b[0]=%d buf[1]=%d vals[2]=%.0f on_dev %d\n", b[0], buf[1], vals[2], on_dev);
  free(buf);
  return 0;
}
