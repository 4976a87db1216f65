#pragma omp requires unified_shared_memory
int requires_b(int x) {
  int r = 0;
#pragma omp target map(from : r)
  r = x + 1;
  return r;
}
