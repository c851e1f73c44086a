// The live-block pools' mappings and the due queue (see due_queue.hpp).
#include "workloads/lifetimes/due_queue.hpp"

#include <sys/mman.h>

#include <new>

namespace allocstress {

namespace detail {

void* map_bytes(void* old, std::size_t old_bytes, std::size_t new_bytes) {
  void* p = old == nullptr ? mmap(nullptr, new_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
                           : mremap(old, old_bytes, new_bytes, MREMAP_MAYMOVE);
  if (p == MAP_FAILED) throw std::bad_alloc();
  return p;
}

void unmap_bytes(void* p, std::size_t bytes) { munmap(p, bytes); }

}  // namespace detail

DueQueue::DueQueue() {
  now_ = static_cast<std::uint32_t*>(detail::map_bytes(nullptr, 0, 2 * kWindow * sizeof(std::uint32_t)));
  later_ = now_ + kWindow;
  reset();
}

DueQueue::~DueQueue() { detail::unmap_bytes(now_, 2 * kWindow * sizeof(std::uint32_t)); }

void DueQueue::reset() {
  std::fill(now_, now_ + 2 * kWindow, kNone);
  chunks_.reset(chunks_.high_water());
}

void DueQueue::enter_window(LiveBlock* records, std::uint32_t window) {
  std::uint32_t c = later_[window];
  later_[window] = kNone;
  while (c != kNone) {
    const Chunk& chunk = chunks_.items()[c];
    for (std::uint32_t k = 0; k < chunk.count; ++k) {
      std::uint32_t& head = now_[chunk.offset[k]];
      records[chunk.record[k]].next = head;  // a store: the records' misses overlap
      head = chunk.record[k];
    }
    const std::uint32_t link = chunk.link;
    chunks_.give_back(c);
    c = link;
  }
}

}  // namespace allocstress
