# Tests of trace replay (included from tests/CMakeLists.txt).
target_sources(allocstress_unit_tests PRIVATE unit/workloads/replay_program_test.cpp unit/results/fit_evaluation_test.cpp)

# A synthetic trace generator with a known shape (threads, cross-thread frees).
add_executable(allocstress_test_make_trace replay/make_trace.cpp)
target_link_libraries(allocstress_test_make_trace PRIVATE allocstress_trace_io allocstress_warnings)

if(NOT ALLOCSTRESS_SANITIZE)
  add_test(NAME cli.trace_replay COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/cli/traces/trace_replay.sh)
  set_tests_properties(cli.trace_replay PROPERTIES LABELS cli TIMEOUT 600 RUN_SERIAL TRUE
    ENVIRONMENT "${cli_env};MAKE_TRACE=$<TARGET_FILE:allocstress_test_make_trace>")
endif()

if(NOT ALLOCSTRESS_SANITIZE)
  add_test(NAME cli.heap_map COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/cli/traces/heap_map.sh)
  set_tests_properties(cli.heap_map PROPERTIES LABELS cli TIMEOUT 600 RUN_SERIAL TRUE
    ENVIRONMENT "${cli_env};MAKE_TRACE=$<TARGET_FILE:allocstress_test_make_trace>")
endif()
