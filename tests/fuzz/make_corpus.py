#!/usr/bin/env python3
"""Write the seed corpora of the fuzz targets (tests/fuzz/corpus/<target>/).

Run from anywhere:  /usr/bin/python3 tests/fuzz/make_corpus.py
Valid files of every supported kind (written by NumPy where it can), and the
known-bad vectors of the format notes: truncated and oversized headers,
shape products that overflow, safetensors offsets that overlap, leave gaps
or run past the buffer, trailing bytes, non-UTF-8 and non-JSON headers.
Deterministic: the same files every run.
"""
import io
import json
import os
import shutil
import struct

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))
CORPUS = os.path.join(HERE, "corpus")
T = np.arange(12).reshape(3, 4) * 0.25 - 1


def put(target, name, data):
    d = os.path.join(CORPUS, target)
    os.makedirs(d, exist_ok=True)
    if isinstance(data, str):
        data = data.encode("utf-8")
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


def npy(a, version=None):
    f = io.BytesIO()
    np.lib.format.write_array(f, a, version=version)
    return f.getvalue()


def npy_header(dict_text, version=1, data=b""):
    h = dict_text.encode("latin-1")
    pad = 64 - (10 + len(h) + 1) % 64
    h += b" " * pad + b"\n"
    if version == 1:
        return b"\x93NUMPY\x01\x00" + struct.pack("<H", len(h)) + h + data
    return b"\x93NUMPY" + bytes([version, 0]) + struct.pack("<I", len(h)) + h + data


def st(header, data=b"", pad=True):
    h = json.dumps(header, separators=(",", ":")).encode() if not isinstance(header, bytes) else header
    if pad:
        h += b" " * (-len(h) % 8)
    return struct.pack("<Q", len(h)) + h + data


def tensor(dtype, shape, begin, end):
    return {"dtype": dtype, "shape": shape, "data_offsets": [begin, end]}


def npy_seeds():
    s = {}
    for descr in ("<f4", ">f4", "<f8", ">f8", "<f2", ">f2"):
        s["t_%s%s.npy" % (descr[1:], "le" if descr[0] == "<" else "be")] = npy(T.astype(descr))
    s["fortran_f4.npy"] = npy(np.asfortranarray(T.astype("<f4")))
    s["fortran_f8be.npy"] = npy(np.asfortranarray(T.astype(">f8")))
    s["v2.npy"] = npy(T.astype("<f4"), version=(2, 0))
    s["v3.npy"] = npy(T.astype("<f4"), version=(3, 0))
    s["scalar.npy"] = npy(np.float32(1.5).reshape(()))
    s["vec5.npy"] = npy(np.arange(5, dtype="<f4"))
    s["1x3x4.npy"] = npy(T.astype("<f4").reshape(1, 3, 4))
    s["2x3x2.npy"] = npy(T.astype("<f4").reshape(2, 3, 2))
    s["empty0.npy"] = npy(np.zeros((0, 4), "<f4"))
    s["int32.npy"] = npy(np.arange(4, dtype="<i4"))
    s["eq_f4.npy"] = npy_header("{'descr': '=f4', 'fortran_order': False, 'shape': (2, 2), }",
                                data=b"\0" * 16)
    h16 = b"{'descr': '<f4', 'fortran_order': False, 'shape': (1,)}"
    h16 += b" " * (-(10 + len(h16) + 1) % 16) + b"\n"
    s["pad16.npy"] = b"\x93NUMPY\x01\x00" + struct.pack("<H", len(h16)) + h16 + b"\0\0\x80\x3f"
    s["object.npy"] = npy_header("{'descr': '|O', 'fortran_order': False, 'shape': (1,), }",
                                 data=b"\x80\x04N.")
    s["structured.npy"] = npy_header("{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (1,), }",
                                     data=b"\0" * 4)
    # known-bad: truncated, oversized lengths, shape overflow, bad grammar
    good = s["t_f4le.npy"]
    s["trunc_magic.npy"] = good[:6]
    s["trunc_len.npy"] = good[:9]
    s["trunc_header.npy"] = good[:40]
    s["trunc_data.npy"] = good[:-5]
    s["hdrlen_ffff.npy"] = b"\x93NUMPY\x01\x00\xff\xff{'descr'"
    s["v2_hdrlen_4g.npy"] = b"\x93NUMPY\x02\x00\xff\xff\xff\xff{"
    s["version_4.npy"] = b"\x93NUMPY\x04\x00" + good[8:]
    s["huge_shape.npy"] = npy_header(
        "{'descr': '<f4', 'fortran_order': False, 'shape': (4611686018427387904, 4), }", data=b"\0" * 16)
    s["wrap_shape.npy"] = npy_header(
        "{'descr': '<f8', 'fortran_order': False, 'shape': (2305843009213693952, 8), }", data=b"\0" * 16)
    s["digits_20.npy"] = npy_header(
        "{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999,), }")
    s["ndim_40.npy"] = npy_header(
        "{'descr': '<f4', 'fortran_order': False, 'shape': (%s), }" % ("1, " * 40), data=b"\0" * 4)
    s["dup_key.npy"] = npy_header(
        "{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (1,), }", data=b"\0" * 4)
    s["missing_key.npy"] = npy_header("{'descr': '<f4', 'shape': (1,), }", data=b"\0" * 4)
    s["int_shape.npy"] = npy_header("{'descr': '<f4', 'fortran_order': False, 'shape': (3), }",
                                    data=b"\0" * 12)
    s["neg_shape.npy"] = npy_header("{'descr': '<f4', 'fortran_order': False, 'shape': (-1, 3), }")
    s["unterminated.npy"] = b"\x93NUMPY\x01\x00\x20\x00{'descr': '<f4', 'fortran_or"
    s["nonascii.npy"] = npy_header("{'descr': '<f\xe94', 'fortran_order': False, 'shape': (1,), }")
    return s


