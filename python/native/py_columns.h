// Helpers for handing a trace to Python as columns (trace_columns.h,
// shard_columns.h): owned references, dict entries, numeric columns as raw
// bytes for numpy, text columns as codes into a list of values (a pandas
// Categorical, an Arrow dictionary), and distinct strings with their codes.
#pragma once

#include <Python.h>

#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace brickprof::python {

// Owns the Python objects it builds until handed on; any null from the C
// API throws, so a failed build releases what it made and returns null.
struct PyError {};

inline PyObject* checked(PyObject* o) {
  if (!o) throw PyError{};
  return o;
}

class Ref {
 public:
  explicit Ref(PyObject* o) : o_(checked(o)) {}
  ~Ref() { Py_XDECREF(o_); }
  Ref(const Ref&) = delete;
  Ref& operator=(const Ref&) = delete;
  PyObject* get() const { return o_; }
  PyObject* release() {
    PyObject* o = o_;
    o_ = nullptr;
    return o;
  }

 private:
  PyObject* o_;
};

inline PyObject* text(std::string_view s) {
  return checked(PyUnicode_DecodeUTF8(s.data(), static_cast<Py_ssize_t>(s.size()), "replace"));
}

// dict[key] = value, taking the reference to value.
inline void put(PyObject* dict, const char* key, PyObject* value) {
  Ref v(value);
  if (PyDict_SetItemString(dict, key, v.get()) != 0) throw PyError{};
}

template <typename T>
inline PyObject* column(const std::vector<T>& values, const char* dtype) {
  Ref bytes(PyBytes_FromStringAndSize(reinterpret_cast<const char*>(values.data()),
                                      static_cast<Py_ssize_t>(values.size() * sizeof(T))));
  return checked(Py_BuildValue("(Os)", bytes.get(), dtype));
}

inline PyObject* string_list(const std::vector<std::string>& values) {
  Ref list(PyList_New(static_cast<Py_ssize_t>(values.size())));
  for (size_t i = 0; i < values.size(); ++i)
    PyList_SET_ITEM(list.get(), static_cast<Py_ssize_t>(i), text(values[i]));
  return list.release();
}

// Codes into `values`, for a pandas Categorical.
inline PyObject* categorical(const std::vector<uint32_t>& codes,
                             const std::vector<std::string>& values) {
  Ref bytes(PyBytes_FromStringAndSize(reinterpret_cast<const char*>(codes.data()),
                                      static_cast<Py_ssize_t>(codes.size() * sizeof(uint32_t))));
  Ref list(string_list(values));
  return checked(Py_BuildValue("(OsO)", bytes.get(), "uint32", list.get()));
}

template <typename Enum>
std::vector<std::string> enum_names(int count) {
  std::vector<std::string> names;
  for (int i = 0; i < count; ++i) names.emplace_back(to_string(static_cast<Enum>(i)));
  return names;
}

template <typename Enum>
uint32_t code(Enum e) {
  return static_cast<uint32_t>(e);
}

// Distinct strings and their codes.
class Interner {
 public:
  uint32_t add(const std::string& s) {
    auto [it, added] = index_.try_emplace(s, static_cast<uint32_t>(values_.size()));
    if (added) values_.push_back(s);
    return it->second;
  }
  const std::string& value(uint32_t code) const { return values_[code]; }
  const std::vector<std::string>& values() const { return values_; }

 private:
  std::unordered_map<std::string, uint32_t> index_;
  std::vector<std::string> values_;
};

}  // namespace brickprof::python
