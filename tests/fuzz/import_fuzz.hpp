// The body of the importers' libFuzzer targets (steve_import_fuzz.cpp, heaptrack_import_fuzz.cpp;
// built and run by run_fuzz.sh).  The contract under test (trace/import_*.hpp): any input either
// imports -- and the trace written reads back with as many events as the importer reported -- or
// throws std::runtime_error, and then no output file (nor its .partial) is left.  Any other
// exception, a crash, a sanitizer report, a leak or an allocation beyond libFuzzer's limit is a
// bug.  The importers read files, so each input is written to a file in a private folder (under
// /dev/shm when it exists: no disk I/O).
#pragma once

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>

#include "trace/trace_reader.hpp"

namespace allocstress::fuzz {

inline const std::filesystem::path& work_folder() {
  static const std::filesystem::path folder = [] {
    std::error_code ec;
    const std::filesystem::path base = std::filesystem::is_directory("/dev/shm", ec) ? "/dev/shm" : std::filesystem::temp_directory_path();
    std::filesystem::path f = base / ("allocstress-import-fuzz-" + std::to_string(::getpid()));
    std::filesystem::create_directories(f);
    return f;
  }();
  return folder;
}

// Runs import(input, output, overwrite) -> result (with .events) on `data` saved as `input_name`.
template <class Import>
void fuzz_import(const unsigned char* data, std::size_t size, const char* input_name, Import import) {
  const std::filesystem::path input = work_folder() / input_name, output = work_folder() / "out.ast";
  const std::filesystem::path partial = output.string() + ".partial";
  {
    std::ofstream f(input, std::ios::binary | std::ios::trunc);
    f.write(reinterpret_cast<const char*>(data), std::streamsize(size));
  }
  std::error_code ec;
  std::filesystem::remove(output, ec);
  try {
    const auto result = import(input, output, true);
    const trace::TraceContents back = trace::read_trace(output);
    if (back.events() != result.events || !back.cut_short().empty()) {
      std::fprintf(stderr, "imported %llu events, the trace written holds %llu (%s)\n", static_cast<unsigned long long>(result.events),
                   static_cast<unsigned long long>(back.events()), back.cut_short().c_str());
      std::abort();
    }
  } catch (const trace::TraceError& e) {
    std::fprintf(stderr, "the imported trace does not read back: %s\n", e.what());
    std::abort();
  } catch (const std::runtime_error&) {
    if (std::filesystem::exists(output, ec) || std::filesystem::exists(partial, ec)) {
      std::fprintf(stderr, "a failed import left its output behind\n");
      std::abort();
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "the importer threw something other than std::runtime_error: %s\n", e.what());
    std::abort();
  }
}

}  // namespace allocstress::fuzz
