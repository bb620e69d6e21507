# posenc ... -f png: heatmaps decoded (pixels and text chunks, never file
# bytes), option errors, atomic output, pipes and full disks.

# A small PNG reader in the Python standard library (zlib): 8-bit RGB only.
#   png.py FILE size            -> "W H"
#   png.py FILE text KEY        -> the text chunk KEY (tEXt or iTXt)
#   png.py FILE hm              -> "x y w h" of the heatmap (posenc:heatmap)
#   png.py FILE cell R C NR NC  -> "r g b" at the centre of cell (R, C) of NR x NC
#   png.py FILE same FILE2      -> exit 0 if both have the same size and pixels
#   png.py FILE chunks          -> the chunk types in order
cat >"$T/png.py" <<'EOF'
import json, struct, sys, zlib

def read(path):
    data = open(path, 'rb').read()
    assert data[:8] == b'\x89PNG\r\n\x1a\n', 'not a PNG'
    pos, idat, text, chunks = 8, b'', {}, []
    while pos < len(data):
        n, kind = struct.unpack('>I4s', data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        assert zlib.crc32(kind + body) == struct.unpack('>I', data[pos + 8 + n:pos + 12 + n])[0]
        chunks.append(kind.decode())
        if kind == b'IHDR':
            w, h, depth, ctype, _, _, interlace = struct.unpack('>IIBBBBB', body)
            assert (depth, ctype, interlace) == (8, 2, 0), 'expected 8-bit RGB'
        elif kind == b'IDAT':
            idat += body
        elif kind == b'tEXt':
            k, v = body.split(b'\0', 1)
            text[k.decode('latin-1')] = v.decode('latin-1')
        elif kind == b'iTXt':
            k, rest = body.split(b'\0', 1)
            comp, rest = rest[0], rest[2:]
            _, rest = rest.split(b'\0', 1)
            _, v = rest.split(b'\0', 1)
            text[k.decode('latin-1')] = (zlib.decompress(v) if comp else v).decode('utf-8')
        pos += 12 + n
    raw, stride, prev, rows, i = zlib.decompress(idat), 3 * w, bytearray(3 * w), [], 0
    for _ in range(h):
        f, line = raw[i], bytearray(raw[i + 1:i + 1 + stride])
        i += 1 + stride
        for x in range(stride):
            a = line[x - 3] if x >= 3 else 0
            b = prev[x]
            c = prev[x - 3] if x >= 3 else 0
            if f == 1: line[x] = (line[x] + a) & 255
            elif f == 2: line[x] = (line[x] + b) & 255
            elif f == 3: line[x] = (line[x] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line))
        prev = line
    return w, h, rows, text, chunks

w, h, rows, text, chunks = read(sys.argv[1])
cmd = sys.argv[2]
if cmd == 'size':
    print(w, h)
elif cmd == 'text':
    print(text[sys.argv[3]])
elif cmd == 'chunks':
    print(' '.join(chunks))
elif cmd in ('hm', 'cell'):
    x, y, hw, hh = json.loads(text['posenc:heatmap'])['heatmap']
    if cmd == 'hm':
        print(x, y, hw, hh)
    else:
        r, c, nr, nc = map(int, sys.argv[3:7])
        px, py = x + (2 * c + 1) * hw // (2 * nc), y + (2 * r + 1) * hh // (2 * nr)
        print(*rows[py][3 * px:3 * px + 3])
elif cmd == 'same':
    w2, h2, rows2, _, _ = read(sys.argv[3])
    sys.exit(0 if (w, h, rows) == (w2, h2, rows2) else 1)
EOF
png() {
	"$PYTHON" "$T/png.py" "$@" 2>/dev/null
}

# --- the familiar picture ---
run generate sinusoidal -n 3 -d 3 -o "$T/s.png"
check "png: exit 0" [ "$status" -eq 0 ]
check "png: nothing on stdout" [ ! -s "$T/out" ]
check "png: Software chunk" [ "$(png "$T/s.png" text Software)" = "posenc 0.1.0" ]
check "png: meta is the json meta" [ "$(png "$T/s.png" text posenc:meta)" = \
	"$("$POSENC" generate sinusoidal -n 3 -d 3 -f json | "$PYTHON" -c 'import json,sys; print(json.dumps(json.load(sys.stdin)["meta"], separators=(",", ":")))')" ]
check "png: no time stamp" sh -c "! '$PYTHON' '$T/png.py' '$T/s.png' chunks | grep -q tIME"
# 3 x 3 is scaled up by 170 (512 / 3): square cells
check "png: 3x3 heatmap 510 px" [ "$(png "$T/s.png" hm | cut -d' ' -f3-)" = "510 510" ]
# row 0 is sin 0, cos 0, sin 0 = 0 1 0; the minimum is cos 2 (row 2, column 1)
check "png: minimum is viridis[0]" [ "$(png "$T/s.png" cell 2 1 3 3)" = "68 1 84" ]
check "png: maximum is viridis[255]" [ "$(png "$T/s.png" cell 0 1 3 3)" = "253 231 36" ]

# -f png to stdout (with --force past a terminal check) = -o FILE.png
"$POSENC" generate sinusoidal -n 3 -d 3 -f png >"$T/stdout.png" 2>"$T/err"
check "png to a pipe: exit 0" [ $? -eq 0 ]
check "png to stdout: same pixels as -o" png "$T/s.png" same "$T/stdout.png"