def st_seeds():
    f32 = T.astype("<f4").tobytes()
    s = {}
    s["one.safetensors"] = st({"wpe.weight": tensor("F32", [3, 4], 0, 48)}, f32)
    s["meta.safetensors"] = st({"__metadata__": {"format": "pt"},
                                "wte.weight": tensor("F32", [2, 2], 0, 16),
                                "wpe.weight": tensor("F32", [2, 4], 16, 48)}, f32)
    s["f16.safetensors"] = st({"pos_embed": tensor("F16", [1, 3, 4], 0, 24)}, T.astype("<f2").tobytes())
    bf16 = b"".join(struct.pack("<I", struct.unpack("<I", struct.pack("<f", v))[0])[2:] for v in T.ravel())
    s["bf16.safetensors"] = st({"x": tensor("BF16", [12], 0, 24)}, bf16)
    s["f64.safetensors"] = st({"x": tensor("F64", [3, 4], 0, 96)}, T.astype("<f8").tobytes())
    s["rank0.safetensors"] = st({"x": tensor("F32", [], 0, 4)}, f32[:4])
    s["zero_dim.safetensors"] = st({"a": tensor("F32", [2, 0], 0, 0), "wpe.weight": tensor("F32", [1], 0, 4)},
                                   f32[:4])
    s["leading_ws.safetensors"] = st(b'  {"x":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}}\n\t',
                                     f32[:4], pad=True)
    s["i32.safetensors"] = st({"x": tensor("I32", [2, 2], 0, 16)}, f32[:16])
    # known-bad vectors (safetensors tensor.rs tests and attacks/README)
    s["header_too_small.safetensors"] = b"\x04\x00\x00"
    s["hdrlen_past_eof.safetensors"] = struct.pack("<Q", 1000) + b'{"x":1}'
    s["hdrlen_huge.safetensors"] = struct.pack("<Q", 100000001) + b"{"
    s["hdrlen_2e64.safetensors"] = b"\xff" * 8 + b"{}"
    s["non_utf8.safetensors"] = st(b'{"\xff\xfe":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}}', f32[:4])
    s["non_json.safetensors"] = st(b"{not json at all}", b"")
    s["json_attack.safetensors"] = st({"t%d" % i: tensor("F32", [2, 2], 0, 16) for i in range(10)}, f32[:16])
    s["overlap.safetensors"] = st({"a": tensor("F32", [2, 2], 0, 16), "wpe.weight": tensor("F32", [2, 2], 8, 24)},
                                  f32[:24])
    s["gap.safetensors"] = st({"a": tensor("F32", [1], 0, 4), "wpe.weight": tensor("F32", [1], 8, 12)}, f32[:12])
    s["out_of_range.safetensors"] = st({"wpe.weight": tensor("F32", [3, 4], 0, 4800)}, f32)
    s["end_before_begin.safetensors"] = st({"wpe.weight": tensor("F32", [1], 8, 4)}, f32[:8])
    s["neg_offset.safetensors"] = st({"wpe.weight": tensor("F32", [1], -4, 0)}, f32[:4])
    s["trailing.safetensors"] = st({"wpe.weight": tensor("F32", [3, 4], 0, 48)}, f32 + b"junk")
    s["invalid_info.safetensors"] = st({"x": tensor("I32", [2, 2], 0, 4)}, f32[:4])
    s["overflow_2e64.safetensors"] = st({"x": tensor("F32", [2, 2**64 - 2], 0, 16)}, f32[:16])
    s["overflow_2e63.safetensors"] = st({"x": tensor("F32", [2, 2**63 - 1], 0, 16)}, f32[:16])
    s["wrap_zero.safetensors"] = st({"x": tensor("F32", [2**62, 4, 4], 0, 0)}, b"")
    s["float_offset.safetensors"] = st(b'{"x":{"dtype":"F32","shape":[1.5],"data_offsets":[0,4.0]}}', f32[:4])
    s["metadata_nonstring.safetensors"] = st({"__metadata__": {"a": 1}, "x": tensor("F32", [1], 0, 4)}, f32[:4])
    s["unknown_dtype.safetensors"] = st({"x": tensor("F8_E4M3", [4], 0, 4)}, f32[:4])
    s["dup_names.safetensors"] = st(b'{"x":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},'
                                    b'"x":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}}', f32[:8])
    s["ndim_40.safetensors"] = st({"x": tensor("F32", [1] * 40, 0, 4)}, f32[:4])
    s["two_defaults.safetensors"] = st({"a.wpe.weight": tensor("F32", [1], 0, 4),
                                        "b.wpe.weight": tensor("F32", [1], 4, 8)}, f32[:8])
    s["long_name.safetensors"] = st({"n" * 600: tensor("F32", [1], 0, 4)}, f32[:4])
    many = {"t%03d" % i: tensor("F32", [1], 4 * i, 4 * i + 4) for i in range(40)}
    s["many.safetensors"] = st(many, b"\0" * 160)
    s["truncated_json.safetensors"] = struct.pack("<Q", 40) + b'{"x":{"dtype":"F32","shape":[1],"data_o'
    s["unterminated_string.safetensors"] = struct.pack("<Q", 6) + b'{"abc\\'
    return s


