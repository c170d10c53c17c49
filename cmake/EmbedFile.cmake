# EmbedFile.cmake - a source file's bytes compiled into a library.
#
# ptxbench_embed_file(OUT INPUT NAMESPACE NAME) adds a build step that turns
# INPUT into a header under the build tree defining
#
#   namespace NAMESPACE { inline constexpr char NAME[] = {'\x2f', ..., 0}; }
#
# (every byte of the file, then a terminating zero that is not part of it),
# and sets OUT to the header's path. Each byte is written as its own
# character literal in hex, so nothing in the file (a quote, a backslash, a `)"` that would end a raw
# string, a zero byte) can change what is embedded. The step depends on
# INPUT and on this file: editing either regenerates the header, and the
# sources that include it recompile.
#
# Run as a script (cmake -DINPUT=... -DOUTPUT=... -DNAMESPACE=... -DNAME=...
# -P EmbedFile.cmake) it writes the header; that is the build step.

if(CMAKE_SCRIPT_MODE_FILE)
  file(READ "${INPUT}" hex HEX)
  string(REGEX REPLACE "([0-9a-f][0-9a-f])" "'\\\\x\\1'," bytes "${hex}")
  # Ten bytes a line (CMake's regular expressions have no {n}).
  string(REPEAT "'[^']*'," 10 line)
  string(REGEX REPLACE "(${line})" "\\1\n  " bytes "${bytes}")
  file(RELATIVE_PATH shown "${SOURCE_ROOT}" "${INPUT}")
  file(WRITE "${OUTPUT}.tmp"
    "// Generated from ${shown} by cmake/EmbedFile.cmake; do not edit.\n"
    "namespace ${NAMESPACE} {\n"
    "inline constexpr char ${NAME}[] = {\n  ${bytes}0};\n"
    "} // namespace ${NAMESPACE}\n")
  file(RENAME "${OUTPUT}.tmp" "${OUTPUT}")
  return()
endif()

set(PTXBENCH_EMBED_FILE_SCRIPT "${CMAKE_CURRENT_LIST_FILE}")

function(ptxbench_embed_file out input namespace name)
  get_filename_component(input "${input}" ABSOLUTE)
  file(RELATIVE_PATH rel "${CMAKE_CURRENT_SOURCE_DIR}" "${input}")
  set(output "${CMAKE_CURRENT_BINARY_DIR}/${rel}.inc")
  add_custom_command(OUTPUT "${output}"
    COMMAND ${CMAKE_COMMAND} -DINPUT=${input} -DOUTPUT=${output}
      -DNAMESPACE=${namespace} -DNAME=${name}
      -DSOURCE_ROOT=${PROJECT_SOURCE_DIR}
      -P ${PTXBENCH_EMBED_FILE_SCRIPT}
    DEPENDS "${input}" "${PTXBENCH_EMBED_FILE_SCRIPT}"
    COMMENT "Embedding ${rel}"
    VERBATIM)
  set(${out} "${output}" PARENT_SCOPE)
endfunction()
