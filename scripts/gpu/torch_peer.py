#!/usr/bin/env python3
"""PyTorch peer of `mpi2nccl bench-gpu`: the same measurements with PyTorch's own kernels and cuBLAS, on the same
GPU in the same run, written in the same JSON shape (results[].group/name/value/unit/ms/note) so compare.py can
put them side by side. Timing: CUDA events (GPU work) or wall clock after synchronize (host copies, train step);
the median of --reps repetitions after warm-up runs, as in the Java bench.
"""
import argparse
import json
import statistics
import time

import torch


def gpu_ms(fn, reps, warmup=3):
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    times = []
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    for _ in range(reps):
        start.record()
        fn()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end))
    return statistics.median(times)


def host_ms(fn, reps):
    fn()
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(times)


def result(group, name, value, unit, ms, note=""):
    print(f"{group:10s} {name:44s} {value:10.2f} {unit:8s} {ms:9.3f} ms  {note}")
    return {"group": group, "name": name, "value": value, "unit": unit, "ms": ms, "note": note}


GEMM_WARMUP_SECONDS = 1.0   # untimed GEMMs first: clocks and temperature settle (as CudaBenchmarks.gemm)
GEMM_BATCH = 10             # GEMMs queued back to back per timed sample: the launch time stays out
GEMM_MIN_SAMPLES = 30


def gemm(n, reps):
    """torch.mm(a, b, out=c) on row-major n x n float32, TF32 off and on: the same shapes, layout, warm-up, batches
    and median as the Java bench (CudaBenchmarks.gemm). torch calls cublasSgemm with the handle's math mode set from
    allow_tf32 and a 32 MiB workspace on Hopper (CUBLAS_WORKSPACE_CONFIG overrides both sides alike)."""
    out = []
    a = torch.rand(n, n, device="cuda") * 2 - 1
    b = torch.rand(n, n, device="cuda") * 2 - 1
    c = torch.empty(n, n, device="cuda")
    for tf32 in (False, True):
        torch.backends.cuda.matmul.allow_tf32 = tf32
        fn = lambda: torch.mm(a, b, out=c)
        warm = 0
        t_end = time.perf_counter() + GEMM_WARMUP_SECONDS
        while True:
            for _ in range(10):
                fn()
            warm += 10
            torch.cuda.synchronize()
            if time.perf_counter() >= t_end:
                break
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        samples = []
        for _ in range(max(reps, GEMM_MIN_SAMPLES)):
            start.record()
            for _ in range(GEMM_BATCH):
                fn()
            end.record()
            end.synchronize()
            samples.append(start.elapsed_time(end) / GEMM_BATCH)
        ms = statistics.median(samples)
        tflops = sorted(2 * n ** 3 / (t * 1e-3) / 1e12 for t in samples)
        out.append(result("gemm", f"sgemm {n}^3 {'tf32' if tf32 else 'float32'}", 2 * n ** 3 / (ms * 1e-3) / 1e12,
                          "TFLOP/s", ms, f"torch.mm, allow_tf32={tf32}; median of {len(samples)} samples of {GEMM_BATCH} back to back "
                          f"({tflops[0]:.1f} .. {tflops[-1]:.1f} TFLOP/s) after {warm} warm-up GEMMs"))
    torch.backends.cuda.matmul.allow_tf32 = False
    return out


def gemm_calls(n):
    """One torch.mm per TF32 setting, synchronized, nothing else: run with cuBLAS's API log on
    (CUBLAS_LOGINFO_DBG=1 CUBLAS_LOGDEST_DBG=FILE) it shows the calls, math mode and workspace PyTorch hands cuBLAS
    (set it beside the toolkit's own log of bench-gpu --only gemm-calls to compare the two)."""
    a = torch.rand(n, n, device="cuda") * 2 - 1
    b = torch.rand(n, n, device="cuda") * 2 - 1
    c = torch.empty(n, n, device="cuda")
    torch.cuda.synchronize()
    out = []
    for tf32 in (False, True):
        torch.backends.cuda.matmul.allow_tf32 = tf32
        print(f"gemm-calls: torch.mm, allow_tf32={tf32}, preferred BLAS library {torch.backends.cuda.preferred_blas_library()}", flush=True)
        ms = gpu_ms(lambda: torch.mm(a, b, out=c), 1, warmup=0)
        out.append(result("gemm-call", f"sgemm {n}^3 {'tf32' if tf32 else 'float32'}", 2 * n ** 3 / (ms * 1e-3) / 1e12, "TFLOP/s", ms,
                          "one call, no warm-up: for the cuBLAS log, not a figure"))
    torch.backends.cuda.matmul.allow_tf32 = False
    return out


