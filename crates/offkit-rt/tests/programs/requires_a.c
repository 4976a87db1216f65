// Two translation units that disagree on `requires`.
#include <stdio.h>
int requires_b(int);
int main(void) {
  int r = 0;
#pragma omp target map(from : r)
  r = 1;
  printf("%d %d\n", r, requires_b(1));
  return 0;
}
