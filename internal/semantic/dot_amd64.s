#include "textflag.h"

// func dotsAVX2(q *int16, v *int8, dim, n int, out *int32)
//
// out[i] = Σ_j q[j]·v[i·dim+j] for i < n; dim is a multiple of 16 and ≥ 16.
// Each 16 bytes of a vector are sign-extended to 16-bit lanes (VPMOVSXBW),
// multiplied by the query's 16-bit lanes and summed in pairs to 32 bits
// (VPMADDWD), and the eight 32-bit sums are added at the end.
TEXT ·dotsAVX2(SB), NOSPLIT, $0-40
	MOVQ q+0(FP), SI
	MOVQ v+8(FP), DI
	MOVQ dim+16(FP), CX
	MOVQ n+24(FP), DX
	MOVQ out+32(FP), R8

vec:
	TESTQ DX, DX
	JZ    done
	VPXOR Y2, Y2, Y2
	XORQ  BX, BX

lanes:
	VPMOVSXBW (DI)(BX*1), Y0
	VMOVDQU   (SI)(BX*2), Y1
	VPMADDWD  Y1, Y0, Y0
	VPADDD    Y0, Y2, Y2
	ADDQ      $16, BX
	CMPQ      BX, CX
	JLT       lanes

	VEXTRACTI128 $1, Y2, X3
	VPADDD       X3, X2, X2
	VPSHUFD      $0x4E, X2, X3
	VPADDD       X3, X2, X2
	VPSHUFD      $0xB1, X2, X3
	VPADDD       X3, X2, X2
	VMOVD        X2, AX
	MOVL         AX, (R8)
	ADDQ         $4, R8
	ADDQ         CX, DI
	DECQ         DX
	JMP          vec

done:
	VZEROUPPER
	RET
