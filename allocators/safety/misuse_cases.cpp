// Classifying one run of a misuse case (see misuse_cases.hpp for the probe's protocol).
#include "allocators/safety/misuse_cases.hpp"

#include <signal.h>

#include <cstring>
#include <sstream>
#include <stdexcept>

namespace allocstress {

namespace {

struct Meaning {
  MisuseOutcome outcome;
  std::string_view name, symbol, meaning;
};
constexpr Meaning kMeanings[] = {
    {MisuseOutcome::detected, "detected", "✓", "stopped before harm: the allocator aborted, or reported the misuse and no harm followed, or a guard page caught the access"},
    {MisuseOutcome::error_returned, "error returned", "E", "the call failed cleanly: NULL (or an error code) with errno"},
    {MisuseOutcome::silent, "silent", "·", "ran to the end and nothing was seen: the misuse went unnoticed and did no visible harm"},
    {MisuseOutcome::corrupted, "corrupted", "✗", "harm seen: a later block held the stray data, a block was handed out twice, the attacker's address came back, or the process crashed later"},
    {MisuseOutcome::crashed, "crashed elsewhere", "C", "a fault inside the misused call, at no check of the allocator's and without a message"},
    {MisuseOutcome::hang, "hang", "H", "the case did not end within its timeout"},
};

const Meaning& meaning_of(MisuseOutcome o) {
  for (const Meaning& m : kMeanings)
    if (m.outcome == o) return m;
  return kMeanings[0];
}

// The probe's lines, read once.
struct ProbeLines {
  std::string step = "none";  // the last `step` seen
  bool has_outcome = false;
  std::string outcome, outcome_detail;
  bool has_fault = false;
  std::string fault_where, fault_step, fault_signal, fault_address;
};

ProbeLines read_probe_lines(const std::string& out) {
  ProbeLines p;
  std::istringstream in(out);
  for (std::string line; std::getline(in, line);) {
    std::istringstream words(line);
    std::string word;
    words >> word;
    if (word == "step") {
      words >> p.step;
    } else if (word == "outcome" && !p.has_outcome) {
      p.has_outcome = true;
      words >> p.outcome;
      std::getline(words >> std::ws, p.outcome_detail);
    } else if (word == "fault" && !p.has_fault) {
      p.has_fault = true;
      words >> p.fault_where >> p.fault_step >> p.fault_signal >> p.fault_address;
    }
  }
  return p;
}

// The allocator's message: its last non-empty line on stderr, at most 240 characters.
std::string last_stderr_line(const std::string& err) {
  std::string last;
  std::istringstream in(err);
  for (std::string line; std::getline(in, line);) {
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
    if (!line.empty()) last = line;
  }
  return last.size() > 240 ? last.substr(0, 237) + "..." : last;
}

std::string signal_name(int sig) {
  const char* abbrev = sigabbrev_np(sig);
  return abbrev != nullptr ? std::string("SIG") + abbrev : "signal " + std::to_string(sig);
}

// A signal an allocator raises on purpose when it detects something (abort, a trap instruction).
bool deliberate_stop(int sig) { return sig == SIGABRT || sig == SIGTRAP || sig == SIGILL; }

// Phases after the misuse began: a stop there comes from the misuse.
bool after_misuse(const std::string& step) { return step == "misuse" || step == "follow" || step == "check"; }

}  // namespace

std::string_view outcome_name(MisuseOutcome o) { return meaning_of(o).name; }
std::string_view outcome_symbol(MisuseOutcome o) { return meaning_of(o).symbol; }
std::string_view outcome_meaning(MisuseOutcome o) { return meaning_of(o).meaning; }

MisuseOutcome outcome_from_name(std::string_view name) {
  for (const Meaning& m : kMeanings)
    if (m.name == name) return m.outcome;
  throw std::invalid_argument("unknown misuse outcome '" + std::string(name) +
                              "' (accepted: detected, error returned, silent, corrupted, crashed elsewhere, hang)");
}

std::vector<MisuseCase> parse_case_list(const std::string& list_output) {
  std::vector<MisuseCase> cases;
  std::istringstream in(list_output);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("provider ", 0) == 0 || line.empty()) continue;
    std::vector<std::string> fields;
    std::istringstream split(line);
    for (std::string f; std::getline(split, f, '\t');) fields.push_back(f);
    if (fields.size() != 4 || fields[0].empty() || (fields[2] != "0" && fields[2] != "1"))
      throw std::runtime_error("the safety probe's case list has a line that is not NAME<tab>GROUP<tab>0|1<tab>DESCRIPTION: '" + line + "'");
    cases.push_back({fields[0], fields[1], fields[3], fields[2] == "1"});
  }
  if (cases.empty()) throw std::runtime_error("the safety probe listed no cases");
  return cases;
}

