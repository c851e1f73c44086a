/* See guarded_new.h. */
#include "guarded_new.h"

static void on_unwind(const struct as_new_call** pending) {
  if (*pending != NULL) as_new_failed(*pending);
}

void* as_call_new(const struct as_new_call* call) {
  const struct as_new_call* pending __attribute__((cleanup(on_unwind))) = call;
  void* p = call->alignment != 0 ? call->fn.aligned(call->size, call->alignment) : call->fn.plain(call->size);
  pending = NULL;
  return p;
}
