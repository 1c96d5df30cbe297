"""Prints the markdown table of a results file of run.py (bench/triton/README.md)."""

import json
import sys


def main(path):
    data = json.load(open(path))
    print(f"{data['info']['device']}, Triton {data['info']['triton']}, PyTorch {data['info']['torch']}\n")
    print("| kernel | size | LEGO | hand-written | LEGO / hand | torch | LEGO / torch | correct | tile config |")
    print("|---|---|---:|---:|---:|---:|---:|---|---|")
    for r in data["rows"]:
        if "error" in r:
            print(f"| {r['kernel']} | | error: {r['error']} | | | | | | |")
            continue
        scale, unit = (1000, "GB/s") if r["unit"] == "GB/s" else (1000, "TFLOP/s")
        fmt = lambda v: "—" if v is None else f"{v * scale:.0f} {unit}"
        ratio = "—" if r["ratio"] is None else f"{r['ratio']:.3f}"
        vs_torch = "—" if r["torch"] is None else f"{r['lego'] / r['torch']:.3f}"
        print(f"| {r['kernel']} | {r['size']} | {fmt(r['lego'])} | {fmt(r['hand'])} | {ratio} | {fmt(r['torch'])} | "
              f"{vs_torch} | {'yes' if r['correct'] else 'NO'} | {r['note']} |")


if __name__ == "__main__":
    main(sys.argv[1])
