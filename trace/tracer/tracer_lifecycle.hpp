// Start and end of tracing in a process.
//
// Start: the first interposed call (or the library constructor, whichever comes first) resolves
// the real functions, reads the settings, and registers the thread-exit key, the fork-child
// handler and the SIGABRT handler.  Other threads arriving meanwhile wait.
// End: everything published is written out when the process exits normally (library
// destructor, after the program's own destructors and atexit handlers), calls _exit/_Exit,
// replaces its image (exec*: the new image, traced again, writes a file of its own), or aborts
// (SIGABRT handler installed when the disposition was the default; it writes, then re-raises
// SIGABRT with the default action).  A fork child starts a new file of its own.
#pragma once

#include "real_functions.hpp"

namespace allocstress::tracer {

void bootstrap();  // pre: the calling thread's recursion guard is held

inline void ensure_started() {
  if (__builtin_expect(!g_resolved.load(std::memory_order_acquire), 0)) bootstrap();
}

// Writes every thread's published events: the process is about to exec (`process_ends` false:
// a file is created only if there is something to write) or to _exit (true: the file exists
// afterwards even if the process recorded nothing).
void flush_before_process_change(bool process_ends);

}  // namespace allocstress::tracer
