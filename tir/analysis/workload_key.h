// The workload key: the stable identity of an unscheduled program.
//
// The tuning database keys records by (workload key, target). The key is
// "v<version>-<16 hex digits>": the structural hash of the function in its
// canonical form, where the function is called "main" and its blocks b0,
// b1, ... in a fixed order. The same computation on the same shapes and
// dtypes gets the same key in every run, process and machine, whatever its
// function, blocks, variables and buffers are called.
//
// The version names the hashing scheme and the IR it reads. Anything that
// changes keys (a new IR field, another hash) bumps it, so an old key is
// recognisably old, and the database migrates its keys from the canonical
// IR JSON it stores beside them, instead of silently losing every record.
#pragma once

#include <string>

#include "tir/stmt.h"

namespace kiln {

constexpr int kWorkloadKeyVersion = 1;

// f with its function named "main" and its blocks named b0, b1, ... (in
// post-order): what the key hashes, and what the database stores.
PrimFunc canonical_workload(const PrimFunc& f);

std::string workload_key(const PrimFunc& f);

// Whether `s` has the form workload_key gives a key of this version: a
// command takes a key where it takes a workload string (`kiln print KEY`).
bool is_workload_key(const std::string& s);

}  // namespace kiln
