// Applying what the tuning database stores: the one rule for reading a
// stored schedule back.
//
// The tuner writes each trace against its workload's canonical form
// (tir/analysis/workload_key.h: the function "main", blocks b0, b1, ...),
// which is also what the database stores and the key hashes, so that the
// same operator built anywhere (an operator's compute definition, a
// model's fused task, a farm's copy) finds and applies the same records.
// A stored trace therefore applies to canonical_workload(func), never to
// func itself: bench-op, compile, the tuner resuming and pre-training all
// go through here.
#pragma once

#include "tir/schedule/trace.h"
#include "tir/stmt.h"
#include "tuning_logs/record.h"

namespace kiln::tuning {

// The function a stored trace applies to: `func` in its canonical form.
PrimFunc stored_form(const PrimFunc& func);

// The record's trace. Throws kiln::Error naming the record when it cannot
// be read.
Trace record_trace(const TuningRecord& r);

// The record's schedule applied to `func` (its stored form): the scheduled
// function. Throws kiln::Error naming the record, and the instruction, when
// its trace cannot be read or no longer applies.
PrimFunc apply_record(const TuningRecord& r, const PrimFunc& func);

}  // namespace kiln::tuning