# --size, --no-colorbar, --cmap, --vmin/--vmax, --title
run generate sinusoidal -n 256 -d 128 -o "$T/big.png" --size 64 --no-colorbar
check "--size 64: 32 wide, 64 tall" [ "$(png "$T/big.png" hm | cut -d' ' -f3-)" = "32 64" ]
run generate sinusoidal -n 256 -d 128 -o "$T/bigc.png" --size 64
check "colour bar widens the image" [ "$(png "$T/bigc.png" size | cut -d' ' -f1)" -gt \
	"$(png "$T/big.png" size | cut -d' ' -f1)" ]
run generate sinusoidal -n 3 -d 3 -o "$T/m.png" --cmap magma
check "--cmap magma: minimum" [ "$(png "$T/m.png" cell 2 1 3 3)" = "0 0 3" ]
check "--cmap magma: recorded" [ -n "$(png "$T/m.png" text posenc:heatmap | grep '"cmap":"magma"')" ]
run generate sinusoidal -n 3 -d 3 -o "$T/v.png" --vmin -1 --vmax 0.5
check "--vmax: above the range is the last colour" [ "$(png "$T/v.png" cell 0 1 3 3)" = "253 231 36" ]
run generate sinusoidal -n 3 -d 3 -o "$T/t.png" --title "Vaswani, 3 x 3"
check "--title: Title chunk" [ "$(png "$T/t.png" text Title)" = "Vaswani, 3 x 3" ]
run generate sinusoidal -n 3 -d 3 -o "$T/cb.png" --colorbar
check "--colorbar is the default" png "$T/s.png" same "$T/cb.png"
run generate sinusoidal -n 10 -d 4 -o "$T/r.png" --rows 2:5 --no-colorbar
check "--rows with png: 3 rows" [ "$(png "$T/r.png" text posenc:heatmap | grep -c '"shape":\[3,4\]')" -eq 1 ]
run generate learned -n 20 -d 8 -o "$T/l.png"
check "learned to png: exit 0" [ "$status" -eq 0 ]

# --- bad input: one line, exit 2, nothing written ---
usage_error "png --size 0" generate sinusoidal -n 3 -d 3 -f png --size 0
check "--size 0: message" grep -q "^posenc: generate: --size must be an integer from 1 to 16384, got '0'$" "$T/err"
usage_error "png --size 16385" generate sinusoidal -n 3 -d 3 -f png --size 16385
usage_error "png --size 12x" generate sinusoidal -n 3 -d 3 -f png --size 12x
usage_error "png vmin = vmax" generate sinusoidal -n 3 -d 3 -f png --vmin 1 --vmax 1
check "vmin = vmax: message" grep -q "^posenc: generate: --vmin must be below --vmax, got '1' and '1'$" "$T/err"
usage_error "png vmin > vmax" generate sinusoidal -n 3 -d 3 -f png --vmin 2 --vmax 1
usage_error "png vmin nan" generate sinusoidal -n 3 -d 3 -f png --vmin nan
usage_error "png vmax inf" generate sinusoidal -n 3 -d 3 -f png --vmax inf
usage_error "png unknown cmap" generate sinusoidal -n 3 -d 3 -f png --cmap jet
check "unknown cmap: message" grep -q "^posenc: generate: unknown --cmap 'jet' (one of: viridis|" "$T/err"
usage_error "png option with csv" generate sinusoidal -n 3 -d 3 --cmap magma
check "png option with csv: message" grep -q "^posenc: generate: --cmap applies to png output only" "$T/err"
usage_error "png option with npy" generate sinusoidal -n 3 -d 3 -f npy --size 10
usage_error "colorbar and no-colorbar" generate sinusoidal -n 3 -d 3 -f png --colorbar --no-colorbar
usage_error "title too long" generate sinusoidal -n 3 -d 3 -f png --title \
	"$(printf '%0201d' 0)"
usage_error "vmin above the data" generate sinusoidal -n 3 -d 3 -f png --vmin 5
run generate sinusoidal -n 3 -d 3 -o "$T/none.png" --size 0
check "bad option: no file" [ ! -e "$T/none.png" ]
run generate sinusoidal -n 3 -d 3 -o "$T/none.png" --vmin 5
check "vmin above the data: no file" [ ! -e "$T/none.png" ]
check "vmin above the data: no temp file" [ -z "$(ls -A "$T" | grep '^\.posenc-')" ]

# a terminal is refused without --force
if command -v script >/dev/null 2>&1; then
	script -qec "$POSENC generate sinusoidal -n 2 -d 2 -f png" /dev/null >"$T/tty" 2>&1
	check "png to a terminal: refused" grep -q "refusing to write binary output to a terminal" "$T/tty"
fi

# a full disk is an error; a closed pipe is quiet
if [ -w /dev/full ]; then
	run generate sinusoidal -n 300 -d 300 -f png -o /dev/full
	check "png /dev/full: exit 1" [ "$status" -eq 1 ]
	check "png /dev/full: message" grep -q "^posenc: generate: .*No space left on device" "$T/err"
	"$POSENC" generate sinusoidal -n 300 -d 300 -f png >/dev/full 2>"$T/err"
	check "png stdout to /dev/full: exit 1" [ $? -eq 1 ]
fi
( "$POSENC" generate sinusoidal -n 2000 -d 2000 -f png 2>"$T/err"; echo $? >"$T/rc" ) | head -c 10 >/dev/null
check "png | head -c: exit 0" [ "$(cat "$T/rc")" -eq 0 ]
check "png | head -c: quiet" [ ! -s "$T/err" ]
