#!/usr/bin/env python3
# explain_json.py FILE EXPR: exit 0 when the Python expression EXPR holds
# for the JSON report of `posenc explain rope` in FILE (t_explain.sh).  In
# EXPR: d is the document, R(t) its rope entry of layer type t (None: the
# first), V(t, name) a parameter's value and O(t, name) its origin, P(t)
# the pairs, G(t) the regions as "kept 0-28 29; ...", Q(p) the query scale
# sampled at position p, close(a, b, rtol, atol), th(theta, j, d) =
# theta^(-2j/d).
import json
import math  # noqa: F401 (for EXPR)
import sys

d = json.load(open(sys.argv[1]))


def R(t=None):
    for r in d["rope"]:
        if t is None or r["layer_type"] == t:
            return r
    raise KeyError(t)


def V(t, k):
    return R(t)["parameters"][k]["value"]


def O(t, k):
    return R(t)["parameters"][k]["origin"]


def P(t=None):
    return R(t)["pairs"]


def G(t=None):
    return "; ".join("%s %s %d" % (g["region"], g["pairs"], g["count"]) for g in R(t)["regions"])


def Q(p):
    return [s["scale"] for s in d["query_scale"]["samples"] if s["position"] == p][0]


def close(a, b, rtol=1e-7, atol=0.0):
    return abs(a - b) <= atol + rtol * abs(b)


def th(theta, j, dim):
    return theta ** (-2.0 * j / dim)


ok = eval(sys.argv[2])
if not ok:
    print("  false: " + sys.argv[2][:300])
sys.exit(0 if ok else 1)
