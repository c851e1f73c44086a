/* Case mode's machinery (see safety_probe.h): the `step` lines, the target ranges of a misuse
 * access, the SIGSEGV/SIGBUS handler that says whether a fault hit them (then exits 70), and the
 * one `outcome` line a case ends with. */
#define _GNU_SOURCE
#include "safety_probe.h"

#include <signal.h>
#include <string.h>
#include <unistd.h>

/* ---- case mode: phases, targets, the fault handler, the outcome ---- */

static const char* volatile current_step = "none";
static struct {
  volatile uintptr_t lo, hi;
} targets[4];
static volatile size_t target_count;

void step(const char* name) {
  struct line l;
  current_step = name;
  line_start(&l, "step ");
  line_str(&l, name);
  line_emit(&l, STDOUT_FILENO);
}
void target_add(const void* p, size_t n) {
  if (target_count >= sizeof targets / sizeof targets[0]) return;
  targets[target_count].lo = (uintptr_t)p;
  targets[target_count].hi = (uintptr_t)p + n;
  target_count = target_count + 1;
  __asm__ volatile("" ::: "memory");
}
void targets_clear(void) {
  __asm__ volatile("" ::: "memory");
  target_count = 0;
}
_Noreturn void outcome_line(struct line* l) {
  line_emit(l, STDOUT_FILENO);
  _exit(0);
}
_Noreturn void outcome(const char* kind, const char* detail) {
  struct line l;
  line_start(&l, "outcome ");
  line_str(&l, kind);
  line_str(&l, " ");
  line_str(&l, detail);
  outcome_line(&l);
}

static void on_fault(int signo, siginfo_t* info, void* context) {
  (void)context;
  const uintptr_t at = (uintptr_t)info->si_addr;
  int hit = 0;
  for (size_t i = 0; i < target_count && i < sizeof targets / sizeof targets[0]; i++)
    if (at >= targets[i].lo && at < targets[i].hi) hit = 1;
  struct line l;
  line_start(&l, hit ? "fault target " : "fault elsewhere ");
  line_str(&l, current_step);
  line_str(&l, " ");
  line_dec(&l, (uint64_t)signo);
  line_str(&l, " ");
  line_hex(&l, at);
  line_emit(&l, STDOUT_FILENO);
  _exit(70);
}

void install_alt_stack(int worker) {
  static char stacks[2][64 * 1024] __attribute__((aligned(64)));
  stack_t ss;
  ss.ss_sp = stacks[worker != 0];
  ss.ss_size = sizeof stacks[0];
  ss.ss_flags = 0;
  sigaltstack(&ss, NULL);
}

void install_fault_handler(void) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_fault;
  sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
  sigemptyset(&sa.sa_mask);
  install_alt_stack(0);
  sigaction(SIGSEGV, &sa, NULL);
  sigaction(SIGBUS, &sa, NULL);
}
