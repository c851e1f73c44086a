# Tests of the fleet-profile workload (included from tests/CMakeLists.txt): each profile's size and
# live-count histograms against its CSV, determinism, the plan's limits; then the command line.
target_sources(allocstress_unit_tests PRIVATE unit/workloads/fleet_profile_test.cpp)

# `allocstress run` and a small matrix of fleet-profile instances through system, pool and void.
if(NOT ALLOCSTRESS_SANITIZE)
  add_test(NAME cli.fleet_profile COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/cli/workloads/fleet_profile.sh)
  set_tests_properties(cli.fleet_profile PROPERTIES LABELS cli TIMEOUT 300 RUN_SERIAL TRUE ENVIRONMENT
    "ALLOCSTRESS=$<TARGET_FILE:allocstress>")
endif()
