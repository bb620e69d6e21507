# posenc generate timestep: diffusers' get_timestep_embedding and presets.
run generate timestep --timesteps 1 -d 4
check "timestep golden d 4 t 1 (freqs 1, 1e-4)" [ "$(cat "$T/out")" = "0.84147096,0.0001,0.5403023,1" ]
run generate timestep --timesteps 0,1 -d 5 --order cos-sin --freq-shift 0
check "cos-sin, odd width: zero column" [ "$(sed -n 2p "$T/out")" = "0.5403023,0.99995,0.84147096,0.009999833,0" ]
check "t 0: cos 1, sin 0" [ "$(sed -n 1p "$T/out")" = "1,1,0,0,0" ]
# torch 2.13.0's own values (get_timestep_embedding(tensor([999.]), 320, True, 0))
run generate timestep --preset sd --timesteps 999 --precision float32
check "sd float32 = torch's first columns" [ "$(cut -d, -f1-4 "$T/out")" = "0.9996498,0.8026775,-0.27806213,0.17680281" ]
run generate timestep --preset sd --timesteps 999
check "sd exact: the correctly rounded cos(999 f_1)" [ "$(cut -d, -f2 "$T/out")" = "0.802681" ]
run generate timestep --preset sd -f json
check "sd: 1000 timesteps of 320" grep -q '^{"shape":\[1000,320\]' "$T/out"
# FLUX: 0.7 is 0.69921875 in bfloat16, times 1000 is 700 in bfloat16
run generate timestep --preset flux --timesteps 0.7
cp "$T/out" "$T/flux"
run generate timestep --preset sd3 --timesteps 700
check "flux 0.7 = sd3 at 700" same_output "$T/flux" "$T/out"
run generate timestep --preset flux --timesteps 0.333
cp "$T/out" "$T/flux"
run generate timestep --preset sd3 --timesteps 332
check "flux 0.333 = sd3 at 332 (bfloat16 333.0078 rounds to 332)" same_output "$T/flux" "$T/out"
run generate timestep --preset flux --timesteps 0.333 --timestep-dtype float32
check "flux in float32: 333, not 332" differ_output "$T/flux" "$T/out"
run generate timestep --preset qwen-image --timesteps 0.7
cp "$T/out" "$T/qwen"
run generate timestep --preset auraflow --timesteps 0.69921875
check "qwen-image 0.7 = auraflow at bfloat16(0.7)" same_output "$T/qwen" "$T/out"
# the same timesteps from a range, a list, a text file, stdin and npy
run generate timestep --timesteps 0:1:0.25 -d 6
cp "$T/out" "$T/range"
check "range 0:1:0.25: 4 rows" [ "$(wc -l <"$T/range")" -eq 4 ]
run generate timestep --timesteps 0,0.25,0.5,0.75 -d 6
check "list = range" same_output "$T/range" "$T/out"
printf '# t\n0 0.25\n0.5,0.75\n' >"$T/ts.txt"
run generate timestep --timesteps-file "$T/ts.txt" -d 6
check "text file = range" same_output "$T/range" "$T/out"
run_stdin "$T/ts.txt" generate timestep --timesteps-file - -d 6
check "stdin = range" same_output "$T/range" "$T/out"
"$PYTHON" -c "import numpy as np; np.save('$T/ts.npy', np.array([0, .25, .5, .75], np.float32))" 2>/dev/null
run generate timestep --timesteps-file "$T/ts.npy" -d 6
check "npy = range" same_output "$T/range" "$T/out"
run generate timestep --timesteps 3:0:-1 -d 4
check "a range counting down" [ "$(sed -n 3p "$T/out")" = "0.84147096,0.0001,0.5403023,1" ]
run generate timestep -n 3 -d 4 -f json
check "-n: timesteps 0..n-1" grep -q '"shape":\[3,4\]' "$T/out"
# refusals
fails 2 "timestep -n with --timesteps" "--positions does not apply with --timesteps (the timesteps give the rows)$" \
	generate timestep --timesteps 1:3 -n 4 -o "$T/eo/o.csv"
fails 2 "timestep empty range" "--timesteps 5:1 is empty" generate timestep --timesteps 5:1 -o "$T/eo/o.csv"
fails 2 "timestep step 0" "--timesteps 0:1:0: the step must not be 0$" generate timestep --timesteps 0:1:0
fails 2 "timestep not a number" "--timesteps must be A:B\[:S\] or a comma-separated list of numbers, got 'abc'$" \
	generate timestep --timesteps abc
fails 2 "timestep h - s = 0" "--freq-shift 1 with --dim 2 divides by half_dim - freq_shift = 0" \
	generate timestep -d 2 -n 2 -o "$T/eo/o.npy"
printf '1\nabc\n' >"$T/bad.txt"
fails 1 "timestep file: not a number" "$T/bad.txt: line 2: 'abc' is not a finite number$" \
	generate timestep --timesteps-file "$T/bad.txt" -o "$T/eo/o.csv"
fails 2 "timestep float16 overflow" "timestep 100 (row 0) becomes inf in the model's own step (--timestep-dtype float16, --time-factor 1000)$" \
	generate timestep --timestep-dtype float16 --time-factor 1000 --timesteps 100
fails 2 "timestep two sources" "--timesteps and --timesteps-file are two sources of timesteps: give one$" \
	generate timestep --timesteps 1 --timesteps-file "$T/ts.txt"
fails 2 "timestep --offset" "--offset does not apply to timestep$" generate timestep --offset 3
fails 2 "timestep angles beyond 2^53" "timestep 1e+13 (after the model's step) times frequency 1e+03 is an angle beyond 2^53" \
	generate timestep --preset auraflow --timesteps 1e13 --timestep-dtype float64
