// C++: lambdas captured by reference and by value, device globals with constructors and
// destructors (they run when the device is first used and at exit), templates.
#include <cstdio>
#include <omp.h>
#include <vector>

struct Logger {
  int id;
  Logger(int i) : id(i) { std::printf("ctor %d on %s\n", id, omp_is_initial_device() ? "host" : "device"); }
  ~Logger() { std::printf("dtor %d on %s\n", id, omp_is_initial_device() ? "host" : "device"); }
};

#pragma omp declare target
Logger logger(1);
#pragma omp end declare target

Logger host_only(2);

template <typename T> T scaled(T v, T k) {
  T out{};
#pragma omp target map(from : out)
  out = v * k + (omp_is_initial_device() ? 0 : 1000);
  return out;
}

int main() {
  std::printf("main start\n");
  std::vector<int> v(8);
  for (int i = 0; i < 8; i++)
    v[i] = i;
  int *data = v.data();
  int factor = 3;
  int on_dev = -1;
  auto body = [&](int i) { data[i] *= factor; };
#pragma omp target map(tofrom : data[0 : 8]) map(from : on_dev)
  {
    on_dev = !omp_is_initial_device();
    for (int i = 0; i < 8; i++)
      body(i);
  }
  std::printf("lambda by reference: v[7]=%d on_dev %d\n", v[7], on_dev);
  auto byval = [=](int i) { return data[i] + factor; };
  int out[8];
#pragma omp target map(to : data[0 : 8]) map(from : out, on_dev)
  {
    on_dev = !omp_is_initial_device();
    for (int i = 0; i < 8; i++)
      out[i] = byval(i);
  }
  std::printf("lambda by value: out[7]=%d on_dev %d\n", out[7], on_dev);
  std::printf("template: %d %.1f\n", scaled(6, 7), scaled(1.5, 2.0));
  int id = -1;
#pragma omp target device(1) map(from : id)
  id = logger.id;
  std::printf("logger on device 1: %d\n", id);
  std::printf("main end\n");
  return 0;
}
