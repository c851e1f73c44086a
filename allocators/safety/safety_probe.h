/* The safety probe's shared parts (allocstress-safety-probe: safety_probe.c the modes and the
 * protocol, safety_output.c its lines and the allocator's entry points, safety_phases.c case
 * mode's steps, targets, fault handler and outcome, safety_cases.c and safety_calls.c the misuse
 * cases, safety_checks.c conformance, safety_samples.c properties).
 *
 * Model: the probe runs under a malloc that may be broken or hostile, so it never uses stdio,
 * locale or anything else that could allocate behind its back; it writes each line with one
 * write(2) from a buffer on the stack, and ends every run with _exit.  It reaches
 * the allocator only through `heap` (filled with dlsym(RTLD_DEFAULT, ...) at start), so the
 * compiler knows nothing of malloc's semantics and cannot elide, reorder or warn about the
 * misuses it makes on purpose.
 *
 * Contract with the runner (the C++ side): the protocol lines `provider`, `step`, `fault`,
 * `outcome` (case mode), `check`/`ok`/`fail`/`skip`/`done` (conformance), and the properties
 * lines; see safety_probe.c's top comment. */
#ifndef ALLOCSTRESS_SAFETY_PROBE_H
#define ALLOCSTRESS_SAFETY_PROBE_H

#include <stddef.h>
#include <stdint.h>

/* The allocator's entry points as this process resolves them (NULL where no object defines one). */
struct heap_api {
  void* (*malloc)(size_t);
  void (*free)(void*);
  void* (*calloc)(size_t, size_t);
  void* (*realloc)(void*, size_t);
  void* (*reallocarray)(void*, size_t, size_t);
  void* (*memalign)(size_t, size_t);
  void* (*aligned_alloc)(size_t, size_t);
  int (*posix_memalign)(void**, size_t, size_t);
  size_t (*malloc_usable_size)(void*);
};
extern struct heap_api heap;

/* One output line, built on the stack and written with a single write(2). */
struct line {
  char text[768];
  size_t len;
};
void line_start(struct line* l, const char* s);
void line_str(struct line* l, const char* s);
void line_hex(struct line* l, uintptr_t v); /* 0x-prefixed, lower case */
void line_dec(struct line* l, uint64_t v);
void line_sdec(struct line* l, int64_t v);
void line_errno(struct line* l, int e); /* ENOMEM, EINVAL, ... or the number; "0" when unset */
void line_emit(struct line* l, int fd);  /* appends the newline and writes */
void say(const char* s);                 /* one fixed line on stdout */

/* safety_output.c: fill `heap` (dlsym, at start), and print "provider <realpath of malloc's object>". */
void resolve_heap(void);
void print_provider(void);

/* Where the allocator's symbols come from: the object defining `name` as this process resolves
 * it (NULL when none does), and whether it is the object that defines malloc. */
const char* symbol_object(const char* name);
int same_object_as_malloc(const char* name);

/* Case mode: the phase lines, the fault handler's target ranges, and the one outcome line. */
void step(const char* name);
void target_add(const void* p, size_t n);
void targets_clear(void);
_Noreturn void outcome(const char* kind, const char* detail);
_Noreturn void outcome_line(struct line* l); /* l already holds "outcome KIND detail..." */
void install_alt_stack(int worker); /* per thread (main: 0, the one worker at a time: 1), static */
void install_fault_handler(void);   /* case mode, before the case runs (safety_phases.c) */

struct safety_case {
  const char* name;
  const char* group;
  int scored;
  const char* description;
  void (*run)(void);
};
extern const struct safety_case safety_cases[];
extern const size_t safety_case_count;

/* Shared by the cases: "outcome corrupted <what> 0x<p>", and a set-up malloc that must succeed
 * (else "outcome error <errno> (set-up malloc(N) returned NULL)"). */
_Noreturn void harm_at(const char* what, const void* p);
void* must_malloc(size_t n);

/* The single-call cases (safety_calls.c). */
void case_malloc_size_max(void);
void case_malloc_size_near_max(void);
void case_malloc_ptrdiff_max(void);
void case_calloc_overflow(void);
void case_reallocarray_overflow(void);
void case_memalign_bad_alignment(void);
void case_aligned_alloc_bad_alignment(void);
void case_posix_memalign_bad_alignment(void);
void case_memalign_huge_alignment(void);
void case_realloc_zero(void);
void case_malloc_zero(void);

_Noreturn void run_conformance(void); /* safety_checks.c */
_Noreturn void run_properties(void);  /* safety_samples.c */

#endif
