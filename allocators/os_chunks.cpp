// mmap-backed chunks with a process-wide budget (see os_chunks.hpp).
#include "os_chunks.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <atomic>

namespace allocstress {

namespace {

std::atomic<std::size_t> g_budget{0};  // 0: not yet computed
std::atomic<std::size_t> g_in_use{0};

void* raw_map(std::size_t bytes) {
  void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  return p == MAP_FAILED ? nullptr : p;
}

bool reserve_budget(std::size_t bytes) {
  const std::size_t limit = ChunkSource::process_budget();
  std::size_t used = g_in_use.load(std::memory_order_relaxed);
  do {
    if (used + bytes > limit) return false;
  } while (!g_in_use.compare_exchange_weak(used, used + bytes, std::memory_order_relaxed));
  return true;
}

}  // namespace

std::size_t ChunkSource::page_size() {
  static const std::size_t page = std::size_t(sysconf(_SC_PAGESIZE));
  return page;
}

std::size_t ChunkSource::process_budget() {
  std::size_t b = g_budget.load(std::memory_order_relaxed);
  if (b == 0) {
    b = std::size_t(sysconf(_SC_PHYS_PAGES)) * page_size() / 2;
    g_budget.store(b, std::memory_order_relaxed);
  }
  return b;
}

void ChunkSource::set_process_budget(std::size_t bytes) { g_budget.store(bytes, std::memory_order_relaxed); }

void* ChunkSource::map(std::size_t bytes, std::size_t alignment) {
  const std::size_t page = page_size();
  bytes = round_up(bytes == 0 ? 1 : bytes, page);
  if (alignment < page) alignment = page;
  // Over-map by alignment - page, then trim both ends so the kept part starts aligned.
  const std::size_t span = bytes + alignment - page;
  if (!reserve_budget(bytes)) return nullptr;
  auto* raw = static_cast<std::byte*>(raw_map(span));
  if (raw == nullptr) {
    g_in_use.fetch_sub(bytes, std::memory_order_relaxed);
    return nullptr;
  }
  const auto addr = reinterpret_cast<std::uintptr_t>(raw);
  std::byte* start = raw + (round_up(addr, alignment) - addr);
  if (start > raw) munmap(raw, std::size_t(start - raw));
  if (std::byte* end = start + bytes; end < raw + span) munmap(end, std::size_t(raw + span - end));
  if (!remember(start, bytes)) {
    munmap(start, bytes);
    g_in_use.fetch_sub(bytes, std::memory_order_relaxed);
    return nullptr;
  }
  mapped_bytes_ += bytes;
  return start;
}

void ChunkSource::unmap(void* p, std::size_t bytes) {
  bytes = round_up(bytes == 0 ? 1 : bytes, page_size());
  for (std::size_t i = count_; i-- > 0;) {  // recent mappings are freed first more often
    if (list_[i].start != p) continue;
    list_[i] = list_[--count_];
    munmap(p, bytes);
    mapped_bytes_ -= bytes;
    g_in_use.fetch_sub(bytes, std::memory_order_relaxed);
    return;
  }
}

bool ChunkSource::remember(void* start, std::size_t bytes) {
  if (count_ == capacity_) {
    const std::size_t old_bytes = capacity_ * sizeof(Mapping);
    const std::size_t new_capacity = capacity_ == 0 ? page_size() / sizeof(Mapping) : capacity_ * 2;
    void* grown = raw_map(new_capacity * sizeof(Mapping));
    if (grown == nullptr) return false;
    if (list_ != nullptr) {
      __builtin_memcpy(grown, list_, old_bytes);
      munmap(list_, old_bytes);
    }
    list_ = static_cast<Mapping*>(grown);
    capacity_ = new_capacity;
  }
  list_[count_++] = {start, bytes};
  return true;
}

ChunkSource::~ChunkSource() {
  for (std::size_t i = 0; i < count_; ++i) {
    munmap(list_[i].start, list_[i].bytes);
    g_in_use.fetch_sub(list_[i].bytes, std::memory_order_relaxed);
  }
  if (list_ != nullptr) munmap(list_, capacity_ * sizeof(Mapping));
}

}  // namespace allocstress
