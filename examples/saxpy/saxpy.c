// A device kernel library: compiled into libsaxpy.a, whose member carries the device code.
#include <omp.h>

#pragma omp declare target
float saxpy_scale = 2.0f;
#pragma omp end declare target

// y = scale * x + y on the offload device; returns 1 if the loop ran on the host instead.
int saxpy(int n, const float *x, float *y) {
  int on_host = 1;
#pragma omp target teams distribute parallel for map(to : x[0 : n]) map(tofrom : y[0 : n]) \
    map(from : on_host)
  for (int i = 0; i < n; ++i) {
    y[i] = saxpy_scale * x[i] + y[i];
    if (i == 0)
      on_host = omp_is_initial_device();
  }
  return on_host;
}
