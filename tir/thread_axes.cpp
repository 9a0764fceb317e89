#include "tir/thread_axes.h"

namespace kiln {

bool is_block_index_tag(const std::string& tag) { return tag.rfind("blockIdx.", 0) == 0; }
bool is_thread_index_tag(const std::string& tag) { return tag.rfind("threadIdx.", 0) == 0; }
bool is_vthread_tag(const std::string& tag) { return tag == "vthread"; }

int thread_tag_dim(const std::string& tag) {
  const char last = tag.empty() ? 'x' : tag.back();
  return last == 'z' ? 2 : last == 'y' ? 1 : 0;
}

bool shared_across(const Buffer& buf, const ForNode& loop) {
  return buf->scope == "shared" && loop.for_kind == ForKind::kThreadBinding &&
         (is_thread_index_tag(loop.thread_tag) || is_vthread_tag(loop.thread_tag));
}

}  // namespace kiln
