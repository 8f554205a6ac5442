# Sanitizer and fuzzing builds (docs/reliability.md, "Sanitizers" and "Fuzzing").
#
# SOMA_SANITIZE=address,undefined  compiles and links every target with those sanitizers; any
#                                   report aborts the process (no recovery), so a test fails.
# SOMA_BUILD_FUZZERS=ON             instruments every target for libFuzzer (clang) and builds fuzz/.
# SOMA_SANITIZER_STAGE=ON (default) in a normal build: when clang++-14 with libFuzzer is found,
#                                   soma_add_sanitizer_stage() adds a second tree, <build>/sanitized,
#                                   built with both of the above (part of the normal build), and two
#                                   ctest entries that run its tests and its fuzz targets.

if(SOMA_SANITIZE)
  add_compile_options(-fsanitize=${SOMA_SANITIZE} -fno-omit-frame-pointer -fno-sanitize-recover=all)
  add_link_options(-fsanitize=${SOMA_SANITIZE})
endif()
if(SOMA_BUILD_FUZZERS)
  if(NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang")
    message(FATAL_ERROR "SOMA_BUILD_FUZZERS needs clang with libFuzzer: configure with -DCMAKE_CXX_COMPILER=clang++-14")
  endif()
  add_compile_options(-fsanitize=fuzzer-no-link)
endif()

function(soma_add_sanitizer_stage)
  if(NOT SOMA_SANITIZER_STAGE OR SOMA_SANITIZE OR SOMA_BUILD_FUZZERS OR NOT SOMA_BUILD_TESTS)
    return()
  endif()
  find_program(SOMA_CLANGXX_14 NAMES clang++-14)
  find_program(SOMA_CLANG_14 NAMES clang-14)
  if(NOT SOMA_CLANGXX_14 OR NOT SOMA_CLANG_14)
    message(STATUS "Sanitizer stage: skipped (clang++-14 not found; scripts/install-dependencies.sh installs it)")
    return()
  endif()
  # libFuzzer and the sanitizer runtimes are in libclang-rt-14-dev: link a fuzz target to know.
  set(probe_dir "${CMAKE_BINARY_DIR}/CMakeFiles/soma_libfuzzer_probe")
  file(MAKE_DIRECTORY "${probe_dir}")
  file(WRITE "${probe_dir}/probe.cpp"
    "#include <cstddef>\n#include <cstdint>\nextern \"C\" int LLVMFuzzerTestOneInput(const std::uint8_t*, std::size_t) { return 0; }\n")
  execute_process(
    COMMAND "${SOMA_CLANGXX_14}" -fsanitize=fuzzer,address,undefined probe.cpp -o probe
    WORKING_DIRECTORY "${probe_dir}" RESULT_VARIABLE probe_result OUTPUT_QUIET ERROR_QUIET)
  if(NOT probe_result EQUAL 0)
    message(STATUS "Sanitizer stage: skipped (clang++-14 cannot link libFuzzer with ASan+UBSan; install libclang-rt-14-dev)")
    return()
  endif()
  message(STATUS "Sanitizer stage: ${CMAKE_BINARY_DIR}/sanitized (clang-14, ASan+UBSan, fuzz targets)")

  # What the stage builds and runs (docs/reliability.md, "Sanitizers"): the kernel and every
  # plugin; the kernel, scene and CLI unit tests; the unit tests of the plugins named here; the
  # fuzz targets; and the validation cases named here. The plugins left out compute on
  # fixed-size Eigen types, whose indexing the main build's assertions check, and every example
  # scene runs their code under ASan in shipped_scenes; their readers are fuzz targets. Their unit
  # tests would add about 3 minutes of sanitized compilation to CI. Everything: set both to "all" (the
  # full run is recorded in docs/reliability.md). -O1 keeps the sanitized tree quick to build.
  set(SOMA_SANITIZED_VALIDATION "settings_errors;shipped_scenes" CACHE STRING
      "Validation cases built and run by the sanitizer stage (all: every case)")
  set(SOMA_SANITIZED_PLUGIN_TESTS "actuation;outputs;eigen_solvers;petsc_solver" CACHE STRING
      "Plugins whose unit tests the sanitizer stage builds and runs (all: every plugin)")
  string(REPLACE ";" "|" validation_only "${SOMA_SANITIZED_VALIDATION}")
  if(validation_only STREQUAL "all")
    set(validation_only "")
  endif()
  string(REPLACE ";" "|" plugin_tests "${SOMA_SANITIZED_PLUGIN_TESTS}")
  set(stage_args
    -DCMAKE_BUILD_TYPE=Release
    "-DCMAKE_CXX_FLAGS_RELEASE=-O1 -gline-tables-only"
    "-DCMAKE_C_FLAGS_RELEASE=-O1 -gline-tables-only"
    -DCMAKE_CXX_COMPILER=${SOMA_CLANGXX_14}
    -DCMAKE_C_COMPILER=${SOMA_CLANG_14}
    -DSOMA_SANITIZE=address,undefined
    -DSOMA_BUILD_FUZZERS=ON
    -DSOMA_SANITIZER_STAGE=OFF
    -DSOMA_WITH_CUDA=OFF
    -DSOMA_BUILD_BENCH=OFF
    -DSOMA_WITH_PYTHON=OFF  # an instrumented module cannot load into an uninstrumented interpreter
    -DSOMA_FUZZ_SECONDS=${SOMA_FUZZ_SECONDS}
    "-DSOMA_VALIDATION_ONLY=${validation_only}"
    "-DSOMA_PLUGIN_TESTS=${plugin_tests}")
  foreach(launcher CMAKE_CXX_COMPILER_LAUNCHER CMAKE_C_COMPILER_LAUNCHER)
    if(${launcher})
      list(APPEND stage_args "-D${launcher}=${${launcher}}")
    endif()
  endforeach()
  include(ExternalProject)
  ExternalProject_Add(soma_sanitized
    SOURCE_DIR "${CMAKE_SOURCE_DIR}"
    BINARY_DIR "${CMAKE_BINARY_DIR}/sanitized"
    LIST_SEPARATOR |
    CMAKE_ARGS ${stage_args}
    INSTALL_COMMAND ""
    BUILD_ALWAYS ON  # the sources are this tree's: let the sub-build decide what is out of date
    USES_TERMINAL_BUILD OFF)

  # ASan: report leaks too; UBSan: a stack trace with every report. Both abort on the first report.
  set(sanitizer_env
    "ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:strict_string_checks=1:detect_stack_use_after_return=1"
    "UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1")
  # Left out (docs/reliability.md, "Sanitizers"): no_allocation_tests and gvs_no_allocation_tests
  # replace malloc, which ASan owns.
  set(SOMA_SANITIZED_EXCLUDE "^(no_allocation_tests|gvs_no_allocation_tests)$" CACHE STRING
      "ctest -E regex of sub-build tests the sanitizer stage does not run")
  add_test(NAME sanitized_tests
    COMMAND "${CMAKE_CTEST_COMMAND}" --test-dir "${CMAKE_BINARY_DIR}/sanitized" --output-on-failure -j2 -LE "fuzz|install"
            -E "${SOMA_SANITIZED_EXCLUDE}")
  add_test(NAME sanitized_fuzz
    COMMAND "${CMAKE_CTEST_COMMAND}" --test-dir "${CMAKE_BINARY_DIR}/sanitized" --output-on-failure -j2 -L fuzz)
  set_tests_properties(sanitized_tests sanitized_fuzz PROPERTIES
    PROCESSORS 2 LABELS sanitizers ENVIRONMENT "${sanitizer_env}")
endfunction()
