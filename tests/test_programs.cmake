# The programs and preloadable libraries the tests drive (tests/support/, tests/trace/,
# tests/replay/; never measured), and the table of environment variables that name them for the
# CLI scripts (included from tests/CMakeLists.txt).  Contract: each variable a script may ask for
# in its `# ctest:` line (tests/README.md) is set here as test_env_NAME (its value, possibly empty
# where the platform has no such program), and test_env_group_NAME lists the sets scripts take whole
# (`env=@cli`, `env=@safety`).  Targets are built in the tests/ binary folder, as before.

# A statically linked program: what bench and the program cells must refuse (LD_PRELOAD never runs
# in it).  Sanitizer runtimes cannot be linked statically: those builds have none.
if(NOT ALLOCSTRESS_SANITIZE)
  add_executable(allocstress_test_static_program support/static_program.c)
  target_link_options(allocstress_test_static_program PRIVATE -static)
  # The cache simulation's independent reference: a walk whose misses are known (run under valgrind,
  # which the sanitizers' runtimes exclude).
  add_executable(allocstress_test_strided_walk support/strided_walk.c)
  target_compile_options(allocstress_test_strided_walk PRIVATE -O2)
  # What a process reads of the clock and the randomness (the counts world's test).  A sanitized
  # program refuses a library preloaded ahead of its runtime: those builds have none.
  add_executable(allocstress_test_entropy_reader support/entropy_reader.c)
endif()

# Preloadable libraries used by the fault tests (never measured).
add_library(allocstress_test_faulty_malloc SHARED support/faulty_malloc.c)
add_library(allocstress_test_no_malloc SHARED support/no_malloc.c)
add_library(allocstress_test_malloc_only SHARED support/malloc_only.c)
add_library(allocstress_test_mmap_malloc SHARED support/mmap_malloc.c)
add_library(allocstress_test_constructor_hang SHARED support/constructor_hang.c)
# The counts tier's independent reference (x86-64 assembly; tests/cli/references/counts.sh says where it is absent).
if(CMAKE_SYSTEM_PROCESSOR MATCHES "x86_64|AMD64")
  add_library(allocstress_test_known_cost_malloc SHARED support/known_cost_malloc.c)
  add_library(allocstress_test_known_cost_malloc_padded SHARED support/known_cost_malloc.c)
  target_compile_definitions(allocstress_test_known_cost_malloc_padded PRIVATE EXTRA_MALLOC=10 EXTRA_FREE=3)
  set(known_cost_malloc "$<TARGET_FILE:allocstress_test_known_cost_malloc>")
  set(known_cost_malloc_padded "$<TARGET_FILE:allocstress_test_known_cost_malloc_padded>")
else()
  set(known_cost_malloc "")
  set(known_cost_malloc_padded "")
endif()
# The profile run's latency-by-class reference: glibc with a 20 us spin in one size class.
add_library(allocstress_test_slow_class_malloc SHARED support/slow_class_malloc.c)

# The program probe's test programs (unit/platform/program_probe/): one that mallocs, spawns,
# forks, execs and _exits as its arguments say (support/probe_target.c).  -O0 -fno-builtin: no
# malloc/free pair removed (the counts are exact).  The _cxx twin is linked with libstdc++, so the
# probe finds a real operator new after it; the _own_malloc one defines malloc itself.
# Sanitizer builds have no probe library.
if(NOT ALLOCSTRESS_SANITIZE)
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
endif()

# Real programs as data for `allocstress bench -- CMD` and its server mode: a tiny key-value
# server and load client of the project's own.
if(NOT ALLOCSTRESS_SANITIZE)
  add_executable(allocstress_test_tiny_server support/tiny_server.c)
  add_executable(allocstress_test_tiny_client support/tiny_client.c)
endif()

# The misuse battery's and the conformance preflight's controls: catch_all_malloc catches every
# misuse of the battery, catch_none_malloc none of them, and offset_malloc, built twice, hands out
# blocks 8 mod 16 (align8) and 1 mod 16 (misalign1), which the conformance check must find.
# Sanitizer builds have no probe (allocators/CMakeLists.txt).
if(NOT ALLOCSTRESS_SANITIZE)
  add_library(allocstress_test_catch_all_malloc SHARED support/catch_all_malloc.c)
  add_library(allocstress_test_catch_none_malloc SHARED support/catch_none_malloc.c)
  add_library(allocstress_test_align8_malloc SHARED support/offset_malloc.c)
  target_compile_definitions(allocstress_test_align8_malloc PRIVATE OFFSET=8)
  add_library(allocstress_test_misalign1_malloc SHARED support/offset_malloc.c)
  target_compile_definitions(allocstress_test_misalign1_malloc PRIVATE OFFSET=1)
  foreach(control catch_all catch_none align8 misalign1)
    target_link_libraries(allocstress_test_${control}_malloc PRIVATE allocstress_warnings)
    set_target_properties(allocstress_test_${control}_malloc PROPERTIES C_STANDARD 11 C_EXTENSIONS ON)
  endforeach()
endif()

# Trace capture: a dump of a trace file, and a program whose exact allocation sequence is known.
add_executable(allocstress_test_dump_trace trace/dump_trace.cpp)
target_link_libraries(allocstress_test_dump_trace PRIVATE allocstress_trace_io allocstress_warnings)
add_executable(allocstress_test_known_sequence trace/known_sequence.cpp)
target_include_directories(allocstress_test_known_sequence PRIVATE ${PROJECT_SOURCE_DIR})
target_link_libraries(allocstress_test_known_sequence PRIVATE allocstress_warnings Threads::Threads ${CMAKE_DL_LIBS})
# Exact sequences: no optimisation may merge, drop or reorder the allocation calls.  The program
# records the addresses of freed blocks as numbers (never dereferenced): -Wno-use-after-free.
target_compile_options(allocstress_test_known_sequence PRIVATE -O0 -fno-builtin -fsized-deallocation -faligned-new -Wno-use-after-free)

