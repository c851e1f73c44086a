// The one buffer the void baseline hands out for every request (void_allocator.hpp).
//
// Contract: `bytes` of writable address space, every page already written once (resident, page
// tables filled) when the constructor returns, i.e. before any measured phase.  Its memory is
// bounded: up to kPhysicalLimit the buffer is ordinary anonymous memory; beyond, the same
// kPhysicalLimit bytes of one memfd are mapped again and again until the range is covered, so that
// a trace with one 3 GiB request costs its baseline 64 MiB of memory (plus page tables), not 3 GiB.
// Aliased pages share content, which the baseline never relies on (all its blocks share one
// buffer anyway).  VmRSS counts an aliased page once per mapping, so the void records' RSS figures
// are not memory use; void has no overhead ratio.
#pragma once

#include <cstddef>

namespace allocstress {

class VoidBuffer {
 public:
  static constexpr std::size_t kPhysicalLimit = std::size_t{64} << 20;

  // Throws std::bad_alloc when the kernel refuses the memory or the mappings.
  explicit VoidBuffer(std::size_t bytes);
  ~VoidBuffer();
  VoidBuffer(const VoidBuffer&) = delete;
  VoidBuffer& operator=(const VoidBuffer&) = delete;

  std::byte* data() const { return data_; }
  std::size_t size() const { return bytes_; }
  // Bytes of memory behind the buffer (at most kPhysicalLimit, rounded to pages).
  std::size_t physical_bytes() const { return physical_; }

 private:
  std::byte* data_ = nullptr;
  std::size_t bytes_ = 0, mapped_ = 0, physical_ = 0;
};

}  // namespace allocstress
