// Reading the conformance check's output (see conformance.hpp).
#include "allocators/safety/conformance.hpp"

#include <sstream>
#include <vector>

namespace allocstress {

std::string conformance_failure(const ChildOutcome& run, double timeout_s) {
  std::vector<std::string> failures;
  std::string in_check = "start-up";
  bool done = false;
  std::istringstream in(run.out);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("check ", 0) == 0) in_check = line.substr(6);
    if (line.rfind("fail ", 0) == 0) failures.push_back(line.substr(5));
    if (line == "done") done = true;
  }
  if (!failures.empty())
    return failures.front() + (failures.size() > 1 ? " (and " + std::to_string(failures.size() - 1) + " more check(s) failed)" : "");
  if (run.end == ChildOutcome::End::timed_out) {
    std::ostringstream s;
    s << "the conformance check did not end within " << timeout_s << " s (in check " << in_check << ")";
    return s.str();
  }
  if (!run.succeeded() || !done) return "the conformance check ended early in check " + in_check + ": " + describe_failure(run, timeout_s);
  return "";
}

}  // namespace allocstress
