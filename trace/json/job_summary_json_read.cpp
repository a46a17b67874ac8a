// Reads the job summary (see job_summary_json.h) with simdjson, as the
// trace reader reads a trace's small sections: errors name the key.
#include <fstream>
#include <sstream>

#include "trace/json/job_summary_json.h"
#include "trace/json/trace_json_values.h"

namespace brickprof {
namespace {

using namespace json_read;

std::vector<TimeStat> read_stats(od::array arr, Cursor& c, const char* section) {
  std::vector<TimeStat> out;
  c.section = section;
  c.index = 0;
  for (auto element : arr) {
    TimeStat s;
    for (auto f : od::object(element.get_object())) {
      const std::string_view k = f.unescaped_key();
      c.key = k;
      od::value v = f.value();
      if (k == "name") {
        s.name = std::string(get_string(v, c));
      } else if (k == "category") {
        s.category = get_enum<Category>(v, c);
      } else if (k == "count") {
        s.count = get_uint(v, c);
      } else if (k == "total_ns") {
        s.total_ns = get_int(v, c);
      } else if (k == "min_ns") {
        s.min_ns = get_int(v, c);
      } else if (k == "max_ns") {
        s.max_ns = get_int(v, c);
      }
    }
    out.push_back(std::move(s));
    ++c.index;
  }
  return out;
}

std::vector<CollectiveArrival> read_collectives(od::array arr, Cursor& c) {
  std::vector<CollectiveArrival> out;
  c.section = "collectives";
  c.index = 0;
  for (auto element : arr) {
    CollectiveArrival a;
    for (auto f : od::object(element.get_object())) {
      const std::string_view k = f.unescaped_key();
      c.key = k;
      od::value v = f.value();
      if (k == "comm") {
        a.comm_key = get_hash(v, c);
      } else if (k == "seq") {
        a.seq = get_uint(v, c);
      } else if (k == "op") {
        a.op = get_enum<CommOp>(v, c);
      } else if (k == "root") {
        a.root = static_cast<int32_t>(get_int(v, c));
      } else if (k == "comm_rank") {
        a.comm_rank = static_cast<int32_t>(get_int(v, c));
      } else if (k == "comm_size") {
        a.comm_size = static_cast<int32_t>(get_int(v, c));
      } else if (k == "bytes") {
        a.bytes = get_uint(v, c);
      } else if (k == "arrival_ns") {
        a.arrival_ns = get_time(v, c);
      } else if (k == "end_ns") {
        a.end_ns = get_time(v, c);
      }
    }
    if (a.end_ns < a.arrival_ns) fail(c.describe() + ": ends before it arrives");
    out.push_back(a);
    ++c.index;
  }
  return out;
}

std::vector<MemoryPeak> read_memory_peaks(od::array arr, Cursor& c) {
  std::vector<MemoryPeak> out;
  c.section = "memory_peaks";
  c.index = 0;
  for (auto element : arr) {
    MemoryPeak m;
    for (auto f : od::object(element.get_object())) {
      const std::string_view k = f.unescaped_key();
      c.key = k;
      od::value v = f.value();
      if (k == "account")
        m.account = std::string(get_string(v, c));
      else if (k == "peak_bytes")
        m.peak_bytes = get_uint(v, c);
    }
    out.push_back(std::move(m));
    ++c.index;
  }
  return out;
}

RankSummary read_rank(od::object obj, Cursor& c, int64_t index) {
  RankSummary r;
  for (auto f : obj) {
    const std::string_view k = f.unescaped_key();
    c.section = "ranks";
    c.index = index;
    c.key = k;
    od::value v = f.value();
    if (k == "rank") {
      r.rank = get_int(v, c);
    } else if (k == "pid") {
      r.pid = get_int(v, c);
    } else if (k == "host") {
      r.host = std::string(get_string(v, c));
    } else if (k == "clock_aligned") {
      bool b = false;
      if (v.get_bool().get(b) != simdjson::SUCCESS) fail(c.describe() + ": expected true or false");
      r.clock_aligned = b;
    } else if (k == "first_ns") {
      r.first_ns = get_time(v, c);
    } else if (k == "last_ns") {
      r.last_ns = get_time(v, c);
    } else if (k == "scopes") {
      r.scopes = get_uint(v, c);
    } else if (k == "open_scopes") {
      r.open_scopes = get_uint(v, c);
    } else if (k == "dropped_events") {
      r.dropped_events = get_uint(v, c);
    } else if (k == "memory_peaks") {
      r.memory_peaks = read_memory_peaks(v.get_array(), c);
    } else if (k == "memory_peaks_left_out") {
      r.memory_peaks_left_out = get_uint(v, c);
    } else if (k == "summarize_ns") {
      r.summarize_ns = get_int(v, c);
    } else if (k == "wire_bytes") {
      r.wire_bytes = get_uint(v, c);
    } else if (k == "note") {
      r.note = std::string(get_string(v, c));
    } else if (k == "bricks") {
      r.bricks = read_stats(v.get_array(), c, "ranks[].bricks");
    } else if (k == "kernels") {
      r.kernels = read_stats(v.get_array(), c, "ranks[].kernels");
    } else if (k == "collectives") {
      r.collectives = read_collectives(v.get_array(), c);
    } else if (k == "bricks_left_out") {
      r.bricks_left_out = get_uint(v, c);
    } else if (k == "kernels_left_out") {
      r.kernels_left_out = get_uint(v, c);
    } else if (k == "collectives_left_out") {
      r.collectives_left_out = get_uint(v, c);
    }
  }
  if (r.rank < 0) fail("ranks[" + std::to_string(index) + "]: no rank");
  return r;
}

void read_top(od::document& doc, JobSummary& job) {
  Cursor c;
  bool schema = false;
  for (auto f : doc.get_object()) {
    const std::string_view k = f.unescaped_key();
    c.section = "top level";
    c.index = -1;
    c.key = k;
    od::value v = f.value();
    if (k == "schema") {
      const std::string_view s = get_string(v, c);
      if (s != kJobSchema)
        fail("schema '" + std::string(s) + "', expected '" + std::string(kJobSchema) + "'");
      schema = true;
    } else if (k == "job") {
      c.section = "job";
      for (auto g : v.get_object()) {
        const std::string_view gk = g.unescaped_key();
        c.key = gk;
        od::value gv = g.value();
        if (gk == "world_size")
          job.world_size = get_int(gv, c);
        else if (gk == "program")
          job.program = std::string(get_string(gv, c));
        else if (gk == "launcher")
          job.launcher = std::string(get_string(gv, c));
        else if (gk == "job")
          job.job = std::string(get_string(gv, c));
      }
    } else if (k == "reduction") {
      c.section = "reduction";
      for (auto g : v.get_object()) {
        const std::string_view gk = g.unescaped_key();
        c.key = gk;
        od::value gv = g.value();
        if (gk == "gather_sizes_ns")
          job.gather_sizes_ns = get_int(gv, c);
        else if (gk == "gather_records_ns")
          job.gather_records_ns = get_int(gv, c);
        else if (gk == "unpack_ns")
          job.unpack_ns = get_int(gv, c);
        else if (gk == "gathered_bytes")
          job.gathered_bytes = get_uint(gv, c);
      }
    } else if (k == "notes") {
      for (auto n : v.get_array()) job.notes.emplace_back(get_string(n.value(), c));
    } else if (k == "ranks") {
      int64_t i = 0;
      for (auto r : v.get_array()) job.ranks.push_back(read_rank(r.get_object(), c, i++));
    }
    // "bricks" and "kernels" (all ranks combined) are combine_stats of the
    // ranks': the reader derives them again.
  }
  if (!schema) fail("no \"schema\": not a brickprof job summary");
}

}  // namespace

JobSummary parse_job_summary_json(std::string_view json) {
  simdjson::padded_string padded(json);
  od::parser parser;
  JobSummary job;
  try {
    od::document doc = parser.iterate(padded);
    read_top(doc, job);
  } catch (const simdjson::simdjson_error& e) {
    throw TraceError(std::string("not valid JSON (") + simdjson::error_message(e.error()) + ")");
  }
  return job;
}

JobSummary read_job_summary_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw TraceError(path + ": cannot open");
  std::ostringstream text;
  text << in.rdbuf();
  try {
    return parse_job_summary_json(text.str());
  } catch (const TraceError& e) {
    throw TraceError(path + ": " + e.what());
  }
}

}  // namespace brickprof
