// Fatal signals: the trace is written out before the process dies of one.
//
// Model.  For each signal of kTracedSignals whose disposition is not SIG_IGN, the tracer's
// handler is the one installed in the kernel, and the program's own disposition (what it asked
// for with sigaction/signal/bsd_signal/sysv_signal, which are interposed, and what those calls
// report back as the old action) is kept in a table.  When a signal arrives:
//  - the program installed a handler: it is called as the kernel would (SA_SIGINFO or not; the
//    mask and SA_NODEFER/SA_ONSTACK/SA_RESTART are mirrored in the installed action; SA_RESETHAND
//    is emulated); if it returns, the program goes on;
//  - the program's disposition is the default: the pending events of every thread are written,
//    then the end record "signal N", and the signal is raised again with the default action
//    (the process dies of it, with its core dump if any; the exit status is unchanged).
// Only async-signal-safe calls are made (write(2), spin locks that notice their own holder).
// Not covered: dispositions set by the raw rt_sigaction system call (bypassing libc), a stack
// overflow on a thread without an alternate signal stack (no handler can run), SIGKILL.
// A vfork/posix_spawn child (process_owns_trace() false) neither changes the table (it shares
// the parent's memory) nor writes: its sigaction calls go straight to the kernel.
#pragma once

#include <signal.h>

namespace allocstress::tracer {

inline constexpr int kTracedSignals[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGSYS,
                                         SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGXCPU, SIGXFSZ};

// At start-up, with tracing on.  pre: the recursion guard is held.
void install_signal_handlers();

}  // namespace allocstress::tracer
