#include "python/src/arrays.h"

#include <cstring>

#include "core/error.h"

namespace kiln::py {
namespace {

// The dtype a buffer's struct format (with an optional byte-order prefix)
// and item size describe; nullopt for one kiln has no type for.
std::optional<DataType> buffer_dtype(const char* format, Py_ssize_t itemsize) {
  std::string f = format ? format : "B";
  if (!f.empty() && (f[0] == '<' || f[0] == '=' || f[0] == '@' || f[0] == '!' || f[0] == '>')) {
    if (f[0] == '>' || f[0] == '!') return std::nullopt;  // big-endian
    f = f.substr(1);
  }
  if (f.size() != 1) return std::nullopt;
  const int bits = static_cast<int>(itemsize * 8);
  switch (f[0]) {
    case '?': return DataType::Bool();
    case 'b': case 'h': case 'i': case 'l': case 'q': return DataType::Int(bits);
    case 'B': case 'H': case 'I': case 'L': case 'Q': return DataType::UInt(bits);
    case 'e': case 'f': case 'd': return DataType::Float(bits);
    default: return std::nullopt;
  }
}

std::optional<DataType> dlpack_dtype(DLDataType t) {
  switch (t.code) {
    case kDLInt: return DataType::Int(t.bits, t.lanes);
    case kDLUInt: return DataType::UInt(t.bits, t.lanes);
    case kDLFloat: return DataType::Float(t.bits, t.lanes);
    case kDLBfloat: return DataType::BFloat16(t.lanes);
    case 6: return DataType::Bool(t.lanes);  // kDLBool, which DLPack 0.6's header lacks
    default: return std::nullopt;
  }
}

std::string shape_text(const std::vector<int64_t>& s) {
  std::string out = "(";
  for (size_t i = 0; i < s.size(); ++i) out += (i ? ", " : "") + std::to_string(s[i]);
  return out + (s.size() == 1 ? ",)" : ")");
}

std::string what(const ArgSpec& spec, int index) {
  return "argument " + std::to_string(index) + " (" + spec.name + ")";
}

void check(const ArgSpec& spec, int index, std::optional<DataType> dtype, const std::vector<int64_t>& shape) {
  if (!dtype || *dtype != spec.dtype)
    throw pyb::type_error(what(spec, index) + " is " + (dtype ? dtype->str() : std::string("of a type kiln lacks")) +
                          ", the kernel takes " + spec.dtype.str());
  if (shape != spec.shape)
    throw pyb::type_error(what(spec, index) + " has shape " + shape_text(shape) + ", the kernel takes " +
                          shape_text(spec.shape));
}

// Byte strides of a C-contiguous array.
std::vector<int64_t> contiguous_strides(const std::vector<int64_t>& shape, int64_t itemsize) {
  std::vector<int64_t> s(shape.size());
  int64_t step = itemsize;
  for (size_t i = shape.size(); i-- > 0;) {
    s[i] = step;
    step *= shape[i];
  }
  return s;
}

bool is_contiguous(const std::vector<int64_t>& shape, const std::vector<int64_t>& strides, int64_t itemsize) {
  const std::vector<int64_t> c = contiguous_strides(shape, itemsize);
  for (size_t i = 0; i < shape.size(); ++i)
    if (shape[i] > 1 && strides[i] != c[i]) return false;
  return true;
}

// Copies every element between two layouts of one shape (byte strides).
void copy_strided(char* dst, const std::vector<int64_t>& dst_strides, const char* src,
                  const std::vector<int64_t>& src_strides, const std::vector<int64_t>& shape, size_t itemsize,
                  size_t dim = 0) {
  if (dim == shape.size()) {
    std::memcpy(dst, src, itemsize);
    return;
  }
  for (int64_t i = 0; i < shape[dim]; ++i)
    copy_strided(dst + i * dst_strides[dim], dst_strides, src + i * src_strides[dim], src_strides, shape, itemsize,
                 dim + 1);
}

// torch.Tensor, once torch has been imported by anyone; null before.
PyObject* torch_tensor_type() {
  static PyObject* type = nullptr;
  if (type) return type;
  PyObject* torch = PyImport_GetModule(pyb::str("torch").ptr());  // no import: only if loaded
  if (!torch) {
    PyErr_Clear();
    return nullptr;
  }
  type = PyObject_GetAttrString(torch, "Tensor");  // kept for the process
  Py_DECREF(torch);
  if (!type) PyErr_Clear();
  return type;
}

// kiln's type of a torch dtype (torch.float32, ...), by the dtype object.
std::optional<DataType> torch_dtype(pyb::handle dtype) {
  static auto* known = new std::vector<std::pair<PyObject*, DataType>>();
  for (const auto& [obj, t] : *known)
    if (obj == dtype.ptr()) return t;
  std::string name = pyb::str(dtype).cast<std::string>();  // "torch.float32"
  if (name.rfind("torch.", 0) == 0) name = name.substr(6);
  std::optional<DataType> t;
  try {
    t = DataType::parse(name);
  } catch (const Error&) {
    return std::nullopt;  // complex, quantized, ...
  }
  known->emplace_back(pyb::reinterpret_borrow<pyb::object>(dtype).release().ptr(), *t);
  return t;
}

}  // namespace

BorrowedArray::BorrowedArray(pyb::handle obj, const ArgSpec& spec, int index) {
  PyObject* tensor = torch_tensor_type();
  if (PyObject_CheckBuffer(obj.ptr())) {
    from_buffer(obj, spec, index);
  } else if (tensor && PyObject_IsInstance(obj.ptr(), tensor) == 1) {
    from_torch(obj, spec, index);
  } else if (pyb::hasattr(obj, "__dlpack__")) {
    from_dlpack(obj, spec, index);
  } else {
    throw pyb::type_error(what(spec, index) + " is a " + std::string(Py_TYPE(obj.ptr())->tp_name) +
                          ", not an array (numpy, torch, or anything with __dlpack__)");
  }
}

BorrowedArray::BorrowedArray(BorrowedArray&& o) noexcept
    : data_(o.data_), view_(o.view_), has_view_(o.has_view_), capsule_(std::move(o.capsule_)),
      keep_(std::move(o.keep_)), dl_(o.dl_),
      temp_(std::move(o.temp_)), origin_(o.origin_), origin_strides_(std::move(o.origin_strides_)),
      shape_(std::move(o.shape_)), copy_back_(o.copy_back_) {
  o.has_view_ = false;
  o.dl_ = nullptr;
  o.copy_back_ = false;
}

void BorrowedArray::from_buffer(pyb::handle obj, const ArgSpec& spec, int index) {
  const int flags = PyBUF_RECORDS_RO | (spec.is_output ? PyBUF_WRITABLE : 0);
  if (PyObject_GetBuffer(obj.ptr(), &view_, flags) != 0) {
    PyErr_Clear();
    if (spec.is_output && PyObject_GetBuffer(obj.ptr(), &view_, PyBUF_RECORDS_RO) == 0) {
      PyBuffer_Release(&view_);
      throw pyb::value_error(what(spec, index) + " is the output, and its array is read-only");
    }
    throw pyb::type_error(what(spec, index) + ": its buffer cannot be read as an array");
  }
  has_view_ = true;
  std::vector<int64_t> shape(view_.shape, view_.shape + view_.ndim);
  check(spec, index, buffer_dtype(view_.format, view_.itemsize), shape);
  std::vector<int64_t> strides(view_.strides, view_.strides + view_.ndim);
  if (is_contiguous(shape, strides, view_.itemsize)) data_ = view_.buf;
  else use_temporary(view_.buf, strides, spec);
}

void BorrowedArray::from_dlpack(pyb::handle obj, const ArgSpec& spec, int index) {
  capsule_ = obj.attr("__dlpack__")();
  dl_ = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(capsule_.ptr(), "dltensor"));
  if (!dl_) {
    PyErr_Clear();
    throw pyb::type_error(what(spec, index) + ": __dlpack__ gave no DLPack tensor");
  }
  PyCapsule_SetName(capsule_.ptr(), "used_dltensor");  // ours now: we call its deleter
  const DLTensor& t = dl_->dl_tensor;
  if (t.device.device_type != kDLCPU && t.device.device_type != kDLCUDAHost)
    throw pyb::type_error(what(spec, index) + " lives on device type " + std::to_string(t.device.device_type) +
                          "; kiln's CPU kernels take host memory");
  std::vector<int64_t> shape(t.shape, t.shape + t.ndim);
  check(spec, index, dlpack_dtype(t.dtype), shape);
  char* base = static_cast<char*>(t.data) + t.byte_offset;
  const int64_t itemsize = spec.dtype.bytes();
  if (!t.strides) {
    data_ = base;
    return;
  }
  std::vector<int64_t> strides(t.strides, t.strides + t.ndim);
  for (int64_t& s : strides) s *= itemsize;  // DLPack counts elements
  if (is_contiguous(shape, strides, itemsize)) data_ = base;
  else use_temporary(base, strides, spec);
}

