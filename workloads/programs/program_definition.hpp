// A real program to measure, as data: what a programs file entry (plan/programs_file.hpp) or
// `allocstress bench -- CMD` says about it.  One definition is one workload, named by the entry;
// its cells carry the whole definition in their parameters (`params.program`), so a cell process,
// a Slurm node or a reader of the results needs nothing else to know what ran.
//
// Placeholders, expanded in the command, the client, the prepare command, the environment values
// and the work text (expand_placeholders):
//   {input}     the input file: the generated one (a named generator of program_inputs.hpp), or
//               the entry's own file
//   {dir}       the run's folder: where the generated input lies and the program works
//   {threads}   the program's own threads (--prog-threads, default the entry's `threads`)
//   {seed}      the cell's seed; {seed31} the seed as a positive 31-bit number (seed mod
//               2147483647, plus 1: db_bench's --seed)
//   {work:N}    N scaled by the work percentage (--prog-work, default 100), at least 1;
//               {work:N/D} the same, then divided by D (whole numbers)
//   {port}      server drive: a free loopback port chosen for the run
//   {bin:NAME}  the absolute path of NAME on program_search_path() (a binary the command runs
//               through a shell, say); a missing one makes the program unavailable
//   {{ and }}   literal braces
// Anything else in braces is refused when the definition is checked.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace allocstress {

// How a cell drives the program.
enum class ProgramDrive {
  run,     // one command: measured from start to exit, with every descendant
  server,  // a server measured from start to stop while a client (not preloaded) sends it a bounded load
};

// A figure read from the program's output by a regular expression (`--metric NAME=REGEX`): it
// becomes the record's workload_metrics.NAME, and the verdict ranks the allocators by it.
struct ProgramMetric {
  std::string name;               // [a-z][a-z0-9_]*, not a figure every program record has (wall_s, ...)
  std::string regex;              // ECMAScript; the figure is its first group, or the whole match without one
  bool higher_is_better = true;   // requests/s: higher; latency: lower
  std::string combine = "last";   // several matches: first, last, mean, harmonic-mean, sum, min or max
  std::string unit;               // for tables ("requests/s"); "" = none
  std::string stream = "stdout";  // stdout or stderr: the program's, or in server drive the client's
};

struct ProgramDefinition {
  std::string name;       // the workload name: 1..64 of [A-Za-z0-9._-], not a registry workload's
  std::string summary;    // one line: the program, its input and its work
  std::string behaviour;  // the allocation behaviour it exercises ("" = not described)
  std::string package;    // the Debian package of command[0] ("" = unknown)
  // argv, with placeholders; argv[0] an absolute path, or a bare name looked up on
  // program_search_path() when the run starts.
  std::vector<std::string> command;
  std::vector<std::string> needs;  // other binaries it needs, each "binary=package" (or "binary")
  std::string input_generator;     // a generator of program_inputs.hpp ("" = none) ...
  std::string input_file;          // ... and the file name it writes; without a generator: the
                                   // entry's own input file (absolute), or "" = no input
  std::string prepare;             // a shell command before each run (not measured, not preloaded); "" = none
  std::string working_directory;   // "" = the run's folder ({dir})
  std::map<std::string, std::string> environment;  // set for the program (values may use placeholders)
  ProgramDrive drive = ProgramDrive::run;
  // Server drive: the load client (argv, not preloaded), when the server is up, how it stops.
  std::vector<std::string> client;
  std::string ready_port;   // "{port}" or a port number: up when it accepts connections ("" = not by port)
  std::string ready_regex;  // up when its output (stdout or stderr) matches ("" = not by output)
  std::string stop = "SIGTERM";  // a signal name, or "send:TEXT" written to the ready port (\r \n \t escapes)
  std::vector<ProgramMetric> metrics;
  unsigned threads = 1;        // the program's own threads ({threads})
  bool takes_threads = false;  // --prog-threads sets them
  double expected_s = 0;       // the expected run time of one run, seconds (0 = not said)
  bool check_output = false;   // every allocator's stdout must equal system's
  double timeout_s = 0;        // one run's limit, seconds (0 = the matrix's cell timeout)
  std::string work_text;       // the work of one run in words, with placeholders ("" = none)
  std::string origin;          // where it was defined: "programs file PATH", "allocstress bench"
};

// The figures every program record carries in workload_metrics; a user metric cannot take these names.
const std::vector<std::string>& builtin_program_metric_names();

// Throws std::invalid_argument with one line naming the first thing wrong in `p` (an empty
// command, an unknown placeholder or generator, a bad metric regex, a server without a client or
// a way to tell it is up, ...), prefixed by `where`.
void check_program_definition(const ProgramDefinition& p, const std::string& where);

nlohmann::json to_json(const ProgramDefinition& p);
// Throws std::invalid_argument naming the member and what is accepted.
ProgramDefinition program_definition_from_json(const nlohmann::json& j);

// The values of the placeholders for one run.
struct PlaceholderValues {
  std::string input, dir;
  unsigned threads = 1;
  std::uint64_t seed = 1;
  unsigned work_percent = 100;
  std::optional<unsigned> port;  // server drive only
};
// `text` with its placeholders replaced.  Throws std::invalid_argument naming an unknown or
// unavailable placeholder ({port} outside the server drive).
std::string expand_placeholders(std::string_view text, const PlaceholderValues& values);
// `text` as literal text of a definition: its braces doubled, so that nothing in it reads as a
// placeholder -- but `{port}` where `keep_port` (bench's server mode: a free port per run).
std::string escape_braces(std::string_view text, bool keep_port);
// The inverse: doubled braces single again (placeholders left as they are).
std::string unescape_braces(std::string_view text);

// Whether `text` uses placeholder `name` ("port", "input", ...).
bool uses_placeholder(std::string_view text, std::string_view name);

// The figure `metric` reads from `output`, or nullopt when its regex matches no number there.
std::optional<double> read_program_metric(const ProgramMetric& metric, const std::string& output);

// Where bare program names are looked up: $ALLOCSTRESS_PROGRAM_PATH (a colon list) or
// /usr/bin:/bin:/usr/local/bin (Debian's programs, never a separate interpreter first on PATH).
std::string program_search_path();
// The absolute path of `binary` (a bare name on program_search_path(), or a path that is an
// executable file), or "".
std::string program_binary(const std::string& binary);
// The NAMEs of the {bin:NAME} placeholders in `text`.
std::vector<std::string> bin_placeholders(std::string_view text);

// "SIGTERM" -> 15; nullopt for a name that is not a signal.
std::optional<int> signal_number(std::string_view name);

}  // namespace allocstress
