// Adaptive repetitions: after a matrix's planned cells, more processes for the timing cells whose
// interval is still wide, until a target precision or a time budget (Kalibera and Jones's advice
// for variance that lies between processes: more, shorter processes; results/variance_components.hpp).
//
// Each round adds one repetition to every unsettled (workload, allocator, threads) cell, together
// with the void baseline of the same workload and threads (the net figure pairs them by
// repetition), interleaved in a shuffled order (seeded by the round).  A cell is settled when
//   - it has at least the planned number of undisturbed ok processes (disturbed ones, see
//     cells/modes/interference.hpp, are left out of the aggregates and so re-run here) and at least
//     kMinSettledProcesses, and
//   - the distribution-free interval of its median (net ns/pair where the workload is net of
//     void, else its headline metric) has a half-width of at most target_ci of the median, or
//     of at most kSettledHalfWidthNs ns/pair (differences below that are not what anyone ranks:
//     an allocator whose net cost is ~0 would otherwise never settle).
// Cells that never produced an ok record are not re-run, nor are failed processes replaced.
// Rounds stop when every cell is settled, when the next round would end after the time budget
// (measured from the start of the run; a resumed run starts a new budget), or at
// kMaxAdaptiveRepetitions repetitions.  Without a target (target_ci 0, e.g. --reps N) the rounds
// only replace disturbed processes: a cell is settled once it has its planned number of
// undisturbed ok processes, and at most `repetitions` more are run for it.
#pragma once

#include <nlohmann/json.hpp>

#include <functional>
#include <optional>

#include "plan/matrix_plan.hpp"
#include "results/results_journal.hpp"

namespace allocstress {

inline constexpr unsigned kMaxAdaptiveRepetitions = 200;
inline constexpr double kSettledHalfWidthNs = 1.0;
// Stopping as soon as an interval looks narrow favours intervals that are narrow by chance (five
// values that happen to agree): a cell settles only with this many processes or more.
inline constexpr unsigned kMinSettledProcesses = 10;

// What the rounds need from the backend: run one cell, record it in the journal and return how
// long its process took (seconds), or nullopt when the user interrupted.
using RunCell = std::function<std::optional<double>(const MatrixCell& cell)>;

// Runs the rounds.  `started_s` is the steady-clock second
// the run started, `mean_cell_s` the mean time of a timing cell so far (the first round's
// estimate).  Returns the results' context.adaptive_repetitions block (null when there was no
// target and nothing to replace), or nullopt when interrupted.
std::optional<nlohmann::json> run_adaptive_repetitions(const MatrixPlan& plan, const ResultsJournal& journal, double started_s,
                                                       double mean_cell_s, const RunCell& run_cell);

// Seconds on the steady clock (the budget's clock).
double steady_seconds();

}  // namespace allocstress
