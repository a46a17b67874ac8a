/* An unmodified NVTX-annotated program: it knows nothing of brickprof. Run
 * with NVTX_INJECTION64_PATH=libbrickprof.so, its ranges must come out as
 * layers, bricks and scopes with the right nesting (see nvtx_check.py). */
#include <nvtx3/nvToolsExt.h>
#include <stdio.h>
#include <wchar.h>

static volatile double sink;

static void work(int n) {
  double s = 0;
  for (int i = 0; i < n; ++i) s += i * 0.5;
  sink = s;
}

int main(void) {
  nvtxDomainHandle_t domain = nvtxDomainCreateA("bricklayer");
  nvtxStringHandle_t gate = nvtxDomainRegisterStringA(domain, "Gate");

  for (int layer = 0; layer < 2; ++layer) {
    char name[32];
    snprintf(name, sizeof name, layer == 0 ? "Layer %d" : "layer.%d", layer);
    nvtxRangePushA(name);

    nvtxRangePushA("RmsNorm");
    work(1000);
    nvtxRangePop();

    nvtxEventAttributes_t attr = {0};
    attr.version = NVTX_VERSION;
    attr.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
    attr.messageType = NVTX_MESSAGE_TYPE_ASCII;
    attr.message.ascii = "Rope";
    nvtxRangePushEx(&attr);
    nvtxMarkA("rope-mark");
    nvtxRangePop();

    nvtxEventAttributes_t reg = {0};
    reg.version = NVTX_VERSION;
    reg.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
    reg.messageType = NVTX_MESSAGE_TYPE_REGISTERED;
    reg.message.registered = gate;
    nvtxDomainRangePushEx(domain, &reg);
    nvtxRangePushW(L"SiLU");
    work(1000);
    nvtxRangePop();
    nvtxDomainRangePop(domain);

    nvtxEventAttributes_t wide = {0};
    wide.version = NVTX_VERSION;
    wide.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
    wide.messageType = NVTX_MESSAGE_TYPE_UNICODE;
    wide.message.unicode = L"custom_softmax";
    nvtxRangePushEx(&wide);
    nvtxRangePop();

    nvtxRangePop(); /* layer */
  }
  nvtxRangeId_t id = nvtxRangeStartA("async_load");
  work(100);
  nvtxRangeEnd(id);
  /* Overlapping, not nested: needs a second range lane. */
  {
    nvtxRangeId_t a = nvtxRangeStartA("overlap_a");
    nvtxRangeId_t b;
    work(100);
    b = nvtxRangeStartA("overlap_b");
    work(100);
    nvtxRangeEnd(a);
    work(100);
    nvtxRangeEnd(b);
  }
  printf("nvtx program done\n");
  return 0;
}
