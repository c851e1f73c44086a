// Thread counts as a user writes them: "1,2,4", "1-4", "1-3,8".
#pragma once

#include <string>
#include <vector>

namespace allocstress {

// Sorted unique counts.  Throws UsageError (platform/errors.hpp) on 0, junk or an empty list,
// naming --threads and the accepted forms.
std::vector<unsigned> parse_thread_list(const std::string& text);

}  // namespace allocstress
