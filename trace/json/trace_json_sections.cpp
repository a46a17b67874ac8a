// Readers of the trace's small sections: process, diagnostics, devices,
// threads, ptx, communicators, python_frames, python_stacks (see
// trace_json_values.h). Unknown keys are ignored.
#include "trace/json/trace_json_values.h"

namespace brickprof::json_read {

namespace {

// Calls field(key, value) for each key of `obj`, the cursor naming the key
// for error messages.
template <typename Field>
void each_field(od::object obj, Cursor& c, Field field) {
  for (auto f : obj) {
    const std::string_view k = f.unescaped_key();
    c.key = k;
    od::value v = f.value();
    field(k, v);
  }
}

// Calls element(object) for each element of `arr`, the cursor naming the
// section and the element's index.
template <typename Element>
void each_element(od::array arr, const char* section, Cursor& c, Element element) {
  c.section = section;
  c.index = 0;
  for (auto e : arr) {
    element(od::object(e.get_object()));
    ++c.index;
  }
  c.index = -1;
}

void read_clock_sync(od::value& v, ClockSync& sync, const Cursor& c) {
  od::object obj;
  if (v.get_object().get(obj) != simdjson::SUCCESS) fail(c.describe() + ": expected an object");
  for (auto f : obj) {
    const std::string_view k = f.unescaped_key();
    if (k == "reference_rank") {
      sync.reference_rank = static_cast<int32_t>(get_int(f.value(), c));
    } else if (k == "samples") {
      for (auto element : f.value().get_array()) {
        ClockSync::Sample s;
        for (auto sf : element.get_object()) {
          const std::string_view sk = sf.unescaped_key();
          if (sk == "local_ns")
            s.local_ns = get_time(sf.value(), c);
          else if (sk == "offset_ns")
            s.offset_ns = get_int(sf.value(), c);
          else if (sk == "rtt_ns")
            s.rtt_ns = get_int(sf.value(), c);
        }
        if (!sync.samples.empty() && s.local_ns < sync.samples.back().local_ns)
          fail(c.describe() + ": samples out of time order");
        sync.samples.push_back(s);
      }
    }
  }
}

// One key of a process object; false if it is not one.
bool read_process_field(std::string_view k, od::value& v, ProcessInfo& p, const Cursor& c) {
  if (k == "pid")
    p.pid = get_int(v, c);
  else if (k == "ppid")
    p.ppid = get_int(v, c);
  else if (k == "program")
    p.program = get_string(v, c);
  else if (k == "cmdline")
    p.cmdline = get_string(v, c);
  else if (k == "host")
    p.host = get_string(v, c);
  else if (k == "rank")
    p.rank = get_int(v, c);
  else if (k == "start_ns")
    p.start_ns = get_time(v, c);
  else if (k == "end_ns")
    p.end_ns = get_time(v, c);
  else if (k == "clock")
    p.clock = get_string(v, c);
  else if (k == "launcher")
    p.launcher = get_string(v, c);
  else if (k == "job")
    p.job = get_string(v, c);
  else if (k == "local_rank")
    p.local_rank = get_int(v, c);
  else if (k == "world_size")
    p.world_size = get_int(v, c);
  else if (k == "clock_sync")
    read_clock_sync(v, p.clock_sync, c);
  else
    return false;
  return true;
}

void read_id_maps(od::value v, std::string_view id_key, std::vector<SourceInfo::IdMap>& out,
                  Cursor& c) {
  for (auto element : v.get_array()) {
    SourceInfo::IdMap m;
    for (auto f : element.get_object()) {
      std::string_view k = f.unescaped_key();
      if (k == id_key)
        m.id = static_cast<uint32_t>(get_uint(f.value(), c));
      else if (k.substr(0, 7) == "source_" && k.substr(7) == id_key)
        m.source_id = static_cast<uint32_t>(get_uint(f.value(), c));
    }
    out.push_back(m);
  }
}

}  // namespace

void read_process(od::object obj, ProcessInfo& p, Cursor& c) {
  c.section = "process";
  each_field(obj, c, [&](std::string_view k, od::value& v) { read_process_field(k, v, p, c); });
}

void read_sources(od::array arr, std::vector<SourceInfo>& out, Cursor& c) {
  each_element(arr, "sources", c, [&](od::object obj) {
    SourceInfo s;
    each_field(obj, c, [&](std::string_view k, od::value& v) {
      if (read_process_field(k, v, s.process, c)) return;
      if (k == "label")
        s.label = get_string(v, c);
      else if (k == "file")
        s.file = get_string(v, c);
      else if (k == "cupti")
        s.cupti = get_string(v, c);
      else if (k == "nvtx")
        s.nvtx = get_string(v, c);
      else if (k == "threads")
        read_id_maps(v, "tid", s.threads, c);
      else if (k == "devices")
        read_id_maps(v, "id", s.devices, c);
      else if (k == "alignment")
        for (auto f : v.get_object()) {
          const std::string_view ak = f.unescaped_key();
          s.alignment.applied = true;
          if (ak == "at_ns")
            s.alignment.at_ns = get_int(f.value(), c);
          else if (ak == "offset_ns")
            s.alignment.offset_ns = get_double(f.value(), c);
          else if (ak == "drift")
            s.alignment.drift = get_double(f.value(), c);
        }
    });
    out.push_back(std::move(s));
  });
}

namespace {

// [{"start_ns": S, "end_ns": E}, ...]: each S <= E, in order, apart.
void read_time_ranges(od::value& v, std::vector<TimeRange>& out, const Cursor& c,
                      const char* name) {
  od::array arr;
  if (v.get_array().get(arr) != simdjson::SUCCESS) fail(c.describe() + ": expected an array");
  Cursor at{name, 0, {}};  // errors name the element
  for (auto element : arr) {
    od::object obj;
    if (element.get_object().get(obj) != simdjson::SUCCESS)
      fail(at.describe() + ": expected an object {start_ns, end_ns}");
    TimeRange r{-1, -1};
    each_field(obj, at, [&](std::string_view k, od::value& field) {
      if (k == "start_ns")
        r.start_ns = get_time(field, at);
      else if (k == "end_ns")
        r.end_ns = get_time(field, at);
    });
    at.key = {};
    if (r.start_ns < 0 || r.end_ns < r.start_ns || (!out.empty() && r.start_ns < out.back().end_ns))
      fail(at.describe() + ": needs start_ns <= end_ns, after the window before it");
    out.push_back(r);
    ++at.index;
  }
}

}  // namespace

void read_diagnostics(od::object obj, Diagnostics& d, Cursor& c) {
  c.section = "diagnostics";
  each_field(obj, c, [&](std::string_view k, od::value& v) {
    if (k == "cupti")
      d.cupti = get_string(v, c);
    else if (k == "nvtx")
      d.nvtx = get_string(v, c);
    else if (k == "cpu_counters")
      d.cpu_counters = get_string(v, c);
    else if (k == "gpu_metrics")
      d.gpu_metrics = get_string(v, c);
    else if (k == "dropped_events")
      d.dropped_events = get_uint(v, c);
    else if (k == "dropped_names")
      d.dropped_names = get_uint(v, c);
    else if (k == "ignored_api_calls")
      d.ignored_api_calls = get_uint(v, c);
    else if (k == "dropped_activity_records")
      d.dropped_activity_records = get_uint(v, c);
    else if (k == "zero_timestamp_records")
      d.zero_timestamp_records = get_uint(v, c);
    else if (k == "unbalanced_pops")
      d.unbalanced_pops = get_uint(v, c);
    else if (k == "open_scopes_at_exit")
      d.open_scopes_at_exit = get_uint(v, c);
    else if (k == "capture")
      d.capture = get_string(v, c);
    else if (k == "capture_windows")
      read_time_ranges(v, d.capture_windows, c, "diagnostics.capture_windows");
    else if (k == "activity_off")
      read_time_ranges(v, d.activity_off, c, "diagnostics.activity_off");
    else if (k == "scopes_cut_by_capture")
      d.scopes_cut_by_capture = get_uint(v, c);
    else if (k == "records_outside_capture")
      d.records_outside_capture = get_uint(v, c);
    else if (k == "checksum_mode")
      d.checksum_mode = get_string(v, c);
    else if (k == "warnings")
      for (auto w : v.get_array()) d.warnings.emplace_back(get_string(w.value(), c));
  });
}

// "cache_gbps": the L1, L2 and L3 read bandwidths, three numbers >= 0.
void read_cache_gbps(od::value& v, Device& dev, Cursor& c) {
  size_t i = 0;
  for (auto element : v.get_array()) {
    const double gbps = get_double(element.value(), c);
    if (i >= 3 || !(gbps >= 0)) fail(c.describe() + ": three bandwidths >= 0 (L1, L2, L3)");
    dev.cache_gbps[i++] = gbps;
  }
  if (i != 3) fail(c.describe() + ": three bandwidths >= 0 (L1, L2, L3)");
}

void read_devices(od::array arr, std::vector<Device>& out, Cursor& c) {
  each_element(arr, "devices", c, [&](od::object obj) {
    Device dev;
    each_field(obj, c, [&](std::string_view k, od::value& v) {
      if (k == "id")
        dev.id = static_cast<uint32_t>(get_uint(v, c));
      else if (k == "name")
        dev.name = get_string(v, c);
      else if (k == "sm_count")
        dev.sm_count = static_cast<uint32_t>(get_uint(v, c));
      else if (k == "clock_mhz")
        dev.clock_mhz = get_double(v, c);
      else if (k == "memory_clock_mhz")
        dev.memory_clock_mhz = get_double(v, c);
      else if (k == "memory_bus_bits")
        dev.memory_bus_bits = static_cast<uint32_t>(get_uint(v, c));
      else if (k == "peak_gflops")
        dev.peak_gflops = get_double(v, c);
      else if (k == "peak_gbps")
        dev.peak_gbps = get_double(v, c);
      else if (k == "peaks_source")
        dev.peaks_source = get_string(v, c);
      else if (k == "memory_bytes")
        dev.memory_bytes = get_uint(v, c);
      else if (k == "cache_gbps")
        read_cache_gbps(v, dev, c);
    });
    out.push_back(std::move(dev));
  });
}

void read_threads(od::array arr, std::vector<ThreadInfo>& out, Cursor& c) {
  c.section = "threads";
  for (auto element : arr) {
    ThreadInfo th;
    each_field(element.get_object(), c, [&](std::string_view k, od::value& v) {
      if (k == "tid")
        th.tid = static_cast<uint32_t>(get_uint(v, c));
      else if (k == "name")
        th.name = get_string(v, c);
    });
    out.push_back(std::move(th));
  }
}

void read_ptx(od::array arr, std::vector<PtxModule>& out, Cursor& c) {
  each_element(arr, "ptx", c, [&](od::object obj) {
    PtxModule m;
    each_field(obj, c, [&](std::string_view k, od::value& v) {
      if (k == "hash")
        m.hash = get_hash(v, c);
      else if (k == "kind")
        m.kind = get_string(v, c);
      else if (k == "bytes")
        m.bytes = get_uint(v, c);
      else if (k == "source")
        m.source = get_string(v, c);
      else if (k == "kernels")
        for (auto name : v.get_array()) m.kernels.emplace_back(get_string(name.value(), c));
    });
    out.push_back(std::move(m));
  });
}

void read_communicators(od::array arr, std::vector<Communicator>& out, Cursor& c) {
  each_element(arr, "communicators", c, [&](od::object obj) {
    Communicator m;
    each_field(obj, c, [&](std::string_view k, od::value& v) {
      if (k == "id")
        m.id = static_cast<uint32_t>(get_uint(v, c));
      else if (k == "name")
        m.name = get_string(v, c);
      else if (k == "key")
        m.key = get_hash(v, c);
      else if (k == "size")
        m.size = static_cast<int32_t>(get_int(v, c));
      else if (k == "rank")
        m.rank = static_cast<int32_t>(get_int(v, c));
      else if (k == "source")
        m.source = static_cast<uint32_t>(get_uint(v, c));
    });
    out.push_back(std::move(m));
  });
}

void read_comm_call(od::value v, CommCall& call, const Cursor& c) {
  od::object obj;
  if (v.get_object().get(obj) != simdjson::SUCCESS) fail(c.describe() + ": expected an object");
  bool has_op = false;
  for (auto f : obj) {
    const std::string_view k = f.unescaped_key();
    od::value fv = f.value();
    if (k == "op") {
      call.op = get_enum<CommOp>(fv, c);
      has_op = true;
    } else if (k == "comm") {
      call.comm = static_cast<uint32_t>(get_uint(fv, c));
    } else if (k == "peer") {
      call.peer = static_cast<int32_t>(get_int(fv, c));
    } else if (k == "tag") {
      call.tag = static_cast<int32_t>(get_int(fv, c));
    } else if (k == "bytes") {
      call.bytes = get_uint(fv, c);
    } else if (k == "recv_bytes") {
      call.recv_bytes = get_uint(fv, c);
    } else if (k == "seq") {
      call.seq = get_uint(fv, c);
    }
  }
  if (!has_op) fail(c.describe() + ": missing \"op\"");
}

void read_python_frames(od::array arr, std::vector<PythonFrame>& out, Cursor& c) {
  each_element(arr, "python_frames", c, [&](od::object obj) {
    PythonFrame f;
    each_field(obj, c, [&](std::string_view k, od::value& v) {
      if (k == "file")
        f.file = get_string(v, c);
      else if (k == "line")
        f.line = get_int(v, c);
      else if (k == "function")
        f.function = get_string(v, c);
    });
    out.push_back(std::move(f));
  });
}

// Each stack is an array of frame ids (checked against python_frames once
// the whole trace is read).
void read_python_stacks(od::array arr, std::vector<std::vector<uint32_t>>& out, Cursor& c) {
  c.section = "python_stacks";
  c.index = 0;
  for (auto e : arr) {
    std::vector<uint32_t> stack;
    for (auto f : e.get_array()) stack.push_back(static_cast<uint32_t>(get_uint(f.value(), c)));
    out.push_back(std::move(stack));
    ++c.index;
  }
  c.index = -1;
}

}  // namespace brickprof::json_read
