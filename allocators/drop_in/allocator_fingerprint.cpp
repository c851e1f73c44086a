// Size classes, style, large-object threshold and alignment of the process's malloc.
#include "allocators/drop_in/allocator_fingerprint.hpp"

#include <dlfcn.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "allocators/drop_in/malloc_provider.hpp"

namespace allocstress {

namespace {

// ---- /proc/self/maps without malloc ---------------------------------------------------------

struct Mapping {
  std::uintptr_t start, end;
  bool heap;  // the brk heap
};

constexpr std::size_t kMaxMappings = 1 << 16;

struct MapSnapshot {
  Mapping m[kMaxMappings];
  std::size_t n = 0;

  // Reads the current mappings (false if /proc/self/maps cannot be read or parsed).
  bool take() {
    static char buf[1 << 22];
    n = 0;
    const int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
    if (fd < 0) return false;
    std::size_t len = 0;
    for (ssize_t r; (r = read(fd, buf + len, sizeof buf - 1 - len)) > 0;) len += std::size_t(r);
    close(fd);
    buf[len] = '\0';
    for (char* line = buf; *line != '\0' && n < kMaxMappings;) {
      char* next = std::strchr(line, '\n');
      if (next != nullptr) *next = '\0';
      char* dash = nullptr;
      const std::uintptr_t start = std::strtoull(line, &dash, 16);
      if (dash == nullptr || *dash != '-') return false;
      const std::uintptr_t end = std::strtoull(dash + 1, nullptr, 16);
      m[n++] = {start, end, std::strstr(line, "[heap]") != nullptr};
      if (next == nullptr) break;
      line = next + 1;
    }
    return true;
  }

  const Mapping* containing(const void* p) const {
    const auto a = reinterpret_cast<std::uintptr_t>(p);
    for (std::size_t i = 0; i < n; ++i)
      if (a >= m[i].start && a < m[i].end) return &m[i];
    return nullptr;
  }

