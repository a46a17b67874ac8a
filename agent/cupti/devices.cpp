// Device peaks (see devices.h) and the query at context creation.
#include "agent/cupti/devices.h"

#include <mutex>
#include <set>

#include "agent/cupti/callbacks.h"
#include "agent/lifecycle/critical_section.h"
#include "trace/model/device_peaks.h"

namespace brickprof::agent {

int fp32_lanes_per_sm(int major, int minor) {
  switch (major) {
    case 3:
      return 192;
    case 5:
      return 128;
    case 6:
      return minor == 0 ? 64 : 128;
    case 7:
      return 64;
    case 8:
      return minor == 0 ? 64 : 128;
    default:
      return 128;  // 9.x Hopper, 10.x/12.x Blackwell
  }
}

Device make_device(const DeviceAttributes& a, std::optional<double> gflops_override,
                   std::optional<double> gbps_override) {
  Device d;
  d.id = a.id;
  d.name = a.name;
  d.sm_count = static_cast<uint32_t>(a.sm_count);
  d.clock_mhz = a.clock_khz / 1000.0;
  d.memory_clock_mhz = a.memory_clock_khz / 1000.0;
  d.memory_bus_bits = static_cast<uint32_t>(a.bus_width_bits);
  d.memory_bytes = a.memory_bytes;
  d.peak_gflops = static_cast<double>(a.sm_count) * fp32_lanes_per_sm(a.cc_major, a.cc_minor) *
                  2.0 * a.clock_khz * 1e3 / 1e9;
  d.peak_gbps = 2.0 * a.memory_clock_khz * 1e3 * a.bus_width_bits / 8.0 / 1e9;
  // An override replaces one figure; the label names each figure's origin.
  d.peak_gflops = gflops_override.value_or(d.peak_gflops);
  d.peak_gbps = gbps_override.value_or(d.peak_gbps);
  d.peaks_source = peaks_source_label(gflops_override ? "override" : "device attributes",
                                      gbps_override ? "override" : "device attributes");
  return d;
}

void query_device(GpuState& s, int ordinal) {
  const Driver& drv = s.driver;
  CUdevice dev = 0;
  if (drv.device_get(&dev, ordinal) != CUDA_SUCCESS) return;
  {
    AgentLock lock(s.devices_mu);
    for (const Device& d : s.devices)
      if (d.id == static_cast<uint32_t>(ordinal)) return;
  }
  DeviceAttributes a;
  a.id = static_cast<uint32_t>(ordinal);
  char name[256] = {0};
  if (drv.device_get_name(name, sizeof name - 1, dev) == CUDA_SUCCESS) a.name = name;
  drv.device_get_attribute(&a.sm_count, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev);
  drv.device_get_attribute(&a.clock_khz, CU_DEVICE_ATTRIBUTE_CLOCK_RATE, dev);
  drv.device_get_attribute(&a.memory_clock_khz, CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE, dev);
  drv.device_get_attribute(&a.bus_width_bits, CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH, dev);
  drv.device_get_attribute(&a.cc_major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev);
  drv.device_get_attribute(&a.cc_minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev);
  size_t total = 0;
  if (drv.device_total_mem != nullptr && drv.device_total_mem(&total, dev) == CUDA_SUCCESS)
    a.memory_bytes = total;
  Device d = make_device(a, s.config.peak_gflops, s.config.peak_gbps);
  AgentLock lock(s.devices_mu);
  s.devices.push_back(d);
}

void note_device_of_context(GpuState& s, CUcontext ctx) {
  // CUPTI names the device of any context; a primary context is usually
  // not current yet when it is created.
  uint32_t id = 0;
  if (s.cupti.get_device_id != nullptr && s.cupti.get_device_id(ctx, &id) == CUPTI_SUCCESS) {
    query_device(s, static_cast<int>(id));
    return;
  }
  // Older CUPTI: cuCtxGetDevice reads the current context, normally the new
  // one on the creating thread. If not, the exit-time query finds it.
  CUcontext current = nullptr;
  CUdevice dev = 0;
  if (s.driver.ctx_get_current(&current) != CUDA_SUCCESS || current != ctx) return;
  if (s.driver.ctx_get_device(&dev) != CUDA_SUCCESS) return;
  query_device(s, static_cast<int>(dev));
}

void query_used_devices(GpuState& s) {
  std::set<uint32_t> used;
  {
    AgentLock lock(s.translate_mu);
    const StagedRecords& staged = s.translation.staged;
    for (size_t i = 0; i < staged.size(); ++i) used.insert(staged[i].detail.device);
  }
  for (uint32_t id : used) query_device(s, static_cast<int>(id));
  bool none;
  {
    AgentLock lock(s.devices_mu);
    none = s.devices.empty();
  }
  // No context seen and no GPU record: list what there is.
  if (none) query_all_devices(s);
}

void query_all_devices(GpuState& s) {
  int count = 0;
  // Fails with CUDA_ERROR_NOT_INITIALIZED when the host never used CUDA:
  // then there is nothing to report and we must not initialise it.
  if (s.driver.device_get_count(&count) != CUDA_SUCCESS) return;
  for (int i = 0; i < count; ++i) query_device(s, i);
}

}  // namespace brickprof::agent
