# enable_sanitizers(target): builds `target` with the sanitizer chosen in
# LOADERLAB_SANITIZER (address -> ASan + UBSan, thread -> TSan).
function(enable_sanitizers target)
    if(LOADERLAB_SANITIZER STREQUAL "address")
        target_compile_options(${target} INTERFACE -fsanitize=address,undefined -fno-omit-frame-pointer)
        target_link_options(${target} INTERFACE -fsanitize=address,undefined)
    elseif(LOADERLAB_SANITIZER STREQUAL "thread")
        target_compile_options(${target} INTERFACE -fsanitize=thread -fno-omit-frame-pointer)
        target_link_options(${target} INTERFACE -fsanitize=thread)
    elseif(NOT LOADERLAB_SANITIZER STREQUAL "")
        message(FATAL_ERROR "LOADERLAB_SANITIZER must be address, thread or empty")
    endif()
endfunction()
enable_sanitizers(loaderlab_options)
