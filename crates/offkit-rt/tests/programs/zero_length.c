// A zero-length section through a pointer that is itself mapped (PTR_AND_OBJ: a declare-target
// pointer, a struct member) whose pointee is not mapped: 19 attaches NULL on the device (a
// plain local pointer passed as an argument keeps its host value instead, more.c).
#include <stdio.h>
#include <stdlib.h>
typedef struct { int a; int *p; } S;
int *gp;
#pragma omp declare target(gp)
int main(void) {
  int *p = malloc(16);
  gp = p;
  int x = -1;
  S s = {1, p};
  S *sp = &s;
#pragma omp target map(to: gp[0:0]) map(from: x)
  x = (gp == p) + 2 * (gp != 0);
  printf("global ptr: %d\n", x);
#pragma omp target map(to: s.p[0:0]) map(from: x)
  x = (s.p == p) + 2 * (s.p != 0);
  printf("member ptr: %d\n", x);
#pragma omp target map(to: sp->p[0:0]) map(from: x)
  x = (sp->p == p) + 2 * (sp->p != 0);
  printf("member via ptr: %d\n", x);
#pragma omp target data map(to: s.p[0:0])
#pragma omp target map(from: x)
  x = (s.p == p) + 2 * (s.p != 0);
  printf("member in data: %d\n", x);
  printf("host pointer kept: %d\n", s.p == p && gp == p);
  free(p);
  return 0;
}
