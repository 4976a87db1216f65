// More mapping rules: hold counts, zero-length sections, 2-D updates, pointer chains, always on
// exit, default-device fallback, nested mappers.
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct node {
  int val;
  struct node *next;
} node_t;

typedef struct {
  int n;
  int *data;
} inner_t;
typedef struct {
  inner_t in;
  double w;
} outer_t;
#pragma omp declare mapper(inner_t i) map(i, i.data[0 : i.n])
#pragma omp declare mapper(outer_t o) map(o, o.in)

int *gp;

int main(void) {
  int on_dev = -1;
  int x[8] = {0};

  // ompx_hold keeps data through a delete.
#pragma omp target data map(ompx_hold, tofrom : x)
  {
#pragma omp target exit data map(delete : x)
    printf("hold survives delete: %d\n", omp_target_is_present(x, 0));
#pragma omp target map(from : on_dev)
    {
      on_dev = !omp_is_initial_device();
      x[0] = 5;
    }
  }
  printf("after hold region: x[0]=%d present %d on_dev %d\n", x[0], omp_target_is_present(x, 0),
         on_dev);

  // A zero-length section of an unmapped pointer keeps its host value.
  int *p = malloc(4 * sizeof(int));
  int same = -1;
#pragma omp target map(p[0 : 0]) map(from : same, on_dev)
  {
    on_dev = !omp_is_initial_device();
    same = p != 0;
  }
  printf("zero-length: %d on_dev %d\n", same, on_dev);
  // A zero-length section of mapped data gets the device address.
#pragma omp target enter data map(to : p[0 : 4])
  int *seen = NULL;
#pragma omp target map(p[0 : 0]) map(from : seen)
  seen = p;
  printf("zero-length of mapped data: device address %d\n", seen == omp_get_mapped_ptr(p, 0));
#pragma omp target exit data map(delete : p[0 : 4])

  // 2-D strided update.
  int m[4][6];
  for (int i = 0; i < 24; i++)
    ((int *)m)[i] = i;
#pragma omp target data map(to : m)
  {
#pragma omp target map(from : on_dev)
    {
      on_dev = !omp_is_initial_device();
      for (int i = 0; i < 24; i++)
        ((int *)m)[i] += 100;
    }
#pragma omp target update from(m[1 : 2][0 : 3 : 2])
  }
  printf("2-D update:");
  for (int i = 0; i < 24; i++)
    printf(" %d", ((int *)m)[i]);
  printf(" on_dev %d\n", on_dev);

  // always from on exit while still referenced.
  int y[4] = {1, 1, 1, 1};
#pragma omp target enter data map(to : y)
#pragma omp target enter data map(to : y)
#pragma omp target map(from : on_dev)
  {
    on_dev = !omp_is_initial_device();
    y[0] = 9;
  }
#pragma omp target exit data map(always, from : y)
  printf("always from: y[0]=%d present %d\n", y[0], omp_target_is_present(y, 0));
#pragma omp target exit data map(release : y)

  // A linked list, two levels deep.
  node_t c = {3, NULL}, b = {2, &c}, a = {1, &b};
  node_t *head = &a;
#pragma omp target map(tofrom : head[0 : 1], head->next[0 : 1], head->next->next[0 : 1]) \
    map(from : on_dev)
  {
    on_dev = !omp_is_initial_device();
    head->val += 10;
    head->next->val += 10;
    head->next->next->val += 10;
  }
  printf("list %d %d %d links kept %d on_dev %d\n", a.val, b.val, c.val,
         a.next == &b && b.next == &c, on_dev);

  // A global pointer and its pointee.
  gp = calloc(4, sizeof(int));
#pragma omp target enter data map(to : gp[0 : 4])
#pragma omp target map(from : on_dev)
  {
    on_dev = !omp_is_initial_device();
    gp[2] = 42;
  }
#pragma omp target exit data map(from : gp[0 : 4])
  printf("global pointer: gp[2]=%d on_dev %d\n", gp[2], on_dev);

  // Nested mappers.
  int buf[5] = {1, 2, 3, 4, 5};
  outer_t o = {{5, buf}, 0.5};
#pragma omp target map(tofrom : o) map(from : on_dev)
  {
    on_dev = !omp_is_initial_device();
    for (int i = 0; i < o.in.n; i++)
      o.in.data[i] *= 2;
    o.w = 1.5;
  }
  printf("nested mapper: buf[4]=%d w %.1f pointer kept %d on_dev %d\n", buf[4], o.w,
         o.in.data == buf, on_dev);

  // device(omp_get_initial_device()) data constructs do nothing.
  int z = 1;
#pragma omp target enter data map(to : z) device(omp_get_initial_device())
  printf("initial device enter data: present on 0: %d\n", omp_target_is_present(&z, 0));
  free(p);
  free(gp);
  return 0;
}
