// Small pieces that several block-moving primitives share.
#pragma once

#include <string>
#include <vector>

#include "tir/schedule/locate.h"
#include "tir/stmt.h"

namespace kiln {

// The fields of a block, to copy and edit.
BlockFields fields_of(const BlockNode* b);

// A block with its reads and writes recomputed from its body and init (as
// block_access_regions does), for primitives that change what it touches.
Stmt block_with_regions(BlockFields f);

// Whether the iterations of `loop` (a For) are independent: every block
// under it uses the loop only in the bindings of its spatial axes. Else
// false, with `why` (when given) naming the reduction axis it feeds.
bool is_data_parallel(const Stmt& loop, std::string* why = nullptr);

// The loop variables of `loops` (Fors).
std::vector<Var> loop_vars(const std::vector<Stmt>& loops);

// A name not yet used by a block of `root`: `base`, else base_1, base_2, ...
std::string unique_block_name(const Stmt& root, const std::string& base);

}  // namespace kiln

namespace kiln {

// `s` with every use of buffer `from` (loads, stores, block regions) made a
// use of `to`. Allocations are left alone.
Stmt replace_buffer(const Stmt& s, const Buffer& from, const Buffer& to);

// `s` with buffer `from` replaced by `to` everywhere, the allocation
// included: for primitives that change how a buffer is declared (its scope,
// its layout) but not what it holds.
Stmt redeclare_buffer(const Stmt& s, const Buffer& from, const Buffer& to);

// The nearest Block among `loc`'s ancestors, or nullptr.
const BlockNode* enclosing_block(const Located& loc, Stmt* block_stmt = nullptr);

// The statement that holds `loc` directly inside its enclosing block's body:
// its outermost enclosing loop, or the BlockRealize itself without loops.
Stmt top_of_nest(const Located& loc);

// The name of the first block in `s` (other than `except`) that writes
// (writes = true) or reads `buf`, or "" if there is none.
std::string block_accessing(const Stmt& s, const Buffer& buf, bool writes, const BlockNode* except = nullptr);

// The buffer of the block's index-th written (is_write) or read region;
// throws BadArgumentError naming the block and how many it has otherwise.
Buffer region_buffer(const char* primitive, const BlockNode* b, bool is_write, int index);

// Whether `buf` is a parameter of `f` (its layout and scope are the caller's).
bool is_param(const PrimFunc& f, const Buffer& buf);

// Throws BadArgumentError unless `scope` is global, local or shared.
void check_storage_scope(const char* primitive, const std::string& scope);

// The statements of a block's body: its sequence, or the one statement.
std::vector<Stmt> stmts_of(const Stmt& body);

// A copy of the block statement `b` with another body and allocations.
Stmt block_with_body(const Stmt& b, Stmt body, std::vector<Buffer> alloc_buffers);

}  // namespace kiln
