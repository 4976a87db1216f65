// LIBOMPTARGET_INFO output (compared with addresses normalised).
#include <omp.h>
#include <stdio.h>
int main(void) {
  int payload[16] = {0};
  int on_dev = -1;
#pragma omp target map(tofrom : payload) map(from : on_dev)
  {
    on_dev = !omp_is_initial_device();
    payload[0] = 1;
  }
#pragma omp target enter data map(to : payload)
#pragma omp target update from(payload)
#pragma omp target exit data map(delete : payload)
  printf("on_dev %d payload[0] %d\n", on_dev, payload[0]);
  return 0;
}