def csv_seeds():
    return {
        "plain.csv": "0,1,2\n3,4,5\n",
        "header.csv": "a,b,c\n1,2,3\n4,5,6\n",
        "comments.csv": "# comment\n\n1 2 3 # trailing\n  4\t5   6\n",
        "crlf.csv": "1,2\r\n3,4\r\n",
        "ragged.csv": "1,2,3\n4,5\n",
        "nan_inf.csv": "nan,inf,-inf\nNaN,1e39,-1e-50\n",
        "hex.csv": "0x1p3,1\n2,3\n",
        "mixed_sep.csv": "1, 2 ,3\n4 ,5, 6\n",
        "empty_field.csv": "1,,3\n",
        "trailing_comma.csv": "1,2,\n3,4,\n",
        "only_header.csv": "x,y\n",
        "empty.csv": "",
        "blank_lines.csv": "\n\n\n",
        "no_newline.csv": "1,2,3",
        "nul.csv": "1,2\x003\n",
        "long_number.csv": "1" * 400 + "\n",
        "half_header.csv": "a,1\n2,3\n",
        "typo_first.csv": "0.5,0.25x\n1,2\n3,4\n",
        "typo_one_col.csv": "7x\n1\n2\n",
        "long_first.csv": "0." + "1" * 1100 + ",1\n1,2\n",
        "single.csv": "7\n",
        "utf8_bom.csv": "\ufeff1,2\n",
    }


