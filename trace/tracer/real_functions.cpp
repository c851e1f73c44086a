// Resolution of the next definitions and the bootstrap arena (see real_functions.hpp).
#include "real_functions.hpp"

#include <dlfcn.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>

#include "tracer_messages.hpp"

namespace allocstress::tracer {

RealFunctions g_real{};
std::atomic<bool> g_resolved{false};

alignas(64) unsigned char g_arena[kArenaBytes];

namespace {

std::atomic<std::size_t> g_arena_used{0};
constexpr std::size_t kArenaHeader = 16;  // each block is preceded by its size

template <class Fn>
void resolve(Fn& slot, const char* name, bool required) {
  slot = reinterpret_cast<Fn>(dlsym(RTLD_NEXT, name));
  if (slot == nullptr && required) fatal("cannot find the next definition of ", name, " (dlsym(RTLD_NEXT) failed)");
}

}  // namespace

void resolve_real_functions() {
  RealFunctions& r = g_real;
  resolve(r.malloc, "malloc", true);
  resolve(r.calloc, "calloc", true);
  resolve(r.realloc, "realloc", true);
  resolve(r.reallocarray, "reallocarray", false);
  resolve(r.free, "free", true);
  resolve(r.posix_memalign, "posix_memalign", true);
  resolve(r.aligned_alloc, "aligned_alloc", false);
  resolve(r.memalign, "memalign", false);
  resolve(r.valloc, "valloc", false);
  resolve(r.pvalloc, "pvalloc", false);
  // Operator new/delete exist only once libstdc++ (or an allocator defining them) is loaded;
  // the wrappers resolve them again when a library loaded later calls them (resolve_late).
  resolve(r.op_new, "_Znwm", false);
  resolve(r.op_new_array, "_Znam", false);
  resolve(r.op_new_nothrow, "_ZnwmRKSt9nothrow_t", false);
  resolve(r.op_new_array_nothrow, "_ZnamRKSt9nothrow_t", false);
  resolve(r.op_new_aligned, "_ZnwmSt11align_val_t", false);
  resolve(r.op_new_array_aligned, "_ZnamSt11align_val_t", false);
  resolve(r.op_new_aligned_nothrow, "_ZnwmSt11align_val_tRKSt9nothrow_t", false);
  resolve(r.op_new_array_aligned_nothrow, "_ZnamSt11align_val_tRKSt9nothrow_t", false);
  resolve(r.op_delete, "_ZdlPv", false);
  resolve(r.op_delete_array, "_ZdaPv", false);
  resolve(r.op_delete_sized, "_ZdlPvm", false);
  resolve(r.op_delete_array_sized, "_ZdaPvm", false);
  resolve(r.op_delete_aligned, "_ZdlPvSt11align_val_t", false);
  resolve(r.op_delete_array_aligned, "_ZdaPvSt11align_val_t", false);
  resolve(r.op_delete_sized_aligned, "_ZdlPvmSt11align_val_t", false);
  resolve(r.op_delete_array_sized_aligned, "_ZdaPvmSt11align_val_t", false);
  resolve(r.op_delete_nothrow, "_ZdlPvRKSt9nothrow_t", false);
  resolve(r.op_delete_array_nothrow, "_ZdaPvRKSt9nothrow_t", false);
  resolve(r.op_delete_aligned_nothrow, "_ZdlPvSt11align_val_tRKSt9nothrow_t", false);
  resolve(r.op_delete_array_aligned_nothrow, "_ZdaPvSt11align_val_tRKSt9nothrow_t", false);
  resolve(r.execve, "execve", true);
  resolve(r.execvp, "execvp", true);
  resolve(r.execvpe, "execvpe", true);
  resolve(r.fexecve, "fexecve", true);
  resolve(r.exit_now, "_exit", true);
  resolve(r.exit_now_c99, "_Exit", true);
  resolve(r.sigaction, "sigaction", true);
  g_resolved.store(true, std::memory_order_release);
}

void* resolve_late_symbol(const char* name) {
  void* p = dlsym(RTLD_NEXT, name);
  if (p == nullptr) fatal(name, " was called but no library after the tracer defines it");
  return p;
}

void* arena_allocate(std::size_t size, std::size_t alignment) {
  if (alignment < kArenaHeader) alignment = kArenaHeader;
  if (size > kArenaBytes || alignment > 4096) return nullptr;
  std::size_t used = g_arena_used.load(std::memory_order_relaxed);
  for (;;) {
    const std::size_t start = (used + kArenaHeader + alignment - 1) & ~(alignment - 1);
    const std::size_t end = start + ((size + 15) & ~std::size_t(15));
    if (end > kArenaBytes) return nullptr;
    if (g_arena_used.compare_exchange_weak(used, end, std::memory_order_relaxed)) {
      std::memcpy(g_arena + start - kArenaHeader, &size, sizeof size);
      return g_arena + start;
    }
  }
}

std::size_t arena_block_size(const void* p) {
  std::size_t size;
  std::memcpy(&size, static_cast<const unsigned char*>(p) - kArenaHeader, sizeof size);
  return size;
}

}  // namespace allocstress::tracer
