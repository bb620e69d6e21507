/*
 * layout.h - where the two members of a frequency's (sin, cos) or
 * (cos, cos) pair sit in a row, one word for every family that pairs
 * columns (sinusoidal, rope, and the multi-axis tables to come).
 *
 *   interleaved  frequency k in columns 2k and 2k + 1 (Vaswani's table,
 *                GPT-J / RoFormer rotary pairs)
 *   half         frequency k in columns k and k + D/2 ([sin | cos] of
 *                tensor2tensor, fairseq; HF / GPT-NeoX cat(freqs, freqs))
 *   default      the convention's own (a preset's, or rope's half)
 */
#ifndef PE_LAYOUT_H
#define PE_LAYOUT_H

enum pe_layout { PE_LAYOUT_DEFAULT, PE_LAYOUT_INTERLEAVED, PE_LAYOUT_HALF };

#endif
