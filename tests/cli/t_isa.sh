# The same bytes on every instruction-set path.  The vector kernels
# (step_row in src/core/angle.c, put_row in src/core/sinusoidal.c, attempt
# in src/core/rng.c) are compiled three times by GCC's target_clones
# (PE_VECTOR_KERNEL in src/core/simd.h) and the CPU picks one at start-up; this file runs the
# same ./posenc on each path and compares its output with cmp:
#   native                          avx512f on a CPU with AVX-512F (this
#                                   machine: AMD EPYC), else avx2 or default
#   qemu-x86_64 -cpu qemu64         default: the baseline x86-64 model, no AVX
#   qemu-x86_64 -cpu max,-avx512f   avx2: all that QEMU's TCG emulates (7.2
#                                   has AVX2, no AVX-512), AVX-512F off in
#                                   case a later QEMU emulates it
# How that was verified (QEMU 7.2, GCC 12.2): gdb on this posenc, natively
# and through qemu-x86_64 -g PORT, with a breakpoint on each clone
# (step_row.default, step_row.avx2, ... put_row.avx512f): for sinusoidal
# and rope, native hit only the .avx512f clones, -cpu qemu64 only
# .default, -cpu max,-avx512f only .avx2.  A throwaway program whose
# target_clones function returned its own address (&&label) agreed, and
# showed -cpu max and -cpu Haswell also give avx2 (Haswell with warnings).
#
# Under make valgrind the native run is valgrind's (it takes the avx2
# clone: valgrind has no AVX-512), and the qemu runs go without valgrind:
# memcheck of qemu's translator would check QEMU, not posenc.
#
# The tables are small for qemu's emulation (each run under 0.3 s) but
# cover what the kernels do: odd and non-multiple-of-16 widths (the loop
# tails), both layouts, offsets beyond 2^26 (the split angle) and negative,
# rope's attention factor (yarn), partial rotary and llama3's frequencies,
# and the float32 tables (no vector kernel there, but fmaf: a software
# fused multiply-add on the baseline path, the instruction on the others).
# QEMU names the emulator (default qemu-x86_64); missing, it is a failure.
QEMU=${QEMU:-qemu-x86_64}

# isa_same WHAT ARGS...: posenc ARGS natively, then under qemu for the
# default and avx2 paths; each must give the native bytes (not empty)
isa_same() {
	is_what=$1
	shift
	run "$@"
	cp "$T/out" "$T/isa.native"
	for is_path in default:qemu64 avx2:max,-avx512f; do
		"$QEMU" -cpu "${is_path#*:}" "$POSENC" "$@" >"$T/out" 2>"$T/err" </dev/null
		status=$?
		check "$is_what: ${is_path%%:*} path, the native bytes" \
			eval '[ "$status" -eq 0 ] && same_output "$T/isa.native" "$T/out"'
	done
}

if [ "$(uname -m)" != x86_64 ]; then
	echo "t_isa.sh: not an x86-64 machine: one instruction-set path, nothing to compare"
elif [ -n "${PE_ISA_SKIP:-}" ]; then
	# make asan sets it: QEMU running an ASan binary takes 20 s and 6 GB per
	# table (its shadow memory), and bytes are this file's question, not
	# memory errors; make check runs it on the plain binary
	echo "t_isa.sh: skipped ($PE_ISA_SKIP)"
elif ! command -v "$QEMU" >/dev/null 2>&1; then
	# a failure, not a skip: without it nothing runs the default and avx2 paths
	fail=$((fail + 1))
	echo "FAIL: t_isa.sh: $QEMU not found: install qemu-user (apt-get install qemu-user, or make deps as root)"