namespace {

// An attribute by an interned name (made once): the per-call lookups of
// from_torch, without building a string each time.
pyb::object attr(pyb::handle obj, const char* name) {
  static auto* names = new std::vector<std::pair<const char*, PyObject*>>();
  PyObject* key = nullptr;
  for (const auto& [n, k] : *names)
    if (n == name) key = k;
  if (!key) names->emplace_back(name, key = PyUnicode_InternFromString(name));
  PyObject* v = PyObject_GetAttr(obj.ptr(), key);
  if (!v) throw pyb::error_already_set();
  return pyb::reinterpret_steal<pyb::object>(v);
}

std::vector<int64_t> int_tuple(const pyb::object& t) {
  std::vector<int64_t> out(static_cast<size_t>(PyTuple_GET_SIZE(t.ptr())));
  for (size_t i = 0; i < out.size(); ++i) out[i] = PyLong_AsLongLong(PyTuple_GET_ITEM(t.ptr(), i));
  return out;
}

}  // namespace

void BorrowedArray::from_torch(pyb::handle obj, const ArgSpec& spec, int index) {
  if (attr(obj, "is_cpu").ptr() != Py_True)
    throw pyb::type_error(what(spec, index) + " is a torch tensor on " + pyb::str(attr(obj, "device")).cast<std::string>() +
                          "; kiln's CPU kernels take host memory");
  if (spec.is_output && attr(obj, "requires_grad").ptr() == Py_True)
    throw pyb::value_error(what(spec, index) + " is the output, and its tensor requires grad");
  const std::vector<int64_t> shape = int_tuple(attr(obj, "shape"));  // torch.Size, a tuple
  check(spec, index, torch_dtype(attr(obj, "dtype")), shape);
  std::vector<int64_t> strides = int_tuple(attr(obj, "stride")());
  for (int64_t& st : strides) st *= spec.dtype.bytes();  // torch counts elements
  void* base = PyLong_AsVoidPtr(attr(obj, "data_ptr")().ptr());
  keep_ = pyb::reinterpret_borrow<pyb::object>(obj);
  if (is_contiguous(shape, strides, spec.dtype.bytes())) data_ = base;
  else use_temporary(base, strides, spec);
}