def raw_seeds():
    f32 = T.astype("<f4").tobytes()
    return {
        "3x4.raw": bytes([3, 4]) + f32,
        "12x1.raw": bytes([12, 1]) + f32,
        "short.raw": bytes([3, 4]) + f32[:-1],
        "zero_rows.raw": bytes([0, 4]) + f32,
        "huge.raw": bytes([255, 255]) + f32,
        "huge_rows.raw": bytes([255, 1]) + f32,
        "nan.raw": bytes([1, 2]) + b"\x00\x00\xc0\x7f\x00\x00\x80\x7f",
    }


def number_seeds():
    # first byte picks the bounds (see fuzz_numbers.c), the rest is the string
    strings = ["0", "1", "4096", "18446744073709551615", "18446744073709551616", "-1", "-0",
               "9223372036854775807", "-9223372036854775808", "-9223372036854775809", "007",
               "+5", " 5", "5 ", "1e4", "0.5", "-2.5e-3", "nan", "inf", "1e309", "0x10",
               "3:7", ":7", "3:", ":", "7:3", "-64:65", "-1:-2", "4x4", "0x4", "4x", "x4", "1x1x1",
               "1,2,3", "1,,2", ",", "1,nan", "0.1,0.2,0.3,0.4,0.5,0.6,0.7,0.8,0.9", "", "1e-400",
               "4096x4096", "99999999999999999999:1",
               "1e-308", "4.9406564584124654e-324", "2e-324", "0e-999", "-0.0000e-400"]
    return {"n%02d" % i: bytes([(i * 37) % 256]) + s.encode() for i, s in enumerate(strings)}


def value_seeds():
    # first byte picks the most values allowed (see fuzz_values.c), the rest is the file
    texts = ["999\n749.5\n499\n249.25\n0\n", "# t\n0 0.25\n0.5,0.75\n", "1,2,3", "0.1\r\n0.2\r\n",
             "", "\n\n", "# only a comment", "1\nabc\n", "nan\n", "inf", "1e309", "1e-400", "-0",
             "1 # trailing\n2", "1,,2,", "1\x002\n", "0x1p-3", "1" * 70, "\t1\v2\f3",
             "4.9406564584124654e-324", "1 2 3 4 5 6 7 8 9"]
    return {"v%02d" % i: bytes([(i * 3) % 256]) + s.encode() for i, s in enumerate(texts)}


def mrope_seeds():
    # first byte picks rule, frames, timing, merge, layout (see fuzz_mrope.c)
    seqs = ["text:3,image:1x4x6,text:2", "text:3,video:4x4x6@1.0,text:2", "image:4x6",
            "text:3,video:1x4x6,text:2,video:1x4x6,text:2", " text:1 , image:1x4x3 ,text:1 ",
            "video:3x6x4@0.5,text:7,image:2x2x2", "text:2147483647,text:2", "text:0", "imge:1x4x6",
            "text:3,,text:2", "video:1x4x6@", "video:1x4x6@nan", "video:16777216x2x2@1e30",
            "image:1x4x5", "image:1x4x6x2", "text:99999999999999999999", "", ",", "text:3,"]
    firsts = [0x00, 0x01, 0x16, 0x17, 0x02, 0x0c, 0x10, 0x80, 0x24, 0xff]
    return {"s%02d" % i: bytes([firsts[i % len(firsts)]]) + q.encode() for i, q in enumerate(seqs)}


