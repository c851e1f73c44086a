# Tests of trace capture (owned by that part; included from tests/CMakeLists.txt).
#  - unit: the event codec, TraceWriter -> read_trace round trip (label unit).
#  - cli.trace_capture: the preloaded tracer and `allocstress trace` on test programs whose exact
#    allocation sequence is known (tests/trace/), on real programs (sort, python3), on top of
#    jemalloc, killed, aborted, forked and exec'd (label cli).
target_sources(allocstress_unit_tests PRIVATE unit/trace/trace_codec_test.cpp)

add_executable(allocstress_test_dump_trace trace/dump_trace.cpp)
target_link_libraries(allocstress_test_dump_trace PRIVATE allocstress_trace_io allocstress_warnings)
add_executable(allocstress_test_known_sequence trace/known_sequence.cpp)
target_include_directories(allocstress_test_known_sequence PRIVATE ${PROJECT_SOURCE_DIR})
target_link_libraries(allocstress_test_known_sequence PRIVATE allocstress_warnings Threads::Threads ${CMAKE_DL_LIBS})
# Exact sequences: no optimisation may merge, drop or reorder the allocation calls.  The program
# records the addresses of freed blocks as numbers (never dereferenced): -Wno-use-after-free.
target_compile_options(allocstress_test_known_sequence PRIVATE -O0 -fno-builtin -fsized-deallocation -faligned-new -Wno-use-after-free)

# (cli_env of tests/CMakeLists.txt is defined after this file is included: the variables this
# test needs are set here.)
if(NOT ALLOCSTRESS_SANITIZE)
  add_test(NAME cli.trace_capture COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/cli/traces/trace_capture.sh)
  set_tests_properties(cli.trace_capture PROPERTIES LABELS cli TIMEOUT 300 RUN_SERIAL TRUE ENVIRONMENT
    "ALLOCSTRESS=$<TARGET_FILE:allocstress>;TRACER=$<TARGET_FILE:allocstress_trace>;DUMP_TRACE=$<TARGET_FILE:allocstress_test_dump_trace>;KNOWN_SEQUENCE=$<TARGET_FILE:allocstress_test_known_sequence>")
endif()
