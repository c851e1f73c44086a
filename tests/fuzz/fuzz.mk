# Builds the libFuzzer targets (run by run_fuzz.sh, which passes SRC, OUT, CXX, LAUNCHER and the
# targets as goals: make -f fuzz.mk SRC=... OUT=... bin/plan_file_fuzz ...).
#
# Every library source the parsers need -- the layers platform .. results, the same files CMake
# builds into the allocstress_* libraries -- is compiled once, with coverage instrumentation and
# ASan + UBSan, into one archive (OUT/libfuzzed.a) that every harness links against: the linker
# takes only the objects a harness needs.  Objects are rebuilt when their source or a header they
# include changes (-MMD); LAUNCHER (ccache, when installed) serves objects compiled before, in
# another build folder too.
SRC ?= ../..
OUT ?= .
ifeq ($(origin CXX),default)
CXX := clang++
endif
LAUNCHER ?=

LAYERS := platform allocators trace workloads cells plan results
# Sources no harness reaches, left out (the linker would leave their objects out of every target,
# and the build is most of fuzz.parsers' time): the preloaded tracer, the safety probe's C++ side,
# the planner, machine-cost measurement, the results' tables and output.  A harness that comes to
# need one fails to link, naming its symbol: take the file off this list.
UNUSED := trace/tracer/% trace/trace_totals.cpp allocators/safety/% cells/metrics/metric_catalogue.cpp \
  plan/memory_limit_spec.cpp plan/planner.cpp plan/presets.cpp plan/thread_list.cpp platform/profilers/cost_measurements.cpp \
  platform/memory/memory_cgroup.cpp results/tables/%_tables.cpp results/fit_evaluation.cpp results/record_printing.cpp \
  results/tables/reproduction_table.cpp results/results_file.cpp results/results_merge.cpp results/results_output.cpp \
  results/tables/results_table.cpp results/verdict.cpp workloads/lifetimes/trace_fit%.cpp
SOURCES := $(sort $(filter-out $(addprefix $(SRC)/,$(UNUSED)),$(foreach d,$(LAYERS),$(shell find $(SRC)/$(d) -name '*.cpp'))))
OBJECTS := $(patsubst $(SRC)/%.cpp,$(OUT)/obj/%.o,$(SOURCES)) $(OUT)/obj/fleet_profile_data.o

VERSION := $(shell grep -o 'allocstress VERSION [0-9.]*' $(SRC)/CMakeLists.txt | cut -d' ' -f3)
SANITIZE := -fsanitize=address,undefined -fno-sanitize-recover=undefined
# -O1 for fuzzing runs of some length; CTest's short run (tests/fuzz.cmake) passes FUZZ_OPT=-O0 in
# the environment: half the compile time of a cold build (results_reader.cpp 3.1 s instead of 6.4 s),
# which on a fresh machine is most of the test, for slower executions it hardly needs.
FUZZ_OPT ?= -O1
CXXFLAGS := -std=c++20 $(FUZZ_OPT) -gline-tables-only -fno-omit-frame-pointer $(SANITIZE) -I$(SRC) \
  $(shell pkg-config --cflags hwloc tomlplusplus libzstd) \
  -DALLOCSTRESS_SOURCE_DIR='"$(SRC)"' -DALLOCSTRESS_BUILD_TYPE='"fuzz"' -DALLOCSTRESS_VERSION='"$(VERSION)"' \
  -DALLOCSTRESS_MANIFEST_DEFAULT='"$(SRC)/allocators/manifest.tsv"' \
  -DALLOCSTRESS_PROGRAMS_DEFAULT='"$(SRC)/workloads/programs/programs.toml"'
LIBS := $(shell pkg-config --libs hwloc tomlplusplus libzstd) -lpthread -ldl

HARNESSES := $(patsubst $(SRC)/tests/fuzz/%_fuzz.cpp,%,$(wildcard $(SRC)/tests/fuzz/*_fuzz.cpp))

.PHONY: all
all: $(HARNESSES:%=$(OUT)/bin/%_fuzz) $(OUT)/bin/make_seeds
.DELETE_ON_ERROR:

# The library: instrumented for coverage (fuzzer-no-link), sanitized.
$(OUT)/obj/%.o: $(SRC)/%.cpp
	@mkdir -p $(dir $@)
	$(LAUNCHER) $(CXX) $(CXXFLAGS) -fsanitize=fuzzer-no-link -MMD -MP -c $< -o $@

# The fleet profiles' data, as workloads/CMakeLists.txt generates it (fleet_profile_data.hpp; the table is
# not constexpr: clang's constant evaluation gives up measuring strings that long).
FLEET := $(SRC)/workloads/fleet/profiles
$(OUT)/obj/fleet_profile_data.cpp: $(wildcard $(FLEET)/*.csv)
	@mkdir -p $(dir $@)
	@{ printf '#include "workloads/fleet/fleet_profile_data.hpp"\nnamespace allocstress {\nnamespace {\n'; \
	   for k in 0 1 2 3 4 5 6 7 8 9; do printf 'constexpr char kProfile%s[] = R"fleet(' $$k; cat $(FLEET)/TCMALLOC_$$k.csv; printf ')fleet";\n'; done; \
	   printf 'constexpr char kHeapSizes[] = R"fleet('; cat $(FLEET)/heap_size.csv; printf ')fleet";\n}  // namespace\n'; \
	   printf 'std::string_view fleet_profile_text(unsigned k) {\n  static const std::string_view t[] = {kProfile0, kProfile1, kProfile2, kProfile3, kProfile4, kProfile5, kProfile6, kProfile7, kProfile8, kProfile9};\n  return k < 10 ? t[k] : std::string_view();\n}\n'; \
	   printf 'std::string_view fleet_heap_sizes_text() { return kHeapSizes; }\n}  // namespace allocstress\n'; } > $@
$(OUT)/obj/fleet_profile_data.o: $(OUT)/obj/fleet_profile_data.cpp
	$(LAUNCHER) $(CXX) $(CXXFLAGS) -fsanitize=fuzzer-no-link -MMD -MP -c $< -o $@

$(OUT)/libfuzzed.a: $(OBJECTS)
	@rm -f $@
	ar rcs $@ $^

# A harness: its own file, linked with libFuzzer's main.
$(OUT)/bin/%_fuzz: $(SRC)/tests/fuzz/%_fuzz.cpp $(OUT)/libfuzzed.a
	@mkdir -p $(dir $@)
	$(LAUNCHER) $(CXX) $(CXXFLAGS) -fsanitize=fuzzer -MMD -MP -MF $@.d -c $< -o $@.o
	$(CXX) $(SANITIZE) -fsanitize=fuzzer $@.o $(OUT)/libfuzzed.a $(LIBS) -o $@

# The seed writer (make_seeds.cpp): not instrumented, not fuzzed.
$(OUT)/bin/make_seeds: $(SRC)/tests/fuzz/make_seeds.cpp $(OUT)/libfuzzed.a
	@mkdir -p $(dir $@)
	$(LAUNCHER) $(CXX) $(CXXFLAGS) -MMD -MP -MF $@.d -c $< -o $@.o
	$(CXX) $(SANITIZE) $@.o $(OUT)/libfuzzed.a $(LIBS) -o $@

-include $(OBJECTS:.o=.d) $(wildcard $(OUT)/bin/*.d)
