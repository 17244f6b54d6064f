// Picks the fastest dot-product build this CPU runs. All builds give identical results
// (see vec_dot.h), so the choice affects speed only.
#include "kernels/quant/k_quant_amx.h"
#include "kernels/quant/row_groups.h"
#include "kernels/quant/vec_dot.h"
#include "kernels/runtime/cpu_features.h"

namespace draftbench {
namespace {

enum class DotBackend { reference, avx2, avx512vnni, avx512bf16 };

DotBackend backend() {
  const CpuFeatures& f = cpu_features();
  if (f.avx512vnni && f.avx512bw && f.avx512vl && f.avx2) return f.avx512bf16 ? DotBackend::avx512bf16 : DotBackend::avx512vnni;
  if (f.avx2) return DotBackend::avx2;
  return DotBackend::reference;
}

// The AMX kernels (k_quant_amx.h) by weight type, from how many activation rows each is
// taken: AMX tiles take 16 at once, and below these counts the AVX-512 kernels, which take
// eight, were as fast (kernels/bench: dot_rows_batch_amx against dot_rows_batch_avx512vnni;
// for Q4_K, Qwen2.5-Coder-1.5B's forward of 8 tokens, 111 ms with AMX against 102 without,
// and of 16, 152 against 200, on an Intel Xeon, family 6 model 167).
struct AmxKernel {
  GgmlType type;
  int64_t min_rows;
};
constexpr AmxKernel kAmxKernels[] = {{GgmlType::Q4_K, 10}, {GgmlType::Q6_K, 16}};

bool amx() {
  const CpuFeatures& f = cpu_features();
  return f.amx_int8 && f.avx512bw && f.avx512vl;
}

}  // namespace

// The row-interleaved layouts' rows are spread over their groups, so they have kernels of
// their own (row_groups.h), which pick their build themselves.
void dot_rows(GgmlType type, const uint8_t* w, size_t w_stride, int64_t n_rows, const void* xq, int64_t n, float* y) {
  if (const RowGroupLayout* g = row_group_layout(type))
    return g->rows_fastest(w, n_rows, static_cast<const uint8_t*>(xq), 0, 1, n / ggml_type_info(type).block_size, y, 0);
  switch (backend()) {
    case DotBackend::avx512bf16: return dot_rows_avx512bf16(type, w, w_stride, n_rows, xq, n, y);
    case DotBackend::avx512vnni: return dot_rows_avx512vnni(type, w, w_stride, n_rows, xq, n, y);
    case DotBackend::avx2: return dot_rows_avx2(type, w, w_stride, n_rows, xq, n, y);
    case DotBackend::reference: return dot_rows_ref(type, w, w_stride, n_rows, xq, n, y);
  }
}

void dot_rows_batch(GgmlType type, const uint8_t* w, size_t w_stride, int64_t n_rows, const uint8_t* xq, size_t xq_stride, int64_t n_x, int64_t n, float* y,
                    size_t y_stride) {
  if (const RowGroupLayout* g = row_group_layout(type)) return g->rows_fastest(w, n_rows, xq, xq_stride, n_x, n / ggml_type_info(type).block_size, y, y_stride);
  for (const AmxKernel& k : kAmxKernels)
    if (k.type == type && n_x >= k.min_rows && amx() && k_quant_rows_batch_amx(type, w, w_stride, n_rows, xq, xq_stride, n_x, n, y, y_stride)) return;
  switch (backend()) {
    case DotBackend::avx512bf16: return dot_rows_batch_avx512bf16(type, w, w_stride, n_rows, xq, xq_stride, n_x, n, y, y_stride);
    case DotBackend::avx512vnni: return dot_rows_batch_avx512vnni(type, w, w_stride, n_rows, xq, xq_stride, n_x, n, y, y_stride);
    case DotBackend::avx2: return dot_rows_batch_avx2(type, w, w_stride, n_rows, xq, xq_stride, n_x, n, y, y_stride);
    case DotBackend::reference: return dot_rows_batch_ref(type, w, w_stride, n_rows, xq, xq_stride, n_x, n, y, y_stride);
  }
}

void dot_rows_indexed(GgmlType type, const uint8_t* w, size_t row_bytes, const int32_t* ids, int64_t n_ids, const void* xq, int64_t n, float* y) {
  if (const RowGroupLayout* g = row_group_layout(type)) return g->indexed(w, ids, n_ids, xq, n / ggml_type_info(type).block_size, y);
  switch (backend()) {
    case DotBackend::avx512bf16: return dot_rows_indexed_avx512bf16(type, w, row_bytes, ids, n_ids, xq, n, y);
    case DotBackend::avx512vnni: return dot_rows_indexed_avx512vnni(type, w, row_bytes, ids, n_ids, xq, n, y);
    case DotBackend::avx2: return dot_rows_indexed_avx2(type, w, row_bytes, ids, n_ids, xq, n, y);
    case DotBackend::reference: return dot_rows_indexed_ref(type, w, row_bytes, ids, n_ids, xq, n, y);
  }
}

bool dot_rows_batch_has_amx(GgmlType type) {
  for (const AmxKernel& k : kAmxKernels)
    if (k.type == type) return amx();
  return false;
}

const char* dot_rows_backend() {
  switch (backend()) {
    case DotBackend::avx512bf16:  // the same name: see vec_dot.h
    case DotBackend::avx512vnni: return "avx512vnni";
    case DotBackend::avx2: return "avx2";
    case DotBackend::reference: break;
  }
  return "reference";
}

}  // namespace draftbench
