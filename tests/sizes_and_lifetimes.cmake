# Tests of the sizes_and_lifetimes workloads: unit sources (target_sources) and CLI tests.
#   fleet_size_sampler_test  the fleet size preset against the published figures, exact and drawn
#   lifetime_models_test     the lifetime models: Little's law, shapes, size classes, fit files
target_sources(allocstress_unit_tests PRIVATE unit/workloads/fleet_size_sampler_test.cpp unit/workloads/lifetime_models_test.cpp)

# The `lifetime` workload from the command line (system, pool, void; bad input).
if(NOT ALLOCSTRESS_SANITIZE)
  add_test(NAME cli.lifetime COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/cli/workloads/lifetime.sh)
  set_tests_properties(cli.lifetime PROPERTIES LABELS cli TIMEOUT 600 RUN_SERIAL TRUE ENVIRONMENT
    "ALLOCSTRESS=$<TARGET_FILE:allocstress>")
endif()
