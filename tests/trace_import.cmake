# Tests of trace import, trace-info and the trace reader's bad-input handling (included from
# tests/CMakeLists.txt): unit tests, the CLI script, and the libFuzzer run of the reader.
target_sources(allocstress_unit_tests PRIVATE unit/trace/trace_import_test.cpp unit/trace/trace_reader_test.cpp)

if(NOT ALLOCSTRESS_SANITIZE)
  add_test(NAME cli.trace_import COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/cli/traces/trace_import.sh)
  # This file is included before tests/CMakeLists.txt defines cli_env: the script needs only these.
  set_tests_properties(cli.trace_import PROPERTIES
    ENVIRONMENT "ALLOCSTRESS=$<TARGET_FILE:allocstress>;TRACE_DATA=${CMAKE_CURRENT_SOURCE_DIR}/data/traces"
    LABELS cli TIMEOUT 300 RUN_SERIAL TRUE)
endif()

# libFuzzer on the trace reader and the importers for a bounded time (tests/fuzz/run_fuzz.sh builds
# each with clang): 45 s each (60 until 2026-11-27, cut to keep CI within 30 minutes), as many
# at once as there are CPUs (tests/fuzz/run_fuzz_all.sh: each still fuzzes 45 s on a CPU of its own).
find_program(ALLOCSTRESS_CLANGXX NAMES clang++ clang++-14)
if(ALLOCSTRESS_CLANGXX)
  add_test(NAME fuzz.parsers
    COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/fuzz/run_fuzz_all.sh ${CMAKE_CURRENT_BINARY_DIR}/fuzz 45 trace_reader steve_import heaptrack_import)
  set_tests_properties(fuzz.parsers PROPERTIES ENVIRONMENT "CXX=${ALLOCSTRESS_CLANGXX}" LABELS fuzz TIMEOUT 600)
else()
  message(STATUS "clang++ not found: the fuzz tests (fuzz.parsers) are not registered")
endif()
