// Parses smaps_rollup and the mTHP counters, and samples them on a thread (see hugepage_usage.hpp).
#include "platform/memory/hugepage_usage.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>

namespace allocstress {

namespace fs = std::filesystem;

namespace {

double monotonic_s() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return double(ts.tv_sec) + double(ts.tv_nsec) * 1e-9;
}

std::optional<std::uint64_t> read_number(const fs::path& path) {
  std::ifstream in(path);
  std::uint64_t value = 0;
  if (in >> value) return value;
  return std::nullopt;
}

std::optional<double> ratio(std::uint64_t part, std::uint64_t whole) {
  if (whole == 0) return std::nullopt;
  return double(part) / double(whole);
}

std::optional<double> median(std::vector<double> values) {
  if (values.empty()) return std::nullopt;
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2.0;
}

void keep_max(std::optional<double>& peak, std::optional<double> value) {
  if (value && (!peak || *value > *peak)) peak = value;
}

}  // namespace

std::optional<HugepageReading> parse_smaps_rollup(std::string_view text) {
  HugepageReading r;
  int found = 0;  // one bit per field
  while (!text.empty()) {
    const std::size_t end = std::min(text.find('\n'), text.size());
    const std::string_view line = text.substr(0, end);
    text.remove_prefix(std::min(end + 1, text.size()));
    static constexpr std::string_view kNames[] = {"Rss:", "Anonymous:", "AnonHugePages:"};
    std::uint64_t* const fields[] = {&r.rss_bytes, &r.anon_bytes, &r.anon_huge_bytes};
    int k = 0;
    while (k < 3 && !line.starts_with(kNames[k])) ++k;
    if (k == 3) continue;
    std::size_t i = kNames[k].size();
    while (i < line.size() && line[i] == ' ') ++i;
    if (i == line.size() || line[i] < '0' || line[i] > '9') return std::nullopt;
    std::uint64_t kib = 0;
    for (; i < line.size() && line[i] >= '0' && line[i] <= '9'; ++i) kib = kib * 10 + std::uint64_t(line[i] - '0');
    *fields[k] = kib * 1024;  // "Rss:     1716 kB"
    found |= 1 << k;
  }
  if (found != 7) return std::nullopt;
  return r;
}

std::optional<HugepageReading> read_smaps_rollup(int fd) {
  // One pread from offset 0: the kernel walks the page tables anew for it.  (A second pread at a
  // later offset would make seq_file generate the whole text again, hence no loop: the text is
  // about 700 bytes and the three fields come first.)
  char buf[4096];
  ssize_t n;
  do n = ::pread(fd, buf, sizeof buf, 0);
  while (n < 0 && errno == EINTR);
  if (n <= 0) return std::nullopt;
  auto r = parse_smaps_rollup(std::string_view(buf, std::size_t(n)));
  if (r) r->t_s = monotonic_s();
  return r;
}

std::optional<HugepageReading> read_smaps_rollup(const fs::path& path, std::string* why_not) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    if (why_not) *why_not = "cannot open " + path.string() + ": " + std::strerror(errno);
    return std::nullopt;
  }
  auto r = read_smaps_rollup(fd);
  if (!r && why_not) *why_not = "cannot read Rss, Anonymous and AnonHugePages from " + path.string();
  ::close(fd);
  return r;
}

std::vector<MthpCounter> system_mthp_counters(const fs::path& thp_dir) {
  std::vector<MthpCounter> out;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(thp_dir, ec)) {
    const std::string name = entry.path().filename().string();  // "hugepages-64kB"
    if (!name.starts_with("hugepages-") || !name.ends_with("kB")) continue;
    MthpCounter c;
    try {
      c.size_kib = std::stoull(name.substr(10, name.size() - 12));
    } catch (const std::exception&) {
      continue;
    }
    std::ifstream in(entry.path() / "enabled");  // none: a size for shmem only (8 kB on 6.18)
    if (!in) continue;
    std::stringstream text;
    text << in.rdbuf();
    c.enabled = std::string(bracketed_choice(text.str()).value_or(""));
    c.nr_anon = read_number(entry.path() / "stats" / "nr_anon");
    c.anon_fault_alloc = read_number(entry.path() / "stats" / "anon_fault_alloc");
    c.anon_fault_fallback = read_number(entry.path() / "stats" / "anon_fault_fallback");
    out.push_back(std::move(c));
  }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.size_kib < b.size_kib; });
  return out;
}

