// `allocstress trace-info TRACE [--json]`: the summary of a trace as text (or one JSON object).
// A truncated or cut-short trace (no end record, lost events) is summarised up to its last
// complete block, with one warning line on stderr and exit 0; a corrupt or foreign file is one error line and exit 2.
#include "cli/commands/trace_info_command.hpp"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <iostream>
#include <sstream>
#include <vector>

namespace allocstress {

namespace {

using trace::TraceContents;
using trace::TraceOp;

std::string fixed(double v, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

std::string rate_text(double hz) {
  if (hz >= 1e9) return fixed(hz / 1e9, 3) + " GHz";
  return fixed(hz / 1e6, 3) + " MHz";
}

// Bytes of the complete blocks (and the header) per event: a cut block's bytes hold no events.
double bytes_per_event(const TraceContents& c, const TraceTotals& t) {
  return double(c.truncation.empty() ? c.file_bytes : c.truncated_at) / double(t.events);
}

// The end record as JSON: null for version 1 (none exists) and for a trace without one.
nlohmann::json end_json(const TraceContents& c) {
  if (!c.end_recorded()) return nlohmann::json();
  return {{"cause", trace::end_cause_name(c.end.cause)},
          {"signal", c.end.signal ? nlohmann::json(c.end.signal) : nlohmann::json()},
          {"events_written", c.end.events_written},
          {"blocks_written", c.end.blocks_written},
          {"lost_events", c.end.lost_events},
          {"blocks_after", c.blocks_after_end}};
}

nlohmann::json to_json(const TraceContents& c, const TraceTotals& t) {
  nlohmann::json threads = nlohmann::json::array();
  for (const auto& th : c.threads) threads.push_back({{"index", th.index}, {"tid", th.tid}, {"events", th.events.size()}});
  nlohmann::json ops = nlohmann::json::object();
  for (std::size_t i = 0; i < t.ops.size(); ++i)
    if (t.ops[i] != 0) ops[trace::op_name(TraceOp(i))] = t.ops[i];
  const bool clock = c.tsc_hz > 0;
  return {
      {"file", c.file},
      {"file_bytes", c.file_bytes},
      {"format_version", c.header.version},
      {"imported", (c.header.flags & trace::kFlagImported) != 0},
      {"call_sites", c.call_sites()},
      {"pid", c.header.pid},
      {"ppid", c.header.ppid},
      {"command_line", c.command_line},
      {"blocks", c.blocks},
      {"events", t.events},
      {"threads", threads},
      {"ops", ops},
      {"allocations", t.allocations},
      {"failed_allocations", t.failed},
      {"requested_bytes", t.requested_bytes},
      {"frees_matched", t.frees_matched},
      {"frees_unmatched", t.frees_unmatched},
      {"frees_null", t.frees_null},
      {"allocations_over_live", t.allocations_over_live},
      {"peak_live_bytes", t.peak_live_bytes},
      {"peak_at_event", t.peak_at_event},
      {"live_bytes_at_end", t.live_bytes_at_end},
      {"live_blocks_at_end", t.live_blocks_at_end},
      {"bytes_per_event", t.events ? nlohmann::json(bytes_per_event(c, t)) : nlohmann::json()},
      {"tsc_hz", clock ? nlohmann::json(c.tsc_hz) : nlohmann::json()},
      {"duration_s", clock ? nlohmann::json(double(t.last_tsc - t.first_tsc) / c.tsc_hz) : nlohmann::json()},
      {"truncation", c.truncation.empty() ? nlohmann::json() : nlohmann::json{{"offset", c.truncated_at}, {"reason", c.truncation}}},
      {"end", end_json(c)},
      {"cut_short", c.cut_short().empty() ? nlohmann::json() : nlohmann::json(c.cut_short())},
  };
}

std::string to_text(const TraceContents& c, const TraceTotals& t) {
  std::ostringstream o;
  const bool imported = (c.header.flags & trace::kFlagImported) != 0;
  o << "trace:        " << c.file << " (" << c.file_bytes << " bytes, " << c.blocks << (c.blocks == 1 ? " block" : " blocks")
    << ", format version " << c.header.version
    << (imported ? ", imported from another format" : "") << (c.call_sites() ? ", with call sites" : "") << ")\n";
  o << "process:      " << (c.header.pid ? "pid " + std::to_string(c.header.pid) : "not recorded")
    << (c.header.ppid ? ", parent " + std::to_string(c.header.ppid) : "") << "\n";
  std::string args;
  for (const auto& a : c.command_line) args += (args.empty() ? "" : " ") + a;
  for (std::size_t at = args.find('\n'); at != std::string::npos; at = args.find('\n', at)) args.replace(at, 1, "\\n");  // one line
  o << "command line: " << (args.empty() ? "not recorded" : args) << "\n";
  o << "threads:      " << c.threads.size() << "\n";
  for (const auto& th : c.threads) o << "  thread " << th.index << " (tid " << th.tid << "): " << th.events.size() << " events\n";
  o << "events:       " << t.events;
  const char* sep = ": ";
  for (std::size_t i = 0; i < t.ops.size(); ++i)
    if (t.ops[i] != 0) {
      o << sep << trace::op_name(TraceOp(i)) << " " << t.ops[i];
      sep = ", ";
    }
  o << "\n";
  o << "allocations:  " << t.allocations << " (" << t.failed << " failed), " << t.requested_bytes << " bytes requested (reallocs included)\n";
  o << "frees:        " << t.frees_matched << " matched (reallocs' old blocks included), " << t.frees_unmatched
    << " unmatched (address not allocated in the trace), " << t.frees_null << " of NULL\n";
  if (t.allocations_over_live) o << "              " << t.allocations_over_live << " allocations at a still-live address (a free was missed)\n";
  o << "peak live:    " << t.peak_live_bytes << " bytes requested (at event " << t.peak_at_event << "); at the end " << t.live_bytes_at_end
    << " bytes in " << t.live_blocks_at_end << " blocks\n";
  o << "on disk:      " << (t.events ? fixed(bytes_per_event(c, t), 2) + " bytes per event" : "no events") << "\n";
  if (c.tsc_hz > 0)
    o << "TSC rate:     " << rate_text(c.tsc_hz) << "; " << fixed(double(t.last_tsc - t.first_tsc) / c.tsc_hz, 3)
      << " s from the first event to the last\n";
  else
    o << "TSC rate:     " << (imported ? "none (imported trace: timestamps are event indexes)" : "unknown") << "\n";
  if (!c.truncation.empty()) o << "truncated:    at offset " << c.truncated_at << ": " << c.truncation << "\n";
  o << "ended by:     " << c.end_text();
  if (c.end_recorded()) o << "; " << c.end.lost_events << " events lost";
  o << "\n";
  const std::string cut = c.cut_short();
  o << "complete:     " << (cut.empty() ? (c.header.version < 2 && c.truncation.empty() ? "unknown (format version 1)" : "yes") : "no, cut short: " + cut) << "\n";
  return o.str();
}

}  // namespace

void TraceInfoCommand::add_to(CLI::App& app) {
  cmd = app.add_subcommand("trace-info", "Summarise a trace file: events, threads, ops, bytes, peak live bytes, truncation");
  cmd->add_option("trace", trace, "The allocstress trace (from `allocstress trace` or `allocstress import`)")->required();
  cmd->add_flag("--json", json, "Print one JSON object instead of text");
}

int TraceInfoCommand::execute() {
  TraceContents contents;
  try {
    contents = trace::read_trace(trace);
  } catch (const std::runtime_error& e) {
    throw UsageError(e.what());  // cannot open, corrupt or foreign: one line, exit 2
  }
  const TraceTotals totals = trace_totals(contents);
  if (!contents.truncation.empty())
    std::cerr << "allocstress: warning: " << contents.file << ": offset " << contents.truncated_at << ": truncated trace: " << contents.truncation
              << "; summarising the " << contents.blocks << " complete blocks before it\n";
  else if (const std::string cut = contents.cut_short(); !cut.empty())
    std::cerr << "allocstress: warning: " << contents.file << ": trace cut short: " << cut << "\n";
  if (json)
    std::cout << to_json(contents, totals).dump() << "\n";
  else
    std::cout << to_text(contents, totals);
  return 0;
}

}  // namespace allocstress
