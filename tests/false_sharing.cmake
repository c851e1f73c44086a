# Tests of the false_sharing workloads: unit sources (target_sources) and CLI tests.
target_sources(allocstress_unit_tests PRIVATE unit/workloads/false_sharing_test.cpp)

# The CLI test runs both kernels through `allocstress run` (timing-free checks).
if(NOT ALLOCSTRESS_SANITIZE)
  add_test(NAME cli.false_sharing COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/cli/workloads/false_sharing.sh)
  set_tests_properties(cli.false_sharing PROPERTIES LABELS cli TIMEOUT 300 RUN_SERIAL TRUE ENVIRONMENT
    "ALLOCSTRESS=$<TARGET_FILE:allocstress>")
endif()
