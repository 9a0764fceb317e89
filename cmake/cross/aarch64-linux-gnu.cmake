# Cross-compiling for 64-bit Arm Linux with Debian's cross toolchain
# (g++-aarch64-linux-gnu); libraries of the target come from Debian's
# multiarch packages (/usr/lib/aarch64-linux-gnu), which that compiler
# searches by itself. Used for the runner's run worker (rpc/cross/).
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)
