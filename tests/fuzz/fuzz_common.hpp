// What every libFuzzer target of tests/fuzz/ shares (one harness file per target, `*_fuzz.cpp`;
// built and run by run_fuzz.sh).  A harness feeds its input to one parser of external input and
// checks the parser's contract, stated at the top of the harness: the input is either accepted
// (and what the parser returns holds the invariants its header promises) or refused with the
// documented error type.  Anything else is a finding, and the harness aborts so that libFuzzer
// keeps the input: an exception of another type, a broken invariant, and -- caught by the
// sanitizers and libFuzzer themselves -- a crash, a sanitizer report, a leak, a timeout or an
// allocation beyond the memory limit.
//
// Most parsers read files, so each input is written to a file in a private folder of this
// process (under /dev/shm when it exists: no disk I/O), which is also the working directory:
// relative paths an input names land there.
#pragma once

#include <cxxabi.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <memory>
#include <stdexcept>
#include <string>
#include <typeinfo>

#include "cells/programs/program_workloads.hpp"
#include "trace/trace_reader.hpp"

namespace allocstress::fuzz {

inline const std::filesystem::path& work_folder() {
  // On the heap, never destroyed: the exit handler below still reads it.
  static const std::filesystem::path* const folder = [] {
    std::error_code ec;
    const std::filesystem::path base = std::filesystem::is_directory("/dev/shm", ec) ? "/dev/shm" : std::filesystem::temp_directory_path();
    auto* f = new std::filesystem::path(base / ("allocstress-fuzz-" + std::to_string(::getpid())));
    std::filesystem::create_directories(*f);
    std::filesystem::current_path(*f);
    // libFuzzer ends a run without a finding with exit(): the folder goes with it.
    std::atexit([] {
      std::error_code e;
      std::filesystem::current_path("/", e);
      std::filesystem::remove_all(work_folder(), e);
    });
    return f;
  }();
  return *folder;
}

// `data` as the file `name` in the work folder (replaced); returns its path.
inline std::filesystem::path input_file(const unsigned char* data, std::size_t size, const char* name) {
  const std::filesystem::path path = work_folder() / name;
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f.write(reinterpret_cast<const char*>(data), std::streamsize(size));
  return path;
}

// A finding: what broke, on stderr, then abort (libFuzzer keeps the input).
[[noreturn]] inline void finding(const std::string& what) {
  std::fprintf(stderr, "fuzz finding: %s\n", what.c_str());
  std::abort();
}

inline void require(bool holds, const std::string& what) {
  if (!holds) finding(what);
}

inline std::string type_name(const std::type_info& t) {
  int status = 0;
  const std::unique_ptr<char, void (*)(void*)> name(abi::__cxa_demangle(t.name(), nullptr, nullptr, &status), std::free);
  return status == 0 && name ? name.get() : t.name();
}

// Runs `parse`; an exception of one of the `Accepted` types (or derived from one) is the
// contract's refusal and returns false; any other exception is a finding.  True: accepted.
template <class... Accepted, class F>
bool within_contract(const char* parser, F&& parse) {
  try {
    parse();
    return true;
  } catch (const std::exception& e) {
    if ((... || (dynamic_cast<const Accepted*>(&e) != nullptr))) return false;
    finding(std::string(parser) + " threw " + type_name(typeid(e)) + " (outside its contract): " + e.what());
  } catch (...) {
    finding(std::string(parser) + " threw something that is not a std::exception");
  }
}

// Program workloads are declared process-wide by whatever reads a plan, cell, journal or
// results (cells/programs/program_workloads.hpp): each input starts with none, as a fresh process does.
inline void fresh_process_state() { forget_declared_programs(); }

// The importers' harnesses (steve_import_fuzz.cpp, heaptrack_import_fuzz.cpp).  Contract
// (trace/import_*.hpp): any input either imports -- and the trace written reads back with as many
// events as the importer reported -- or throws std::runtime_error, and then no output file (nor
// its .partial) is left.  import(input, output, overwrite) -> result with .events.
template <class Import>
void fuzz_import(const unsigned char* data, std::size_t size, const char* input_name, Import import) {
  const std::filesystem::path input = input_file(data, size, input_name), output = work_folder() / "out.ast";
  const std::filesystem::path partial = output.string() + ".partial";
  std::error_code ec;
  std::filesystem::remove(output, ec);
  try {
    const auto result = import(input, output, true);
    const trace::TraceContents back = trace::read_trace(output);
    if (back.events() != result.events || !back.cut_short().empty())
      finding("imported " + std::to_string(result.events) + " events, the trace written holds " + std::to_string(back.events()) + " (" +
              back.cut_short() + ")");
  } catch (const trace::TraceError& e) {
    finding(std::string("the imported trace does not read back: ") + e.what());
  } catch (const std::runtime_error&) {
    if (std::filesystem::exists(output, ec) || std::filesystem::exists(partial, ec)) finding("a failed import left its output behind");
  } catch (const std::exception& e) {
    finding("the importer threw " + type_name(typeid(e)) + ", not std::runtime_error: " + e.what());
  }
}

}  // namespace allocstress::fuzz
