// Finds the object defining `malloc` with dlsym + dladdr and compares it with the expectation.
#include "allocators/drop_in/malloc_provider.hpp"

#include <dlfcn.h>

#include <filesystem>

#include "platform/sanitizer_build.hpp"

namespace allocstress {

namespace {

// The C library's own malloc: what this process uses when nothing is preloaded.
std::string libc_path() {
  static const std::string path = [] {
    void* sym = dlsym(RTLD_NEXT, "malloc");  // skips the main program; falls through preloads
    void* libc = dlopen("libc.so.6", RTLD_LAZY | RTLD_NOLOAD);
    if (libc != nullptr) {
      if (void* s = dlsym(libc, "malloc")) sym = s;
      dlclose(libc);
    }
    Dl_info info{};
    if (sym == nullptr || dladdr(sym, &info) == 0 || info.dli_fname == nullptr) return std::string();
    std::error_code ec;
    return std::filesystem::canonical(info.dli_fname, ec).string();
  }();
  return path;
}

}  // namespace

std::string symbol_provider_path(const char* symbol) {
  void* sym = dlsym(RTLD_DEFAULT, symbol);
  Dl_info info{};
  if (sym == nullptr || dladdr(sym, &info) == 0 || info.dli_fname == nullptr) return "(unresolved)";
  std::error_code ec;
  const auto canonical = std::filesystem::canonical(info.dli_fname, ec);
  return ec ? std::string(info.dli_fname) : canonical.string();
}

std::string malloc_provider_path() { return symbol_provider_path("malloc"); }

std::string required_preload(const AllocatorSpec& spec) {
  if (spec.kind != AllocatorKind::drop_in || spec.library_path == libc_path()) return "";
  return spec.library_path;
}

EnvironmentChanges preload_environment(const AllocatorSpec& spec) {
  const std::string preload = required_preload(spec);
  EnvironmentChanges env;
  for (const auto& [name, value] : spec.environment) env[name] = value;
  env["LD_PRELOAD"] = preload.empty() ? std::nullopt : std::optional<std::string>(preload);
  env[kCellPreloadMarker] = preload.empty() ? std::string("none") : preload;
  return env;
}

std::string expected_malloc_provider(const AllocatorSpec& spec) { return required_preload(spec).empty() ? libc_path() : spec.library_path; }

std::string verify_malloc_provider(const AllocatorSpec& spec) {
  const std::string expected = expected_malloc_provider(spec);
  const std::string actual = malloc_provider_path();
  if (actual == expected) {
    // A library that replaced malloc but not its partners would corrupt the heap: check them too.
    for (const char* partner : {"free", "calloc", "realloc", "posix_memalign"})
      if (const std::string other = symbol_provider_path(partner); other != actual)
        return std::string(partner) + " resolves to " + other + " but malloc to " + actual + " for allocator '" +
               spec.name + "' (the library replaces only part of the malloc family)";
    return "";
  }
#ifdef ALLOCSTRESS_SANITIZED
  // Sanitizer builds: the sanitizer runtime interposes malloc ahead of libc by design.
  if (required_preload(spec).empty() && actual.find("san.so") != std::string::npos) return "";
#endif
  return "malloc resolves to " + actual + ", expected " + expected + " for allocator '" + spec.name +
         "' (the library does not define malloc, or LD_PRELOAD did not take effect)";
}

}  // namespace allocstress
