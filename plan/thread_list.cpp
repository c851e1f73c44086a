// Thread-list parsing (see thread_list.hpp).
#include "plan/thread_list.hpp"

#include <algorithm>
#include <cctype>
#include <sstream>

#include "platform/errors.hpp"

namespace allocstress {

namespace {

unsigned parse_count(const std::string& token, const std::string& whole) {
  if (token.empty() || !std::all_of(token.begin(), token.end(), [](unsigned char c) { return std::isdigit(c); }) ||
      token.size() > 6)
    throw UsageError("invalid --threads '" + whole + "': '" + token +
                     "' is not a positive whole number (accepted: 1,2,4 or 1-4)");
  const unsigned v = unsigned(std::stoul(token));
  if (v == 0) throw UsageError("invalid --threads '" + whole + "': 0 threads (accepted: counts >= 1, e.g. 1,2,4 or 1-4)");
  return v;
}

}  // namespace

std::vector<unsigned> parse_thread_list(const std::string& text) {
  std::vector<unsigned> out;
  std::stringstream items(text);
  std::string item;
  while (std::getline(items, item, ',')) {
    const auto dash = item.find('-');
    if (dash == std::string::npos || dash == 0 || dash + 1 == item.size()) {  // "-3" is not a range: a count, refused as it is
      out.push_back(parse_count(item, text));
      continue;
    }
    const unsigned lo = parse_count(item.substr(0, dash), text), hi = parse_count(item.substr(dash + 1), text);
    if (hi < lo) throw UsageError("invalid --threads '" + text + "': range " + item + " runs backwards (accepted: LOW-HIGH)");
    for (unsigned t = lo; t <= hi; ++t) out.push_back(t);
  }
  if (out.empty()) throw UsageError("invalid --threads '" + text + "': no thread counts (accepted: 1,2,4 or 1-4)");
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

}  // namespace allocstress
