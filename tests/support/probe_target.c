/* The program the probe's tests run under LD_PRELOAD (tests/unit/platform/program_probe/).
 * Its arguments are steps, done left to right:
 *   malloc N        N calls of malloc (each block freed at once)
 *   threads T N     T threads, each making N malloc calls; joined
 *   new N           dlopens libstdc++ and calls operator new (_Znwm) N times, each deleted
 *   fork            forks: the child goes on with the next steps, the parent waits for it and
 *                   returns from main (its exit status: the child's)
 *   _exit           ends this process with _exit(0) (no exit handlers)
 *   chdir DIR       changes its working directory
 *   exec PATH ARGS  replaces this process with PATH ARGS (the rest of the arguments)
 *   spawn PATH ARGS posix_spawn(PATH ARGS), waits for it and returns from main
 * It prints nothing (no stdio buffer is allocated): its allocation calls are exactly the ones
 * its steps make.  -O0 -fno-builtin keep every malloc/free pair.  Built with OWN_MALLOC, it
 * defines malloc itself (a bump allocator), as a program that brings its own allocator does.
 * Built with TAKES_MALLOC_ADDRESS and without -fpie, it only takes malloc's address. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

#ifdef OWN_MALLOC
static _Alignas(16) unsigned char heap[16 << 20];
static size_t heap_used;
void* malloc(size_t n) {
  if (n > sizeof heap - heap_used) return NULL;
  void* p = heap + heap_used;
  heap_used += (n + 15) & ~(size_t)15;
  return p;
}
void free(void* p) { (void)p; }
void* calloc(size_t k, size_t n) { return k != 0 && n > sizeof heap / k ? NULL : malloc(k * n); }  /* zeroed: never reused */
void* realloc(void* p, size_t n) {
  void* q = malloc(n);
  if (p != NULL && q != NULL) memmove(q, p, n);  /* may read past the old block: still in the heap */
  return q;
}
#endif

static void* volatile sink;

#ifdef TAKES_MALLOC_ADDRESS
/* Built without -fpie: the program's PLT stub for malloc becomes the address every object sees
 * for malloc (function-pointer equality), though calls go on to libc's or the preloaded one. */
void* (*volatile malloc_address)(size_t) = malloc;
#endif

/* Each thread frees its own block: `sink` only keeps the call from being optimised away (freeing
 * `sink` itself freed another thread's block when two threads raced: a double free, 3 runs in 20
 * of `threads 4 2500`). */
static void mallocs(long n) {
  for (long i = 0; i < n; ++i) {
    void* p = malloc(32);
    sink = p;
    free(p);
  }
}

static void* thread_mallocs(void* n) {
  mallocs((long)n);
  return NULL;
}

static int waited(pid_t pid) {
  int status = 0;
  if (pid < 0 || waitpid(pid, &status, 0) != pid) return 120;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const char* step = argv[i];
    if (strcmp(step, "malloc") == 0 && i + 1 < argc) {
      mallocs(atol(argv[++i]));
    } else if (strcmp(step, "threads") == 0 && i + 2 < argc) {
      const long t = atol(argv[i + 1]), n = atol(argv[i + 2]);
      i += 2;
      pthread_t ids[64];
      if (t < 1 || t > 64) return 2;
      for (long k = 0; k < t; ++k)
        if (pthread_create(&ids[k], NULL, thread_mallocs, (void*)n) != 0) return 3;
      for (long k = 0; k < t; ++k) pthread_join(ids[k], NULL);
    } else if (strcmp(step, "new") == 0 && i + 1 < argc) {
      const long n = atol(argv[++i]);
      if (dlopen("libstdc++.so.6", RTLD_NOW | RTLD_GLOBAL) == NULL) return 4;
      void* (*op_new)(size_t);
      void (*op_delete)(void*);
      *(void**)&op_new = dlsym(RTLD_DEFAULT, "_Znwm");
      *(void**)&op_delete = dlsym(RTLD_DEFAULT, "_ZdlPv");
      if (op_new == NULL || op_delete == NULL) return 5;
      for (long k = 0; k < n; ++k) op_delete(op_new(48));
    } else if (strcmp(step, "fork") == 0) {
      const pid_t pid = fork();
      if (pid < 0) return 6;
      if (pid > 0) return waited(pid);
    } else if (strcmp(step, "chdir") == 0 && i + 1 < argc) {
      if (chdir(argv[++i]) != 0) return 9;
    } else if (strcmp(step, "_exit") == 0) {
      _exit(0);
    } else if (strcmp(step, "exec") == 0 && i + 1 < argc) {
      execv(argv[i + 1], argv + i + 1);
      return 7;
    } else if (strcmp(step, "spawn") == 0 && i + 1 < argc) {
      pid_t pid = -1;
      if (posix_spawn(&pid, argv[i + 1], NULL, NULL, argv + i + 1, environ) != 0) return 8;
      return waited(pid);
    } else {
      return 2;  /* an unknown step */
    }
  }
  return 0;
}
