// Harness memory for one worker's slots, mapped directly from the OS (never through the allocator
// under test) and touched before the measured phase, so it is part of "RSS before" and never
// counted as allocator overhead.
#pragma once

#include <sys/mman.h>

#include <cstring>
#include <new>
#include <span>

#include "workloads/alloc_test.hpp"

namespace allocstress {

class SlotArray {
 public:
  explicit SlotArray(std::size_t count) : count_(count), bytes_(count * sizeof(Slot)) {
    void* p = mmap(nullptr, bytes_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) throw std::bad_alloc();
    slots_ = static_cast<Slot*>(p);
    std::memset(slots_, 0, bytes_);  // every slot empty, every page resident
  }
  ~SlotArray() { munmap(slots_, bytes_); }
  SlotArray(const SlotArray&) = delete;
  SlotArray& operator=(const SlotArray&) = delete;

  std::span<Slot> span() { return {slots_, count_}; }

 private:
  std::size_t count_;
  std::size_t bytes_;
  Slot* slots_ = nullptr;
};

}  // namespace allocstress
