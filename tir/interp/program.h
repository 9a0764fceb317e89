// The compiled form of a PrimFunc, which is what the interpreter runs.
//
// Walking the IR directly would look every variable up in a map on every
// use; 512^3 multiply-adds of a matmul check would take minutes. Instead the
// PrimFunc is compiled once into a tree of small code objects: each variable
// binding becomes a slot in a flat array (Frame::slots), each buffer an entry
// in Frame::buffers, and each expression a node whose evaluation is one
// virtual call specialised for its result kind (integer, float, or lanes).
//
// A code object may keep scratch space (vector lanes, allocation storage), so
// one compiled program runs one call at a time.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/expr.h"
#include "tir/interp/element.h"
#include "tir/interp/semantics.h"

namespace kiln::interp {

// A buffer while it is live: memory and layout in elements.
struct LiveBuffer {
  char* data = nullptr;
  std::vector<int64_t> shape;
  std::vector<int64_t> strides;
};

struct Frame {
  Scalar* slots = nullptr;
  LiveBuffer* buffers = nullptr;
};

class ExprCode {
 public:
  explicit ExprCode(DataType t) : dtype_(t) {}
  virtual ~ExprCode() = default;
  DataType dtype() const { return dtype_; }
  int lanes() const { return dtype_.lanes(); }

  // A scalar integer (or bool) expression's value, wrapped to its type.
  virtual int64_t eval_int(Frame& fr) const;
  // A scalar float expression's value, rounded to its compute type.
  virtual double eval_float(Frame& fr) const;
  // Any expression's lanes() values. Scalars default to eval_int/eval_float.
  virtual void eval_lanes(Frame& fr, Scalar* out) const;

 private:
  DataType dtype_;
};
using ExprPtr = std::unique_ptr<ExprCode>;

class StmtCode {
 public:
  virtual ~StmtCode() = default;
  virtual void run(Frame& fr) const = 0;
};
using StmtPtr = std::unique_ptr<StmtCode>;

// A scalar integer operand with the common cases (a variable, a constant)
// read inline instead of through a virtual call: loop bounds, block
// bindings and buffer indices are mostly these.
class IndexCode {
 public:
  static IndexCode constant(int64_t v);
  static IndexCode slot(int s);
  static IndexCode general(ExprPtr e);

  int64_t eval(Frame& fr) const {
    switch (kind_) {
      case Kind::kConst: return value_;
      case Kind::kSlot: return fr.slots[slot_].i;
      case Kind::kExpr: break;
    }
    return expr_->eval_int(fr);
  }
  bool is_constant() const { return kind_ == Kind::kConst; }
  int64_t constant_value() const { return value_; }
  bool is_slot() const { return kind_ == Kind::kSlot; }
  int slot_index() const { return slot_; }

 private:
  enum class Kind : uint8_t { kConst, kSlot, kExpr };
  Kind kind_ = Kind::kConst;
  int slot_ = 0;
  int64_t value_ = 0;
  std::shared_ptr<const ExprCode> expr_;
};

// One row of the buffer table: what the compiler knows about a buffer.
// When every extent is a constant (the usual case), so is the layout, and
// accesses use it directly instead of reading the LiveBuffer.
struct BufferInfo {
  std::string name;
  DataType dtype;
  Elem elem;
  int ndim;
  bool static_layout = false;
  std::vector<int64_t> shape, strides;  // when static_layout
};

// How a parameter's shape is checked against its argument: each extent is a
// constant, a variable bound by the first argument that gives it a value, or
// an expression checked once all variables are bound.
struct ParamDim {
  enum class Kind : uint8_t { kConst, kBind, kCheck } kind = Kind::kConst;
  int64_t value = 0;    // kConst
  int slot = 0;         // kBind
  IndexCode expr;       // kCheck
};

struct ParamInfo {
  int buffer = 0;
  std::vector<ParamDim> dims;
};

struct Program {
  std::string name;
  std::vector<ParamInfo> params;
  std::vector<BufferInfo> buffers;
  int num_slots = 0;
  StmtPtr body;
};

}  // namespace kiln::interp
