// The critical path across ranks from a dataset's arrays (see
// rank_path_binding.h).
#include "python/native/rank_path_binding.h"

#include <cstring>
#include <string>
#include <vector>

#include "analysis/analyses/rank_path.h"
#include "python/native/py_columns.h"

namespace brickprof::python {
namespace {

struct BadInput {};

// dict[key] as a vector of T: a contiguous buffer of T-sized items.
template <typename T>
std::vector<T> array(PyObject* dict, const char* key) {
  PyObject* o = PyDict_GetItemString(dict, key);
  if (!o) {
    PyErr_Format(PyExc_ValueError, "rank_path: no %s", key);
    throw BadInput{};
  }
  Py_buffer view;
  if (PyObject_GetBuffer(o, &view, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) != 0) throw BadInput{};
  std::vector<T> out;
  if (view.itemsize != static_cast<Py_ssize_t>(sizeof(T))) {
    PyErr_Format(PyExc_TypeError, "rank_path: %s has %zd-byte items, %zu expected", key,
                 view.itemsize, sizeof(T));
    PyBuffer_Release(&view);
    throw BadInput{};
  }
  out.resize(static_cast<size_t>(view.len) / sizeof(T));
  if (!out.empty()) std::memcpy(out.data(), view.buf, out.size() * sizeof(T));
  PyBuffer_Release(&view);
  return out;
}

void same_length(size_t a, size_t b, const char* what) {
  if (a == b) return;
  PyErr_Format(PyExc_ValueError, "rank_path: %s arrays differ in length (%zu, %zu)", what, a, b);
  throw BadInput{};
}

CollectiveReport collectives_from(PyObject* d, size_t ranks) {
  CollectiveReport r;
  r.ranks.ranks.resize(ranks);
  const auto op = array<int32_t>(d, "inst_op");
  const auto root = array<int32_t>(d, "inst_root");
  const auto first = array<uint32_t>(d, "inst_first");
  const auto count = array<uint32_t>(d, "inst_count");
  same_length(op.size(), root.size(), "instance");
  same_length(op.size(), first.size(), "instance");
  same_length(op.size(), count.size(), "instance");
  const auto rank = array<uint32_t>(d, "call_rank");
  const auto comm_rank = array<int32_t>(d, "call_comm_rank");
  const auto arrival = array<int64_t>(d, "call_arrival");
  const auto end = array<int64_t>(d, "call_end");
  const auto wait = array<int64_t>(d, "call_wait");
  same_length(rank.size(), comm_rank.size(), "call");
  same_length(rank.size(), arrival.size(), "call");
  same_length(rank.size(), end.size(), "call");
  same_length(rank.size(), wait.size(), "call");
  for (size_t k = 0; k < op.size(); ++k) {
    if (op[k] < 0 || op[k] > static_cast<int32_t>(CommOp::kWaitany) ||
        uint64_t{first[k]} + count[k] > rank.size()) {
      PyErr_Format(PyExc_ValueError, "rank_path: instance %zu out of range", k);
      throw BadInput{};
    }
    CollectiveInstance inst;
    inst.op = static_cast<CommOp>(op[k]);
    inst.root = root[k];
    inst.first_call = first[k];
    inst.call_count = count[k];
    r.instances.push_back(inst);
  }
  r.calls.resize(rank.size());
  for (size_t i = 0; i < rank.size(); ++i) {
    CollectiveCall& c = r.calls[i];
    c.rank = rank[i];
    c.comm_rank = comm_rank[i];
    c.arrival_ns = arrival[i];
    c.end_ns = end[i];
    c.wait_ns = wait[i];
  }
  return r;
}

PyObject* report_dict(const RankPathReport& r) {
  Ref d(PyDict_New());
  auto integer = [](long long v) { return checked(PyLong_FromLongLong(v)); };
  put(d.get(), "start_ns", integer(r.start_ns));
  put(d.get(), "measured_end_ns", integer(r.measured_end_ns));
  put(d.get(), "modelled_end_ns", integer(r.modelled_end_ns));
  put(d.get(), "collectives", checked(PyLong_FromUnsignedLongLong(r.collectives)));
  Ref shares(PyList_New(0));
  for (const RankPathShare& s : r.shares) {
    Ref row(Py_BuildValue("{sIsLsL}", "rank", s.rank, "work_ns", static_cast<long long>(s.work_ns),
                          "on_path_ns", static_cast<long long>(s.on_path_ns)));
    if (PyList_Append(shares.get(), row.get()) != 0) throw PyError{};
  }
  put(d.get(), "shares", shares.release());
  Ref what_if(PyList_New(0));
  for (const RankWhatIf& w : r.what_ifs) {
    Ref row(Py_BuildValue("{sIsdsL}", "rank", w.rank, "scale", w.scale, "saving_ns",
                          static_cast<long long>(w.saving_ns)));
    if (PyList_Append(what_if.get(), row.get()) != 0) throw PyError{};
  }
  put(d.get(), "what_if", what_if.release());
  Ref path(PyList_New(0));
  for (const RankPathStep& s : r.path) {
    Ref row(s.transfer
                ? Py_BuildValue("{sIsOsIsLsL}", "rank", s.rank, "transfer", Py_True, "instance",
                                s.instance, "start_ns", static_cast<long long>(s.start_ns),
                                "end_ns", static_cast<long long>(s.end_ns))
                : Py_BuildValue("{sIsOsLsL}", "rank", s.rank, "transfer", Py_False, "start_ns",
                                static_cast<long long>(s.start_ns), "end_ns",
                                static_cast<long long>(s.end_ns)));
    if (PyList_Append(path.get(), row.get()) != 0) throw PyError{};
  }
  put(d.get(), "path", path.release());
  return d.release();
}

}  // namespace

PyObject* rank_path(PyObject* arrays) {
  if (!PyDict_Check(arrays)) return PyErr_Format(PyExc_TypeError, "rank_path() takes a dict");
  try {
    const auto start = array<int64_t>(arrays, "span_start");
    const auto end = array<int64_t>(arrays, "span_end");
    same_length(start.size(), end.size(), "span");
    std::vector<RankSpan> spans(start.size());
    for (size_t k = 0; k < spans.size(); ++k) spans[k] = {start[k], end[k]};
    const CollectiveReport collectives = collectives_from(arrays, spans.size());
    for (const CollectiveCall& c : collectives.calls)
      if (c.rank >= spans.size()) {
        PyErr_Format(PyExc_ValueError, "rank_path: a call of rank index %u, %zu ranks", c.rank,
                     spans.size());
        return nullptr;
      }
    return report_dict(rank_critical_path(spans, collectives));
  } catch (const BadInput&) {
    return nullptr;
  } catch (const PyError&) {
    return nullptr;
  } catch (const std::bad_alloc&) {
    return PyErr_NoMemory();
  }
}

}  // namespace brickprof::python