def cli_seeds():
    argvs = [
        "generate sinusoidal -n 8 -d 4",
        "generate sinusoidal -n 8 -d 4 -f json",
        "generate sinusoidal -n 8 -d 4 -o x.npy",
        "generate sinusoidal -n 8 -d 4 -o x.safetensors",
        "generate sinusoidal -n 8 -d 4 -o x.png --cmap magma --title t",
        "generate sinusoidal -n 4 -d 6 --layout half --offset -3 -f raw",
        "generate sinusoidal --preset fairseq -n 4 -d 4 --padding-idx 1 --header",
        "generate learned -n 4 -d 4 --seed 7 --init trunc-normal",
        "generate rope -n 8 -d 8 --table all --scaling yarn --factor 4 --original-max-positions 4 -f json",
        "generate rope -n 8 -d 8 --scaling llama3 --factor 8 --original-max-positions 4",
        "generate rope -n 8 -d 8 --scaling longrope --factor 4 --original-max-positions 4 --short-factor 1,1,1,1 --long-factor 1,2,3,4",
        "generate rope -n 8 -d 8 --scaling dynamic --factor 2 --seq-len 16 --original-max-positions 4",
        "generate rope -n 8 --from-config in/config.json",
        "generate alibi -n 8 --heads 4 --table slopes",
        "generate alibi -n 8 --heads 3",
        "generate sincos2d --grid 4x4 -d 8",
        "generate sinusoidal --preset t2t -n 4 -d 8 --rows 1:3 --threads 2",
        "generate --help",
        "similarity -i in/a.npy",
        "similarity -i in/b.safetensors --tensor wpe.weight --metric dot",
        "similarity -i in/c.csv --stats",
        "similarity -i in/d.f32 --shape 2x3 --center",
        "similarity -i in/a.npy --list",
        "similarity -i in/e.npy --stats --window 2 --tau 0.5",
        "similarity -i in/e.npy --profile",
        "similarity -i in/a.npy --positions-range 1:4 --stride 2 -o s.png",
        "similarity sinusoidal --preset gpt2 -n 8 -d 8",
        "similarity sinusoidal -n 8 -d 8 --precision float32",
        "similarity -i -",
        "skew --index-map -n 4",
        "skew -i in/e.npy",
        "skew -i in/e.npy --inverse --fill 0",
        "skew -i in/e.npy --mode causal -f npy -o k.npy",
        "skew --grid 2x3 --rel-h in/a.npy --rel-w in/e.npy",
        "skew --index-map -n 4 --broadcast",
        "bucket -n 8",
        "bucket -n 8 --scheme t5 --num-buckets 8 --max-distance 16 --bidirectional",
        "bucket -n 8 --scheme deberta --bucket-size 4 --max-position 16",
        "bucket --scheme swin --window 2x3 --cls-token",
        "bucket --distances -3:4",
        "bucket -n 2 --bias in/h.npy --head 0",
        "bucket -n 4 --bias in/d.f32 --shape 2x3",
        "bucket -n 4 -o b.csv --header",
        "diff in/a.npy in/a.npy",
        "diff in/a.npy in/b.safetensors --tensor-b wpe.weight -f json",
        "diff in/e.npy rope -n 4 -d 8",
        "diff in/a.npy in/c.csv --per row --atol 0.5",
        "diff in/d.f32 in/d.f32 --shape 2x3 --error ulp -o e.npy",
        "diff in/h.npy rope -n 2 -d 16 --precision float32 -o e.png",
        "audit rope -n 8 -d 8 --dtype bfloat16",
        "audit rope -n 8 -d 8 --dtype float16 --steps angles,table -f json",
        "audit sinusoidal -n 8 -d 4 --dtype float32 -o a.png",
        "generate timestep --timesteps 0:1:0.25 -d 6",
        "generate timestep --preset flux --timesteps 0.7,0.25 -d 8 --precision float32",
        "generate timestep --preset sd -n 4 -d 7 --order cos-sin -f json",
        "generate timestep --timesteps-file in/c.csv -d 4",
        "generate timestep --timesteps 3:0:-1 -d 4 --timestep-dtype bfloat16 --time-factor 100",
        "resample -i in/e.npy --grid 2x2 --prefix-tokens 0 --to 3x5 --antialias",
        "resample -i in/a.npy --grid 1x3 --to 2x2 --interp nearest -f json",
        "resample -i in/c.csv --to 2x2 --interp bilinear -o r.npy",
        "generate mrope -d 8 --mrope-section 2,1,1 --sequence text:3,image:1x4x6,text:2 --table all -f json",
        "generate mrope -d 8 --mrope-section 2,1,1 --sequence text:3,video:4x4x6@1,text:2 --tokens-per-second 2 --rule reference --table ids",
        "generate mrope -d 8 --mrope-section 2,1,1 --mrope-layout interleaved --precision float32 --sequence video:2x4x4",
        "generate mrope --from-config in/config.json --sequence text:2,image:2x2",
    ]
    return {"a%02d" % i: b"\0".join(w.encode() for w in a.split(" ")) for i, a in enumerate(argvs)}


