// GPU thread axes: what the thread tags of bound loops mean, for the
// schedule primitives and passes that must tell them apart.
//
//   blockIdx.x/y/z   one thread block per value; blocks share nothing but
//                    global memory
//   threadIdx.x/y/z  one thread per value, within a block; they share the
//                    block's "shared" memory
//   vthread          a virtual thread: a serial loop, its iterations
//                    interleaved by the code generator, never a hardware index
//
// A "shared" buffer is one copy per block, so the part of it a statement
// under a threadIdx (or vthread) loop touches is the part all the block's
// threads touch together: compute_at relaxes those loops when it sizes a
// shared producer, and compact_buffers never sinks a shared allocation into
// them. A "local" buffer is each thread's own.
#pragma once

#include <string>

#include "tir/stmt.h"

namespace kiln {

bool is_block_index_tag(const std::string& tag);   // blockIdx.*
bool is_thread_index_tag(const std::string& tag);  // threadIdx.*
bool is_vthread_tag(const std::string& tag);       // vthread
// 0, 1, 2 for .x, .y, .z.
int thread_tag_dim(const std::string& tag);

// Whether the threads of one value of `loop` share one copy of `buf`: the
// loop is bound to threadIdx or vthread and the buffer is "shared".
bool shared_across(const Buffer& buf, const ForNode& loop);

}  // namespace kiln
