# Fuzzers.cmake - the libFuzzer build (PTXBENCH_FUZZERS).
#
# A fuzzing build is its own build folder (utils/fuzz.sh makes build-fuzz
# with clang-22): the libraries are compiled with libFuzzer's coverage
# hooks, AddressSanitizer and UndefinedBehaviorSanitizer (every UB report
# aborts, so libFuzzer keeps the input), and with assert() on, so the
# importer's and MLIR's own checks fire on what the fuzzer makes. Only the
# targets under fuzz/ and what they link are meant to be built there
# (`--target ptxbench-fuzzers`). The system LLVM and MLIR libraries are not
# instrumented: their bugs are out of reach, the time goes to ours.

macro(ptxbench_instrument_for_fuzzing)
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    message(FATAL_ERROR "PTXBENCH_FUZZERS needs clang (libFuzzer): configure "
                        "with -DCMAKE_CXX_COMPILER=clang++-22 "
                        "-DCMAKE_C_COMPILER=clang-22, or use utils/fuzz.sh")
  endif()
  add_compile_options(-fsanitize=fuzzer-no-link,address,undefined
                      -fno-sanitize-recover=undefined -fno-omit-frame-pointer
                      -gline-tables-only -UNDEBUG
                      # What clang sees dangle (a range-for over a member
                      # of a temporary) is a use after scope ASan may miss.
                      -Werror=dangling -Werror=dangling-gsl)
  add_link_options(-fsanitize=address,undefined)
endmacro()

add_custom_target(ptxbench-fuzzers)

# add_ptxbench_fuzzer(NAME SOURCE LINK_LIBS lib... [DEFINES def...]): a
# fuzz target in build/fuzz/NAME, part of ptxbench-fuzzers.
function(add_ptxbench_fuzzer name source)
  cmake_parse_arguments(ARG "" "" "LINK_LIBS;DEFINES" ${ARGN})
  add_executable(${name} ${source}
    ${PROJECT_SOURCE_DIR}/fuzz/FuzzerOptions.cpp)
  target_link_libraries(${name} PRIVATE ${ARG_LINK_LIBS})
  target_compile_definitions(${name} PRIVATE ${ARG_DEFINES})
  target_link_options(${name} PRIVATE -fsanitize=fuzzer)
  set_target_properties(${name} PROPERTIES
    RUNTIME_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/fuzz)
  add_dependencies(ptxbench-fuzzers ${name})
endfunction()
