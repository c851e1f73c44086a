// Memory straight from the kernel for the in-tree allocators (bump, pool, eqclass).
// In-tree backends must not call malloc (that would measure glibc, not them), so they map their
// chunks with mmap and keep their own bookkeeping in mmap'd memory too.
//
// Contract: every mapping is page-aligned and zero-filled; a ChunkSource unmaps everything it
// still holds when destroyed.  All ChunkSources of a process share one budget (half the
// physical memory by default) so that a backend that never reuses memory (bump) fails an
// allocation with nullptr, which the cell reports, instead of driving the machine into the
// OOM killer.
#pragma once

#include <cstddef>
#include <cstdint>

namespace allocstress {

class ChunkSource {
 public:
  ChunkSource() = default;
  ~ChunkSource();
  ChunkSource(const ChunkSource&) = delete;
  ChunkSource& operator=(const ChunkSource&) = delete;

  // A fresh zero-filled mapping of `bytes` (rounded up to whole pages) whose start is aligned to
  // `alignment` (a power of two >= the page size); nullptr when the budget or mmap refuses.
  void* map(std::size_t bytes, std::size_t alignment = 0);
  // pre: p, bytes are exactly a pair returned by / passed to map().
  void unmap(void* p, std::size_t bytes);

  std::size_t mapped_bytes() const { return mapped_bytes_; }

  static std::size_t page_size();
  // Bytes all ChunkSources of this process may hold together; the default is half of physical
  // memory.  Tests lower it to exercise the out-of-memory path.
  static std::size_t process_budget();
  static void set_process_budget(std::size_t bytes);

 private:
  struct Mapping {
    void* start;
    std::size_t bytes;
  };
  // The list of live mappings lives in its own mmap'd array (grown by remapping).
  Mapping* list_ = nullptr;
  std::size_t count_ = 0, capacity_ = 0;
  std::size_t mapped_bytes_ = 0;

  bool remember(void* start, std::size_t bytes);
};

inline std::size_t round_up(std::size_t n, std::size_t multiple) { return (n + multiple - 1) / multiple * multiple; }

}  // namespace allocstress
