// Start and end of tracing in a process.
//
// Start: the first interposed call (or the library constructor, whichever comes first) resolves
// the real functions, notes the owner pid, reads the settings, and registers the thread-exit
// key, the fork-child handler and the fatal-signal handlers (tracer_signals.hpp).  Other threads
// arriving meanwhile wait.
// End: the other threads' events under way are finished (and, unless the process exits through
// exit(), their later calls wait until it is gone: thread_buffers.hpp), everything published is
// written out, then the end record (trace_format.hpp), when the
// process exits normally (library destructor, after the program's own destructors and atexit
// handlers), calls _exit/_Exit, replaces its image (exec*: the new image, traced again, writes a
// file of its own; a failed exec writes a `resumed` record and tracing goes on), or dies of a
// fatal signal.  A fork child starts a new file of its own.  A child that shares the parent's
// memory without fork() (vfork, posix_spawn, clone) does none of this: the trace is the parent's
// (process_owns_trace(), tracer_state.hpp).
#pragma once

#include "real_functions.hpp"
#include "trace/trace_format.hpp"

namespace allocstress::tracer {

void bootstrap();  // pre: the calling thread's recursion guard is held

inline void ensure_started() {
  if (__builtin_expect(!g_resolved.load(std::memory_order_acquire), 0)) bootstrap();
}

// Writes every thread's published events and the end record (`create`: even if no file exists
// yet).  False, doing nothing, when tracing is off or this process does not own the trace.
// pre: the recursion guard is held.
bool end_process_trace(trace::EndCause cause, int signal, bool create);

// The process is about to exec (`cause` exec: no file is created for an image that recorded
// nothing) or to _exit (exit_now).  Takes the recursion guard itself.
bool flush_before_process_change(trace::EndCause cause);
// After an exec that returned (failed): a `resumed` record, the trace goes on.
void resume_after_failed_exec();

}  // namespace allocstress::tracer
