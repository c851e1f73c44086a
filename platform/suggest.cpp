// Suggestions for mistyped names (see suggest.hpp).
#include "platform/suggest.hpp"

#include <algorithm>
#include <cctype>

namespace allocstress {

namespace {

std::string_view without_dashes(std::string_view s) {
  while (!s.empty() && s.front() == '-') s.remove_prefix(1);
  return s;
}

bool same_letter(char a, char b) {
  return std::tolower(static_cast<unsigned char>(a)) == std::tolower(static_cast<unsigned char>(b));
}

}  // namespace

std::size_t edit_distance(std::string_view a, std::string_view b) {
  // d[i][j]: distance between the first i characters of a and the first j of b (three rows kept).
  std::vector<std::size_t> before(b.size() + 1), previous(b.size() + 1), current(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) previous[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    current[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t cost = same_letter(a[i - 1], b[j - 1]) ? 0 : 1;
      current[j] = std::min({previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost});
      if (i > 1 && j > 1 && same_letter(a[i - 1], b[j - 2]) && same_letter(a[i - 2], b[j - 1]))
        current[j] = std::min(current[j], before[j - 2] + 1);  // two adjacent characters swapped
    }
    before.swap(previous);
    previous.swap(current);
  }
  return previous[b.size()];
}

std::vector<std::string> closest_names(std::string_view typed, const std::vector<std::string>& accepted) {
  const std::string_view word = without_dashes(typed);
  const std::size_t limit = std::max<std::size_t>(1, std::min<std::size_t>(3, word.size() / 3));
  std::size_t best = limit;
  std::vector<std::string> out;
  for (const std::string& name : accepted) {
    if (without_dashes(name) == word) continue;  // the name itself is no suggestion (another case is one)
    const std::size_t d = edit_distance(word, without_dashes(name));
    if (d > best) continue;
    if (d < best) out.clear();
    best = d;
    if (std::find(out.begin(), out.end(), name) == out.end()) out.push_back(name);
  }
  return out;
}

std::string did_you_mean(std::string_view typed, const std::vector<std::string>& accepted) {
  const std::vector<std::string> names = closest_names(typed, accepted);
  if (names.empty()) return "";
  std::string out = "did you mean ";
  for (std::size_t i = 0; i < names.size(); ++i) out += (i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + names[i];
  return out + "? ";
}

std::string unknown_name_message(std::string_view what, std::string_view typed, const std::vector<std::string>& accepted,
                                 std::string_view extra) {
  std::string list;
  for (const std::string& name : accepted) list += (list.empty() ? "" : ", ") + name;
  const std::string suggestion = did_you_mean(typed, accepted);
  return "unknown " + std::string(what) + " '" + std::string(typed) + "'" + (suggestion.empty() ? " " : ": " + suggestion) +
         "(accepted: " + list + std::string(extra) + ")";
}

}  // namespace allocstress
