// The handle of a declare-mapper function is LLVM's MapperComponentsTy. Code compiled against
// LLVM's headers passes its own (LLVM's test mapping/declare_mapper_api.cpp declares it as a
// std::vector); 19's runtime reads it as the llvm::SmallVector it is, and so must offkit.
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <omp.h>

struct MapComponentInfoTy {
  void *Base;
  void *Begin;
  int64_t Size;
  int64_t Type;
  void *Name;
  MapComponentInfoTy() = default;
  MapComponentInfoTy(void *Base, void *Begin, int64_t Size, int64_t Type, void *Name)
      : Base(Base), Begin(Begin), Size(Size), Type(Type), Name(Name) {}
};

// As in LLVM's declare_mapper_api.cpp.
struct VectorComponentsTy {
  std::vector<MapComponentInfoTy> Components;
};

// llvm::SmallVector<MapComponentInfoTy> as LLVM 19 lays it out (one inline element).
struct SmallVectorComponentsTy {
  MapComponentInfoTy *Begin;
  uint32_t Size, Capacity;
  MapComponentInfoTy Inline[1];
  SmallVectorComponentsTy() : Begin(Inline), Size(0), Capacity(1) {}
  ~SmallVectorComponentsTy() {
    if (Begin != Inline)
      free(Begin);
  }
};

extern "C" {
int64_t __tgt_mapper_num_components(void *rt_mapper_handle);
void __tgt_push_mapper_component(void *rt_mapper_handle, void *base, void *begin, int64_t size,
                                 int64_t type, void *name);
void __tgt_target_data_begin_mapper(void *loc, int64_t device_id, int32_t arg_num,
                                    void **args_base, void **args, int64_t *arg_sizes,
                                    int64_t *arg_types, void **arg_names, void **arg_mappers);
void __tgt_target_data_end_mapper(void *loc, int64_t device_id, int32_t arg_num,
                                  void **args_base, void **args, int64_t *arg_sizes,
                                  int64_t *arg_types, void **arg_names, void **arg_mappers);
}

static int data[64];

// A hand-written mapper: the runtime's handle is a SmallVector too.
static void mapper(void *h, void *base, void *begin, int64_t size, int64_t type, void *name) {
  SmallVectorComponentsTy *sv = (SmallVectorComponentsTy *)h;
  printf("mapper: handle size %u capacity %u inline %d\n", sv->Size, sv->Capacity,
         sv->Begin == sv->Inline);
  for (int i = 0; i < 3; i++)
    __tgt_push_mapper_component(h, base, (int *)begin + 16 * i, 8 * sizeof(int), type, name);
  printf("mapper: pushed %" PRId64 ", size %u capacity %u inline %d third begins at +%td\n",
         __tgt_mapper_num_components(h), sv->Size, sv->Capacity, sv->Begin == sv->Inline,
         (int *)sv->Begin[2].Begin - data);
}

int main() {
  VectorComponentsTy MC;
  void *base = data, *begin = data + 1;
  __tgt_push_mapper_component((void *)&MC, base, begin, 4, 1, nullptr);
  __tgt_push_mapper_component((void *)&MC, base, begin, 8, 2, nullptr);
  printf("std::vector handle: num=%" PRId64 "\n", __tgt_mapper_num_components((void *)&MC));

  SmallVectorComponentsTy SV;
  for (int i = 0; i < 10; i++)
    __tgt_push_mapper_component((void *)&SV, base, data + i, i, 0x3, nullptr);
  int64_t total = 0;
  for (uint32_t i = 0; i < SV.Size; i++)
    total += SV.Begin[i].Size + ((int *)SV.Begin[i].Begin - data);
  printf("SmallVector handle: num=%" PRId64 " size %u capacity %u sum %" PRId64 "\n",
         __tgt_mapper_num_components((void *)&SV), SV.Size, SV.Capacity, total);

  // The runtime calls the mapper with its own handle and maps what it pushed.
  for (int i = 0; i < 64; i++)
    data[i] = i;
  void *bases[1] = {data}, *args[1] = {data};
  int64_t sizes[1] = {sizeof data}, types[1] = {0x1 /* to */};
  void *mappers[1] = {(void *)mapper};
  __tgt_target_data_begin_mapper(nullptr, 0, 1, bases, args, sizes, types, nullptr, mappers);
  printf("mapped: data[0] %d data[16] %d data[40] %d data[8] %d\n",
         omp_target_is_present(data, 0), omp_target_is_present(data + 16, 0),
         omp_target_is_present(data + 40, 0), omp_target_is_present(data + 8, 0));
  types[0] = 0x2; /* from */
  __tgt_target_data_end_mapper(nullptr, 0, 1, bases, args, sizes, types, nullptr, mappers);
  printf("unmapped: data[0] %d data[40] %d\n", omp_target_is_present(data, 0),
         omp_target_is_present(data + 40, 0));
  return 0;
}