def bandwidth(mib, reps):
    n = mib * (1 << 20) // 4
    side = int(n ** 0.5)
    a = torch.rand(n, device="cuda") + 0.5
    b = torch.rand(n, device="cuda") + 0.5
    c = torch.zeros(n, device="cuda")
    out = []
    copy_ms = gpu_ms(lambda: c.copy_(a), reps)
    copy = 2 * n * 4 / (copy_ms * 1e-3) / 1e9
    out.append(result("bandwidth", "copy (cuMemcpyDtoD)", copy, "GB/s", copy_ms, "reference: tensor.copy_"))
    p = torch.zeros(n, device="cuda", requires_grad=True)
    p.grad = a
    try:
        opt = torch.optim.SGD([p], lr=1e-9, momentum=0.9, fused=True)
        opt_note = "torch.optim.SGD fused=True"
    except (TypeError, RuntimeError):
        opt = torch.optim.SGD([p], lr=1e-9, momentum=0.9, foreach=True)
        opt_note = "torch.optim.SGD foreach=True"
    cases = [
        ("fill", 1, lambda: c.fill_(1.0)),
        ("add a+b", 3, lambda: torch.add(a, b, out=c)),
        ("mul a*2", 2, lambda: torch.mul(a, 2.0, out=c)),
        ("exp", 2, lambda: torch.exp(a, out=c)),
        ("relu", 2, lambda: torch.clamp_min(a, 0.0, out=c)),
        ("sgd step (momentum)", 5, lambda: opt.step()),
        ("sum (all)", 1, lambda: a.sum()),
        ("max (all)", 1, lambda: a.max()),
        (f"sum rows ({n // 1024} x 1024)", 1, lambda: a.view(-1, 1024).sum(1)),
        (f"sum columns (1024 x {n // 1024})", 1, lambda: a.view(1024, -1).sum(0)),
        (f"transpose {side}x{side}", 2, lambda: c[: side * side].view(side, side).copy_(a[: side * side].view(side, side).t())),
    ]
    for name, passes, fn in cases:
        ms = gpu_ms(fn, reps)
        traffic = 2 * side * side * 4 if name.startswith("transpose") else passes * n * 4
        gbs = traffic / (ms * 1e-3) / 1e9
        out.append(result("bandwidth", name, gbs, "GB/s", ms, f"{100 * gbs / copy:.0f}% of copy" + (f"; {opt_note}" if "sgd" in name else "")))
    return out


def staging(sizes_mib, reps):
    out = []
    for mib in sizes_mib:
        n = mib * (1 << 20) // 4
        nbytes = n * 4
        d = torch.empty(n, device="cuda")
        pageable = torch.full((n,), 1.25)
        pinned = torch.full((n,), 1.25).pin_memory()
        label = f"{mib} MiB"

        def h2d(src):
            d.copy_(src, non_blocking=True)
            torch.cuda.synchronize()

        def d2h(dst):
            dst.copy_(d, non_blocking=True)
            torch.cuda.synchronize()

        for name, fn in ((f"float[] -> GPU (pageable) {label}", lambda: h2d(pageable)),
                         (f"GPU -> float[] (pageable) {label}", lambda: d2h(pageable)),
                         (f"pinned -> GPU {label}", lambda: h2d(pinned)),
                         (f"GPU -> pinned {label}", lambda: d2h(pinned))):
            ms = host_ms(fn, reps)
            out.append(result("staging", name, nbytes / (ms * 1e-3) / 1e9, "GB/s", ms, "tensor.copy_"))
    return out


