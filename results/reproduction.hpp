// Reproduction intervals: where another run of the same matrix on the same machine should put a
// cell's median (docs/methodology.md, "Reproduction intervals").
//
// The model.  A run's interval of the median (results_summary.hpp) covers the process-to-process
// spread inside that run.  Between runs a machine also drifts: on the project's VM the speed of
// the whole machine moves by a few percent over minutes, in every allocator and in void alike, so
// another run's median misses that interval more often than its level says.  One run cannot see
// drift slower than itself; repeated runs can.  So the interval is calibrated on them (a
// dimensioning experiment in Kalibera and Jones's sense, "Rigorous Benchmarking in Reasonable
// Time", ISMM 2013), with split-conformal prediction:
//
// 1. Base interval.  For a cell with n undisturbed processes x(1) <= ... <= x(n), the number J of
//    them below the median Y of another n processes (Y = the k-th smallest, k = (n + 1) / 2) has
//    P(J = j) = C(j + k - 1, j) C(2n - j - k, n - j) / C(2n, n) whatever the distribution, so
//    [x(r), x(n + 1 - r)] holds Y with probability P(r <= J <= n - r).  The base interval is the
//    narrowest such one whose probability reaches `level`: exact when runs are exchangeable.
// 2. Score.  Over calibration runs of the same matrix, each cell and each ordered pair of runs
//    (i, j != i) scores how far run j's median lies from run i's, in units of run i's base
//    interval on that side: (m_j - m_i) / (high_i - m_i) above, (m_i - m_j) / (m_i - low_i) below.
// 3. Factor.  The calibration's factor is the ceil((P + 1) level)-th smallest of its P scores
//    (split-conformal quantile): if a later run is exchangeable with the calibration runs, its
//    widened interval m -/+ factor x (the base interval's sides) holds another run's median with
//    probability at least `level`.
//
// The factor is a property of the machine (and how quiet it is), measured by `allocstress
// calibrate` from results files; matrix runs on the same host read it (default_calibration_path).
#pragma once

#include <nlohmann/json.hpp>

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "cells/record_identity.hpp"

namespace allocstress {

inline constexpr const char* kCalibrationSchemaName = "allocstress-reproduction-calibration";
inline constexpr int kCalibrationSchemaVersion = 1;
inline constexpr double kDefaultReproductionLevel = 0.95;

// The base interval of step 1 is platform/statistics.hpp's median_prediction_interval.

// The headline values of a results document's undisturbed ok timing records, per
// timing cell (record_key): the workload's headline metric (net where the workload is net).
using CellValues = std::map<RecordKey, std::vector<double>>;
CellValues headline_values(const std::vector<nlohmann::json>& records);

// Step 2 over runs of one matrix (cells missing from any run, or too small for a base interval,
// are left out).
std::vector<double> reproduction_scores(const std::vector<CellValues>& runs, double level);

// Step 3; throws std::invalid_argument when there are fewer than ceil(1 / (1 - level)) - 1 scores
// (no conformal quantile exists), naming how many are needed.
double conformal_factor(std::vector<double> scores, double level);

// Where matrix runs look for the calibration: $ALLOCSTRESS_CALIBRATION if set, else
// $XDG_DATA_HOME/allocstress/calibration.json, else ~/.local/share/allocstress/calibration.json.
std::filesystem::path default_calibration_path();

// Reads a calibration file; throws std::runtime_error naming the file and what is wrong.
nlohmann::json read_calibration(const std::filesystem::path& path);

// The calibration in effect for a run on `host`, or null with `why_not` set (no file, another
// host's, unreadable): the results' context records either.
nlohmann::json calibration_for_host(const std::filesystem::path& path, const std::string& host, std::string& why_not);

// Adds `reproduction` to every timing median entry of `aggregates` (its headline metric's
// widened interval, or null bounds with the reason when the cell has too few processes).
void attach_reproduction(std::vector<nlohmann::json>& aggregates, const std::vector<nlohmann::json>& records, const nlohmann::json& calibration);

}  // namespace allocstress
