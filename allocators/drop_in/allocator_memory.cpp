// dlsym lookups of allocator statistics APIs (see allocator_memory.hpp).
#include "allocators/drop_in/allocator_memory.hpp"

#include <dlfcn.h>
#include <malloc.h>

#include <cstdint>
#include <string>

#include "allocators/drop_in/malloc_provider.hpp"

namespace allocstress {

namespace {

using Json = nlohmann::json;
const char* const kFields[] = {"allocated", "active", "resident", "mapped", "metadata", "retained"};

Json figure(std::uint64_t v, const std::string& source) { return {{"value", v}, {"provenance", "allocator-reported (" + source + ")"}}; }
Json missing(const std::string& why) { return {{"value", nullptr}, {"provenance", "n/a(" + why + ")"}}; }

// The symbol, only when it comes from the same object as malloc.
void* own_symbol(const char* name) {
  void* f = dlsym(RTLD_DEFAULT, name);
  return f != nullptr && symbol_provider_path(name) == malloc_provider_path() ? f : nullptr;
}

Json all_missing(const std::string& api, const std::string& why) {
  Json out = {{"api", api}};
  for (const char* f : kFields) out[f] = missing(why);
  return out;
}

}  // namespace

Json allocator_reported_memory() {
  using Mallctl = int (*)(const char*, void*, std::size_t*, void*, std::size_t);
  if (auto mallctl = reinterpret_cast<Mallctl>(own_symbol("mallctl"))) {
    std::uint64_t epoch = 1;
    std::size_t len = sizeof epoch;
    mallctl("epoch", &epoch, &len, &epoch, sizeof epoch);
    Json out = {{"api", "jemalloc mallctl"}};
    for (const char* f : kFields) {
      const std::string name = std::string("stats.") + f;
      std::size_t v = 0, n = sizeof v;
      out[f] = mallctl(name.c_str(), &v, &n, nullptr, 0) == 0 ? figure(v, "mallctl " + name) : missing("mallctl " + name + " failed");
    }
    return out;
  }
  using NumericProperty = int (*)(const char*, std::size_t*);
  if (auto prop = reinterpret_cast<NumericProperty>(own_symbol("MallocExtension_GetNumericProperty"))) {
    auto read = [&](const char* name, std::size_t& v) { return prop(name, &v) != 0; };
    Json out = all_missing("gperftools MallocExtension", "no such property");
    std::size_t allocated = 0, heap = 0, unmapped = 0;
    if (read("generic.current_allocated_bytes", allocated)) out["allocated"] = figure(allocated, "generic.current_allocated_bytes");
    if (read("generic.heap_size", heap)) out["mapped"] = figure(heap, "generic.heap_size");
    if (read("tcmalloc.pageheap_unmapped_bytes", unmapped)) {
      out["retained"] = figure(unmapped, "tcmalloc.pageheap_unmapped_bytes");
      if (heap >= unmapped) out["resident"] = figure(heap - unmapped, "generic.heap_size - tcmalloc.pageheap_unmapped_bytes");
    }
    return out;
  }
  using ProcessInfo = void (*)(std::size_t*, std::size_t*, std::size_t*, std::size_t*, std::size_t*, std::size_t*, std::size_t*, std::size_t*);
  if (auto info = reinterpret_cast<ProcessInfo>(own_symbol("mi_process_info"))) {
    std::size_t elapsed, user, sys, rss, peak_rss, commit, peak_commit, faults;
    info(&elapsed, &user, &sys, &rss, &peak_rss, &commit, &peak_commit, &faults);
    Json out = all_missing("mimalloc mi_process_info", "mi_process_info does not report it");
    out["resident"] = figure(rss, "mi_process_info current_rss");
    out["mapped"] = figure(commit, "mi_process_info current_commit");
    return out;
  }
  using MallInfo2 = struct mallinfo2 (*)();
  if (auto mi = reinterpret_cast<MallInfo2>(own_symbol("mallinfo2"))) {
    const struct mallinfo2 m = mi();
    Json out = all_missing("glibc mallinfo2", "mallinfo2 does not report it");
    out["allocated"] = figure(m.uordblks + m.hblkhd, "mallinfo2 uordblks + hblkhd");
    out["mapped"] = figure(m.arena + m.hblkhd, "mallinfo2 arena + hblkhd");
    out["retained"] = figure(m.fordblks, "mallinfo2 fordblks (free bytes held)");
    return out;
  }
  return all_missing("none", "no known statistics API in " + malloc_provider_path());
}

}  // namespace allocstress