def cnn(c1, c2):
    nn = torch.nn
    # Models.cnn(c1, c2) of the toolkit: two blocks conv3x3(no bias)-BN-ReLU-maxpool2, then 128 hidden, 10 out
    return nn.Sequential(
        nn.Conv2d(1, c1, 3, 1, 1, bias=False), nn.BatchNorm2d(c1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(c1, c2, 3, 1, 1, bias=False), nn.BatchNorm2d(c2), nn.ReLU(), nn.MaxPool2d(2),
        nn.Flatten(), nn.Linear(c2 * 7 * 7, 128), nn.ReLU(), nn.Linear(128, 10))


TRAIN_WARMUP_SECONDS = 3.0   # untimed steps first, as TrainStepBench.trainStep (the JIT there, caches and clocks here)
TRAIN_MIN_STEPS = 100         # fewest timed steps; the figure is their median


TRAIN_MODES = ("eager", "cudnn-benchmark", "cuda-graph", "channels-last-graph", "compile")
MODE_SUFFIX = {"eager": "", "cudnn-benchmark": " cudnn.benchmark", "cuda-graph": " cuda graph",
               "channels-last-graph": " channels-last cudnn.benchmark cuda graph", "compile": " torch.compile"}
# the modes that let cuDNN time its convolution algorithms on the first step of each shape and keep the fastest; the
# others run with cudnn.benchmark off (PyTorch's default), set per mode since the flag is process-wide
CUDNN_BENCHMARK_MODES = ("cudnn-benchmark", "channels-last-graph")


def kernel_table(step, steps, what):
    """The GPU kernels of `steps` steps under torch.profiler, summed by name, largest first: which kernels a mode
    runs (torch.compile's fused ones, cuDNN's convolutions) and how long each takes."""
    from torch.profiler import ProfilerActivity, profile
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(steps):
            step()
    print(f"== kernels of {steps} steps, {what}")
    print(prof.key_averages().table(sort_by="cuda_time_total", row_limit=30, max_name_column_width=90))


def captured_step(model, opt, loss_fn, x, y):
    """The whole training step (forward, loss, backward, the optimizer) captured once as a CUDA graph, after a warm-up
    on a side stream, as PyTorch's CUDA graphs notes say for whole-network capture. Replaying it runs the step again."""
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for _ in range(3):
            opt.zero_grad(set_to_none=True)
            loss_fn(model(x), y).backward()
            opt.step()
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    opt.zero_grad(set_to_none=True)     # backward in the graph then writes the gradients, from its own pool
    with torch.cuda.graph(graph):
        loss_fn(model(x), y).backward()
        opt.step()
    return graph


def train_step(batch, c1, c2, lr, momentum, reps, mode="eager", warmup_s=TRAIN_WARMUP_SECONDS, profile_steps=0):
    """One training step of the toolkit's lesson CNN, synchronized per step, in one of PyTorch's modes:
    eager; cudnn-benchmark, eager with torch.backends.cudnn.benchmark on; cuda-graph, the whole step (forward, loss,
    backward, SGD) captured once and replayed, as in PyTorch's CUDA graphs notes for whole-network capture;
    channels-last-graph, the same capture with the model and batch in channels-last (NHWC) memory format and
    cudnn.benchmark on, the layout and setting PyTorch's performance tuning guide recommends for convolutions;
    compile, the model through torch.compile (default mode, static shapes: one compilation per batch), the optimizer
    eager. The figure is named as the toolkit's eager step (TrainStepBench), with the mode after it."""
    torch.manual_seed(0)
    torch._dynamo.reset()
    torch.backends.cudnn.benchmark = mode in CUDNN_BENCHMARK_MODES
    model = cnn(c1, c2).cuda().train()
    x = torch.rand(batch, 1, 28, 28, device="cuda")
    if mode == "channels-last-graph":
        model = model.to(memory_format=torch.channels_last)
        x = x.contiguous(memory_format=torch.channels_last)
    opt = torch.optim.SGD(model.parameters(), lr=lr, momentum=momentum)
    loss_fn = torch.nn.CrossEntropyLoss()
    y = torch.randint(0, 10, (batch,), device="cuda")
    note = ""

    def eager_step(net):
        opt.zero_grad(set_to_none=True)
        loss = loss_fn(net(x), y)
        loss.backward()
        opt.step()

    if mode in ("eager", "cudnn-benchmark"):
        def step():
            eager_step(model)
            torch.cuda.synchronize()
    elif mode == "compile":
        compiled = torch.compile(model, dynamic=False)
        t0 = time.perf_counter()
        eager_step(compiled)            # compiles forward and backward
        torch.cuda.synchronize()
        note = f"; compiled in {time.perf_counter() - t0:.1f} s"

        def step():
            eager_step(compiled)
            torch.cuda.synchronize()
    elif mode in ("cuda-graph", "channels-last-graph"):
        # with cudnn.benchmark on, the warm-up steps before the capture time the algorithms: the capture then only
        # looks them up (timing inside a capture is not allowed)
        graph = captured_step(model, opt, loss_fn, x, y)

        def step():
            graph.replay()
            torch.cuda.synchronize()
    else:
        raise SystemExit(f"train mode {mode!r}: use some of {', '.join(TRAIN_MODES)}")

    warm = 0
    t_end = time.perf_counter() + warmup_s
    while warm < 10 or time.perf_counter() < t_end:
        step()
        warm += 1
    steps = max(reps, TRAIN_MIN_STEPS)
    ms = host_ms(step, steps)
    if profile_steps:
        kernel_table(step, profile_steps, f"batch {batch}, {mode}")
    name = f"cnn train step batch {batch} ({c1},{c2}){MODE_SUFFIX[mode]}"
    how = {"eager": "PyTorch eager", "cudnn-benchmark": "PyTorch eager, cudnn.benchmark on",
           "cuda-graph": "PyTorch, the whole step as one CUDA graph",
           "channels-last-graph": "PyTorch, channels-last model and batch, cudnn.benchmark on, the whole step as one CUDA graph",
           "compile": "torch.compile(model, dynamic=False), optimizer eager"}[mode]
    return [result("train", name, batch / (ms * 1e-3), "samples/s", ms,
                   f"{how}, SGD momentum, synchronized per step; median of {steps} steps after {warm} warm-up steps "
                   f"({warmup_s:.1f} s){note}")]


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--json")
    ap.add_argument("--only", default="gemm,bandwidth,staging,train")
    ap.add_argument("--gemm-size", type=int, default=4096)
    ap.add_argument("--mib", type=int, default=256)
    ap.add_argument("--staging-mib", default="1,16,64,256")
    ap.add_argument("--reps", type=int, default=20)
    ap.add_argument("--batch", default="128", help="batches of the train step, comma-separated (128,512,2048,8192)")
    ap.add_argument("--train-modes", default="eager", help=f"comma-separated, some of {','.join(TRAIN_MODES)}")
    ap.add_argument("--profile-steps", type=int, default=0, help="after each train figure, this many steps under torch.profiler: a kernel table")
    ap.add_argument("--train-warmup", type=float, default=TRAIN_WARMUP_SECONDS, help="seconds of untimed steps per batch and mode")
    ap.add_argument("--c1", type=int, default=32)
    ap.add_argument("--c2", type=int, default=64)
    args = ap.parse_args()
    only = set(args.only.split(","))
    bad = [m for m in args.train_modes.split(",") if m not in TRAIN_MODES]
    if bad:
        ap.error(f"--train-modes {','.join(bad)}: use some of {','.join(TRAIN_MODES)}")
    torch.backends.cudnn.allow_tf32 = False
    dev = torch.cuda.get_device_name(0)
    print(f"torch {torch.__version__} on {dev}, cuBLAS/cuDNN from the torch wheel")
    results = []
    if "gemm-calls" in only:
        results += gemm_calls(args.gemm_size)
    if "gemm" in only:
        results += gemm(args.gemm_size, args.reps)
    if "bandwidth" in only:
        results += bandwidth(args.mib, args.reps)
    if "staging" in only:
        results += staging([int(s) for s in args.staging_mib.split(",")], max(3, args.reps // 4))
    if "train" in only:
        for batch in [int(b) for b in args.batch.split(",")]:
            for mode in args.train_modes.split(","):
                results += train_step(batch, args.c1, args.c2, 0.05, 0.9, max(20, args.reps), mode, args.train_warmup,
                                      args.profile_steps)
                save(args.json, dev, results, final=False)   # a sweep cut short by its time limit keeps what it measured
    save(args.json, dev, results, final=True)


def save(path, dev, results, final):
    if not path:
        return
    with open(path, "w") as f:
        json.dump({"device": dev, "torch": torch.__version__, "results": results}, f, indent=2)
    if final:
        print("written:", path)


if __name__ == "__main__":
    main()
