# A small PNG reader in the Python standard library (zlib): 8-bit RGB (or
# RGBA, as rsvg-convert writes; the alpha is dropped).
#   png.py FILE size            -> "W H"
#   png.py FILE text KEY        -> the text chunk KEY (tEXt or iTXt)
#   png.py FILE hm              -> "x y w h" of the heatmap (posenc:heatmap)
#   png.py FILE cell R C NR NC  -> "r g b" at the centre of cell (R, C) of NR x NC
#   png.py FILE same FILE2      -> exit 0 if both have the same size and pixels
#   png.py FILE chunks          -> the chunk types in order
#   png.py FILE hmjson EXPR     -> EXPR of d, the posenc:heatmap object
#   png.py FILE pcell K R C NR NC -> "r g b" at the centre of cell (R, C) of panel K
#   png.py FILE hmtest EXPR     -> exit 0 if EXPR of d (posenc:heatmap) is true
#   png.py FILE sha256          -> SHA-256 of "W H\n" and the RGB rows, top to bottom
#   png.py FILE cells R C OTHER -> exit 0 if the centre of every cell of the
#                                  R x C heatmap is the same colour in OTHER: a
#                                  posenc PNG (its own heatmap rectangle), or
#                                  an SVG or PDF of the figure rasterised
#   png.py FILE ink X0 Y0 X1 Y1  -> how many pixels of the box are not white
# Used by the CLI tests (tests/cli/run.sh defines png() to run it).
import hashlib, json, struct, sys, zlib

def read(path):
    data = open(path, 'rb').read()
    assert data[:8] == b'\x89PNG\r\n\x1a\n', 'not a PNG'
    pos, idat, text, chunks = 8, [], {}, []
    while pos < len(data):
        n, kind = struct.unpack('>I4s', data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        assert zlib.crc32(kind + body) == struct.unpack('>I', data[pos + 8 + n:pos + 12 + n])[0]
        chunks.append(kind.decode())
        if kind == b'IHDR':
            w, h, depth, ctype, _, _, interlace = struct.unpack('>IIBBBBB', body)
            assert (depth, interlace) == (8, 0) and ctype in (2, 6), 'expected 8-bit RGB'
            bpp = 3 if ctype == 2 else 4
        elif kind == b'IDAT':
            idat.append(body)
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
    raw, stride, prev, rows, i = zlib.decompress(b''.join(idat)), bpp * w, bytearray(bpp * w), [], 0
    for _ in range(h):
        f, line = raw[i], bytearray(raw[i + 1:i + 1 + stride])
        i += 1 + stride
        for x in range(stride if f else 0):
            a = line[x - bpp] if x >= bpp else 0
            b = prev[x]
            c = prev[x - bpp] if x >= bpp else 0
            if f == 1: line[x] = (line[x] + a) & 255
            elif f == 2: line[x] = (line[x] + b) & 255
            elif f == 3: line[x] = (line[x] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line) if bpp == 3 else bytes(v for k, v in enumerate(line) if k % 4 != 3))
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
elif cmd == 'hmjson':
    d = json.loads(text['posenc:heatmap'])
    print(eval(sys.argv[3]))
elif cmd == 'hmtest':
    d = json.loads(text['posenc:heatmap'])
    sys.exit(0 if eval('(' + sys.argv[3] + ')') else 1)
elif cmd == 'pcell':
    k, r, c, nr, nc = map(int, sys.argv[3:8])
    x, y, hw, hh = json.loads(text['posenc:heatmap'])['panels'][k]
    px, py = x + (2 * c + 1) * hw // (2 * nc), y + (2 * r + 1) * hh // (2 * nr)
    print(*rows[py][3 * px:3 * px + 3])
elif cmd == 'sha256':
    print(hashlib.sha256(b'%d %d\n' % (w, h) + b''.join(rows)).hexdigest())
elif cmd == 'cells':
    R, C = int(sys.argv[3]), int(sys.argv[4])
    _, _, rows2, text2, _ = read(sys.argv[5])
    x, y, hw, hh = json.loads(text['posenc:heatmap'])['heatmap']
    x2, y2, hw2, hh2 = json.loads(text2['posenc:heatmap'])['heatmap'] if 'posenc:heatmap' in text2 else (x, y, hw, hh)
    bad = 0
    for r in range(R):
        for c in range(C):
            px, py = x + (2 * c + 1) * hw // (2 * C), y + (2 * r + 1) * hh // (2 * R)
            qx, qy = x2 + (2 * c + 1) * hw2 // (2 * C), y2 + (2 * r + 1) * hh2 // (2 * R)
            bad += rows[py][3 * px:3 * px + 3] != rows2[qy][3 * qx:3 * qx + 3]
    sys.exit(0 if bad == 0 else 1)
elif cmd == 'ink':
    x0, y0, x1, y1 = map(int, sys.argv[3:7])
    print(sum(rows[y][3 * x:3 * x + 3] != b'\xff\xff\xff' for y in range(y0, y1) for x in range(x0, x1)))
elif cmd == 'same':
    w2, h2, rows2, _, _ = read(sys.argv[3])
    sys.exit(0 if (w, h, rows) == (w2, h2, rows2) else 1)
