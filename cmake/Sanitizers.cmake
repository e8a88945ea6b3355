# enable_sanitizers(target): builds `target` with the sanitizer chosen in
# LOADERLAB_SANITIZER (address -> ASan + UBSan, thread -> TSan), or, with
# LOADERLAB_BUILD_FUZZERS, with ASan + UBSan and libFuzzer's coverage hooks.
# UBSan findings abort (-fno-sanitize-recover) so that they fail a test or a fuzz
# run instead of scrolling past as a warning.
function(enable_sanitizers target)
    if(LOADERLAB_BUILD_FUZZERS)
        if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
            message(FATAL_ERROR "LOADERLAB_BUILD_FUZZERS needs clang (libFuzzer): configure a "
                "separate build directory with CC=clang CXX=clang++")
        endif()
        if(LOADERLAB_SANITIZER STREQUAL "thread")
            message(FATAL_ERROR "LOADERLAB_BUILD_FUZZERS uses ASan; it cannot be combined with "
                "LOADERLAB_SANITIZER=thread")
        endif()
        target_compile_options(${target} INTERFACE -fsanitize=fuzzer-no-link,address,undefined
            -fno-sanitize-recover=undefined -fno-omit-frame-pointer)
        target_link_options(${target} INTERFACE -fsanitize=address,undefined)
    elseif(LOADERLAB_SANITIZER STREQUAL "address")
        target_compile_options(${target} INTERFACE -fsanitize=address,undefined
            -fno-sanitize-recover=undefined -fno-omit-frame-pointer)
        target_link_options(${target} INTERFACE -fsanitize=address,undefined)
    elseif(LOADERLAB_SANITIZER STREQUAL "thread")
        target_compile_options(${target} INTERFACE -fsanitize=thread -fno-omit-frame-pointer)
        target_link_options(${target} INTERFACE -fsanitize=thread)
    elseif(NOT LOADERLAB_SANITIZER STREQUAL "")
        message(FATAL_ERROR "LOADERLAB_SANITIZER must be address, thread or empty")
    endif()
endfunction()
enable_sanitizers(loaderlab_options)