std::uint64_t mthp_anon_bytes(const std::vector<MthpCounter>& counters) {
  std::uint64_t sum = 0;
  for (const auto& c : counters) sum += c.nr_anon.value_or(0) * c.size_kib * 1024;
  return sum;
}

nlohmann::json to_json(const HugepageSummary& s) {
  const auto opt = [](const std::optional<double>& v) { return v ? nlohmann::json(*v) : nlohmann::json(); };
  nlohmann::json j;
  j["unavailable"] = s.unavailable.empty() ? nlohmann::json() : nlohmann::json("n/a(" + s.unavailable + ")");
  j["coverage"] = {{"median", opt(s.median_coverage)},
                   {"peak", opt(s.peak_coverage)},
                   {"median_rss", opt(s.median_rss_coverage)},
                   {"peak_rss", opt(s.peak_rss_coverage)}};
  j["peak_anon_huge_bytes"] = s.peak_anon_huge_bytes;
  j["readings"] = s.readings;
  j["failed_readings"] = s.failed_readings;
  j["interval_s"] = s.interval_s;
  j["slowest_reading_s"] = s.slowest_reading_s;
  j["busy_s"] = s.busy_s;
  j["slowdowns"] = s.slowdowns;
  j["over_budget"] = s.over_budget;
  j["skipped_slots"] = s.skipped_slots;
  const auto column = [&s](auto member) {
    auto values = nlohmann::json::array();
    for (const auto& r : s.samples) values.push_back(r.*member);
    return values;
  };
  j["samples"] = {{"t_s", column(&HugepageReading::t_s)},
                  {"rss_bytes", column(&HugepageReading::rss_bytes)},
                  {"anon_bytes", column(&HugepageReading::anon_bytes)},
                  {"anon_huge_bytes", column(&HugepageReading::anon_huge_bytes)}};
  j["mthp"] = nlohmann::json::array();
  for (const auto& c : s.mthp_at_stop) {
    nlohmann::json m = {{"size_kib", c.size_kib}, {"enabled", c.enabled}, {"nr_anon_start", nullptr}};
    m["nr_anon_stop"] = c.nr_anon ? nlohmann::json(*c.nr_anon) : nlohmann::json();
    for (const auto& b : s.mthp_at_start)
      if (b.size_kib == c.size_kib && b.nr_anon) m["nr_anon_start"] = *b.nr_anon;
    j["mthp"].push_back(std::move(m));
  }
  return j;
}

HugepageSampler::HugepageSampler(HugepageSamplerOptions options) : options_(std::move(options)) {
  if (options_.interval.count() <= 0)
    throw std::invalid_argument("hugepage sampling interval " + std::to_string(options_.interval.count()) +
                                " ms (accepted: 1 ms or more)");
  if (!(options_.max_busy_fraction > 0 && options_.max_busy_fraction <= 1))
    throw std::invalid_argument("hugepage max_busy_fraction " + std::to_string(options_.max_busy_fraction) +
                                " (accepted: more than 0, at most 1)");
  if (options_.longest_interval.count() != 0 && options_.longest_interval < options_.interval)
    throw std::invalid_argument("hugepage longest_interval " + std::to_string(options_.longest_interval.count()) +
                                " ms (accepted: 0 for no bound, or at least the interval, " +
                                std::to_string(options_.interval.count()) + " ms)");
  if (options_.max_samples < 2 || options_.max_samples % 2 != 0)
    throw std::invalid_argument("hugepage max_samples " + std::to_string(options_.max_samples) +
                                " (accepted: an even number, 2 or more)");
}

bool HugepageSampler::end_thread() {
  if (!thread_.joinable()) return false;
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  thread_.join();
  return true;
}

HugepageSampler::~HugepageSampler() {
  end_thread();
  if (fd_ >= 0) ::close(fd_);
}

void HugepageSampler::start() {
  if (thread_.joinable()) throw std::logic_error("HugepageSampler::start() while it runs");
  summary_ = HugepageSummary{};
  summary_.samples.reserve(options_.max_samples);  // the thread never allocates
  summary_.mthp_at_start = system_mthp_counters(options_.thp_dir);
  interval_ = options_.interval;
  last_cost_s_ = 0;
  slot_ = 1;
  stopping_ = false;
  std::string why;
  if (fd_ < 0) fd_ = ::open(options_.smaps_rollup.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd_ < 0) why = "cannot open " + options_.smaps_rollup.string() + ": " + std::strerror(errno);
  double cost_s = 0;
  const auto first = fd_ < 0 ? std::nullopt : read(cost_s);
  if (!first) {
    summary_.unavailable = why.empty() ? "cannot read Rss, Anonymous and AnonHugePages from " +
                                             options_.smaps_rollup.string() : why;
    return;
  }
  start_ = std::chrono::steady_clock::now();
  start_t_s_ = first->t_s;
  record(*first, cost_s);
  thread_ = std::thread([this] { run(); });
}

