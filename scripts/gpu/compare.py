#!/usr/bin/env python3
"""Side by side: `mpi2nccl bench-gpu --json` (Java) and torch_peer.py --json (PyTorch), same GPU, same run, with the
targets: GEMM within 5% of PyTorch's cuBLAS; elementwise/reduction kernels >= 80% of the copy bandwidth
measured in the same run; the CNN train step no slower than PyTorch eager.
Usage: compare.py JAVA.json TORCH.json
"""
import json
import sys


def load(path):
    with open(path) as f:
        doc = json.load(f)
    return doc, {r["name"]: r for r in doc["results"]}


def main():
    java_doc, java = load(sys.argv[1])
    torch_doc, torch = load(sys.argv[2])
    print(f"Java:    {java_doc.get('device')}")
    print(f"PyTorch: torch {torch_doc.get('torch')} on {torch_doc.get('device')}")
    print(f"{'group':10s} {'measurement':44s} {'java':>10s} {'torch':>10s} {'unit':9s} {'java/torch':>10s}  target")
    copy_java = java.get("copy (cuMemcpyDtoD)", {}).get("value")
    verdicts = []
    for name, j in java.items():
        t = torch.get(name)
        ratio = j["value"] / t["value"] if t and t["value"] else None
        target = ""
        if j["group"] == "gemm" and ratio is not None:
            ok = ratio >= 0.95
            target = f"{'MET' if ok else 'MISSED'} (>= 0.95x cuBLAS via torch)"
            verdicts.append(ok)
        elif j["group"] == "bandwidth" and not name.startswith("copy") and copy_java:
            share = j["value"] / copy_java
            ok = share >= 0.80
            target = f"{'MET' if ok else 'MISSED'}: {100 * share:.0f}% of our copy (>= 80%)"
            verdicts.append(ok)
        elif j["group"] == "train" and ratio is not None:
            ok = ratio >= 1.0
            target = f"{'MET' if ok else 'MISSED'} (samples/s >= PyTorch eager)"
            verdicts.append(ok)
        tv = f"{t['value']:10.2f}" if t else f"{'-':>10s}"
        rv = f"{ratio:10.2f}" if ratio is not None else f"{'-':>10s}"
        print(f"{j['group']:10s} {name:44s} {j['value']:10.2f} {tv} {j['unit']:9s} {rv}  {target}")
    print(f"targets met: {sum(verdicts)} of {len(verdicts)}")


if __name__ == "__main__":
    main()
