// nowait regions from several threads, and enter/exit data of shared data under contention.
#include <omp.h>
#include <stdio.h>

#define T 4
#define N 256
#define ITER 200

int main(void) {
  static int shared[N];
  static int own[T][N];
  int ok[T] = {0};
  for (int i = 0; i < N; i++)
    shared[i] = 1;
#pragma omp parallel num_threads(T)
  {
    int t = omp_get_thread_num();
    for (int it = 0; it < ITER; it++) {
#pragma omp target enter data map(to : shared)
      int *mine = own[t];
#pragma omp target map(tofrom : mine[0 : N]) map(to : shared) nowait
      {
        if (!omp_is_initial_device())
          for (int i = 0; i < N; i++)
            mine[i] += shared[i];
      }
#pragma omp target exit data map(release : shared)
#pragma omp taskwait
    }
    int good = 1;
    for (int i = 0; i < N; i++)
      good &= own[t][i] == ITER;
    ok[t] = good;
  }
  int all = 1;
  for (int t = 0; t < T; t++)
    all &= ok[t];
  printf("all threads ok: %d, shared present at end: %d\n", all, omp_target_is_present(shared, 0));

  // nowait data constructs and a dependence chain.
  int x[N];
  for (int i = 0; i < N; i++)
    x[i] = i;
#pragma omp target enter data map(to : x) nowait depend(out : x)
#pragma omp target map(tofrom : x) nowait depend(inout : x)
  {
    if (!omp_is_initial_device())
      for (int i = 0; i < N; i++)
        x[i] *= 2;
  }
#pragma omp target exit data map(from : x) nowait depend(in : x)
#pragma omp taskwait
  printf("x[100]=%d present %d\n", x[100], omp_target_is_present(x, 0));
  return 0;
}
