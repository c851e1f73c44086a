// Every operator new/delete variant: plain, [], nothrow, aligned, aligned nothrow; delete also
// sized and sized+aligned.  Each forwards to the next definition (libstdc++'s, or an allocator's
// that defines its own), so the semantics stay those of the real one: a throwing new calls the
// new_handler and throws std::bad_alloc (recorded as a failed call, address 0, see
// guarded_new.h), a nothrow new returns nullptr.  The malloc/aligned_alloc/free that libstdc++'s
// operators call internally run under the guard: one operator event per call.
// Limitation: a new_handler runs under the guard too; its own allocations are not recorded.
#include <new>

#include "guarded_new.h"
#include "traced_call.hpp"

#define ALLOCSTRESS_EXPORT __attribute__((visibility("default"), flatten))

using namespace allocstress::tracer;

namespace {

// A throwing operator new: plain and [] (fn.plain), aligned and aligned [] (fn.aligned).
void* traced_throwing_new(const as_new_call& call) {
  ThreadState& t = t_state;
  if (t.guard != 0) return call.alignment != 0 ? call.fn.aligned(call.size, call.alignment) : call.fn.plain(call.size);
  ++t.guard;
  const std::size_t size = call.size, alignment = call.alignment;
  void* const site = const_cast<void*>(call.site);
  const TraceOp op = TraceOp(call.op);
  void* const p = as_call_new(&call);
  const std::uint64_t tsc = read_tsc();
  record(TraceEvent{.tsc = tsc, .address = as_u64(p), .size = size, .alignment = alignment, .call_site = as_u64(site), .op = op});
  --t.guard;
  return p;
}

// The real function; resolved under the guard (dlsym allocates) on first use.
template <class Fn>
Fn real_function(Fn& slot, const char* name) {
  const Fn fn = __atomic_load_n(&slot, __ATOMIC_RELAXED);
  if (__builtin_expect(fn != nullptr, 1)) return fn;
  GuardScope guard;
  ensure_started();
  return next_function(slot, name);
}

}  // namespace

extern "C" void as_new_failed(const as_new_call* call) {
  record(TraceEvent{.tsc = read_tsc(), .size = call->size, .alignment = call->alignment, .call_site = as_u64(call->site),
                    .op = TraceOp(call->op)});
  --t_state.guard;
}

#define TRACER_SITE __builtin_return_address(0)
#define TRACER_REAL(slot, symbol) real_function(g_real.slot, symbol)

ALLOCSTRESS_EXPORT void* operator new(std::size_t size) {
  return traced_throwing_new({{.plain = TRACER_REAL(op_new, "_Znwm")}, size, 0, unsigned(TraceOp::op_new), TRACER_SITE});
}
ALLOCSTRESS_EXPORT void* operator new[](std::size_t size) {
  return traced_throwing_new({{.plain = TRACER_REAL(op_new_array, "_Znam")}, size, 0, unsigned(TraceOp::op_new_array), TRACER_SITE});
}
ALLOCSTRESS_EXPORT void* operator new(std::size_t size, std::align_val_t al) {
  return traced_throwing_new(
      {{.aligned = TRACER_REAL(op_new_aligned, "_ZnwmSt11align_val_t")}, size, std::size_t(al), unsigned(TraceOp::op_new_aligned), TRACER_SITE});
}
ALLOCSTRESS_EXPORT void* operator new[](std::size_t size, std::align_val_t al) {
  return traced_throwing_new({{.aligned = TRACER_REAL(op_new_array_aligned, "_ZnamSt11align_val_t")}, size, std::size_t(al),
                              unsigned(TraceOp::op_new_array_aligned), TRACER_SITE});
}

ALLOCSTRESS_EXPORT void* operator new(std::size_t size, const std::nothrow_t& tag) noexcept {
  const NewNothrowFn fn = TRACER_REAL(op_new_nothrow, "_ZnwmRKSt9nothrow_t");
  return traced_allocation(TraceOp::op_new_nothrow, size, 0, TRACER_SITE, [&] { return fn(size, &tag); });
}
ALLOCSTRESS_EXPORT void* operator new[](std::size_t size, const std::nothrow_t& tag) noexcept {
  const NewNothrowFn fn = TRACER_REAL(op_new_array_nothrow, "_ZnamRKSt9nothrow_t");
  return traced_allocation(TraceOp::op_new_array_nothrow, size, 0, TRACER_SITE, [&] { return fn(size, &tag); });
}
ALLOCSTRESS_EXPORT void* operator new(std::size_t size, std::align_val_t al, const std::nothrow_t& tag) noexcept {
  const NewAlignedNothrowFn fn = TRACER_REAL(op_new_aligned_nothrow, "_ZnwmSt11align_val_tRKSt9nothrow_t");
  return traced_allocation(TraceOp::op_new_aligned_nothrow, size, std::size_t(al), TRACER_SITE, [&] { return fn(size, std::size_t(al), &tag); });
}
ALLOCSTRESS_EXPORT void* operator new[](std::size_t size, std::align_val_t al, const std::nothrow_t& tag) noexcept {
  const NewAlignedNothrowFn fn = TRACER_REAL(op_new_array_aligned_nothrow, "_ZnamSt11align_val_tRKSt9nothrow_t");
  return traced_allocation(TraceOp::op_new_array_aligned_nothrow, size, std::size_t(al), TRACER_SITE,
                           [&] { return fn(size, std::size_t(al), &tag); });
}

