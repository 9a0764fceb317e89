// How far apart two threads of a pool run: the round trip of one cache
// line between them.
//
// A kernel's output, written by one thread, is read by another in the next
// kernel; how much that costs depends on where the two threads' cores sit.
// On a chip split into core complexes (AMD's CCDs) two cores of one complex
// share its L3 and pass a line in well under 100 ns; two cores of different
// complexes pass it over the chip's fabric, several times slower. A virtual
// machine does not choose: its host places the virtual CPUs, and moves them.
// On the 2-vCPU AMD EPYC Zen 4 VMs this project is measured on, the round
// trip read 60-85 ns for minutes, then 300-350 ns for minutes, and
// mobilenet_v2 on 2 threads ran in 3.9 ms in the first state and 7.2 ms in
// the second (docs/onnx.md, "Where the host puts the two threads").
// Benchmarks report this number beside their times so that results are
// compared within one placement.
#pragma once

#include "targets/runtime/thread_pool.h"

namespace kiln {

// The mean round trip, in nanoseconds, of a cache line passed back and
// forth `round_trips` times between the caller and one worker of `pool`
// (the caller writes, the worker answers). Zero for a pool of one thread,
// or when called from inside one of its tasks.
double thread_round_trip_ns(ThreadPool& pool, int round_trips = 20000);

}  // namespace kiln