// Keeps every second sample from the first (the one at start() stays) and doubles the interval;
// the next slot becomes the first one of the new spacing that is not in the past.
void HugepageSampler::thin_out() {
  auto& v = summary_.samples;
  std::size_t kept = 0;
  for (std::size_t i = 0; i < v.size(); i += 2) v[kept++] = v[i];
  v.resize(kept);
  interval_ *= 2;
  slot_ = (slot_ + 1) / 2;
}

void HugepageSampler::record(const HugepageReading& reading, double cost_s) {
  HugepageReading r = reading;
  r.t_s -= start_t_s_;
  auto& s = summary_;
  ++s.readings;
  keep_max(s.peak_coverage, ratio(r.anon_huge_bytes, r.anon_bytes));
  keep_max(s.peak_rss_coverage, ratio(r.anon_huge_bytes, r.rss_bytes));
  s.peak_anon_huge_bytes = std::max(s.peak_anon_huge_bytes, r.anon_huge_bytes);
  s.slowest_reading_s = std::max(s.slowest_reading_s, cost_s);
  s.busy_s += cost_s;
  if (s.samples.size() == options_.max_samples) thin_out();
  const double cost = std::min(cost_s, last_cost_s_);  // two slow readings in a row: not one outlier
  last_cost_s_ = cost_s;
  const auto bound = options_.longest_interval;
  while (cost > options_.max_busy_fraction * std::chrono::duration<double>(interval_).count()) {
    if (bound.count() != 0 && interval_ * 2 > bound) {  // as slow as the caller allows: kept, and counted
      ++s.over_budget;
      break;
    }
    thin_out();  // too slow for this interval: half as often (the earlier samples; this one is kept)
    ++s.slowdowns;
  }
  s.samples.push_back(r);
}

// cost_s: this thread's CPU time for the reading, not the wall time, which on a loaded machine
// also holds the time it waited for a CPU.
std::optional<HugepageReading> HugepageSampler::read(double& cost_s) const {
  timespec before{}, after{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &before);
  auto r = read_smaps_rollup(fd_);
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &after);
  cost_s = double(after.tv_sec - before.tv_sec) + double(after.tv_nsec - before.tv_nsec) * 1e-9;
  return r;
}

void HugepageSampler::run() {
  // Slot n is due at start_ + n * interval_; samples[j] was taken in slot j unless a reading failed
  // or the thread fell behind.
  std::unique_lock lock(mutex_);
  while (!wake_.wait_until(lock, start_ + interval_ * std::int64_t(slot_), [this] { return stopping_; })) {
    lock.unlock();
    double cost_s = 0;
    const auto r = read(cost_s);
    lock.lock();
    ++slot_;
    if (r) record(*r, cost_s);
    else ++summary_.failed_readings;
    const auto now = std::chrono::steady_clock::now() - start_;
    if (interval_ * std::int64_t(slot_) < now) {  // the next slot has passed: no catch-up burst
      const std::size_t next = std::size_t(now / interval_) + 1;
      summary_.skipped_slots += next - slot_;
      slot_ = next;
    }
  }
}

std::size_t HugepageSampler::readings_so_far() {
  std::lock_guard lock(mutex_);
  return summary_.readings;
}

HugepageSummary HugepageSampler::stop() {
  if (end_thread()) {
    double cost_s = 0;
    if (const auto r = read(cost_s)) record(*r, 0);  // the last: no slowing down
    else ++summary_.failed_readings;
  }
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  auto& s = summary_;
  if (s.readings == 0 && s.unavailable.empty()) s.unavailable = "the sampler was not started";
  s.mthp_at_stop = system_mthp_counters(options_.thp_dir);
  s.interval_s = std::chrono::duration<double>(interval_).count();
  std::vector<double> anon, rss;
  for (const auto& r : s.samples) {
    if (r.anon_bytes > 0) anon.push_back(double(r.anon_huge_bytes) / double(r.anon_bytes));
    if (r.rss_bytes > 0) rss.push_back(double(r.anon_huge_bytes) / double(r.rss_bytes));
  }
  s.median_coverage = median(anon);
  s.median_rss_coverage = median(rss);
  return std::move(summary_);
}

}  // namespace allocstress
