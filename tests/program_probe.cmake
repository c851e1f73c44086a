# Tests of the program probe (platform/program_probe.*; included from tests/CMakeLists.txt), label
# unit: the log reader on written text, and the probe libraries preloaded into a test program that
# mallocs, spawns, forks, execs and _exits as its arguments say (support/probe_target.c): the lines
# each process writes, where its malloc resolves, exact allocation counts.  Sanitizer builds have no
# probe library: there the reader's tests run alone.
add_executable(allocstress_probe_tests unit/platform/program_probe_test.cpp)
target_link_libraries(allocstress_probe_tests PRIVATE allocstress_platform allocstress_warnings GTest::gtest_main)
if(NOT ALLOCSTRESS_SANITIZE)
  # -O0 -fno-builtin: no malloc/free pair removed (the counts are exact).  The _cxx twin is linked
  # with libstdc++, so the probe finds a real operator new after it; the _own_malloc one defines
  # malloc itself.
  add_executable(allocstress_test_probe_target support/probe_target.c)
  add_executable(allocstress_test_probe_target_cxx support/probe_target.c)
  add_executable(allocstress_test_probe_target_own_malloc support/probe_target.c)
  target_compile_definitions(allocstress_test_probe_target_own_malloc PRIVATE OWN_MALLOC)
  # Not position-independent and taking malloc's address: its PLT stub becomes malloc's canonical
  # address (Debian's python3.11 is such a program), which is no malloc of its own.
  add_executable(allocstress_test_probe_target_no_pie support/probe_target.c)
  target_compile_definitions(allocstress_test_probe_target_no_pie PRIVATE TAKES_MALLOC_ADDRESS)
  set_target_properties(allocstress_test_probe_target_no_pie PROPERTIES POSITION_INDEPENDENT_CODE OFF)
  target_compile_options(allocstress_test_probe_target_no_pie PRIVATE -fno-pie)
  target_link_options(allocstress_test_probe_target_no_pie PRIVATE -no-pie)
  foreach(target allocstress_test_probe_target allocstress_test_probe_target_cxx allocstress_test_probe_target_own_malloc
                 allocstress_test_probe_target_no_pie)
    target_compile_options(${target} PRIVATE -O0 -fno-builtin)
    target_link_libraries(${target} PRIVATE allocstress_warnings Threads::Threads ${CMAKE_DL_LIBS})
  endforeach()
  target_link_libraries(allocstress_test_probe_target_cxx PRIVATE -Wl,--no-as-needed stdc++ -Wl,--as-needed)
  target_compile_definitions(allocstress_probe_tests PRIVATE
    ALLOCSTRESS_PROBE_LIBRARY="$<TARGET_FILE:allocstress_probe>"
    ALLOCSTRESS_PROBE_COUNT_LIBRARY="$<TARGET_FILE:allocstress_probe_count>"
    ALLOCSTRESS_PROBE_TARGET="$<TARGET_FILE:allocstress_test_probe_target>"
    ALLOCSTRESS_PROBE_CXX_TARGET="$<TARGET_FILE:allocstress_test_probe_target_cxx>"
    ALLOCSTRESS_PROBE_OWN_MALLOC_TARGET="$<TARGET_FILE:allocstress_test_probe_target_own_malloc>"
    ALLOCSTRESS_PROBE_NO_PIE_TARGET="$<TARGET_FILE:allocstress_test_probe_target_no_pie>")
  add_dependencies(allocstress_probe_tests allocstress_probe allocstress_probe_count
    allocstress_test_probe_target allocstress_test_probe_target_cxx allocstress_test_probe_target_own_malloc
    allocstress_test_probe_target_no_pie)
endif()
gtest_discover_tests(allocstress_probe_tests PROPERTIES LABELS unit DISCOVERY_TIMEOUT 60)
