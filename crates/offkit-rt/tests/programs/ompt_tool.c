// A small OMPT tool: registers the target callbacks (EMI ones, or with OMPT_TOOL_MODE=plain
// the others) and the device callbacks, and prints every call with its arguments, addresses
// made comparable between runs and runtimes: code addresses as object+offset (the runtime's
// own as a number), data pointers numbered in the order they first appear.
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <inttypes.h>
#include <omp-tools.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXP 4096
static const void *seen[MAXP];
static int nseen;
static char bufs[16][64];
static int nbuf;

static const char *ptr(const void *p) {
  char *b = bufs[nbuf++ % 16];
  if (!p) return "(nil)";
  for (int i = 0; i < nseen; i++)
    if (seen[i] == p) { snprintf(b, 64, "P%d", i + 1); return b; }
  if (nseen < MAXP) seen[nseen++] = p;
  snprintf(b, 64, "P%d", nseen);
  return b;
}

static const char *code(const void *p) {
  Dl_info info;
  char *b = bufs[nbuf++ % 16];
  if (!p) return "(nil)";
  if (dladdr(p, &info) && info.dli_fname) {
    const char *base = strrchr(info.dli_fname, '/');
    base = base ? base + 1 : info.dli_fname;
    if (!strncmp(base, "libomptarget", 12)) return ptr(p); // the runtime's own code differs
    snprintf(b, 64, "%s+0x%lx", *base ? base : "exe", (unsigned long)((const char *)p - (const char *)info.dli_fbase));
    return b;
  }
  return ptr(p);
}

static const char *ops[] = {"", "alloc", "to_device", "from_device", "delete", "associate", "disassociate",
                            "alloc_async", "to_device_async", "from_device_async", "delete_async"};
static const char *eps[] = {"", "begin", "end", "beginend"};
static const char *kinds[] = {"", "target", "enter_data", "exit_data", "update", "", "", "", "", "",
                              "target_nowait", "enter_data_nowait", "exit_data_nowait", "update_nowait"};
static uint64_t next_id = 0x8000000000000001ull;

static void on_device_initialize(int dev, const char *type, ompt_device_t *device, ompt_function_lookup_t lookup,
                                 const char *doc) {
  printf("device_initialize dev=%d type=%s device=%s lookup=%s doc=%s\n", dev, type, ptr(device), code((void *)lookup),
         doc ? doc : "(nil)");
}
static void on_device_finalize(int dev) { printf("device_finalize dev=%d\n", dev); }
static void on_device_load(int dev, const char *file, int64_t off, void *vma, size_t bytes, void *host, void *devaddr,
                           uint64_t module) {
  printf("device_load dev=%d file=%s off=%" PRId64 " vma=%s bytes=%zu host=%s devaddr=%s module=%" PRIu64 "\n", dev,
         file ? file : "(nil)", off, ptr(vma), bytes, code(host), ptr(devaddr), module);
}
static void on_target_emi(ompt_target_t kind, ompt_scope_endpoint_t ep, int dev, ompt_data_t *task,
                          ompt_data_t *target_task, ompt_data_t *target, const void *ra) {
  if (ep == ompt_scope_begin) target->value = next_id++;
  printf("target_emi %s %s dev=%d task=%s(%" PRIx64 ") target_task=%s(%" PRIx64 ") target=%s(%" PRIx64 ") code=%s\n",
         kinds[kind], eps[ep], dev, ptr(task), task ? task->value : 0, ptr(target_task),
         target_task ? target_task->value : 0, ptr(target), target->value, code(ra));
}
static void on_data_op_emi(ompt_scope_endpoint_t ep, ompt_data_t *target_task, ompt_data_t *target, ompt_id_t *op,
                           ompt_target_data_op_t optype, void *src, int srcdev, void *dst, int dstdev, size_t bytes,
                           const void *ra) {
  if (ep == ompt_scope_begin) *op = next_id++;
  printf("  data_op_emi %s %s target_task=%s(%" PRIx64 ") target=%s(%" PRIx64 ") op=%s(%" PRIx64
         ") src=%s/%d dst=%s/%d bytes=%zu code=%s\n",
         ops[optype], eps[ep], ptr(target_task), target_task ? target_task->value : 0, ptr(target), target->value,
         ptr(op), *op, ptr(src), srcdev, ptr(dst), dstdev, bytes, code(ra));
}
static void on_submit_emi(ompt_scope_endpoint_t ep, ompt_data_t *target, ompt_id_t *op, unsigned teams) {
  if (ep == ompt_scope_begin) *op = next_id++;
  printf("  submit_emi %s target=%s(%" PRIx64 ") op=%s(%" PRIx64 ") teams=%u\n", eps[ep], ptr(target), target->value,
         ptr(op), *op, teams);
}
static void on_target(ompt_target_t kind, ompt_scope_endpoint_t ep, int dev, ompt_data_t *task, ompt_id_t id,
                      const void *ra) {
  printf("target %s %s dev=%d task=%s id=%" PRIu64 " code=%s\n", kinds[kind], eps[ep], dev, ptr(task), id, code(ra));
}
static void on_data_op(ompt_id_t id, ompt_id_t op, ompt_target_data_op_t optype, void *src, int srcdev, void *dst,
                       int dstdev, size_t bytes, const void *ra) {
  printf("  data_op %s id=%" PRIu64 " op=%" PRIu64 " src=%s/%d dst=%s/%d bytes=%zu code=%s\n", ops[optype], id, op,
         ptr(src), srcdev, ptr(dst), dstdev, bytes, code(ra));
}
static void on_submit(ompt_id_t id, ompt_id_t op, unsigned teams) {
  printf("  submit id=%" PRIu64 " op=%" PRIu64 " teams=%u\n", id, op, teams);
}

static int tool_initialize(ompt_function_lookup_t lookup, int initial, ompt_data_t *data) {
  ompt_set_callback_t set = (ompt_set_callback_t)lookup("ompt_set_callback");
  const char *mode = getenv("OMPT_TOOL_MODE");
  int emi = !mode || strcmp(mode, "plain");
  printf("tool initialize initial_device=%d mode=%s\n", initial, emi ? "emi" : "plain");
#define REG(cb, fn) printf("set %s: %d\n", #cb, set(cb, (ompt_callback_t)fn))
  REG(ompt_callback_device_initialize, on_device_initialize);
  REG(ompt_callback_device_finalize, on_device_finalize);
  REG(ompt_callback_device_load, on_device_load);
  if (emi) {
    REG(ompt_callback_target_emi, on_target_emi);
    REG(ompt_callback_target_data_op_emi, on_data_op_emi);
    REG(ompt_callback_target_submit_emi, on_submit_emi);
  } else {
    REG(ompt_callback_target, on_target);
    REG(ompt_callback_target_data_op, on_data_op);
    REG(ompt_callback_target_submit, on_submit);
  }
  fflush(stdout);
  return 1;
}
static void tool_finalize(ompt_data_t *data) { printf("tool finalize\n"); fflush(stdout); }

ompt_start_tool_result_t *ompt_start_tool(unsigned int version, const char *runtime) {
  static ompt_start_tool_result_t r = {&tool_initialize, &tool_finalize, {0}};
  printf("ompt_start_tool\n");
  return &r;
}
