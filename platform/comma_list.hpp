// The items of a comma-separated option value ("system,jemalloc"), empty items dropped.
#pragma once

#include <sstream>
#include <string>
#include <vector>

namespace allocstress {

inline std::vector<std::string> comma_separated(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ','))
    if (!item.empty()) out.push_back(item);
  return out;
}

}  // namespace allocstress
