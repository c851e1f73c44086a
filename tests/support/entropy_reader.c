/* What a process reads of the clock and the kernel's randomness, one line each, for the counts
 * world's test (tests/unit/platform/counts_world_test.cpp): time(NULL), clock_gettime, 16 bytes of
 * getrandom(), of getentropy() and of syscall(SYS_getrandom) in hex; then a system call passed
 * through syscall() (getpid, against getpid()) and a failing one (close(-1): -1, EBADF). */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <sys/random.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static void print_hex(const char* label, const unsigned char* bytes, size_t n) {
  printf("%s ", label);
  for (size_t i = 0; i < n; ++i) printf("%02x", bytes[i]);
  printf("\n");
}

int main(void) {
  printf("time %lld\n", (long long)time(NULL));
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  printf("clock_gettime %lld\n", (long long)ts.tv_sec);
  unsigned char b[16];
  if (getrandom(b, sizeof b, 0) != (ssize_t)sizeof b) return 1;
  print_hex("getrandom", b, sizeof b);
  if (getentropy(b, sizeof b) != 0) return 1;
  print_hex("getentropy", b, sizeof b);
  if (syscall(SYS_getrandom, b, sizeof b, 0) != (long)sizeof b) return 1;
  print_hex("syscall_getrandom", b, sizeof b);
  printf("syscall_getpid %s\n", syscall(SYS_getpid) == (long)getpid() ? "same" : "differs");
  errno = 0;
  const long closed = syscall(SYS_close, -1);
  printf("syscall_close %ld %s\n", closed, errno == EBADF ? "EBADF" : "other");
  return 0;
}
