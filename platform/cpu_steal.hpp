// Steal time: how long the hypervisor ran something else while a CPU of this guest had work to do.
// Read from /proc/stat (the 8th number of each "cpuN" line, in USER_HZ ticks, usually 10 ms), so
// a difference over a phase is exact to one tick per CPU.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

namespace allocstress {

// Σ steal time of the CPUs with these OS indices, in ns; nullopt when /proc/stat cannot be read or
// lacks one of them (kernels before 2.6.11 have no steal column).  Does not allocate: the measured
// phase calls it between barriers while the allocator under test is preloaded.
std::optional<std::uint64_t> cpu_steal_ns(const std::vector<unsigned>& cpus);

}  // namespace allocstress
