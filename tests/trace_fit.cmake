# Tests of trace fit (included from tests/CMakeLists.txt): the fitted workload and its parameters,
# the derivation from a trace, and the `allocstress fit` command.
target_sources(allocstress_unit_tests PRIVATE unit/workloads/lifetime_workload_test.cpp unit/workloads/due_queue_test.cpp unit/workloads/trace_fit_test.cpp)

# The CLI test makes its traces with the replay tests' generator (allocstress_test_make_trace,
# trace_replay.cmake).
if(NOT ALLOCSTRESS_SANITIZE)
  add_test(NAME cli.trace_fit COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/cli/traces/trace_fit.sh)
  set_tests_properties(cli.trace_fit PROPERTIES LABELS cli TIMEOUT 600 RUN_SERIAL TRUE ENVIRONMENT
    "ALLOCSTRESS=$<TARGET_FILE:allocstress>;MAKE_TRACE=$<TARGET_FILE:allocstress_test_make_trace>")
endif()

# The sized models drawing their sizes from a fit file (--sizes fit --size-fit).
if(NOT ALLOCSTRESS_SANITIZE)
  add_test(NAME cli.size_fit COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/cli/traces/size_fit.sh)
  set_tests_properties(cli.size_fit PROPERTIES LABELS cli TIMEOUT 300 RUN_SERIAL TRUE ENVIRONMENT
    "ALLOCSTRESS=$<TARGET_FILE:allocstress>;MAKE_TRACE=$<TARGET_FILE:allocstress_test_make_trace>;SCHEMA=${PROJECT_SOURCE_DIR}/results/schema.json;VALIDATOR=${CMAKE_CURRENT_SOURCE_DIR}/cli/validate_results.py")
endif()
