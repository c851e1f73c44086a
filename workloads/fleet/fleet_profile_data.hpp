// The fleet profiles' data as shipped in workloads/fleet/profiles/ (Apache-2.0, see its README and
// LICENSE), compiled into the executable: workloads/CMakeLists.txt generates the definitions from
// the CSV files at configure time, so a build needs no data files beside it.
#pragma once

#include <string_view>

namespace allocstress {

// TCMALLOC_<k>.csv for k = 0..9 ("" for another k).
std::string_view fleet_profile_text(unsigned k);
// heap_size.csv: lines "k,MiB".
std::string_view fleet_heap_sizes_text();

}  // namespace allocstress
