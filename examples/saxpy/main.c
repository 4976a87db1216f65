// offkit's example program: an OpenMP offloading program whose device code lives partly in a
// static library. Built for the x86_64 offload target it runs here, on the host's CPU plugin of
// libomptarget, without a GPU.
#include <omp.h>
#include <stdio.h>

int saxpy(int n, const float *x, float *y);

int main(void) {
  enum { N = 1024 };
  float x[N], y[N];
  for (int i = 0; i < N; ++i) {
    x[i] = (float)i;
    y[i] = 1.0f;
  }
  int on_host = saxpy(N, x, y);
  int ok = 1;
  for (int i = 0; i < N; ++i)
    ok &= y[i] == 2.0f * (float)i + 1.0f;
  printf("saxpy on %d element(s): %s, target region ran on the %s (devices: %d)\n", N,
         ok ? "correct" : "WRONG", on_host ? "host" : "offload device", omp_get_num_devices());
  return ok && !on_host ? 0 : 1;
}
