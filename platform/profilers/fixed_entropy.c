/* Fixed entropy, the other half of the counts world (counts_world.hpp; the virtual clock is
 * virtual_clock.c).  Allocators and programs seed things from the kernel's randomness, and some of
 * what they seed moves an instruction count: mimalloc 2.0 places its segments at an address drawn
 * from getrandom (address randomisation off or not), and lua 5.4 seeds its string hashing with the
 * address of its state, so one command -- prog-lua under mimalloc, under callgrind -- ran 202.0 to
 * 203.0 million instructions in four runs (2026-11-28).  With this library preloaded, every request
 * for random bytes -- getrandom(), getentropy() and syscall(SYS_getrandom, ...) -- is served from
 * one fixed stream (splitmix64 over a draw counter that starts at 0), shared by the process's
 * threads in the order they ask.  Each process starts the stream afresh.
 *
 * Not covered: reads of /dev/urandom, and the kernel's AT_RANDOM bytes (glibc's stack-protector
 * canary and pointer guard, which move no count).  Every other system call made through syscall()
 * is passed to glibc's unchanged, with its result and errno. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/types.h>

static _Atomic uint64_t draws;

/* splitmix64 of the next draw number: a fixed, well-mixed sequence of words. */
static uint64_t next_word(void) {
  uint64_t z = (atomic_fetch_add(&draws, 1) + 1) * 0x9E3779B97F4A7C15ULL;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

static void fill(void* buffer, size_t length) {
  unsigned char* out = buffer;
  while (length > 0) {
    const uint64_t word = next_word();
    const size_t n = length < sizeof word ? length : sizeof word;
    memcpy(out, &word, n);
    out += n;
    length -= n;
  }
}

ssize_t getrandom(void* buffer, size_t length, unsigned int flags) {
  (void)flags; /* GRND_NONBLOCK, GRND_RANDOM: the stream never blocks */
  fill(buffer, length);
  return (ssize_t)length;
}

int getentropy(void* buffer, size_t length) {
  if (length > 256) { /* glibc's limit, and its error */
    errno = EIO;
    return -1;
  }
  fill(buffer, length);
  return 0;
}

/* syscall(2) takes up to six word-sized arguments after the number, and glibc's reads all six
 * whatever the call.  This one is defined with all six named, not as glibc declares it
 * (`long syscall(long, ...)`; <unistd.h> is not included here): on the Linux ABIs (x86-64,
 * AArch64) a variadic call passes word-sized arguments where a named call does, so the caller's
 * registers arrive unchanged and the call goes on to glibc's as a tail call.  It runs inside
 * measured regions (tcmalloc's futex slow path and jemalloc's start-up call syscall()), so its
 * cost is kept small: under callgrind a getppid loop took 35 instructions per call through it
 * against 19 without it; the first version, which read the arguments with va_arg, took 62
 * (2026-11-28). */
typedef long (*syscall_function)(long, long, long, long, long, long, long);
static syscall_function glibc_syscall;

__attribute__((noinline, cold)) static syscall_function resolve_glibc_syscall(void) {
  syscall_function next;
  *(void**)&next = dlsym(RTLD_NEXT, "syscall"); /* ISO C has no cast from void* to a function */
  __atomic_store_n(&glibc_syscall, next, __ATOMIC_RELEASE);
  return next;
}

__attribute__((noinline)) static long serve_getrandom(void* buffer, long length) {
  fill(buffer, (size_t)length);
  return length;
}

long syscall(long number, long a0, long a1, long a2, long a3, long a4, long a5) {
  if (number == SYS_getrandom) return serve_getrandom((void*)a0, a1);
  syscall_function next = __atomic_load_n(&glibc_syscall, __ATOMIC_ACQUIRE);
  if (__builtin_expect(next == NULL, 0)) next = resolve_glibc_syscall();
  return next(number, a0, a1, a2, a3, a4, a5);
}
