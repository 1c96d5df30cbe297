"""Markdown tables of bench/device/wheel_gpu.py's results file (docs/python.md).

    python3 bench/device/table.py results.json
"""

import json
import sys


def main(path):
    rows = json.load(open(path))
    for row in rows:
        if "error" in row:
            print(f"**{row['section']} failed**: {row['error']}\n")
    env = [r for r in rows if r.get("section") == "env"]
    if env:
        print(f"{env[0]['device']}, torch {env[0]['torch']}, Python {env[0]['python']}, lego {env[0]['lego']} "
              f"from {env[0]['lego_file']}\n")
    b = [r for r in rows if r.get("section") == "b" and "kernel" in r]
    if b:
        print("| kernel | size | correct | LEGO GB/s | device copy GB/s | LEGO / copy | torch `x.t().contiguous()` GB/s |")
        print("|---|---|---|---:|---:|---:|---:|")
        for r in b:
            torch_t = f"{r['torch_t_GBs']:.0f}" if "torch_t_GBs" in r else "—"
            print(f"| {r['kernel']} | {r['size']} | {'yes' if r['correct'] else 'NO'} | {r['lego_GBs']:.0f} | "
                  f"{r['copy_GBs']:.0f} | {r['ratio_vs_copy']:.2f} | {torch_t} |")
        print()
    c = [r for r in rows if r.get("section") == "c" and "transform_GBs" in r]
    if c:
        print("| layout | dtype | fused, kernels chosen (transform; inverse) | correct (transform / inverse) | "
              "transform GB/s | inverse GB/s | torch GB/s | copy GB/s | transform / torch | transform / copy | "
              "inverse / torch | inverse / copy |")
        print("|---|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|")
        for r in c:
            ok = f"{'yes' if r['correct_transform'] else 'NO'} / {'yes' if r['correct_inverse'] else 'NO'}"
            fused = "yes" if r["fused"] else "no"
            if r.get("choice_transform"):
                fused += f", {r['choice_transform']}; {r.get('choice_inverse')}"
            print(f"| {r['layout']} | {r['dtype']} | {fused} | {ok} | {r['transform_GBs']:.0f} | "
                  f"{r['inverse_GBs']:.0f} | {r['torch_GBs']:.0f} | {r['copy_GBs']:.0f} | {r['transform_vs_torch']:.2f} | "
                  f"{r['transform_vs_copy']:.2f} | {r['inverse_vs_torch']:.2f} | {r['inverse_vs_copy']:.2f} |")
        print()
    for r in rows:
        if r.get("section") == "c" and "fallback_GBs" in r:
            print(f"Fallback path (element-wise int64 chain + gather), {r['layout']}: {r['fallback_GBs']:.0f} GB/s "
                  f"against torch's {r['torch_GBs']:.0f} GB/s.\n")
        if r.get("section") == "c" and "autograd_correct" in r:
            print(f"Autograd through the fused path: {'correct' if r['autograd_correct'] else 'WRONG'}.\n")
        if r.get("section") == "j":
            print(f"{r['kernel']}: {'correct' if r['correct'] else 'WRONG'}; layout rewritten: {r['layout_rewritten']}.\n")


if __name__ == "__main__":
    main(sys.argv[1])
