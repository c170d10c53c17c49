# StaticLLVM.cmake - link LLVM and MLIR statically (PTXBENCH_STATIC_LLVM).
#
# Why: Debian builds LLVM with LLVM_LINK_LLVM_DYLIB=ON, so its exported MLIR
# targets (static archives themselves) name the shared `LLVM` library
# (libLLVM.so) in INTERFACE_LINK_LIBRARIES, and every tool then needs
# libLLVM at run time. To get tools that run on a host without LLVM, replace
# `LLVM` in every exported MLIR target by LLVM's static component archives
# (libLLVM*.a, also shipped by llvm-22-dev), and stop add_llvm_executable /
# add_mlir_library from adding `LLVM` to our own targets.
#
# It must be all or nothing: if both libLLVM.so and a static LLVMSupport end
# up in one process, every cl::opt is constructed twice and the tool aborts
# with "Option '...' registered more than once!".
#
# Components: the MLIR libraries used here (Support, IR, Parser, AsmParser,
# BytecodeReader, Pass, TranslateLib, ...) need only LLVMSupport, which in
# turn brings LLVMDemangle and its system libraries (z3, zlib, zstd, rt, dl,
# m; the linker drops those not referenced). Archives are pulled in per object
# file, so extra components cost link time, not size. If you link an MLIR
# library that uses more of LLVM (e.g. MLIRTargetLLVMIRExport needs Core,
# TransformUtils, ...), add its components:
#   -DPTXBENCH_LLVM_COMPONENTS="Support;Core;..."

set(PTXBENCH_LLVM_COMPONENTS Support CACHE STRING
    "LLVM components linked statically when PTXBENCH_STATIC_LLVM is ON")

macro(ptxbench_use_static_llvm)
  llvm_map_components_to_libnames(_ptxbench_llvm_libs ${PTXBENCH_LLVM_COMPONENTS})
  # Our own add_llvm_executable/add_mlir_library calls: link components, not
  # libLLVM.so. (A macro, so this sets the variable in the caller's scope.)
  set(LLVM_LINK_LLVM_DYLIB OFF)
  foreach(_ptxbench_tgt IN LISTS MLIR_EXPORTED_TARGETS)
    if(NOT TARGET ${_ptxbench_tgt})
      continue()
    endif()
    get_target_property(_ptxbench_in ${_ptxbench_tgt} INTERFACE_LINK_LIBRARIES)
    if(NOT _ptxbench_in)
      continue()
    endif()
    set(_ptxbench_out)
    foreach(_ptxbench_lib IN LISTS _ptxbench_in)
      if(_ptxbench_lib STREQUAL "LLVM")
        list(APPEND _ptxbench_out ${_ptxbench_llvm_libs})
      elseif(_ptxbench_lib STREQUAL "$<LINK_ONLY:LLVM>")  # e.g. MLIRWasmSSADialect
        foreach(_ptxbench_c IN LISTS _ptxbench_llvm_libs)
          list(APPEND _ptxbench_out "$<LINK_ONLY:${_ptxbench_c}>")
        endforeach()
      else()
        list(APPEND _ptxbench_out "${_ptxbench_lib}")
      endif()
    endforeach()
    set_target_properties(${_ptxbench_tgt} PROPERTIES
      INTERFACE_LINK_LIBRARIES "${_ptxbench_out}")
  endforeach()
  message(STATUS "ptxbench: linking LLVM/MLIR statically (${_ptxbench_llvm_libs})")
endmacro()
