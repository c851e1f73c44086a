// The inputs the real-program workloads generate for themselves (no download): each a pure function
// of (seed, work percent), the same bytes on every machine.  One generator per file
// (python_churn.cpp, c_source.cpp, ...); a programs file names the one its program reads
// (`input = { generator = "lua-churn" }`), and input_generators() lists them by that name.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace allocstress {

// Python: object churn (dicts, lists, tuples, strings, small class instances, bytearrays) in a
// sliding window of live objects, sorted and rebuilt now and then.
std::string python_churn_script(std::uint64_t seed, unsigned work_percent);
// C: a translation unit of many functions (loops, switches, structs, inlinable helpers) for gcc -O2.
std::string generated_c_source(std::uint64_t seed, unsigned work_percent);
// SQL: a table filled by explicit INSERTs in one transaction, a second by a recursive CTE, an
// index, grouped / joined / sorted queries, an update and a delete.
std::string generated_sql_script(std::uint64_t seed, unsigned work_percent);
// Lua: table churn (arrays and records created, grown, sorted, concatenated and dropped).
std::string lua_churn_script(std::uint64_t seed, unsigned work_percent);
// PostScript: pages of filled and stroked Bezier paths, clipping, gradients of gray and text.
std::string generated_postscript(std::uint64_t seed, unsigned work_percent);
// Bytes for a compressor: text-like lines with numbers, and short incompressible spans.
std::string compressible_data(std::uint64_t seed, unsigned work_percent);

// A generator by the name a programs file gives it.
struct InputGenerator {
  std::string_view name;       // "lua-churn"
  std::string_view file_name;  // the file it is written to unless the entry names another ("churn.lua")
  std::string (*make)(std::uint64_t seed, unsigned work_percent);
  std::string_view what;       // one line for `allocstress workloads`
};
const std::vector<InputGenerator>& input_generators();
const InputGenerator* find_input_generator(std::string_view name);  // nullptr when unknown
// "python-churn, c-source, ..." for messages.
std::string input_generator_names();

}  // namespace allocstress
