# libFuzzer on every parser of external input (included from tests/CMakeLists.txt): the trace
# reader and importers, the plan file, the cell JSON, results files, the journal, fit files, the
# manifest, the calibration files, callgrind's and strace's output and the replay program's
# binary inputs, one target each (tests/fuzz/*_fuzz.cpp states each contract).  run_fuzz.sh builds
# them with clang (ASan + UBSan + libFuzzer; the library compiled once into one archive that every
# target links, through ccache) and fuzzes each for the seconds below, as many at once as there are
# CPUs.  13 targets x 8 s on 2 CPUs: 7 rounds, about 1 minute.  With ccache holding the objects the
# build takes 6-9 s; without them (a fresh machine, or a change to a widely included header) the
# library's 97 objects are compiled at -O0 (FUZZ_OPT, half of -O1's time): the whole test took
# 264 s with 15 s per target in a fresh-clone CI run (2026-11-28), hence 8 s, and the timeout.
find_program(ALLOCSTRESS_CLANGXX NAMES clang++ clang++-14)
if(ALLOCSTRESS_CLANGXX)
  add_test(NAME fuzz.parsers COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/fuzz/run_fuzz.sh ${CMAKE_CURRENT_BINARY_DIR}/fuzz 8)
  set_tests_properties(fuzz.parsers PROPERTIES ENVIRONMENT "CXX=${ALLOCSTRESS_CLANGXX};FUZZ_OPT=-O0" LABELS fuzz TIMEOUT 1800)
else()
  # Registered all the same, as a skip with its reason: a fuzz stage that vanished must be seen
  # (scripts/run-tests.sh fails an unlisted skip under CI=true; tests/skip_policy.py).
  message(STATUS "clang++ not found: fuzz.parsers will skip (the fuzz targets in tests/fuzz/ need clang's libFuzzer: "
                 "apt-get install clang, then configure again)")
  add_test(NAME fuzz.parsers COMMAND sh -c "echo 'SKIP: clang++ was not found when this build was configured (Debian clang, which scripts/setup-deps.sh installs)'; exit 77")
  set_tests_properties(fuzz.parsers PROPERTIES LABELS fuzz SKIP_RETURN_CODE 77)
endif()
