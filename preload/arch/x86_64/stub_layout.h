/* SPDX-License-Identifier: MIT */
/*
 * The layout of a per-function stub, shared by patch.c (which writes it) and
 * thunk.S (which reads a literal of it on the pass-through path).
 *
 *   +0   68 ii ii ii ii        push $idx
 *   +5   ff 15 rr rr rr rr     call *enter(%rip)     -> xp_thunk_enter
 *   +11  90 e8 rr rr rr rr     nop; call orig        -> relocated prologue
 *   +17  48 83 ec 08           sub $8, %rsp          <- R2: F returns here
 *   +21  ff 15 rr rr rr rr     call *exit(%rip)      -> xp_thunk_exit
 *   +27  c3                    ret                   -> R1
 *   +28  .byte entry           for steps: the function's own instructions the
 *                              patch leaves before the stub (endbr64): 0 or 1
 *   +29  .byte n               relocated instructions that stand for one of
 *   +30  .short list           the function's own each: n offsets (u16, from
 *                              the head) at head + list, after the relocated
 *                              instructions; list 0: none (calibration's stubs)
 *   +32  .quad xp_thunk_enter
 *   +40  .quad orig            (read by the thunk's pass-through path)
 *   +48  .quad xp_thunk_exit
 *   +56  orig: f3 0f 1e fa     endbr64 (reached by an indirect call)
 *   +60  the relocated instructions
 *        e9 rr rr rr rr        jmp F + patched bytes (or jmp *0(%rip); .quad)
 */
#ifndef EXTPROF_STUB_LAYOUT_H
#define EXTPROF_STUB_LAYOUT_H

#define STUB_CALL_ENTER	 5
#define STUB_AFTER_ENTER 11 /* the return address xp_thunk_enter sees */
#define STUB_RET	 17 /* R2: where F returns */
#define STUB_STEP_ENTRY	 28
#define STUB_STEP_N	 29
#define STUB_STEP_LIST	 30
#define STUB_LIT_ENTER	 32
#define STUB_LIT_ORIG	 40
#define STUB_LIT_EXIT	 48
#define STUB_ORIG	 56
#define STUB_HEADER_SIZE 60

#endif
