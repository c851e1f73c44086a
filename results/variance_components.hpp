// Where a timing cell's variance lies: within one process or between processes (Kalibera and
// Jones, "Rigorous Benchmarking in Reasonable Time", ISMM 2013), from the alloc-test records'
// `segments` (the timed loop read in K equal consecutive parts).
//
//   y[i][j]   cycles per pair of segment j in process i; segment 0 holds most of the heap's
//             growth (first touch of the slots' blocks) and is left out: j = 1 .. K-1.
//   within    the residual variance of y once each process's level and each segment's level
//             are removed (two-way layout: y[i][j] - mean_i - mean_j + mean), i.e. the noise of
//             one segment inside one process; with one process, the variance about its mean.
//   between   var(process means) - within / (K-1), floored at 0: what a new process adds.
// Both are reported as coefficients of variation of the grand mean.  When between dominates,
// more processes narrow the interval and longer ones do not (the local backend's --target-ci
// runs more processes).
#pragma once

#include <nlohmann/json.hpp>

#include <vector>

namespace allocstress {

// The "variance_components" block of a median aggregate from a cell's ok records, or null when
// any record lacks segments or fewer than 3 segments are left.
nlohmann::json variance_components(const std::vector<const nlohmann::json*>& records);

}  // namespace allocstress