else
	isa_same "sinusoidal 3000x512" generate sinusoidal -n 3000 -d 512 -f raw
	isa_same "sinusoidal t2t odd width 511" generate sinusoidal --preset t2t -n 2000 -d 511 -f raw
	isa_same "sinusoidal interleaved, width 130" \
		generate sinusoidal --layout interleaved -n 1500 -d 130 -f raw
	isa_same "sinusoidal half, width 200" generate sinusoidal --layout half -n 1500 -d 200 -f raw
	isa_same "sinusoidal offset 123456789" \
		generate sinusoidal --offset 123456789 -n 1000 -d 250 -f raw
	isa_same "sinusoidal negative offset" generate sinusoidal --offset -5000 -n 1000 -d 96 -f raw
	isa_same "rope cos" generate rope -n 3000 -d 128 -f raw
	isa_same "rope sin" generate rope --table sin -n 3000 -d 128 -f raw
	isa_same "rope interleaved sin, offset 123456789" \
		generate rope --table sin --layout interleaved --offset 123456789 -n 1000 -d 120 -f raw
	isa_same "rope partial rotary 0.5" \
		generate rope --table sin --partial-rotary-factor 0.5 -n 2000 -d 200 -f raw
	isa_same "rope yarn" generate rope --scaling yarn --factor 4 --original-max-positions 4096 \
		-n 2000 -d 128 -f raw
	isa_same "rope llama3 sin" generate rope --table sin --scaling llama3 --factor 8 \
		--original-max-positions 8192 --offset 100000 -n 1000 -d 128 -f raw
	isa_same "sinusoidal csv" generate sinusoidal -n 300 -d 100 -f csv
	# --precision float32: SLEEF and glibc's powf emulated with fmaf
	# (src/core/sleef32.c), which QEMU's baseline CPU has no instruction
	# for; both reductions of sin/cos (rows past 125), the pow tail (R/2 =
	# 40 and 3), a thread count that moves the vectors, both lane widths
	isa_same "float32 rope cos, avx512 lanes" generate rope --precision float32 \
		--torch-cpu avx512 -n 700 -d 80 -f raw
	isa_same "float32 rope interleaved sin, avx2 lanes, 3 torch threads" \
		generate rope --precision float32 --torch-cpu avx2 --torch-threads 3 --table sin \
		--layout interleaved --theta 500000 -n 333 -d 6 -f raw
	isa_same "float32 rope yarn inv-freq" generate rope --precision float32 --torch-cpu avx2 \
		--scaling yarn --factor 4 --original-max-positions 4096 --table inv-freq -d 80 -f raw
	# torch.polar: glibc's sinf/cosf emulated with fma(), angles on both sides
	# of its 120 (one-step and 4/pi-table reductions); dynamic's float32 base
	isa_same "float32 rope polar sin" generate rope --precision float32 --torch-cpu avx2 \
		--torch-trig polar --layout interleaved --theta 500000 --table sin -n 700 -d 80 -f raw
	isa_same "float32 rope dynamic inv-freq" generate rope --precision float32 --torch-cpu avx512 \
		--scaling dynamic --factor 2 --original-max-positions 512 --seq-len 4016 \
		--table inv-freq -d 64 -f raw
	isa_same "float32 sinusoidal (PyTorch tutorial)" generate sinusoidal --precision float32 \
		--torch-cpu avx2 -n 600 -d 64 -f raw
	isa_same "float32 sinusoidal fairseq, odd width, padding row" generate sinusoidal \
		--preset fairseq --padding-idx 1 --precision float32 --torch-cpu avx512 -n 500 -d 101 -f raw
	# the samplers' lanes (attempt, uniform_lanes in src/core/rng.c): run tails
	# (width 77), trunc-normal's extra rejections, a high seed and row
	isa_same "learned normal, width 77" generate learned -n 300 -d 77 --seed 12345 -f raw
	isa_same "learned uniform, width 77" generate learned --init uniform -n 300 -d 77 -f raw
	isa_same "learned trunc-normal from row 2^32" generate learned --init trunc-normal \
		--seed 18446744073709551615 -n 4294967400 --rows 4294967296:4294967400 -d 300 -f raw
fi
