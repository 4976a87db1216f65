// Microbenchmark of the runtime's hot paths (bench/runtime.sh): an empty target region, a launch
// with present data, and target enter+exit data of 4 KiB. Prints the median ns per operation of
// ROUNDS rounds of ITERS operations each, after a warm-up.
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define ITERS 2000
#define ROUNDS 51

static double now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static char buf[4096];
static int sink;

static void empty(void) {
#pragma omp target
  { sink += 0; }
}

static void present(void) {
#pragma omp target map(present, tofrom : buf)
  { buf[0] ^= 1; }
}

static void enter_exit(void) {
#pragma omp target enter data map(to : buf)
#pragma omp target exit data map(release : buf)
}

static double median(void (*f)(void)) {
  double r[ROUNDS];
  for (int i = 0; i < ITERS * 5; i++)
    f();
  for (int k = 0; k < ROUNDS; k++) {
    double t0 = now_ns();
    for (int i = 0; i < ITERS; i++)
      f();
    r[k] = (now_ns() - t0) / ITERS;
  }
  qsort(r, ROUNDS, sizeof r[0], cmp);
  return r[ROUNDS / 2];
}

int main(void) {
  int on_dev = 0;
#pragma omp target map(from : on_dev)
  on_dev = !omp_is_initial_device();
  if (!on_dev) {
    fprintf(stderr, "the regions do not run on a device\n");
    return 1;
  }
  double e = median(empty);
  double ee = median(enter_exit);
#pragma omp target enter data map(to : buf)
  double p = median(present);
#pragma omp target exit data map(release : buf)
  printf("%.0f %.0f %.0f\n", e, p, ee);
  return 0;
}
