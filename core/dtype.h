// DataType: a scalar type code, its bit width and a vector lane count.
// float32x8 is {kFloat, 32, 8}; bool is {kUInt, 1, 1}.
#pragma once

#include <cstdint>
#include <string>

namespace kiln {

class DataType {
 public:
  enum Code : uint8_t { kInt = 0, kUInt = 1, kFloat = 2, kBFloat = 3, kHandle = 4 };

  constexpr DataType() = default;
  constexpr DataType(Code code, int bits, int lanes = 1) : code_(code), bits_(bits), lanes_(lanes) {}

  static constexpr DataType Float(int bits, int lanes = 1) { return {kFloat, bits, lanes}; }
  static constexpr DataType Int(int bits, int lanes = 1) { return {kInt, bits, lanes}; }
  static constexpr DataType UInt(int bits, int lanes = 1) { return {kUInt, bits, lanes}; }
  static constexpr DataType BFloat16(int lanes = 1) { return {kBFloat, 16, lanes}; }
  static constexpr DataType Bool(int lanes = 1) { return {kUInt, 1, lanes}; }
  static constexpr DataType Handle() { return {kHandle, 64, 1}; }
  static constexpr DataType Float32() { return Float(32); }
  static constexpr DataType Int32() { return Int(32); }
  static constexpr DataType Int64() { return Int(64); }
  static constexpr DataType Void() { return {kHandle, 0, 0}; }

  constexpr Code code() const { return code_; }
  constexpr int bits() const { return bits_; }
  constexpr int lanes() const { return lanes_; }
  constexpr int bytes() const { return (bits_ + 7) / 8; }

  constexpr bool is_float() const { return code_ == kFloat || code_ == kBFloat; }
  constexpr bool is_int() const { return code_ == kInt; }
  constexpr bool is_uint() const { return code_ == kUInt && bits_ != 1; }
  constexpr bool is_bool() const { return code_ == kUInt && bits_ == 1; }
  // Integer-valued: signed, unsigned or bool.
  constexpr bool is_integral() const { return code_ == kInt || code_ == kUInt; }
  constexpr bool is_handle() const { return code_ == kHandle && bits_ != 0; }
  constexpr bool is_void() const { return code_ == kHandle && bits_ == 0; }
  constexpr bool is_scalar() const { return lanes_ == 1; }
  constexpr bool is_vector() const { return lanes_ > 1; }

  constexpr DataType element_of() const { return {code_, bits_, 1}; }
  constexpr DataType with_lanes(int lanes) const { return {code_, bits_, lanes}; }

  constexpr bool operator==(const DataType& o) const {
    return code_ == o.code_ && bits_ == o.bits_ && lanes_ == o.lanes_;
  }
  constexpr bool operator!=(const DataType& o) const { return !(*this == o); }

  // "float32", "int8x16", "bool", "handle". Parses what it prints.
  std::string str() const;
  // Throws kiln::Error naming the string when it is not a data type.
  static DataType parse(const std::string& s);

 private:
  Code code_ = kHandle;
  int bits_ = 0;
  int lanes_ = 0;
};

}  // namespace kiln
