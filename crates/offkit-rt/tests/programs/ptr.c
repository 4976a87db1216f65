// Pointers: PTR_AND_OBJ attachment, struct members (MEMBER_OF), declare mapper,
// declare target link, strided update.
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct {
  int n;
  double *v;
  int tag;
} vec_t;

#pragma omp declare mapper(vec_t s) map(s, s.v[0 : s.n])

int linked[8] = {1, 2, 3, 4, 5, 6, 7, 8};
#pragma omp declare target link(linked)

typedef struct {
  int a;
  int b[4];
  int c;
} parts_t;

int main(void) {
  int on_dev = -1;
  int n = 6;
  double *buf = malloc(n * sizeof(double));
  for (int i = 0; i < n; i++)
    buf[i] = i;

  // A pointer and its pointee: the device pointer is attached, the host one restored.
#pragma omp target map(tofrom : buf[0 : n]) map(from : on_dev)
  {
    on_dev = !omp_is_initial_device();
    for (int i = 0; i < n; i++)
      buf[i] *= 2;
  }
  printf("buf[5]=%.1f on_dev %d\n", buf[5], on_dev);

  // A struct member pointer without a mapper.
  vec_t s = {n, buf, 7};
#pragma omp target map(tofrom : s, s.v[0 : s.n]) map(from : on_dev)
  {
    on_dev = !omp_is_initial_device();
    for (int i = 0; i < s.n; i++)
      s.v[i] += 1;
    s.tag = 8;
  }
  printf("s.v[5]=%.1f tag %d host pointer kept %d on_dev %d\n", s.v[5], s.tag, s.v == buf, on_dev);

  // The same through the declare mapper.
  vec_t m = {n, buf, 1};
#pragma omp target map(tofrom : m) map(from : on_dev)
  {
    on_dev = !omp_is_initial_device();
    for (int i = 0; i < m.n; i++)
      m.v[i] *= 10;
    m.tag = 2;
  }
  printf("mapper: m.v[5]=%.1f tag %d host pointer kept %d on_dev %d\n", m.v[5], m.tag,
         m.v == buf, on_dev);
#pragma omp target enter data map(to : m)
#pragma omp target map(from : on_dev)
  {
    on_dev = !omp_is_initial_device();
    m.v[0] = -5;
  }
#pragma omp target update from(m)
  printf("mapper enter+update: m.v[0]=%.1f pointer kept %d on_dev %d\n", m.v[0], m.v == buf,
         on_dev);
#pragma omp target exit data map(from : m)

  // Struct members: only parts of a struct are mapped.
  parts_t p = {1, {2, 3, 4, 5}, 6};
#pragma omp target map(tofrom : p.b[1 : 2], p.c) map(from : on_dev)
  {
    on_dev = !omp_is_initial_device();
    p.b[1] += 10;
    p.b[2] += 10;
    p.c += 10;
  }
  printf("parts a %d b %d %d %d %d c %d on_dev %d\n", p.a, p.b[0], p.b[1], p.b[2], p.b[3], p.c,
         on_dev);

  // declare target link: mapping the variable allocates it and patches the device reference.
#pragma omp target map(tofrom : linked) map(from : on_dev)
  {
    on_dev = !omp_is_initial_device();
    for (int i = 0; i < 8; i++)
      linked[i] *= 3;
  }
  printf("linked[7]=%d on_dev %d\n", linked[7], on_dev);

  // Strided target update (clang-19 emits it as contiguous).
  int grid[16];
  for (int i = 0; i < 16; i++)
    grid[i] = i;
#pragma omp target data map(to : grid)
  {
#pragma omp target map(from : on_dev)
    {
      on_dev = !omp_is_initial_device();
      for (int i = 0; i < 16; i++)
        grid[i] = -grid[i];
    }
#pragma omp target update from(grid[0 : 4 : 2])
  }
  printf("strided:");
  for (int i = 0; i < 16; i++)
    printf(" %d", grid[i]);
  printf(" on_dev %d\n", on_dev);
  free(buf);
  return 0;
}
