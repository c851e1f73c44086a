// The void baseline's bounded buffer (see void_buffer.hpp).
#include "allocators/void_buffer.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <new>

namespace allocstress {

namespace {

std::size_t page_rounded(std::size_t n) {
  const auto page = std::size_t(sysconf(_SC_PAGESIZE));
  return (n + page - 1) / page * page;
}

// Writes one byte per page of [p, p + n): every page resident and its page-table entry writable.
void write_every_page(std::byte* p, std::size_t n) {
  const auto page = std::size_t(sysconf(_SC_PAGESIZE));
  for (std::size_t i = 0; i < n; i += page) static_cast<volatile std::byte*>(p)[i] = std::byte{0};
}

}  // namespace

VoidBuffer::VoidBuffer(std::size_t bytes) : bytes_(bytes) {
  mapped_ = page_rounded(bytes == 0 ? 1 : bytes);
  if (mapped_ <= kPhysicalLimit) {
    void* p = mmap(nullptr, mapped_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) throw std::bad_alloc();
    data_ = static_cast<std::byte*>(p);
    physical_ = mapped_;
    write_every_page(data_, mapped_);
    return;
  }
  // Reserve the whole range, then lay the memfd's kPhysicalLimit bytes over it, piece by piece.
  mapped_ = (mapped_ + kPhysicalLimit - 1) / kPhysicalLimit * kPhysicalLimit;
  void* range = mmap(nullptr, mapped_, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (range == MAP_FAILED) throw std::bad_alloc();
  data_ = static_cast<std::byte*>(range);
  const int fd = memfd_create("allocstress-void", MFD_CLOEXEC);
  if (fd < 0 || ftruncate(fd, off_t(kPhysicalLimit)) != 0) {
    if (fd >= 0) close(fd);
    munmap(range, mapped_);
    throw std::bad_alloc();
  }
  for (std::size_t at = 0; at < mapped_; at += kPhysicalLimit)
    if (mmap(data_ + at, kPhysicalLimit, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, 0) == MAP_FAILED) {
      close(fd);
      munmap(range, mapped_);
      throw std::bad_alloc();
    }
  close(fd);  // the mappings keep the memory
  physical_ = kPhysicalLimit;
  write_every_page(data_, mapped_);
}

VoidBuffer::~VoidBuffer() {
  if (data_ != nullptr) munmap(data_, mapped_);
}

}  // namespace allocstress