# Process changes and fatal signals (cli.trace_spawn): a C program that vforks, spawns, clones,
# forks, execs and crashes, counting its own marked allocations; an independent counter preloaded
# before the tracer for real programs (gcc, python3).  -O0 -fno-builtin: no malloc/free pair removed.
add_executable(allocstress_test_spawn_helper trace/spawn_helper.c)
target_compile_options(allocstress_test_spawn_helper PRIVATE -O0 -fno-builtin)
add_library(allocstress_test_count_malloc SHARED support/count_malloc.c)
target_link_libraries(allocstress_test_count_malloc PRIVATE ${CMAKE_DL_LIBS})

# _exit while threads allocate, counting the calls that returned (-O0 -fno-builtin: none dropped).
add_executable(allocstress_test_exit_race trace/exit_race.cpp)
target_link_libraries(allocstress_test_exit_race PRIVATE allocstress_warnings Threads::Threads)
target_compile_options(allocstress_test_exit_race PRIVATE -O0 -fno-builtin)

# A synthetic trace generator with a known shape (threads, cross-thread frees): replay, fit, soak.
add_executable(allocstress_test_make_trace replay/make_trace.cpp)
target_link_libraries(allocstress_test_make_trace PRIVATE allocstress_trace_io allocstress_warnings)

# The environment table (only the release build registers CLI scripts).
if(NOT ALLOCSTRESS_SANITIZE)
  set(test_env_ALLOCSTRESS "$<TARGET_FILE:allocstress>")
  set(test_env_FAULTY_MALLOC "$<TARGET_FILE:allocstress_test_faulty_malloc>")
  set(test_env_NO_MALLOC "$<TARGET_FILE:allocstress_test_no_malloc>")
  set(test_env_MALLOC_ONLY "$<TARGET_FILE:allocstress_test_malloc_only>")
  set(test_env_MMAP_MALLOC "$<TARGET_FILE:allocstress_test_mmap_malloc>")
  set(test_env_CONSTRUCTOR_HANG "$<TARGET_FILE:allocstress_test_constructor_hang>")
  set(test_env_KNOWN_COST_MALLOC "${known_cost_malloc}")
  set(test_env_KNOWN_COST_MALLOC_PADDED "${known_cost_malloc_padded}")
  set(test_env_SLOW_CLASS_MALLOC "$<TARGET_FILE:allocstress_test_slow_class_malloc>")
  set(test_env_PROBE_TARGET "$<TARGET_FILE:allocstress_test_probe_target>")
  set(test_env_SCHEMA "${PROJECT_SOURCE_DIR}/results/schema.json")
  set(test_env_VALIDATOR "${CMAKE_CURRENT_SOURCE_DIR}/cli/validate_results.py")
  set(test_env_STATIC_PROGRAM "$<TARGET_FILE:allocstress_test_static_program>")
  set(test_env_TINY_SERVER "$<TARGET_FILE:allocstress_test_tiny_server>")
  set(test_env_TINY_CLIENT "$<TARGET_FILE:allocstress_test_tiny_client>")
  set(test_env_CATCH_ALL_MALLOC "$<TARGET_FILE:allocstress_test_catch_all_malloc>")
  set(test_env_CATCH_NONE_MALLOC "$<TARGET_FILE:allocstress_test_catch_none_malloc>")
  set(test_env_ALIGN8_MALLOC "$<TARGET_FILE:allocstress_test_align8_malloc>")
  set(test_env_MISALIGN1_MALLOC "$<TARGET_FILE:allocstress_test_misalign1_malloc>")
  set(test_env_SAFETY_PROBE "$<TARGET_FILE:allocstress-safety-probe>")
  set(test_env_TRACER "$<TARGET_FILE:allocstress_trace>")
  set(test_env_DUMP_TRACE "$<TARGET_FILE:allocstress_test_dump_trace>")
  set(test_env_KNOWN_SEQUENCE "$<TARGET_FILE:allocstress_test_known_sequence>")
  set(test_env_SPAWN_HELPER "$<TARGET_FILE:allocstress_test_spawn_helper>")
  set(test_env_COUNT_MALLOC "$<TARGET_FILE:allocstress_test_count_malloc>")
  set(test_env_EXIT_RACE "$<TARGET_FILE:allocstress_test_exit_race>")
  set(test_env_MAKE_TRACE "$<TARGET_FILE:allocstress_test_make_trace>")
  set(test_env_TRACE_DATA "${CMAKE_CURRENT_SOURCE_DIR}/data/traces")
  # `env=@cli`: the executable, the fault and reference libraries, the results schema.
  set(test_env_group_cli ALLOCSTRESS FAULTY_MALLOC NO_MALLOC MALLOC_ONLY MMAP_MALLOC CONSTRUCTOR_HANG KNOWN_COST_MALLOC
      KNOWN_COST_MALLOC_PADDED SLOW_CLASS_MALLOC PROBE_TARGET SCHEMA VALIDATOR)
  # `env=@safety`: those and the misuse battery's controls with the safety probe.
  set(test_env_group_safety ${test_env_group_cli} CATCH_ALL_MALLOC CATCH_NONE_MALLOC ALIGN8_MALLOC MISALIGN1_MALLOC SAFETY_PROBE)
endif()
