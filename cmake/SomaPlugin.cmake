# soma_add_plugin(<name> CORE <sources...> REGISTRATION <source> [LIBS <libs...>])
#
# Builds plugin <name> as two parts, in the SOFA module style:
#   soma_<name>_core  a static library with the physics (its tests link it directly);
#   soma_<name>       the shared library the kernel loads, holding the registration entry point.
function(soma_add_plugin name)
  cmake_parse_arguments(P "" "REGISTRATION" "CORE;LIBS" ${ARGN})
  add_library(soma_${name}_core STATIC ${P_CORE})
  target_include_directories(soma_${name}_core PUBLIC ${CMAKE_CURRENT_SOURCE_DIR})
  target_link_libraries(soma_${name}_core PUBLIC soma_kernel ${P_LIBS})
  add_library(soma_${name} MODULE ${P_REGISTRATION})
  target_link_libraries(soma_${name} PRIVATE soma_${name}_core)
  # A symbol left undefined (e.g. an Eigen template declared but not instantiated) must fail the
  # link, not the plugin's load at run time.
  # (Not under sanitizers: clang links their runtimes into the executable, not into modules.)
  if(NOT SOMA_SANITIZE AND NOT SOMA_BUILD_FUZZERS)
    target_link_options(soma_${name} PRIVATE "LINKER:--no-undefined")
  endif()
  set_target_properties(soma_${name} PROPERTIES
    PREFIX "lib" LIBRARY_OUTPUT_DIRECTORY "${SOMA_PLUGIN_OUTPUT_DIR}"
    INSTALL_RPATH "$ORIGIN/../..")
  install(TARGETS soma_${name} LIBRARY DESTINATION ${SOMA_PLUGIN_INSTALL_DIR})
  add_dependencies(soma_plugins soma_${name})
endfunction()

# soma_add_test(<name> SOURCES <sources...> [LIBS <libs...>] [LABELS <labels...>])
# A Catch2 v2 executable registered with CTest; runs from the build tree's root.
function(soma_add_test name)
  cmake_parse_arguments(T "" "" "SOURCES;LIBS;LABELS" ${ARGN})
  if(NOT SOMA_BUILD_TESTS)
    return()
  endif()
  # A plugin's unit tests (plugins/<plugin>/) are built unless SOMA_PLUGIN_TESTS names others.
  if(NOT SOMA_PLUGIN_TESTS STREQUAL "all" AND CMAKE_CURRENT_SOURCE_DIR MATCHES "^${CMAKE_SOURCE_DIR}/plugins/([^/]+)")
    if(NOT CMAKE_MATCH_1 IN_LIST SOMA_PLUGIN_TESTS)
      return()
    endif()
  endif()
  add_executable(${name} ${T_SOURCES})
  target_link_libraries(${name} PRIVATE soma_catch_main ${T_LIBS})
  # Test-only helpers shared across plugin and kernel tests (never included by plugin code).
  target_include_directories(${name} PRIVATE "${CMAKE_SOURCE_DIR}/tests/support")
  add_test(NAME ${name} COMMAND ${name} WORKING_DIRECTORY ${CMAKE_BINARY_DIR})
  set_tests_properties(${name} PROPERTIES
    ENVIRONMENT "SOMA_SOURCE_DIR=${CMAKE_SOURCE_DIR};SOMA_BUILD_DIR=${CMAKE_BINARY_DIR}")
  if(T_LABELS)
    set_tests_properties(${name} PROPERTIES LABELS "${T_LABELS}")
  endif()
endfunction()
