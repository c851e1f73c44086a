/* The properties mode of allocstress-safety-probe (conformance: safety_checks.c).
 *
 * Model: one process takes one sample of what an attacker could learn or rely on: the first
 * block's address, the gap between two consecutive blocks, whether an inaccessible page follows
 * a large block, whether a header sits before a block, whether a freed block holds a free-list
 * link.  The runner repeats it in fresh processes and estimates the entropy.  Memory that may be
 * unreadable is never dereferenced: it is written into a pipe, which fails with EFAULT instead of
 * faulting.  /proc/self/maps is read with open/read into a static buffer and parsed by hand.
 *
 * Contract (stdout), after the provider line:
 *   address 0x<hex>                       the first malloc(64) of the process
 *   gap <signed decimal>                  second minus first of the next two malloc(64)
 *   guard <size> guard|none|unmapped      1 MiB, then 256 KiB: the page at round_up(p + size, 4096)
 *   header <n> size|state|none|unreadable 24, 200, 2000: `size` when a word of the 16 bytes
 *                                         before the block, as is or without its 4 low bits, lies
 *                                         in n .. n + 64; else `state` when they change at free
 *   freed-link yes|no|unreadable          a freed block's first 16 bytes changed
 *   done                                  (exit 0) */
#define _GNU_SOURCE
#include "safety_probe.h"

#include <fcntl.h>
#include <string.h>
#include <unistd.h>

static int pipe_fds[2] = {-1, -1};

/* Copies 16 bytes at p into out through the pipe: 0 (and nothing copied) when unreadable. */
static int read_16(const void* p, unsigned char out[16]) {
  const ssize_t w = write(pipe_fds[1], p, 16);
  if (w > 0) {
    ssize_t got = 0;
    while (got < w) {
      const ssize_t r = read(pipe_fds[0], out + got, (size_t)(w - got));
      if (r <= 0) return 0;
      got += r;
    }
  }
  return w == 16;
}

/* guard | none | unmapped: the mapping of /proc/self/maps that holds addr. */
static const char* mapping_kind(uintptr_t addr) {
  static char buf[65536];
  const int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return "unmapped";
  const char* kind = "unmapped";
  size_t have = 0;
  for (;;) {
    const ssize_t r = read(fd, buf + have, sizeof buf - have);
    if (r <= 0) break;
    have += (size_t)r;
    size_t start = 0;
    for (size_t i = 0; i < have; i++) {
      if (buf[i] != '\n') continue;
      const char* s = buf + start;
      uintptr_t lo = 0, hi = 0;
      for (; *s != '-'; s++) lo = lo * 16 + (uintptr_t)(*s <= '9' ? *s - '0' : *s - 'a' + 10);
      for (s++; *s != ' '; s++) hi = hi * 16 + (uintptr_t)(*s <= '9' ? *s - '0' : *s - 'a' + 10);
      if (addr >= lo && addr < hi) kind = strncmp(s + 1, "---", 3) == 0 ? "guard" : "none";
      start = i + 1;
    }
    memmove(buf, buf + start, have - start);
    have -= start;
  }
  close(fd);
  return kind;
}

static void sample_line(const char* name, uint64_t n, const char* value) {
  struct line l;
  line_start(&l, name);
  line_dec(&l, n);
  line_str(&l, " ");
  line_str(&l, value);
  line_emit(&l, STDOUT_FILENO);
}

static const char* header_kind(size_t n) {
  unsigned char before[16], after[16];
  unsigned char* p = heap.malloc(n);
  if (p == NULL || !read_16(p - 16, before)) {
    heap.free(p);
    return "unreadable";
  }
  for (int w = 0; w < 2; w++) {
    uint64_t word;
    memcpy(&word, before + 8 * w, sizeof word);
    const uint64_t masked = word & ~(uint64_t)15; /* glibc-style: flags in the low bits */
    if ((masked >= n && masked <= n + 64) || (word >= n && word <= n + 64)) {
      heap.free(p);
      return "size";
    }
  }
  memset(p, 0x5A, n);
  heap.free(p);
  if (!read_16(p - 16, after)) return "unreadable";
  return memcmp(before, after, 16) != 0 ? "state" : "none";
}

_Noreturn void run_properties(void) {
  struct line l;
  if (pipe2(pipe_fds, O_CLOEXEC) != 0) _exit(1);
  char* first = heap.malloc(64);
  line_start(&l, "address ");
  line_hex(&l, (uintptr_t)first);
  line_emit(&l, STDOUT_FILENO);
  char* a = heap.malloc(64);
  char* b = heap.malloc(64);
  line_start(&l, "gap ");
  line_sdec(&l, (int64_t)((intptr_t)b - (intptr_t)a));
  line_emit(&l, STDOUT_FILENO);

  static const size_t guarded[] = {1u << 20, 256u << 10};
  for (size_t i = 0; i < 2; i++) {
    char* p = heap.malloc(guarded[i]);
    const uintptr_t page = ((uintptr_t)p + guarded[i] + 4095) & ~(uintptr_t)4095;
    sample_line("guard ", guarded[i], p != NULL ? mapping_kind(page) : "unmapped");
    heap.free(p);
  }

  static const size_t headed[] = {24, 200, 2000};
  for (size_t i = 0; i < 3; i++) sample_line("header ", headed[i], header_kind(headed[i]));

  unsigned char* q = heap.malloc(64);
  unsigned char now[16], filled[16];
  memset(filled, 0x5A, sizeof filled);
  const char* link = "unreadable";
  if (q != NULL) {
    memset(q, 0x5A, 64);
    heap.free(q);
    if (read_16(q, now)) link = memcmp(now, filled, 16) != 0 ? "yes" : "no";
  }
  line_start(&l, "freed-link ");
  line_str(&l, link);
  line_emit(&l, STDOUT_FILENO);
  say("done");
  _exit(0);
}
