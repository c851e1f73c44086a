// Fatal-signal handlers and the interposed sigaction/signal family (see tracer_signals.hpp).
#include "tracer_signals.hpp"

#include <errno.h>

#include "spin_lock.hpp"
#include "tracer_lifecycle.hpp"
#include "tracer_state.hpp"

#define ALLOCSTRESS_EXPORT extern "C" __attribute__((visibility("default")))

namespace allocstress::tracer {

namespace {

constexpr int kMaxSignal = 65;

// The program's view of a traced signal's disposition.  Written under g_table_lock by the
// owner process; read by the handler without the lock (a sigaction racing with the delivery of
// the same signal may see either action, as with the kernel's own).
struct SignalTable {
  SpinLock lock;
  bool managed[kMaxSignal] = {};  // a traced signal: our handler is installed unless the program ignores it
  struct sigaction program[kMaxSignal] = {};
};
// constinit: no dynamic initializer may run after the library constructor installed the handlers.
constinit SignalTable g_table;

bool is_handler(const struct sigaction& a) {
  return (a.sa_flags & SA_SIGINFO) != 0 ? a.sa_sigaction != nullptr : (a.sa_handler != SIG_DFL && a.sa_handler != SIG_IGN);
}
bool is_ignore(const struct sigaction& a) { return (a.sa_flags & SA_SIGINFO) == 0 && a.sa_handler == SIG_IGN; }

void on_signal(int sig, siginfo_t* info, void* context);

// Installs in the kernel what the program's disposition `p` needs: SIG_IGN as is, else our
// handler with the program's mask and flags (SA_RESETHAND emulated, SA_ONSTACK always when the
// program has no handler: a thread with an alternate stack survives a stack overflow long
// enough to write its trace).
int install(int sig, const struct sigaction& p) {
  if (is_ignore(p)) return g_real.sigaction(sig, &p, nullptr);
  struct sigaction k {};
  k.sa_sigaction = on_signal;
  if (is_handler(p)) {
    k.sa_mask = p.sa_mask;
    k.sa_flags = SA_SIGINFO | (p.sa_flags & (SA_ONSTACK | SA_RESTART | SA_NODEFER));
  } else {
    sigemptyset(&k.sa_mask);
    k.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESTART;
  }
  return g_real.sigaction(sig, &k, nullptr);
}

void die_of(int sig) {
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  sigemptyset(&dfl.sa_mask);
  g_real.sigaction(sig, &dfl, nullptr);
  // Blocked while this handler runs (unless SA_NODEFER): delivered with the default action on
  // return; a synchronous fault (SIGSEGV ...) happens again on return anyway.
  raise(sig);
}

void on_signal(int sig, siginfo_t* info, void* context) {
  const int saved_errno = errno;
  if (sig <= 0 || sig >= kMaxSignal) return;
  struct sigaction p = g_table.program[sig];
  if (!process_owns_trace()) {  // a vfork child: the parent's trace is not ours to write
    if (is_handler(p)) {
      errno = saved_errno;
      if ((p.sa_flags & SA_SIGINFO) != 0) p.sa_sigaction(sig, info, context);
      else p.sa_handler(sig);
      return;
    }
    die_of(sig);
    return;
  }
  if (is_handler(p)) {
    if ((p.sa_flags & SA_RESETHAND) != 0) {  // the kernel would have reset it on delivery
      g_table.program[sig] = {};
      g_table.program[sig].sa_handler = SIG_DFL;
      install(sig, g_table.program[sig]);
    }
    errno = saved_errno;
    if ((p.sa_flags & SA_SIGINFO) != 0) p.sa_sigaction(sig, info, context);
    else p.sa_handler(sig);
    return;
  }
  // Ignored (only a user-sent signal racing with sigaction gets here): the kernel forces the
  // default action on an ignored synchronous fault, so only a user-sent one is ignored.
  if (is_ignore(p) && info != nullptr && info->si_code <= 0) return;
  {
    GuardScope guard;
    end_process_trace(trace::EndCause::signal, sig, true);
  }
  die_of(sig);
  errno = saved_errno;
}

bool traced_signal(int sig) { return sig > 0 && sig < kMaxSignal && g_table.managed[sig]; }

}  // namespace

void install_signal_handlers() {
  for (int sig : kTracedSignals) {
    struct sigaction current {};
    if (g_real.sigaction(sig, nullptr, &current) != 0) continue;
    g_table.program[sig] = current;
    g_table.managed[sig] = true;
    if (!is_ignore(current)) install(sig, current);
  }
}

}  // namespace allocstress::tracer

using namespace allocstress::tracer;

ALLOCSTRESS_EXPORT int sigaction(int sig, const struct sigaction* act, struct sigaction* old) noexcept {
  {
    GuardScope guard;
    ensure_started();
  }
  if (!traced_signal(sig)) return g_real.sigaction(sig, act, old);
  if (!process_owns_trace()) {
    // A vfork child: its own kernel table, but the parent's memory: report the program's view
    // where our handler is installed, change only the kernel's.
    struct sigaction current {};
    if (g_real.sigaction(sig, act, &current) != 0) return -1;
    if (old != nullptr) *old = current.sa_sigaction == on_signal && (current.sa_flags & SA_SIGINFO) != 0 ? g_table.program[sig] : current;
    return 0;
  }
  const std::uint32_t self = self_tid();
  const bool locked = !g_table.lock.held_by(self);  // a handler of this thread calling sigaction mid-update
  if (locked) g_table.lock.lock(self);
  if (old != nullptr) *old = g_table.program[sig];
  int rc = 0;
  if (act != nullptr) {
    rc = install(sig, *act);
    if (rc == 0) g_table.program[sig] = *act;
  }
  if (locked) g_table.lock.unlock();
  return rc;
}

namespace {

// signal()-style calls through the interposed sigaction: `flags` and the mask {sig} or {} as
// glibc's own implementations use them.
__sighandler_t set_handler(int sig, __sighandler_t handler, int flags, bool mask_self) {
  struct sigaction act {}, old {};
  act.sa_handler = handler;
  sigemptyset(&act.sa_mask);
  if (mask_self) sigaddset(&act.sa_mask, sig);
  act.sa_flags = flags;
  if (sig <= 0 || sig >= 65 || handler == SIG_ERR) {
    errno = EINVAL;
    return SIG_ERR;
  }
  if (sigaction(sig, &act, &old) != 0) return SIG_ERR;
  return old.sa_handler;
}

}  // namespace

ALLOCSTRESS_EXPORT __sighandler_t signal(int sig, __sighandler_t handler) noexcept { return set_handler(sig, handler, SA_RESTART, true); }
ALLOCSTRESS_EXPORT __sighandler_t bsd_signal(int sig, __sighandler_t handler) noexcept { return set_handler(sig, handler, SA_RESTART, true); }
ALLOCSTRESS_EXPORT __sighandler_t sysv_signal(int sig, __sighandler_t handler) noexcept {
  return set_handler(sig, handler, SA_RESETHAND | SA_NODEFER, false);
}
