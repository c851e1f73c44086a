/* Test program for the tracer on process changes and fatal signals (tests/cli/traces/
 * trace_spawn.sh).  It makes a known number of marked allocations -- malloc(4321) + free pairs --
 * around the process change, and prints what every process's trace must hold:
 *   pid P expect E        process P's trace holds exactly E events of size 4321 (mallocs + frees)
 * Modes (argv[1]):
 *   vfork    1000 pairs, vfork + (close every descriptor >= 3, like Python's subprocess) + execv of
 *            itself in `leaf` mode, then 100000 pairs in the parent: the parent's trace must go
 *            on whole, the leaf's trace is a file of its own named after its own pid
 *   spawn    the same with posix_spawn
 *   clone    the same with clone(CLONE_VM | CLONE_VFORK) whose child calls execv (a hand-made spawn)
 *   fork     1000 pairs, fork; the child makes 500 pairs and exits; the parent 100000 pairs
 *   exec     1000 pairs, then execv of itself in `leaf` mode (same pid, a second file)
 *   leaf     777 pairs
 *   selfkill 100000 pairs (several blocks written), then SIGKILL to itself: no end record
 *   crash S  20000 pairs and 300 blocks kept, then dies of S: segv, bus, ill, fpe or abrt
 *   handler  its own SIGSEGV handler (sigaction, SA_SIGINFO): a first fault is recovered
 *            (siglongjmp) and 5000 more pairs made; at the second fault the handler sets SIG_DFL
 *            and returns, so the process dies of SIGSEGV
 * Built at -O0 with -fno-builtin: no malloc/free pair may be removed. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

enum { kSize = 4321 };
static const char* self;

static void pairs(long n) {
  for (long i = 0; i < n; ++i) {
    void* volatile p = malloc(kSize);
    free(p);
  }
}

static void expect(long events) {
  printf("pid %d expect %ld\n", (int)getpid(), events);
  fflush(stdout);
}

static void wait_for(pid_t child) {
  int status = 0;
  if (child < 0 || waitpid(child, &status, 0) != child || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    fprintf(stderr, "spawn_helper: child %d failed (status %d)\n", (int)child, status);
    exit(1);
  }
}

static int clone_child(void* arg) {
  (void)arg;
  char* argv[] = {(char*)self, "leaf", NULL};
  execv(self, argv);
  _exit(127);
}

static sigjmp_buf recover;
static volatile int faults;

static void on_segv(int sig, siginfo_t* info, void* context) {
  (void)info;
  (void)context;
  static const char line[] = "handler: SIGSEGV caught\n";
  if (write(1, line, sizeof line - 1) < 0) _exit(3);
  if (++faults == 1) siglongjmp(recover, 1);
  signal(sig, SIG_DFL);  /* the usual "report, then die of it": the fault repeats on return */
}

int main(int argc, char** argv) {
  self = argv[0];
  const char* mode = argc > 1 ? argv[1] : "";
  char* leaf_argv[] = {(char*)self, "leaf", NULL};
  if (strcmp(mode, "leaf") == 0) {
    pairs(777);
    expect(2 * 777);
  } else if (strcmp(mode, "vfork") == 0 || strcmp(mode, "spawn") == 0 || strcmp(mode, "clone") == 0) {
    pairs(1000);
    pid_t child = -1;
    if (strcmp(mode, "vfork") == 0) {
      child = vfork();
      if (child == 0) {
        for (int fd = 3; fd < 1024; ++fd) close(fd);
        execv(self, leaf_argv);
        _exit(127);
      }
    } else if (strcmp(mode, "spawn") == 0) {
      if (posix_spawn(&child, self, NULL, NULL, leaf_argv, environ) != 0) child = -1;
    } else {
      const size_t stack_bytes = 256 * 1024;
      char* stack = mmap(NULL, stack_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
      child = clone(clone_child, stack + stack_bytes, CLONE_VM | CLONE_VFORK | SIGCHLD, NULL);
    }
    wait_for(child);
    pairs(100000);
    expect(2 * 101000);
  } else if (strcmp(mode, "fork") == 0) {
    pairs(1000);
    const pid_t child = fork();
    if (child == 0) {
      pairs(500);
      expect(2 * 500);
      exit(0);
    }
    wait_for(child);
    pairs(100000);
    expect(2 * 101000);
  } else if (strcmp(mode, "exec") == 0) {
    pairs(1000);
    expect(2 * 1000);
    execv(self, leaf_argv);
    return 127;
  } else if (strcmp(mode, "crash") == 0 && argc > 2) {
    pairs(20000);
    for (int i = 0; i < 300; ++i) {
      void* volatile kept = malloc(kSize);
      (void)kept;
    }
    expect(2 * 20000 + 300);
    const char* how = argv[2];
    if (strcmp(how, "segv") == 0) {
      *(volatile int*)(uintptr_t)8 = 1;
    } else if (strcmp(how, "bus") == 0) {
      char path[] = "/tmp/spawn_helper_bus_XXXXXX";
      const int fd = mkstemp(path);
      if (fd < 0 || ftruncate(fd, 4096) != 0) return 1;
      volatile char* map = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
      unlink(path);
      if (ftruncate(fd, 0) != 0) return 1;
      map[100] = 1;
    } else if (strcmp(how, "ill") == 0) {
      __builtin_trap();
    } else if (strcmp(how, "fpe") == 0) {
      volatile int zero = 0, seven = 7;  /* not 1 / x: GCC computes that without a division */
      volatile int x = seven / zero;
      (void)x;
    } else if (strcmp(how, "abrt") == 0) {
      abort();
    }
    return 2;  /* not reached */
  } else if (strcmp(mode, "selfkill") == 0) {
    pairs(100000);
    kill(getpid(), SIGKILL);
    return 2;
  } else if (strcmp(mode, "handler") == 0) {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_segv;
    sa.sa_flags = SA_SIGINFO | SA_NODEFER;
    sigemptyset(&sa.sa_mask);
    if (sigaction(SIGSEGV, &sa, NULL) != 0) return 1;
    struct sigaction back;
    if (sigaction(SIGSEGV, NULL, &back) != 0 || back.sa_sigaction != on_segv) {
      fprintf(stderr, "spawn_helper: sigaction does not report the handler back\n");
      return 1;
    }
    pairs(1000);
    if (sigsetjmp(recover, 1) == 0) *(volatile int*)(uintptr_t)8 = 1;
    pairs(5000);
    expect(2 * 6000);
    *(volatile int*)(uintptr_t)8 = 1;
    return 2;
  } else {
    fprintf(stderr, "usage: spawn_helper vfork|spawn|clone|fork|exec|leaf|crash segv|bus|ill|fpe|abrt|handler\n");
    return 2;
  }
  return 0;
}
