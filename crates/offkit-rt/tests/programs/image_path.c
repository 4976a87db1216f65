// Where the device image lives: the file backing the device copy of a global.
#include <omp.h>
#include <stdio.h>
#include <string.h>

int g = 1;
#pragma omp declare target(g)

int main(void) {
  char path[256] = "";
  int on_dev = -1;
#pragma omp target map(from : path, on_dev)
  {
    on_dev = !omp_is_initial_device();
    unsigned long want = (unsigned long)&g;
    FILE *f = fopen("/proc/self/maps", "r");
    char line[512];
    while (f && fgets(line, sizeof line, f)) {
      unsigned long lo, hi;
      char *p = strchr(line, '/');
      if (sscanf(line, "%lx-%lx", &lo, &hi) == 2 && lo <= want && want < hi && p) {
        strncpy(path, p, sizeof path - 1);
        break;
      }
    }
    if (f)
      fclose(f);
  }
  printf("on_dev %d image %s", on_dev, path);
  return 0;
}
