// What the kernel says about this process's memory and resource use: resident set from
// /proc/self/status (VmRSS, VmHWM), resetting the peak via /proc/self/clear_refs, and getrusage.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace allocstress {

// Current resident set size in bytes (VmRSS), or nullopt if /proc is unreadable.
std::optional<std::uint64_t> current_rss_bytes();
// Peak resident set size in bytes since start or since the last reset (VmHWM).
std::optional<std::uint64_t> peak_rss_bytes();
// Resets VmHWM to the current RSS (writes "5" to /proc/self/clear_refs, Linux >= 4.0).
// Returns an empty string on success, else the reason it could not.
std::string reset_peak_rss();

// Reads the resident set from /proc/self/statm through a descriptor opened once: no allocation
// and one system call per reading, so it may run inside a measured phase (allocstats rows).
class RssReader {
 public:
  RssReader();
  ~RssReader();
  RssReader(const RssReader&) = delete;
  RssReader& operator=(const RssReader&) = delete;
  // Resident bytes now, or 0 when /proc/self/statm is unreadable.
  std::uint64_t read() const;

 private:
  int fd_;
  std::uint64_t page_bytes_;
};

struct ResourceUsage {
  std::uint64_t minor_faults = 0;
  std::uint64_t major_faults = 0;
  std::uint64_t voluntary_context_switches = 0;
  std::uint64_t involuntary_context_switches = 0;
  std::uint64_t user_time_ns = 0;
  std::uint64_t system_time_ns = 0;
};

// getrusage(RUSAGE_SELF): the whole process, all threads.
ResourceUsage process_resource_usage();
// getrusage(RUSAGE_THREAD): the calling thread only.
ResourceUsage thread_resource_usage();
ResourceUsage operator-(const ResourceUsage& after, const ResourceUsage& before);

}  // namespace allocstress
