# StaticLLVM.cmake - link LLVM and MLIR statically (PTXBENCH_STATIC_LLVM).
#
# Debian's MLIR targets name the shared `LLVM` library in their link
# interfaces (LLVM_LINK_LLVM_DYLIB is on). Replace it, in every imported
# target reachable from the MLIR libraries, with LLVM's static component
# libraries, so a tool can be copied to a host that has no libLLVM. Using
# both the shared library and static components registers command-line
# options twice, so this is all or nothing.

set(PTXBENCH_LLVM_COMPONENTS Support Demangle TableGen BitstreamReader
    BinaryFormat TargetParser Remarks)

function(_ptxbench_rewrite_target target replacement)
  get_property(visited GLOBAL PROPERTY PTXBENCH_STATIC_VISITED)
  if(target IN_LIST visited OR NOT TARGET ${target})
    return()
  endif()
  set_property(GLOBAL APPEND PROPERTY PTXBENCH_STATIC_VISITED ${target})
  get_target_property(imported ${target} IMPORTED)
  if(NOT imported)
    return()
  endif()
  get_target_property(libs ${target} INTERFACE_LINK_LIBRARIES)
  if(NOT libs)
    return()
  endif()
  set(rewritten)
  foreach(lib IN LISTS libs)
    if(lib STREQUAL "LLVM")
      list(APPEND rewritten ${replacement})
    else()
      list(APPEND rewritten ${lib})
      _ptxbench_rewrite_target(${lib} "${replacement}")
    endif()
  endforeach()
  set_target_properties(${target} PROPERTIES INTERFACE_LINK_LIBRARIES "${rewritten}")
endfunction()

macro(ptxbench_use_static_llvm)
  llvm_map_components_to_libnames(_ptxbench_llvm_static ${PTXBENCH_LLVM_COMPONENTS})
  set(LLVM_LINK_LLVM_DYLIB OFF)
  foreach(tgt IN LISTS MLIR_EXPORTED_TARGETS)
    _ptxbench_rewrite_target(${tgt} "${_ptxbench_llvm_static}")
  endforeach()
  message(STATUS "ptxbench: linking LLVM/MLIR statically (${_ptxbench_llvm_static})")
endmacro()
