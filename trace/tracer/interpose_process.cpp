// Process changes that would lose the buffered events: exec* (the image is replaced without
// running destructors) and _exit/_Exit (no destructors either).  Each writes every thread's
// published events and the end record, then forwards.  If exec fails the program goes on: a
// `resumed` record, and the other threads' buffers restart empty (thread_buffers.hpp).  In a
// vfork child (gcc's driver, Python's subprocess) they only forward: the trace is the parent's.
// exit() itself is covered by the library destructor; fork by the atfork child handler
// (tracer_lifecycle.cpp); fatal signals by tracer_signals.cpp.  Not covered: execveat.
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <unistd.h>

#include "tracer_lifecycle.hpp"

#define ALLOCSTRESS_EXPORT extern "C" __attribute__((visibility("default")))

using namespace allocstress::tracer;

namespace {

// Calls call(argv, envp) with the arguments of an execl-style call -- `first`, then those in
// `args` up to the NULL -- as an argv on this frame's stack; envp is the pointer after the NULL
// when `with_envp` (execle), else nullptr.
template <class Call>
int with_variadic_argv(const char* first, va_list args, bool with_envp, Call call) {
  va_list counting;
  va_copy(counting, args);
  std::size_t n = 2;  // first and the terminating NULL
  if (first != nullptr)
    while (va_arg(counting, const char*) != nullptr) ++n;
  va_end(counting);
  char** argv = static_cast<char**>(__builtin_alloca(n * sizeof(char*)));
  std::size_t i = 0;
  argv[i++] = const_cast<char*>(first);
  if (first != nullptr)
    while ((argv[i++] = va_arg(args, char*)) != nullptr) {
    }
  char* const* envp = with_envp ? va_arg(args, char* const*) : nullptr;
  return call(argv, envp);
}

// Ends the trace as an exec, runs `call` (the real exec), and resumes the trace if it returned.
template <class Call>
int traced_exec(Call call) {
  const bool ended = flush_before_process_change(allocstress::trace::EndCause::exec);
  const int rc = call();
  if (ended) {
    const int saved_errno = errno;
    resume_after_failed_exec();
    errno = saved_errno;
  }
  return rc;
}

}  // namespace

ALLOCSTRESS_EXPORT int execve(const char* path, char* const argv[], char* const envp[]) noexcept {
  return traced_exec([&] { return g_real.execve(path, argv, envp); });
}

ALLOCSTRESS_EXPORT int execv(const char* path, char* const argv[]) noexcept {
  return traced_exec([&] { return g_real.execve(path, argv, environ); });
}

ALLOCSTRESS_EXPORT int execvp(const char* file, char* const argv[]) noexcept {
  return traced_exec([&] { return g_real.execvp(file, argv); });
}

ALLOCSTRESS_EXPORT int execvpe(const char* file, char* const argv[], char* const envp[]) noexcept {
  return traced_exec([&] { return g_real.execvpe(file, argv, envp); });
}

ALLOCSTRESS_EXPORT int fexecve(int fd, char* const argv[], char* const envp[]) noexcept {
  return traced_exec([&] { return g_real.fexecve(fd, argv, envp); });
}

ALLOCSTRESS_EXPORT int execl(const char* path, const char* arg, ...) noexcept {
  va_list args;
  va_start(args, arg);
  const int rc = with_variadic_argv(arg, args, false, [&](char** argv, char* const*) { return execv(path, argv); });
  va_end(args);
  return rc;
}

ALLOCSTRESS_EXPORT int execlp(const char* file, const char* arg, ...) noexcept {
  va_list args;
  va_start(args, arg);
  const int rc = with_variadic_argv(arg, args, false, [&](char** argv, char* const*) { return execvp(file, argv); });
  va_end(args);
  return rc;
}

ALLOCSTRESS_EXPORT int execle(const char* path, const char* arg, ...) noexcept {
  va_list args;
  va_start(args, arg);
  const int rc = with_variadic_argv(arg, args, true, [&](char** argv, char* const* envp) { return execve(path, argv, envp); });
  va_end(args);
  return rc;
}

ALLOCSTRESS_EXPORT void _exit(int status) {
  flush_before_process_change(allocstress::trace::EndCause::exit_now);
  g_real.exit_now(status);
  __builtin_unreachable();
}

ALLOCSTRESS_EXPORT void _Exit(int status) noexcept {
  flush_before_process_change(allocstress::trace::EndCause::exit_now);
  g_real.exit_now_c99(status);
  __builtin_unreachable();
}
