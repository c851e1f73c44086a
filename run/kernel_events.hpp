// The kernel's part of a counts cell: the page faults and the memory system calls of the same op
// stream, counted in a native run of the same cell, not under valgrind (whose own memory would
// be counted with the program's).  The run sees what the process under callgrind sees -- the
// same cell file, working directory and fixed environment, the counts world (virtual clock,
// fixed entropy), address randomisation off -- and is traced by strace (platform/profilers/syscall_trace.hpp), which counts the
// system calls by kind between the measured phase's markers (at 1 thread around run() alone, as
// callgrind's collection; at N threads from the main thread's go to its done); the faults are the
// workers' own getrusage over their run() (RUSAGE_THREAD, summed).
#pragma once

#include <nlohmann/json.hpp>

#include <filesystem>

#include "platform/process/child_process.hpp"

namespace allocstress {

// The variable that tells a cell process it is this native run: it runs its counts cell natively
// with the phase markers on, in the environment it was given.
inline constexpr const char* kKernelEventsVariable = "ALLOCSTRESS_KERNEL_EVENTS";
bool kernel_events_run();

// The `kernel_events` block of a counts record, per `unit` and in total; {"n/a": why} when
// strace or setarch is missing or the native run failed.  `executable`: this allocstress;
// `environment`: the changes that give the process under callgrind its world (run/cell_process.cpp).
nlohmann::json count_kernel_events(const std::string& executable, const std::filesystem::path& cell_file, EnvironmentChanges environment, const std::string& working_directory,
                                   double units, const char* unit, unsigned threads);

}  // namespace allocstress
