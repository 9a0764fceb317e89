// Checks shared by the parser tests: text -> IR -> text and IR -> text -> IR.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "core/error.h"
#include "core/structural.h"
#include "tir/parser/parser.h"
#include "tir/functor.h"
#include "tir/printer.h"

namespace kiln::testing {

// The text cannot tell SeqStmt{SeqStmt{a, b}, c} from SeqStmt{a, b, c}:
// nested sequences print flattened (docs/ir_text.md). Output of a pass that
// nests them is compared after flattening.
class FlattenSequences : public StmtMutator {
 public:
  using StmtMutator::mutate;
  Stmt visit_SeqStmt(const SeqStmtNode* op, const Stmt&) override {
    auto n = std::make_shared<SeqStmtNode>();
    for (const Stmt& s : op->seq) {
      Stmt m = mutate(s);
      if (const auto* inner = m.as<SeqStmtNode>()) {
        n->seq.insert(n->seq.end(), inner->seq.begin(), inner->seq.end());
      } else {
        n->seq.push_back(m);
      }
    }
    return Stmt(ObjectPtr(std::move(n)));
  }
};

enum class Sequences { kExact, kFlattened };

// Printing f, parsing the text and printing again: the parsed function is
// structurally equal to f (to f with flattened sequences, if asked) and
// prints the same text.
inline ::testing::AssertionResult prints_and_parses_back(PrimFunc f, Sequences seqs = Sequences::kExact) {
  if (seqs == Sequences::kFlattened) f = f.with_body(FlattenSequences().mutate(f->body));
  std::string text = to_string(f);
  PrimFunc g;
  try {
    g = parse_prim_func(text);
  } catch (const Error& e) {
    return ::testing::AssertionFailure() << e.what() << "\nin\n" << text;
  }
  if (!structural_equal(f, g)) return ::testing::AssertionFailure() << "parsed IR differs from\n" << text << "reprinted:\n" << to_string(g);
  std::string again = to_string(g);
  if (again != text) return ::testing::AssertionFailure() << "reprinted text differs:\n" << text << "---\n" << again;
  return ::testing::AssertionSuccess();
}

// The message of the kiln::Error that parsing `text` throws, or "" if it
// parses.
template <typename Parse>
std::string parse_error(Parse parse, const std::string& text) {
  try {
    parse(text);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

inline std::string func_error(const std::string& text) {
  return parse_error([](const std::string& t) { parse_prim_func(t); }, text);
}

}  // namespace kiln::testing