ALLOCSTRESS_EXPORT void operator delete(void* p) noexcept {
  const DeleteFn fn = TRACER_REAL(op_delete, "_ZdlPv");
  traced_free(TraceOp::op_delete, p, 0, 0, TRACER_SITE, [&] { fn(p); });
}
ALLOCSTRESS_EXPORT void operator delete[](void* p) noexcept {
  const DeleteFn fn = TRACER_REAL(op_delete_array, "_ZdaPv");
  traced_free(TraceOp::op_delete_array, p, 0, 0, TRACER_SITE, [&] { fn(p); });
}
ALLOCSTRESS_EXPORT void operator delete(void* p, std::size_t size) noexcept {
  const DeleteSizedFn fn = TRACER_REAL(op_delete_sized, "_ZdlPvm");
  traced_free(TraceOp::op_delete_sized, p, size, 0, TRACER_SITE, [&] { fn(p, size); });
}
ALLOCSTRESS_EXPORT void operator delete[](void* p, std::size_t size) noexcept {
  const DeleteSizedFn fn = TRACER_REAL(op_delete_array_sized, "_ZdaPvm");
  traced_free(TraceOp::op_delete_array_sized, p, size, 0, TRACER_SITE, [&] { fn(p, size); });
}
ALLOCSTRESS_EXPORT void operator delete(void* p, std::align_val_t al) noexcept {
  const DeleteSizedFn fn = TRACER_REAL(op_delete_aligned, "_ZdlPvSt11align_val_t");
  traced_free(TraceOp::op_delete_aligned, p, 0, std::size_t(al), TRACER_SITE, [&] { fn(p, std::size_t(al)); });
}
ALLOCSTRESS_EXPORT void operator delete[](void* p, std::align_val_t al) noexcept {
  const DeleteSizedFn fn = TRACER_REAL(op_delete_array_aligned, "_ZdaPvSt11align_val_t");
  traced_free(TraceOp::op_delete_array_aligned, p, 0, std::size_t(al), TRACER_SITE, [&] { fn(p, std::size_t(al)); });
}
ALLOCSTRESS_EXPORT void operator delete(void* p, std::size_t size, std::align_val_t al) noexcept {
  const DeleteSizedAlignedFn fn = TRACER_REAL(op_delete_sized_aligned, "_ZdlPvmSt11align_val_t");
  traced_free(TraceOp::op_delete_sized_aligned, p, size, std::size_t(al), TRACER_SITE, [&] { fn(p, size, std::size_t(al)); });
}
ALLOCSTRESS_EXPORT void operator delete[](void* p, std::size_t size, std::align_val_t al) noexcept {
  const DeleteSizedAlignedFn fn = TRACER_REAL(op_delete_array_sized_aligned, "_ZdaPvmSt11align_val_t");
  traced_free(TraceOp::op_delete_array_sized_aligned, p, size, std::size_t(al), TRACER_SITE, [&] { fn(p, size, std::size_t(al)); });
}
ALLOCSTRESS_EXPORT void operator delete(void* p, const std::nothrow_t& tag) noexcept {
  const DeleteNothrowFn fn = TRACER_REAL(op_delete_nothrow, "_ZdlPvRKSt9nothrow_t");
  traced_free(TraceOp::op_delete_nothrow, p, 0, 0, TRACER_SITE, [&] { fn(p, &tag); });
}
ALLOCSTRESS_EXPORT void operator delete[](void* p, const std::nothrow_t& tag) noexcept {
  const DeleteNothrowFn fn = TRACER_REAL(op_delete_array_nothrow, "_ZdaPvRKSt9nothrow_t");
  traced_free(TraceOp::op_delete_array_nothrow, p, 0, 0, TRACER_SITE, [&] { fn(p, &tag); });
}
ALLOCSTRESS_EXPORT void operator delete(void* p, std::align_val_t al, const std::nothrow_t& tag) noexcept {
  const DeleteAlignedNothrowFn fn = TRACER_REAL(op_delete_aligned_nothrow, "_ZdlPvSt11align_val_tRKSt9nothrow_t");
  traced_free(TraceOp::op_delete_aligned_nothrow, p, 0, std::size_t(al), TRACER_SITE, [&] { fn(p, std::size_t(al), &tag); });
}
ALLOCSTRESS_EXPORT void operator delete[](void* p, std::align_val_t al, const std::nothrow_t& tag) noexcept {
  const DeleteAlignedNothrowFn fn = TRACER_REAL(op_delete_array_aligned_nothrow, "_ZdaPvSt11align_val_tRKSt9nothrow_t");
  traced_free(TraceOp::op_delete_array_aligned_nothrow, p, 0, std::size_t(al), TRACER_SITE, [&] { fn(p, std::size_t(al), &tag); });
}
