#!/usr/bin/env python3
"""Checks the Python helper against the cases Rust wrote (tests/python.rs): each tensor case's 64
bytes or refusal message, each launch geometry's verdict. Prints the first differences and
`N cases, D differ`; exits 1 if any differ.

usage: python_parity.py HELPER_DIR CASES_FILE
"""
import ast
import sys

sys.path.insert(0, sys.argv[1])
import const_layout_launch as cl  # noqa: E402


def tensor(ty, addr, length, shape, stride):
    try:
        return "ok " + cl.tensor_param(ty, int(addr), int(length), ast.literal_eval(shape),
                                       ast.literal_eval(stride)).hex()
    except cl.ParamError as e:
        return f"err {e}"


def config(grid, block, smem, limits):
    max_threads, static, max_smem = (int(x) for x in limits.split())
    try:
        cl.check_config([int(x) for x in grid.split()], [int(x) for x in block.split()], int(smem), max_threads,
                        static, max_smem, kernel="hgemm_sm90_tn_f32")
        return "ok"
    except cl.LaunchError as e:
        return f"err {e}"


def tmap(addr, words, dims, strides, box):
    try:
        s = cl.tensor_map_spec(int(addr), int(words), ast.literal_eval(dims), ast.literal_eval(strides),
                               [int(x) for x in box.split()])
        return f"ok {s['addr']} {s['rank']} {s['dims']} {s['strides_bytes']} {s['box_dims']} {s['swizzle']}"
    except cl.TensorMapError as e:
        return f"err {e}"


def main():
    cases = differ = 0
    for line in open(sys.argv[2]):
        kind, *fields, want = line.rstrip("\n").split("\t")
        got = {"tensor": tensor, "config": config, "tmap": tmap}[kind](*fields)
        cases += 1
        if got != want:
            differ += 1
            if differ <= 10:
                print(f"{kind} {fields}:\n  rust:   {want}\n  python: {got}")
    print(f"{cases} cases, {differ} differ")
    sys.exit(1 if differ else 0)


if __name__ == "__main__":
    main()
