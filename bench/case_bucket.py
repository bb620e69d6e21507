import filecmp

CASES = [
    dict(name="bucket -n 4096 -f raw (T5 ids, int32)",
         posenc=["bucket", "-n", "4096", "-f", "raw", "-o", "{out}"],
         ref=["np_bucket.py", "4096", "{out}"],
         compare=lambda a, b: "identical" if filecmp.cmp(a, b, shallow=False) else "DIFFER"),
]
