// Text about workloads generated from the op table (ops/op_table.h), so the
// CLI help and docs/workloads.md always say what the parser accepts. A test
// checks that docs/workloads.md contains the reference text verbatim.
#pragma once

#include <string>

namespace kiln::ops {

// Plain text for `kiln` help: the syntax, then one line per op with its keys
// ([key=default] for optional ones) and its summary.
std::string workload_help();

// The reference section of docs/workloads.md: one subsection per op with its
// shapes, a table of its keys, its dtypes and its FLOP formula.
std::string workload_reference_markdown();

}  // namespace kiln::ops