std::string probe_provider(const std::string& probe_output) {
  std::istringstream in(probe_output);
  for (std::string line; std::getline(in, line);)
    if (line.rfind("provider ", 0) == 0) return line.substr(9);
  return "";
}

CaseResult classify_case_run(const std::string& case_name, const ChildOutcome& run, double timeout_s) {
  CaseResult r{case_name, MisuseOutcome::crashed, "", last_stderr_line(run.err)};
  const ProbeLines p = read_probe_lines(run.out);
  if (run.end == ChildOutcome::End::timed_out) {
    std::ostringstream d;
    d << "no end within " << timeout_s << " s (last step: " << p.step << ")";
    r.outcome = MisuseOutcome::hang;
    r.detail = d.str();
    return r;
  }
  if (run.end == ChildOutcome::End::exited && run.exit_code == 0 && p.has_outcome) {
    r.detail = p.outcome_detail;
    if (p.outcome == "error") {
      r.outcome = MisuseOutcome::error_returned;
    } else if (p.outcome == "corrupted") {
      r.outcome = MisuseOutcome::corrupted;
    } else if (p.outcome == "silent") {
      // An allocator that reports the misuse and carries on, with no harm seen after it, stopped it.
      r.outcome = r.message.empty() ? MisuseOutcome::silent : MisuseOutcome::detected;
      if (!r.message.empty()) r.detail = "reported on stderr and carried on; then: " + r.detail;
    } else {
      r.detail = "the probe printed an unknown outcome '" + p.outcome + "'";
    }
    return r;
  }
  if (p.has_fault) {
    const std::string where = p.fault_address + " (" + p.fault_signal + ", step " + p.fault_step + ")";
    if (p.fault_where == "target") {
      r.outcome = MisuseOutcome::detected;
      r.detail = "the misused address faulted: " + where + " (page protection)";
    } else if (p.fault_step == "follow" || p.fault_step == "check") {
      r.outcome = MisuseOutcome::corrupted;
      r.detail = "crashed later, in an allocation after the misuse: fault at " + where;
    } else {
      r.detail = "fault at " + where;
    }
    return r;
  }
  if (run.end == ChildOutcome::End::signaled) {
    const std::string sig = signal_name(run.signal);
    if (!after_misuse(p.step)) {
      r.detail = "killed by " + sig + " before the misuse (step " + p.step + ")";
    } else if (deliberate_stop(run.signal)) {
      r.outcome = MisuseOutcome::detected;
      r.detail = "stopped by " + sig + " in step " + p.step;
    } else if (p.step == "misuse") {
      r.detail = "killed by " + sig + " inside the misused call";
    } else {
      r.outcome = MisuseOutcome::corrupted;
      r.detail = "crashed later: " + sig + " in step " + p.step;
    }
    return r;
  }
  if (run.end == ChildOutcome::End::exited && !p.has_outcome && after_misuse(p.step) && run.exit_code != 0) {
    // An allocator that exits the process itself when it detects something.
    r.outcome = MisuseOutcome::detected;
    r.detail = "the process exited with code " + std::to_string(run.exit_code) + " in step " + p.step;
    return r;
  }
  if (run.end == ChildOutcome::End::spawn_failed) throw std::runtime_error("cannot start the safety probe: " + run.spawn_error);
  r.detail = "ended without an outcome (" + describe_failure(run, timeout_s) + ", step " + p.step + ")";
  return r;
}

}  // namespace allocstress
