// Pieces several commands share: whole-number validation, output-file checks and deprecated
// spellings of options.
#pragma once

#include <CLI/CLI.hpp>

#include <filesystem>
#include <string>

#include "platform/errors.hpp"

namespace allocstress {

// The help of the allocator options matrix, fit --evaluate and programs share.
inline constexpr const char* kAllocatorsHelp =
    "Comma-separated allocators, or all (default: the catalogue's allocators except configurations and named-only ones, "
    "which run when named: see `allocstress list`; one not installed is skipped with the reason)";
inline constexpr const char* kAddAllocatorHelp =
    "Add a drop-in allocator NAME=/path/lib.so[,VAR=VALUE...] to the catalogue, the VAR=VALUE settings in its environment (repeatable)";

// Accepts only unsigned decimal numbers (no sign, no exponent).
extern const CLI::Validator kWholeNumber;

// A duration: a number of seconds, or a number with the unit s, m or h ("150", "90s", "2.5m",
// "1h").  Throws UsageError naming `option` and what is accepted.
double parse_duration_seconds(const std::string& option, const std::string& text);

// A file a command is about to write: it must end in .json, its folder must exist and be
// writable, and it must not exist unless `force`.  Throws UsageError.
void check_new_output_file(const std::filesystem::path& path, bool force);

// When `old_flag` was given on `cmd`: prints one warning line on stderr naming what to write
// instead, and returns true.
bool warn_if_deprecated(const CLI::App& cmd, const std::string& old_flag, const std::string& instead);

// The local time as 20261126-183000: the stamp of default output file names.
std::string file_time_stamp();

}  // namespace allocstress
