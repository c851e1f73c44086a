/* Calling a throwing operator new without leaving the tracer's recursion guard held when it
 * throws (std::bad_alloc, or whatever a new_handler throws).
 *
 * This one function is C, compiled with -fexceptions: a cleanup in a C frame runs during C++
 * unwinding through the C personality routine in libgcc_s, so the tracer needs no libstdc++ (it
 * would otherwise load libstdc++ into C programs, whose start-up allocates).  On unwinding,
 * as_new_failed() records the failed call (address 0) and releases the guard. */
#ifndef ALLOCSTRESS_TRACER_GUARDED_NEW_H
#define ALLOCSTRESS_TRACER_GUARDED_NEW_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

struct as_new_call {
  union {                                    /* the real operator new */
    void* (*plain)(size_t);                  /* when alignment == 0 */
    void* (*aligned)(size_t, size_t);        /* (size_t, std::align_val_t) */
  } fn;
  size_t size;
  size_t alignment;   /* 0 = not an aligned new */
  unsigned op;        /* TraceOp of the event */
  const void* site;   /* call site */
};

void* as_call_new(const struct as_new_call* call);
/* Implemented by the tracer (C++): the event of a call that threw; releases the guard. */
void as_new_failed(const struct as_new_call* call);

#ifdef __cplusplus
}
#endif

#endif
