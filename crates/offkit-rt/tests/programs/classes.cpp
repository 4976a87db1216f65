// C++ classes: this[0:1], member pointers, reductions inside the kernel, teams loop.
#include <cstdio>
#include <omp.h>
#include <vector>
struct Grid {
  int n;
  double *v;
  double scale = 2.0;
  Grid(int n) : n(n), v(new double[n]) { for (int i = 0; i < n; i++) v[i] = i; }
  ~Grid() { delete[] v; }
  double sum() {
    double s = 0;
    int on_dev = -1;
#pragma omp target map(to : v[0 : n]) map(tofrom : s) map(from : on_dev)
    {
      on_dev = !omp_is_initial_device();
#pragma omp parallel for reduction(+ : s)
      for (int i = 0; i < n; i++) s += v[i] * scale;
    }
    std::printf("sum on_dev %d\n", on_dev);
    return s;
  }
  void bump() {
#pragma omp target map(tofrom : this[0 : 1], v[0 : n])
    for (int i = 0; i < n; i++) v[i] += scale;
  }
};
int main() {
  Grid g(100);
  std::printf("%.1f\n", g.sum());
  g.bump();
  std::printf("%.1f %.1f\n", g.v[0], g.sum());
  std::vector<float> xs(50, 1.5f);
  float *p = xs.data();
  float tot = 0;
#pragma omp target teams loop reduction(+ : tot) map(to : p[0 : 50])
  for (int i = 0; i < 50; i++) tot += p[i];
  std::printf("tot %.1f\n", tot);
  return 0;
}