void BorrowedArray::use_temporary(void* src, const std::vector<int64_t>& strides, const ArgSpec& spec) {
  temp_ = std::make_unique<NDArray>(spec.dtype, spec.shape);
  origin_ = src;
  origin_strides_ = strides;
  shape_ = spec.shape;
  if (spec.is_output) copy_back_ = true;
  else
    copy_strided(static_cast<char*>(temp_->data()), contiguous_strides(shape_, spec.dtype.bytes()),
                 static_cast<const char*>(src), strides, shape_, spec.dtype.bytes());
  data_ = temp_->data();
}

void BorrowedArray::finish() {
  if (!copy_back_) return;
  const size_t itemsize = temp_->dtype().bytes();
  copy_strided(static_cast<char*>(origin_), origin_strides_, static_cast<const char*>(temp_->data()),
               contiguous_strides(shape_, static_cast<int64_t>(itemsize)), shape_, itemsize);
  copy_back_ = false;
}

BorrowedArray::~BorrowedArray() {
  if (has_view_) PyBuffer_Release(&view_);
  if (dl_ && dl_->deleter) dl_->deleter(dl_);
}

pyb::object new_numpy_array(const ArgSpec& spec) {
  static pyb::object* empty = new pyb::object(pyb::module_::import("numpy").attr("empty"));
  pyb::tuple shape(spec.shape.size());
  for (size_t i = 0; i < spec.shape.size(); ++i) shape[i] = pyb::int_(spec.shape[i]);
  return (*empty)(shape, spec.dtype.is_bool() ? std::string("bool") : spec.dtype.str());
}

}  // namespace kiln::py
