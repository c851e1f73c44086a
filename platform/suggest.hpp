// "Did you mean ...": the accepted spellings closest to a mistyped name (a command, an option, an
// allocator, a workload).  One model for every such error line of the CLI.
//
// Model: the distance between two names is the optimal-string-alignment edit distance (insert,
// delete or substitute one character, or swap two adjacent ones), ignoring case and leading
// dashes.  A name is suggested when its distance is the smallest among the accepted names and at
// most max(1, min(3, length / 3)) of the typed name's length (so "raport" -> report, "jemaloc" ->
// jemalloc, "--alocator" -> --allocator, and "xyz" -> nothing); ties are all suggested, in the
// order `accepted` lists them.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace allocstress {

// Optimal-string-alignment distance between `a` and `b` (case-insensitive).
std::size_t edit_distance(std::string_view a, std::string_view b);

// The accepted names close enough to `typed` (see the model above); empty when none is.
std::vector<std::string> closest_names(std::string_view typed, const std::vector<std::string>& accepted);

// "did you mean report? " / "did you mean jemalloc or jemalloc5? " for the closest names, or "" when none
// is close enough: the piece an error line puts before its "(accepted: ...)".
std::string did_you_mean(std::string_view typed, const std::vector<std::string>& accepted);

// One error line for a name that is not one of `accepted`:
//   "unknown <what> '<typed>': did you mean <closest>? (accepted: <a, b, c><extra>)"
// `extra` follows the list inside the parentheses (e.g. "; or NAME=/path/lib.so").
std::string unknown_name_message(std::string_view what, std::string_view typed, const std::vector<std::string>& accepted,
                                 std::string_view extra = "");

}  // namespace allocstress
