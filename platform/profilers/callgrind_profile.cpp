// Reading a callgrind profile (see callgrind_profile.hpp).
#include "platform/profilers/callgrind_profile.hpp"

#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string_view>

namespace allocstress {

namespace {

// Names with callgrind's compression: "(id) name" defines id, "(id)" refers to it, "name" is literal.
class CompressedNames {
 public:
  std::string resolve(std::string_view text) {
    if (text.empty() || text.front() != '(') return std::string(text);
    const std::size_t close = text.find(')');
    if (close == std::string_view::npos) return std::string(text);
    const std::string id(text.substr(1, close - 1));
    std::string_view rest = text.substr(close + 1);
    while (!rest.empty() && rest.front() == ' ') rest.remove_prefix(1);
    if (!rest.empty()) return names_[id] = std::string(rest);
    const auto it = names_.find(id);
    return it == names_.end() ? "(" + id + ")" : it->second;
  }

 private:
  std::map<std::string, std::string> names_;
};

bool is_cost_line(std::string_view line) {
  const char c = line.empty() ? '\0' : line.front();
  return (c >= '0' && c <= '9') || c == '+' || c == '-' || c == '*';
}

std::vector<std::uint64_t> numbers(std::string_view text) {
  std::vector<std::uint64_t> out;
  std::istringstream words{std::string(text)};
  for (std::uint64_t v; words >> v;) out.push_back(v);
  return out;
}

}  // namespace

std::uint64_t CallgrindProfile::total(const std::string& event) const {
  for (std::size_t i = 0; i < events.size() && i < totals.size(); ++i)
    if (events[i] == event) return totals[i];
  return 0;
}

CallgrindProfile read_callgrind_profile(const std::filesystem::path& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("callgrind profile " + path.string() + " could not be read");
  CallgrindProfile p;
  CompressedNames objects, functions;
  std::string object, function, line;
  std::string callee_object, callee_function;  // of the next calls= line; callee_object "" = the caller's
  std::size_t positions = 1, line_number = 0;
  bool call_cost_next = false;
  std::vector<std::uint64_t> summary;
  while (std::getline(in, line)) {
    ++line_number;
    const std::string_view l(line);
    if (is_cost_line(l)) {
      std::istringstream words(line);
      std::string word;
      for (std::size_t i = 0; i < positions && words >> word; ++i) {
      }
      // The line after calls= is the inclusive cost of that call: the callee's, not the caller's self cost.
      std::vector<std::uint64_t>& cost =
          call_cost_next ? p.calls[{object, callee_object.empty() ? object : callee_object, callee_function}] : p.self[{object, function}];
      if (call_cost_next) {
        call_cost_next = false;
        callee_object.clear();
      }
      cost.resize(p.events.size(), 0);
      std::size_t e = 0;
      for (std::uint64_t v; e < cost.size() && words >> v; ++e) cost[e] += v;
      if (words.fail() && !words.eof())
        throw std::runtime_error("callgrind profile " + path.string() + " line " + std::to_string(line_number) + ": not a cost line");
      continue;
    }
    call_cost_next = false;
    if (l.starts_with("ob=")) object = objects.resolve(l.substr(3));
    else if (l.starts_with("cob=")) callee_object = objects.resolve(l.substr(4));
    else if (l.starts_with("fn=")) function = functions.resolve(l.substr(3));
    else if (l.starts_with("cfn=")) callee_function = functions.resolve(l.substr(4));
    else if (l.starts_with("calls=")) call_cost_next = true;
    else if (l.starts_with("positions:")) {
      std::istringstream words(line.substr(10));
      positions = 0;
      for (std::string w; words >> w;) ++positions;
    } else if (l.starts_with("events:")) {
      p.events.clear();
      std::istringstream words(line.substr(7));
      for (std::string w; words >> w;) p.events.push_back(w);
    } else if (l.starts_with("creator:")) {
      std::istringstream words(line.substr(8));
      words >> p.creator;
    } else if (l.starts_with("totals:")) p.totals = numbers(l.substr(7));
    else if (l.starts_with("summary:")) summary = numbers(l.substr(8));
  }
  if (p.totals.empty()) p.totals = summary;
  // callgrind leaves out trailing zero counts on these lines too.
  if (p.events.empty() || p.totals.empty() || p.totals.size() > p.events.size())
    throw std::runtime_error("callgrind profile " + path.string() + " has no matching events/totals lines");
  p.totals.resize(p.events.size(), 0);
  return p;
}

namespace {

void add_into(std::vector<std::uint64_t>& sum, const std::vector<std::uint64_t>& part) {
  if (sum.size() < part.size()) sum.resize(part.size(), 0);
  for (std::size_t i = 0; i < part.size(); ++i) sum[i] += part[i];
}

}  // namespace

CallgrindProfile summed_profiles(const std::vector<CallgrindProfile>& parts) {
  if (parts.empty()) throw std::runtime_error("no callgrind profiles to add up");
  CallgrindProfile sum;
  sum.creator = parts.front().creator;
  sum.events = parts.front().events;
  sum.totals.assign(sum.events.size(), 0);
  for (const CallgrindProfile& part : parts) {
    if (part.events != sum.events) throw std::runtime_error("callgrind profiles with different events cannot be added up");
    add_into(sum.totals, part.totals);
    for (const auto& [where, cost] : part.self) add_into(sum.self[where], cost);
    for (const auto& [call, cost] : part.calls) add_into(sum.calls[call], cost);
  }
  return sum;
}

}  // namespace allocstress
