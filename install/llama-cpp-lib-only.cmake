# Passed to llama-cpp-python's build as CMAKE_PROJECT_llama.cpp_INCLUDE (see the README's
# CMAKE_ARGS): runs right after llama.cpp's project() call, before its options are read.
#
# llama-cpp-python forces LLAMA_BUILD_COMMON ON, which compiles llama.cpp's `common`
# library (chat parsers, argument parsing, downloads, an HTTP client): half of the
# compile on two cores (84 of 163 s). Only the multimodal library (LLAVA_BUILD, off in our
# CMAKE_ARGS) links it; llama-cpp-python's Python code and its server load libllama and
# libggml alone, so kgqa needs none of it.
set(LLAMA_BUILD_COMMON OFF CACHE BOOL "llama: build common utils library" FORCE)
