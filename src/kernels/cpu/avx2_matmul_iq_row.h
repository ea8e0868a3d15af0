// Single-input-row matmul kernels for the lattice i-quants IQ3_S, IQ3_XXS, IQ2_XXS, IQ2_XS,
// IQ2_S, IQ1_S and IQ1_M (avx2_matmul_iq_row.cc), built for both SIMD tables like every
// cpu/avx2_* file.
// The tiled kernels in avx2_matmul_iq.cc call them when a matmul has exactly one input row
// (a decode step); they give the tiled kernels' bits. Each computes rows [o_begin, o_end)
// of args.y for args.n_rows == 1; in the AVX-512 build it runs the VBMI kernel where the CPU
// has AVX-512 VBMI. Stateless; safe from any thread.
#pragma once

#include <cstdint>

#include "kernels/cpu/avx2.h"

namespace strata::kernels::cpu::STRATA_SIMD {

void matmul_iq3_s_single_row(const MatmulArgs& args, int64_t o_begin, int64_t o_end);
void matmul_iq3_xxs_single_row(const MatmulArgs& args, int64_t o_begin, int64_t o_end);
void matmul_iq2_xxs_single_row(const MatmulArgs& args, int64_t o_begin, int64_t o_end);
void matmul_iq2_xs_single_row(const MatmulArgs& args, int64_t o_begin, int64_t o_end);
void matmul_iq2_s_single_row(const MatmulArgs& args, int64_t o_begin, int64_t o_end);
// IQ1_S and IQ1_M run these kernels on both tables (no VBMI kernel: a 2048-entry grid).
void matmul_iq1_s_single_row(const MatmulArgs& args, int64_t o_begin, int64_t o_end);
void matmul_iq1_m_single_row(const MatmulArgs& args, int64_t o_begin, int64_t o_end);

#if defined(STRATA_KERNELS_AVX512)
// avx512_matmul_iq_vbmi.cc: the same for CPUs with AVX-512 VBMI only (the callers check).
void matmul_iq3_s_vbmi(const MatmulArgs& args, int64_t o_begin, int64_t o_end);
void matmul_iq3_xxs_vbmi(const MatmulArgs& args, int64_t o_begin, int64_t o_end);
void matmul_iq2_xxs_vbmi(const MatmulArgs& args, int64_t o_begin, int64_t o_end);
void matmul_iq2_xs_vbmi(const MatmulArgs& args, int64_t o_begin, int64_t o_end);
void matmul_iq2_s_vbmi(const MatmulArgs& args, int64_t o_begin, int64_t o_end);
// The strip kernels of avx2_iq_strips.h (several input rows) with the VBMI decoders filling
// the strips: the same bits as the tiles.
void matmul_iq3_s_vbmi_strips(const MatmulArgs& args, int64_t o_begin, int64_t o_end);
void matmul_iq3_xxs_vbmi_strips(const MatmulArgs& args, int64_t o_begin, int64_t o_end);
void matmul_iq2_xxs_vbmi_strips(const MatmulArgs& args, int64_t o_begin, int64_t o_end);
void matmul_iq2_xs_vbmi_strips(const MatmulArgs& args, int64_t o_begin, int64_t o_end);
void matmul_iq2_s_vbmi_strips(const MatmulArgs& args, int64_t o_begin, int64_t o_end);
#endif

}  // namespace strata::kernels::cpu::STRATA_SIMD
