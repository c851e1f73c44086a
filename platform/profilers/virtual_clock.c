/* The virtual clock, one half of the counts world (counts_world.hpp; the other half is
 * fixed_entropy.c), preloaded into every counts run: the cell under callgrind, the program under
 * callgrind, and their native kernel-event runs.  Allocators that read the clock -- jemalloc's
 * decay, mimalloc's purge delays -- decide what to do from the time that passed, and under
 * valgrind that time depends on how fast the host happened to run: their instruction counts
 * varied by a few dozen instructions from run to run.  Programs seed from the clock too (lua 5.4's
 * string hashing mixes in time(NULL)).  With this library every read of any clock returns one
 * shared virtual time that starts at 2026-01-01T00:00:00Z and advances by 1 us per read, so the
 * counts tier is identical on every run.  Nothing else is changed; the timing fields of a counts
 * record are not the machine's anyway (the record says so). */
#define _GNU_SOURCE
#include <stdatomic.h>
#include <stddef.h>
#include <sys/time.h>
#include <time.h>

static _Atomic unsigned long long reads;
static const unsigned long long kStartSeconds = 1767225600ULL; /* 2026-01-01T00:00:00Z */
static const unsigned long long kStepNs = 1000ULL;

static unsigned long long next_ns(void) {
  return kStartSeconds * 1000000000ULL + atomic_fetch_add(&reads, 1ULL) * kStepNs;
}

int clock_gettime(clockid_t clock, struct timespec* ts) {
  (void)clock;
  const unsigned long long ns = next_ns();
  ts->tv_sec = (time_t)(ns / 1000000000ULL);  /* glibc declares ts and tv non-null */
  ts->tv_nsec = (long)(ns % 1000000000ULL);
  return 0;
}

int gettimeofday(struct timeval* restrict tv, void* restrict tz) {
  (void)tz;
  const unsigned long long ns = next_ns();
  tv->tv_sec = (time_t)(ns / 1000000000ULL);
  tv->tv_usec = (suseconds_t)(ns % 1000000000ULL / 1000ULL);
  return 0;
}

time_t time(time_t* out) {
  const time_t now = (time_t)(next_ns() / 1000000000ULL);
  if (out != NULL) *out = now;
  return now;
}
