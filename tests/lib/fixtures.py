"""Helpers the CLI tests' Python scripts share (tests/cli/t_*.sh run them
with this directory on PYTHONPATH).  Standard library only: they must work
where NumPy is missing."""
import json
import struct


def st_write(path, tensors, meta=None, header=None, tail=b''):
    """Write a safetensors file by hand: tensors = [(name, dtype, shape,
    bytes)], laid out in the order given; meta the __metadata__ object;
    header, when given, replaces the JSON header's bytes (for malformed
    files); tail is appended after the data."""
    hdr, buf = {}, b''
    if meta is not None:
        hdr['__metadata__'] = meta
    for name, dt, shape, b in tensors:
        hdr[name] = {'dtype': dt, 'shape': list(shape), 'data_offsets': [len(buf), len(buf) + len(b)]}
        buf += b
    h = json.dumps(hdr).encode() if header is None else header
    h += b' ' * (-len(h) % 8)
    with open(path, 'wb') as f:
        f.write(struct.pack('<Q', len(h)) + h + buf + tail)


def json_holds(path, expr, names=None):
    """Whether the Python expression expr holds of the JSON document in
    path, bound to d (names: more globals for expr)."""
    with open(path) as f:
        d = json.load(f)
    return bool(eval('(' + expr + ')', dict(names or {}), {'d': d}))