def main():
    if os.path.isdir(CORPUS):
        shutil.rmtree(CORPUS)
    npys, sts = npy_seeds(), st_seeds()
    for n, b in npys.items():
        put("npy", n, b)
        put("table", n, b)
        put("list", n, b)
    for n, b in sts.items():
        put("safetensors", n, b)
        put("table", n, b)
        put("list", n, b)
    for n, b in csv_seeds().items():
        put("csv", n, b)
        put("table", n, b)
    for n, b in raw_seeds().items():
        put("raw", n, b)
    for n, b in number_seeds().items():
        put("numbers", n, b)
    for n, b in value_seeds().items():
        put("values", n, b)
    for n, b in cli_seeds().items():
        put("cli", n, b)
    for n, b in mrope_seeds().items():
        put("mrope", n, b)
    data = os.path.join(TOP, "tests", "data")
    for n in sorted(os.listdir(data)):
        if (n.startswith("rope_") or n.startswith("mrope_")) and n.endswith(".json"):
            with open(os.path.join(data, n), "rb") as f:
                put("hfconfig", n, f.read())
    for n, b in {"empty.json": "", "array.json": "[1,2]", "null.json": "null",
                 "trunc_string.json": '{"rope_theta": 1, "model_type": "lla',
                 "issue800.json": "{\"1\":1,",
                 "trunc_escape.json": '{"model_type": "\\u00',
                 "deep.json": "[" * 2000, "nan.json": '{"rope_theta": NaN}',
                 "huge_dim.json": '{"head_dim": 1e300, "rope_theta": 10000}',
                 "short_factor.json": '{"rope_scaling": {"rope_type": "longrope", "short_factor": [], '
                                      '"long_factor": [1], "factor": 2}, "head_dim": 4, '
                                      '"max_position_embeddings": 8, "original_max_position_embeddings": 4}',
                 }.items():
        put("hfconfig", n, b)
    # large objects: keep_last() once compared every key with every later
    # one (200,000 keys took 65 s); small enough to keep the fuzzer fast
    base = '"hidden_size": 64, "num_attention_heads": 4, "rope_theta": 10000'
    many = ", ".join('"k%d": %d' % (i, i) for i in range(4000))
    put("hfconfig", "many_keys.json", "{%s, %s}" % (base, many))
    put("hfconfig", "many_dups.json",
        "{%s, %s}" % (base, ", ".join('"rope_theta": %d' % (i + 1) for i in range(3000))))
    put("hfconfig", "wide_scaling.json",
        '{%s, "rope_scaling": {"rope_type": "linear", %s, %s, "factor": 2}}'
        % (base, ", ".join('"f%d": [%d]' % (i % 500, i) for i in range(2000)),
           ", ".join('"factor": %d' % (i + 1) for i in range(100))))


main()