  bool has(const Mapping& x) const {
    for (std::size_t i = 0; i < n; ++i)
      if (m[i].start == x.start && m[i].end == x.end) return true;
    return false;
  }
};

MapSnapshot g_before, g_after;  // static: 2 x 1.5 MiB, never on the allocator under test

// True when malloc(size) returns a block in memory mapped by that very call (not brk).
bool lands_in_fresh_mapping(std::size_t size, void** out) {
  if (!g_before.take()) return false;
  void* p = std::malloc(size);
  *out = p;
  if (p == nullptr || !g_after.take()) return false;
  const Mapping* now = g_after.containing(p);
  return now != nullptr && !now->heap && !g_before.has(*now);
}

// The large-object threshold as this process's malloc behaves now: blocks of growing sizes are
// allocated and kept live (freeing could move a dynamic threshold, as glibc's does), and the
// threshold is the first size whose block and the next size's block both land in fresh mappings
// (two in a row, so that one arena growth does not count).  Sizes double from 8 KiB to 256 MiB,
// then the interval below the first hit is refined in eighths.  0 if no size maps fresh memory.
std::size_t large_threshold() {
  static void* live[64];
  std::size_t n_live = 0;
  auto fresh = [&](std::size_t size) {
    void* p = nullptr;
    const bool f = lands_in_fresh_mapping(size, &p);
    if (n_live < 64) live[n_live++] = p;
    else std::free(p);
    return f;
  };
  std::size_t lo = 4096, hi = 0;
  bool previous = false;
  for (std::size_t s = 8192; s <= (std::size_t{256} << 20); s *= 2) {
    const bool now = fresh(s);
    if (now && previous) {
      hi = s / 2;
      break;
    }
    if (!now) lo = s;
    previous = now;
  }
  if (hi != 0 && hi > lo) {
    const std::size_t step = std::max<std::size_t>((hi - lo) / 8 / 4096 * 4096, 4096);
    for (std::size_t t = lo + step; t < hi; t += step)
      if (fresh(t)) {
        hi = t;
        break;
      }
  }
  for (std::size_t i = 0; i < n_live; ++i) std::free(live[i]);
  return hi;
}

}  // namespace

UsableSizeFunction checked_usable_size() {
  void* f = dlsym(RTLD_DEFAULT, "malloc_usable_size");
  if (f == nullptr || symbol_provider_path("malloc_usable_size") != malloc_provider_path()) return nullptr;
  return reinterpret_cast<UsableSizeFunction>(f);
}

nlohmann::json fingerprint_process_malloc() {
  // The threshold first: the earlier in the process, the closer to the allocator's initial state.
  const std::size_t at_start = large_threshold();
  nlohmann::json fp = {{"malloc_provider", malloc_provider_path()}};

  // Size classes from usable sizes.
  const UsableSizeFunction usable = checked_usable_size();
  if (usable == nullptr) {
    fp["size_classes"] = nullptr;
    fp["size_classes_reason"] = "n/a: malloc_usable_size is not provided by " + malloc_provider_path();
  } else {
    // Two blocks per request, the smaller usable size counts: a recycled, slightly larger free
    // block (glibc hands those out) must not look like a class.  Only increases make a class.
    nlohmann::json classes = nlohmann::json::array();
    std::size_t previous = 0;
    for (std::size_t n = 8; n <= 65536; n += 8) {
      void* p = std::malloc(n);
      void* q = std::malloc(n);
      const std::size_t u = std::min(usable(p), usable(q));
      std::free(p);
      std::free(q);
      if (u > previous) classes.push_back({{"first_request", n}, {"usable", u}});
      previous = std::max(previous, u);
    }
    fp["size_classes"] = classes;
    fp["size_class_count"] = classes.size();
  }

  // Style: do blocks of two different small classes share a page?  40 pairs are allocated; the
  // last 8 are judged, by when recently freed blocks (thread caches, bins) are used up.
  int shared = 0;
  static void* pairs[40][2];
  for (std::size_t i = 0; i < 40; ++i) {
    pairs[i][0] = std::malloc(16);
    pairs[i][1] = std::malloc(48);
    if (i >= 32)
      shared += reinterpret_cast<std::uintptr_t>(pairs[i][0]) / 4096 == reinterpret_cast<std::uintptr_t>(pairs[i][1]) / 4096;
  }
  for (auto& pair : pairs) {
    std::free(pair[0]);
    std::free(pair[1]);
  }
  fp["style"] = shared >= 4 ? "sequential" : "BiBOP";
  fp["style_evidence"] = std::to_string(shared) + " of 8 pairs of 16 B and 48 B blocks allocated back to back share a 4 KiB page";

  // Minimum alignment over 1..512-byte requests (kept live so that addresses differ).
  static void* small[512];
  std::uintptr_t bits = 0;
  for (std::size_t n = 1; n <= 512; ++n) {
    small[n - 1] = std::malloc(n);
    bits |= reinterpret_cast<std::uintptr_t>(small[n - 1]);
  }
  for (void* p : small) std::free(p);
  fp["min_alignment"] = bits == 0 ? 0 : std::min<std::uintptr_t>(std::uintptr_t{1} << std::countr_zero(bits), 4096);

  // Large-object threshold at start (measured first, above) and after freeing a block four
  // times that size.
  fp["large_threshold_at_start"] = at_start == 0 ? nlohmann::json(nullptr) : nlohmann::json(at_start);
  if (at_start == 0)
    fp["large_threshold_reason"] = "n/a: no request up to 256 MiB landed in a fresh mapping (large blocks come from the "
                                   "allocator's own heap, e.g. grown with brk, or from memory it already holds)";
  if (at_start != 0) {
    std::free(std::malloc(at_start * 4));
    const std::size_t after = large_threshold();
    fp["large_threshold_after_free"] = after == 0 ? nlohmann::json(nullptr) : nlohmann::json(after);
    fp["large_threshold_after_free_of"] = at_start * 4;
  } else {
    fp["large_threshold_after_free"] = nullptr;
  }
  fp["large_threshold_method"] =
      "smallest request whose block and the next larger request's block land in mappings that did not exist before the call "
      "(not the brk heap), blocks kept live; sizes doubling from 8 KiB to 256 MiB, then eighths of the last interval";
  return fp;
}

}  // namespace allocstress
