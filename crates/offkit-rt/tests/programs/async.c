// omp_target_memcpy_async / _rect_async / memset_async with depobj dependences: each copy is a
// task that waits for the tasks its depend objects name (a slow task writes first, the copy
// lands after it), and a later task waits for the copy.
#include <omp.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define N 16

static void slow_fill(int *dst, int v, int dev, int host) {
  int tmp[N];
  usleep(100000);
  for (int i = 0; i < N; i++)
    tmp[i] = v;
  omp_target_memcpy(dst, tmp, sizeof tmp, 0, 0, dev, host);
}

int main(void) {
  int dev = 0, host = omp_get_initial_device();
  int *d = omp_target_alloc(N * sizeof(int), dev);
  int src[N], back[N];
  for (int i = 0; i < N; i++)
    src[i] = 100 + i;
  int rc = -1, rc_rect = -1;
  omp_depend_t obj[2];

  // A slow writer, then the asynchronous copy that depends on it, then a reader.
#pragma omp parallel num_threads(2)
#pragma omp single
  {
#pragma omp task depend(out : d)
    slow_fill(d, 7, dev, host);
#pragma omp depobj(obj[0]) depend(inout : d)
    rc = omp_target_memcpy_async(d, src, N * sizeof(int), 0, 0, dev, host, 1, obj);
#pragma omp task depend(in : d)
    omp_target_memcpy(back, d, N * sizeof(int), 0, 0, host, dev);
  }
#pragma omp taskwait
  printf("memcpy_async rc %d back[0]=%d back[15]=%d\n", rc, back[0], back[15]);

  // The rectangular copy: a 2x2 block out of a 4x4 matrix, after a slow writer of the
  // destination.
  int m[4][4], r[4][4];
  for (int i = 0; i < 16; i++)
    ((int *)m)[i] = i;
  size_t vol[2] = {2, 2}, off[2] = {1, 1}, dims[2] = {4, 4}, zero[2] = {0, 0};
#pragma omp parallel num_threads(2)
#pragma omp single
  {
#pragma omp task depend(out : d)
    slow_fill(d, 9, dev, host);
#pragma omp depobj(obj[0]) depend(inout : d)
#pragma omp depobj(obj[1]) depend(in : m)
    rc_rect = omp_target_memcpy_rect_async(d, m, sizeof(int), 2, vol, zero, off, dims, dims, dev,
                                           host, 2, obj);
  }
#pragma omp taskwait
  memset(r, 0, sizeof r);
  omp_target_memcpy(r, d, 16 * sizeof(int), 0, 0, host, dev);
  // The block lands at the start of d after the slow writer's 9s.
  printf("rect_async rc %d block %d %d %d %d, untouched %d\n", rc_rect, r[0][0], r[0][1], r[1][0],
         r[1][1], r[2][2]);

  // memset_async after a slow writer.
  void *ret = NULL;
#pragma omp parallel num_threads(2)
#pragma omp single
  {
#pragma omp task depend(out : d)
    slow_fill(d, 5, dev, host);
#pragma omp depobj(obj[0]) depend(inout : d)
    ret = omp_target_memset_async(d, 0, 8 * sizeof(int), dev, 1, obj);
  }
#pragma omp taskwait
  omp_target_memcpy(back, d, N * sizeof(int), 0, 0, host, dev);
  printf("memset_async returns its pointer %d back[0]=%d back[7]=%d back[8]=%d\n", ret == d,
         back[0], back[7], back[8]);

  // No dependences: the copy is still a task, done by the next taskwait.
  rc = omp_target_memcpy_async(d, src, N * sizeof(int), 0, 0, dev, host, 0, NULL);
#pragma omp taskwait
  omp_target_memcpy(back, d, N * sizeof(int), 0, 0, host, dev);
  printf("no dependences rc %d back[3]=%d\n", rc, back[3]);

  // Argument checks made before any task.
  printf("null pointers: %d %d, rect of nothing: %d\n",
         omp_target_memcpy_async(NULL, src, 4, 0, 0, dev, host, 0, NULL),
         omp_target_memcpy_rect_async(d, NULL, 4, 1, vol, zero, zero, dims, dims, dev, host, 0,
                                      NULL),
         omp_target_memcpy_rect_async(NULL, NULL, 0, 0, NULL, NULL, NULL, NULL, NULL, dev, host,
                                      0, NULL) > 1000);
  printf("memset_async of nothing: %d\n",
         omp_target_memset_async(d, 1, 0, dev, 0, NULL) == d);
  omp_target_free(d, dev);
  return 0;
}
